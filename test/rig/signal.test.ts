/**
 * Ctrl-C (SIGINT) or SIGTERM while an output is being written (review 23): the hidden temp
 * file beside the output is removed and the process exits with 130 / 143; no signal listener
 * stays installed after a write. The cleanup is tested directly on a stand-in process, and
 * the real CLI is spawned and signalled while its write is held open by a test-only preload
 * (test/rig/slowWrite.ts), so the signal lands during the write every time. Every file goes
 * into this test's own temporary folder.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';
import { removeTempOnSignal, SIGNAL_EXIT_CODES, type SignalTarget, writeFileAtomic } from '../../rig/node';
import { repoRoot } from '../fixtures/assets';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-signal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in process: signal listeners on an EventEmitter, exit codes recorded. */
function fakeProcess(): SignalTarget & EventEmitter & { exits: number[] } {
  const em = new EventEmitter() as SignalTarget & EventEmitter & { exits: number[] };
  em.exits = [];
  em.exit = (code: number) => {
    em.exits.push(code);
  };
  return em;
}

describe('removeTempOnSignal', () => {
  it.each([['SIGINT', 130], ['SIGTERM', 143]] as const)('%s: removes the temp file, exits with %i, leaves no listener', (signal, code) => {
    const tmp = path.join(dir, `.out.glb.${signal}.tmp`);
    writeFileSync(tmp, 'half a file');
    const p = fakeProcess();
    const release = removeTempOnSignal(tmp, p);
    expect(p.listenerCount('SIGINT')).toBe(1);
    expect(p.listenerCount('SIGTERM')).toBe(1);
    p.emit(signal);
    expect(existsSync(tmp)).toBe(false);
    expect(p.exits).toEqual([code]);
    expect(SIGNAL_EXIT_CODES[signal]).toBe(code);
    expect(p.listenerCount('SIGINT')).toBe(0);
    expect(p.listenerCount('SIGTERM')).toBe(0);
    release(); // (idempotent)
    expect(p.listenerCount('SIGINT')).toBe(0);
  });

  it("a program's own listener keeps its shutdown: the file is removed, no exit is forced", () => {
    const tmp = path.join(dir, '.own.glb.tmp');
    writeFileSync(tmp, 'x');
    const p = fakeProcess();
    let theirs = 0;
    p.on('SIGINT', () => theirs++);
    removeTempOnSignal(tmp, p);
    p.emit('SIGINT');
    expect(existsSync(tmp)).toBe(false);
    expect(p.exits).toEqual([]);
    expect(theirs).toBe(1);
    expect(p.listenerCount('SIGINT')).toBe(1);
  });

  it('release before any signal: listeners gone, the file is not touched', () => {
    const tmp = path.join(dir, '.kept.glb.tmp');
    writeFileSync(tmp, 'x');
    const p = fakeProcess();
    removeTempOnSignal(tmp, p)();
    expect(p.listenerCount('SIGINT') + p.listenerCount('SIGTERM')).toBe(0);
    expect(existsSync(tmp)).toBe(true);
    rmSync(tmp);
  });

  it('twelve temp files share one SIGINT and one SIGTERM listener, removed after the last release (review 33 L)', () => {
    const p = fakeProcess();
    const releases = Array.from({ length: 12 }, (_, i) => removeTempOnSignal(path.join(dir, `.shared${i}.tmp`), p));
    expect([p.listenerCount('SIGINT'), p.listenerCount('SIGTERM')]).toEqual([1, 1]);
    // Released out of order, twice each: the pair stays until the last one goes.
    for (const i of [3, 0, 11, 5, 5, 1, 2, 4, 6, 7, 8, 9]) releases[i]!();
    expect([p.listenerCount('SIGINT'), p.listenerCount('SIGTERM')]).toEqual([1, 1]);
    releases[10]!();
    expect([p.listenerCount('SIGINT'), p.listenerCount('SIGTERM')]).toEqual([0, 0]);
    // A new write installs a fresh pair.
    const again = removeTempOnSignal(path.join(dir, '.again.tmp'), p);
    expect([p.listenerCount('SIGINT'), p.listenerCount('SIGTERM')]).toEqual([1, 1]);
    again();
    expect(p.listenerCount('SIGINT') + p.listenerCount('SIGTERM')).toBe(0);
  });

  it('one signal removes every pending temp file, exits once, and each release names the signal', () => {
    const p = fakeProcess();
    const tmps = Array.from({ length: 5 }, (_, i) => path.join(dir, `.many${i}.tmp`));
    for (const t of tmps) writeFileSync(t, 'half');
    const releases = tmps.map((t) => removeTempOnSignal(t, p));
    const done = removeTempOnSignal(path.join(dir, '.done.tmp'), p);
    done(); // (a write that finished before the signal is not touched and not marked)
    p.emit('SIGTERM');
    expect(tmps.filter((t) => existsSync(t))).toEqual([]);
    expect(p.exits).toEqual([143]);
    expect(releases.map((r) => r.signal)).toEqual(new Array(5).fill('SIGTERM'));
    expect(done.signal).toBe(null);
    expect(p.listenerCount('SIGINT') + p.listenerCount('SIGTERM')).toBe(0);
    for (const r of releases) r();
    expect(p.listenerCount('SIGINT') + p.listenerCount('SIGTERM')).toBe(0);
  });

  it('twelve concurrent writeFileAtomic calls print no MaxListenersExceededWarning and leave the listeners as they were', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      await Promise.all(Array.from({ length: 12 }, (_, i) => writeFileAtomic(path.join(dir, `c${i}.bin`), new Uint8Array(1000))));
      await new Promise((r) => setTimeout(r, 20)); // (warnings are emitted on a later tick)
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([]);
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    for (let i = 0; i < 12; i++) rmSync(path.join(dir, `c${i}.bin`));
  });

  it('writeFileAtomic leaves the process with the listeners it had, after a write and after a failed one', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    await writeFileAtomic(path.join(dir, 'ok.bin'), new Uint8Array([1, 2, 3]));
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    await expect(writeFileAtomic(path.join(dir, 'no-such-folder', 'x.bin'), new Uint8Array([1]))).rejects.toThrow();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
    rmSync(path.join(dir, 'ok.bin'));
  });
});

describe('a program with its own SIGINT listener, interrupted while writing', () => {
  it('both pending writes reject saying the write was interrupted by SIGINT; no temp file, no output, no forced exit', async () => {
    const work = mkdtempSync(path.join(dir, 'own-'));
    const script = path.join(work, 'prog.mts');
    const node = path.join(repoRoot, 'rig/node.ts');
    writeFileSync(script, [
      `import { writeOrExplain } from ${JSON.stringify(node)};`,
      "process.on('SIGINT', () => process.stderr.write('own listener\\n'));",
      'const data = new Uint8Array(100000);',
      `const ps = ['a.glb', 'b.glb'].map((f) => writeOrExplain(${JSON.stringify(work)} + '/' + f, data, 'bitrig/rig'));`,
      "void Promise.allSettled(ps).then((r) => process.stderr.write('settled ' + JSON.stringify(r.map((x) => x.status === 'rejected' ? String(x.reason.message) : 'ok')) + '\\n'));",
    ].join('\n'));
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', path.join(repoRoot, 'test/rig/slowWrite.ts'), script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sent = false;
    const done = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!sent && (stderr.match(/bitrig-test: writing /g) ?? []).length === 2) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await done;
    expect(sent, stderr).toBe(true);
    expect(stderr).toMatch(/own listener/);
    const settled = /settled (.*)\n/.exec(stderr);
    expect(settled, stderr).not.toBe(null);
    const messages = JSON.parse(settled![1]!) as string[];
    expect(messages).toEqual(['a.glb', 'b.glb'].map((f) => `bitrig/rig: cannot write ${path.join(work, f)} (the write was interrupted by SIGINT; the file is as it was)`));
    expect(readdirSync(work)).toEqual(['prog.mts']);
    expect(code).toBe(0);
  }, 60_000);
});

describe('bitrig rig interrupted while writing its output', () => {
  it.each([['SIGINT', 130], ['SIGTERM', 143]] as const)('%s during the write: exit %i, no temp file, no output', async (signal, code) => {
    const work = mkdtempSync(path.join(dir, `${signal}-`));
    const input = path.join(work, 'critter.glb');
    writeFileSync(input, await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
    const output = path.join(work, 'out.glb');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', path.join(repoRoot, 'test/rig/slowWrite.ts'), path.join(repoRoot, 'cli/main.ts'), 'rig', input, '-o', output, '--quiet'],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let tmpSeen = '';
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (c, s) => resolve({ code: c, signal: s })));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /bitrig-test: writing (.*\.tmp)\n/.exec(stderr);
      if (m && !tmpSeen) {
        tmpSeen = m[1]!;
        // The temp file exists (hidden, beside the output) while the signal is sent.
        expect(existsSync(tmpSeen)).toBe(true);
        expect(path.dirname(tmpSeen)).toBe(work);
        expect(path.basename(tmpSeen).startsWith('.out.glb.')).toBe(true);
        child.kill(signal);
      }
    });
    const exit = await done;
    expect(tmpSeen, `the write never started: ${stderr}`).not.toBe('');
    expect(readdirSync(work)).toEqual(['critter.glb']);
    expect(exit).toEqual({ code, signal: null });
  }, 60_000);
});
