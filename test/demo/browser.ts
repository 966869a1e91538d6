/**
 * Browser-test plumbing for the demo: find Debian's chromium, serve the demo exactly as
 * `npm start` does (scripts/start.mjs: vite build, then vite preview on 127.0.0.1 and a free
 * port), drive headless chromium with playwright-core, and compare pixels.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

/** Repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where screenshots go (gitignored). */
export const outputDir = path.join(repoRoot, 'test-output/demo');

/** First chromium found ($CHROMIUM_PATH, then Debian's and common paths), or null. */
export function findChromium(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  for (const c of candidates) if (c && existsSync(c)) return c;
  return null;
}

/** Chromium flags: headless, no sandbox (CI runs as root), software WebGL (SwiftShader). */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** A running demo server. */
export interface DemoServer {
  /** Base URL with a trailing slash. */
  url: string;
  /** Everything the start script printed. */
  log(): string;
  /** Stop the server (the child process this helper started). */
  stop(): Promise<void>;
}

/**
 * Run `node scripts/start.mjs` (build + preview) on 127.0.0.1 and a free port; resolves with
 * the URL it prints. Rejects with the script's output when it exits or times out.
 */
export async function startDemoServer(timeoutMs = 240_000): Promise<DemoServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['scripts/start.mjs', '--host', '127.0.0.1', '--port', String(port), '--strict-port'], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`demo server did not start in ${timeoutMs} ms:\n${out}`)); }, timeoutMs);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /bitrig demo: (http:\/\/\S+)/.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!.endsWith('/') ? m[1]! : `${m[1]}/`); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`demo server exited with ${code}:\n${out}`)); });
  });
  return {
    url,
    log: () => out,
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) { resolve(); return; }
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => { if (child.exitCode === null) child.kill('SIGKILL'); }, 5000).unref();
    }),
  };
}

/** A persistent headless chromium context with a fresh profile, removed on close. */
export async function launchChromium(executablePath: string): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'bitrig-demo-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 760 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Pixels of a view as the page's `__bitrigDemo.grab(view)` returns them. */
export interface Grab {
  /** Width. */
  w: number;
  /** Height. */
  h: number;
  /** RGBA, base64. */
  data: string;
}

/** Pixels whose largest channel difference exceeds `tol` (0…255). Sizes must match. */
export function pixelDiff(a: Grab, b: Grab, tol = 16): number {
  if (a.w !== b.w || a.h !== b.h) throw new Error(`pixelDiff: sizes differ (${a.w}×${a.h} vs ${b.w}×${b.h})`);
  const x = Buffer.from(a.data, 'base64'), y = Buffer.from(b.data, 'base64');
  let n = 0;
  for (let i = 0; i < x.length; i += 4) {
    const d = Math.max(Math.abs(x[i]! - y[i]!), Math.abs(x[i + 1]! - y[i + 1]!), Math.abs(x[i + 2]! - y[i + 2]!));
    if (d > tol) n++;
  }
  return n;
}

/** Pixels that differ from a flat colour by more than `tol` in some channel. */
export function pixelsNotColour(g: Grab, rgb: [number, number, number], tol = 20): number {
  const x = Buffer.from(g.data, 'base64');
  let n = 0;
  for (let i = 0; i < x.length; i += 4) {
    if (Math.abs(x[i]! - rgb[0]) > tol || Math.abs(x[i + 1]! - rgb[1]) > tol || Math.abs(x[i + 2]! - rgb[2]) > tol) n++;
  }
  return n;
}
