/**
 * Node-only file helpers around the rig pass: read a GLB file, run {@link rigGlb}, write the
 * result atomically (temp file in the same folder, then rename). Never writes over its
 * input. Not part of the browser-safe `bitrig/rig` core; the CLI and Node scripts import it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import type { RigOptions, RigOptionsInput } from './options';
import type { RigReport } from './pass';
import { rigGlb } from './glb';
import { INPUT_LIMITS } from './validate/limits';

/** The part of `process` that {@link removeTempOnSignal} uses (a stand-in in tests). */
export interface SignalTarget {
  /** Add a signal listener. */
  on(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  /** Remove a signal listener. */
  off(signal: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  /** Listeners of a signal. */
  listenerCount(signal: 'SIGINT' | 'SIGTERM'): number;
  /** End the process with a code. */
  exit(code: number): void;
}

/** Exit codes after a signal, as shells report them (128 + the signal's number). */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** What {@link removeTempOnSignal} returns: call it when the write is over; `signal` says whether a signal removed the temp file. */
export interface TempRelease {
  /** Stop guarding the temp file (idempotent). The last guard of a process removes the shared listeners. */
  (): void;
  /** The signal that removed the temp file while it was guarded, or null. */
  readonly signal: 'SIGINT' | 'SIGTERM' | null;
}

interface TempGuard {
  tmp: string;
  signal: 'SIGINT' | 'SIGTERM' | null;
}

interface SharedGuards {
  guards: Set<TempGuard>;
  onInt: () => void;
  onTerm: () => void;
}

/** One SIGINT and one SIGTERM listener per target, shared by every temp file being written. */
const sharedGuards = new WeakMap<SignalTarget, SharedGuards>();

/**
 * While a temp file is being written: on SIGINT (Ctrl-C) or SIGTERM remove it, then, when
 * nothing else listens for that signal, exit with 130 or 143 (what the default action would
 * have reported, without leaving a hidden temp file beside the output). A program that listens
 * itself keeps its own shutdown: the file is removed, `release.signal` names the signal and
 * the pending write fails saying it was interrupted. All temp files being written share one
 * listener pair, installed with the first and removed after the last (twelve concurrent writes
 * add two listeners, not 24: no MaxListenersExceededWarning). Returns `release`; call it when
 * the write is over, also on failure (no listener stays installed).
 *
 * @example
 * const release = removeTempOnSignal(tmp);
 * try { await fs.writeFile(tmp, bytes); await fs.rename(tmp, file); } finally { release(); }
 */
export function removeTempOnSignal(tmp: string, target: SignalTarget = process as unknown as SignalTarget): TempRelease {
  const guard: TempGuard = { tmp, signal: null };
  let shared = sharedGuards.get(target);
  if (!shared) {
    const handle = (signal: 'SIGINT' | 'SIGTERM'): void => {
      const s = sharedGuards.get(target);
      if (!s) return;
      sharedGuards.delete(target);
      target.off('SIGINT', s.onInt);
      target.off('SIGTERM', s.onTerm);
      for (const g of s.guards) {
        g.signal = signal;
        try {
          rmSync(g.tmp, { force: true });
        } catch {
          // (nothing more can be done while being interrupted)
        }
      }
      s.guards.clear();
      if (target.listenerCount(signal) === 0) target.exit(SIGNAL_EXIT_CODES[signal]);
    };
    shared = { guards: new Set(), onInt: () => handle('SIGINT'), onTerm: () => handle('SIGTERM') };
    sharedGuards.set(target, shared);
    target.on('SIGINT', shared.onInt);
    target.on('SIGTERM', shared.onTerm);
  }
  shared.guards.add(guard);
  const release = (): void => {
    const s = sharedGuards.get(target);
    if (!s || !s.guards.delete(guard) || s.guards.size > 0) return;
    sharedGuards.delete(target);
    target.off('SIGINT', s.onInt);
    target.off('SIGTERM', s.onTerm);
  };
  Object.defineProperty(release, 'signal', { get: () => guard.signal, enumerable: true });
  return release as TempRelease;
}

/** The error a write interrupted by a signal rejects with (code `EINTR`, `signal` set). */
function interrupted(file: string, signal: 'SIGINT' | 'SIGTERM'): Error {
  return Object.assign(new Error(`writing ${file} was interrupted by ${signal}; the temp file was removed and ${file} is as it was`), { code: 'EINTR', signal });
}

/** One file of {@link writeFilesAtomic}. */
export interface AtomicFile {
  /** Where it goes. */
  file: string;
  /** What it holds. */
  bytes: Uint8Array | string;
}

/** Refuse to replace a folder or a device (a rename would swap a device node for a file). */
async function assertReplaceable(file: string): Promise<void> {
  if (!file) throw Object.assign(new Error('no output path given'), { code: 'EINVAL' });
  const st = await fs.lstat(file).catch(() => null);
  if (st && !st.isFile() && !st.isSymbolicLink()) throw Object.assign(new Error(`${file} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}`), { code: st.isDirectory() ? 'EISDIR' : 'ENOTFILE', path: file });
}

/**
 * Write several files all or nothing: each to a temp file beside it first, and only when every
 * temp file is written are they renamed into place, in order. On failure (a folder that is
 * not writable, a full disk) every temp file is removed and no file is touched; so it is on
 * SIGINT or SIGTERM during the writes, and the process then exits with 130 or 143 (see
 * {@link removeTempOnSignal}). A failing error carries the `path` it was writing. In a
 * program that listens for the signal itself the write rejects instead, with code `EINTR`.
 *
 * @example
 * await writeFilesAtomic([{ file: 'out.glb', bytes: glb }, { file: 'out.json', bytes: json }]);
 */
export async function writeFilesAtomic(files: readonly AtomicFile[]): Promise<void> {
  for (const f of files) await assertReplaceable(f.file);
  const temps = files.map((f) => path.join(path.dirname(path.resolve(f.file)), `.${path.basename(f.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`));
  const releases = temps.map((t) => removeTempOnSignal(t));
  const signal = (): 'SIGINT' | 'SIGTERM' | null => releases.find((r) => r.signal)?.signal ?? null;
  let renamed = 0;
  try {
    for (let i = 0; i < files.length; i++) {
      try {
        await fs.writeFile(temps[i]!, files[i]!.bytes);
      } catch (e) {
        throw Object.assign(e as Error, { path: files[i]!.file });
      }
    }
    // A signal during a write removed the temp files (or a write recreated one after the
    // removal): never rename a file the signal handler gave up on.
    const sig = signal();
    if (sig) throw interrupted(files.map((f) => f.file).join(' and '), sig);
    for (let i = 0; i < files.length; i++) {
      await fs.rename(temps[i]!, files[i]!.file).catch((e: Error) => { throw Object.assign(e, { path: files[i]!.file }); });
      renamed++;
    }
  } catch (e) {
    for (let i = renamed; i < temps.length; i++) await fs.rm(temps[i]!, { force: true });
    const sig = signal();
    throw sig ? interrupted(files.map((f) => f.file).join(' and '), sig) : e;
  } finally {
    for (const r of releases) r();
  }
}

/**
 * Write `bytes` to `file` atomically: a temp file beside it, then a rename (see
 * {@link writeFilesAtomic}, of which this is the one-file case). On failure the temp file is
 * removed and `file` is untouched.
 *
 * @example
 * await writeFileAtomic('out.glb', glb);
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array | string): Promise<void> {
  await writeFilesAtomic([{ file, bytes }]);
}

/**
 * Read a file of at most `max` bytes (default: the GLB size limit), in chunks, so that a
 * device or a pipe that never ends stops at the limit instead of filling the memory. With
 * `glb`, reading stops after the first chunk when the file does not start with "glTF"
 * (`/dev/zero` is refused at once as not a GLB). Throws `<module>: cannot read <file> (<reason>)` or `<module>: <file> is larger
 * than <max> bytes …`.
 *
 * @example
 * const bytes = await readFileCapped('fox.glb', 'bitrig/rig');
 */
export async function readFileCapped(file: string, module: string, max: number = INPUT_LIMITS.maxGlbBytes, options: { glb?: boolean } = {}): Promise<Uint8Array> {
  let h: Awaited<ReturnType<typeof fs.open>>;
  try {
    h = await fs.open(file, 'r');
    const st = await h.stat();
    if (st.isDirectory()) { await h.close(); throw Object.assign(new Error('folder'), { code: 'EISDIR' }); }
  } catch (e) {
    const why = readFailure((e as NodeJS.ErrnoException).code);
    throw new Error(`${module}: cannot read ${file}${why ? ` (${why})` : ''}`);
  }
  const tooBig = (): Error => new Error(`${module}: ${file} is larger than ${max} bytes, the most bitrig reads (is it a GLB?)`);
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const chunk = new Uint8Array(Math.min(1 << 20, max + 1 - total));
      const { bytesRead } = await h.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) throw tooBig();
      // Not a GLB (its first four bytes are not "glTF"): what was read is enough to say so.
      if (options.glb && total >= 4 && !(chunks[0]![0] === 0x67 && chunks[0]![1] === 0x6c && chunks[0]![2] === 0x54 && chunks[0]![3] === 0x46)) break;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out;
  } catch (e) {
    if ((e as Error).message.startsWith(module)) throw e;
    const why = readFailure((e as NodeJS.ErrnoException).code);
    throw new Error(`${module}: cannot read ${file}${why ? ` (${why})` : ''}`);
  } finally {
    await h.close();
  }
}

/**
 * Why a file could not be read, in words, from its error code: `no such file`, `it is a
 * folder`, `permission denied`, else the code itself ('' without one). The CLI's commands
 * all say it the same way: `cannot read <file> (<reason>)`.
 *
 * @example
 * readFailure('EISDIR'); // 'it is a folder'
 */
export function readFailure(code: string | undefined): string {
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'ENOTDIR' ? 'a folder on its path is a file' : code ?? '';
}

/** Options of {@link checkOutputPath}. */
export interface OutputCheckOptions {
  /** The file must be named `.glb` (bitrig writes binary glTF only). */
  glb: boolean;
  /** How the file is named in messages (`the report `), before the path. */
  label: string;
}

/**
 * Check an output path before any work is done, so that a long run does not end in
 * "cannot write": a `.glb` name when asked, not an existing folder or device, and an existing
 * folder to write into. Throws `<module>: cannot write <label><file> (<reason>)` or
 * `<module>: the output must be a .glb file, got <file>`.
 *
 * @example
 * await checkOutputPath('out.glb', 'bitrig/rig', { glb: true });
 */
export async function checkOutputPath(file: string, module: string, options: Partial<OutputCheckOptions> = {}): Promise<void> {
  const label = options.label ?? '';
  if (!file) throw new Error(`${module}: cannot write ${label}(empty path)`);
  const st = await fs.stat(file).catch(() => null);
  if (st?.isDirectory()) throw new Error(`${module}: cannot write ${label}${file} (it is a folder)`);
  if (st && !st.isFile()) throw new Error(`${module}: cannot write ${label}${file} (it is not a regular file)`);
  if (options.glb && !/\.glb$/i.test(file)) {
    throw new Error(`${module}: the output must be a .glb file, got ${file}${/\.gltf$/i.test(file) ? ' (bitrig writes binary glTF; name it .glb)' : ''}`);
  }
  const dir = path.dirname(path.resolve(file));
  const dst = await fs.stat(dir).catch(() => null);
  if (!dst) throw new Error(`${module}: cannot write ${label}${file} (its folder ${dir} does not exist)`);
  if (!dst.isDirectory()) throw new Error(`${module}: cannot write ${label}${file} (${dir} is not a folder)`);
}

/**
 * Do two paths name the same file (after resolving links when the files exist)?
 *
 * @example
 * await samePath('a.glb', './a.glb') // true
 */
export async function samePath(a: string, b: string): Promise<boolean> {
  const ra = path.resolve(a);
  const rb = path.resolve(b);
  if (ra === rb) return true;
  try {
    const [sa, sb] = await Promise.all([fs.stat(ra), fs.stat(rb)]);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** Where {@link rigFile} reports saving the output file (then `done` at 1). */
const SAVE_AT = 0.95;

/**
 * Read a GLB file, run the rig pass and write the result atomically. Progress as
 * {@link rigGlb}'s, with `save` (95 %) before `done` (100 %, last). Throws
 * `bitrig/rig: …` when the input is missing or bad, when `output` is the input, or (before
 * reading anything) when `output` is not a `.glb` name, is a folder, or has no folder.
 *
 * @example
 * const report = await rigFile('fox.glb', 'fox-rigged.glb', { mode: 'chain' });
 */
export async function rigFile(input: string, output: string, options: RigOptionsInput = {}): Promise<RigReport> {
  if (await samePath(input, output)) throw new Error(`bitrig/rig: refusing to write over the input ${input} (choose another output path)`);
  await checkOutputPath(output, 'bitrig/rig', { glb: true });
  const bytes = await readFileCapped(input, 'bitrig/rig', undefined, { glb: true });
  const onProgress = options.onProgress ?? null;
  // rigGlb's 'done' comes once the GLB is encoded; here the file is still to be written.
  const { glb, report } = await rigGlb(bytes, {
    ...options,
    onProgress: onProgress ? (step, f) => onProgress(step === 'done' ? 'save' : step, step === 'done' ? SAVE_AT : f) : null,
  });
  await writeOrExplain(output, glb, 'bitrig/rig');
  onProgress?.('done', 1);
  return report;
}

/**
 * {@link writeFileAtomic}, with a failure turned into `<module>: cannot write <file> (<reason>)`
 * (a folder, a device, a missing or read-only folder, a full disk). The previous file is kept.
 *
 * @example
 * await writeOrExplain('out.glb', glb, 'bitrig/bake');
 */
export async function writeOrExplain(file: string, bytes: Uint8Array | string, module: string): Promise<void> {
  try {
    await writeFileAtomic(file, bytes);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'EINTR' && (err as { signal?: unknown }).signal ? `the write was interrupted by ${String((err as { signal?: unknown }).signal)}; the file is as it was` : err.code === 'EISDIR' ? 'it is a folder' : err.code === 'ENOTFILE' ? 'it is not a regular file' : err.code === 'ENOENT' ? 'its folder does not exist'
      : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'permission denied' : err.code === 'ENOSPC' || err.code === 'EFBIG' || err.code === 'EDQUOT' ? 'no space left' : err.code ?? err.message;
    throw new Error(`${module}: cannot write ${file || '(empty path)'} (${why})`);
  }
}
