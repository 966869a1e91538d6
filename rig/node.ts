/**
 * Node-only file helpers around the rig pass: read a GLB file, run {@link rigGlb}, write the
 * result atomically (temp file in the same folder, then rename). Never writes over its
 * input. Not part of the browser-safe `bitrig/rig` core; the CLI and Node scripts import it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import type { RigOptions } from './options';
import type { RigReport } from './pass';
import { rigGlb } from './glb';

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

/**
 * While a temp file is being written: on SIGINT (Ctrl-C) or SIGTERM remove it, then, when
 * nothing else listens for that signal, exit with 130 or 143 (what the default action would
 * have reported, without leaving a hidden temp file beside the output). A program that listens
 * itself keeps its own shutdown: the file is removed and the pending write then fails.
 * Returns `release`, which removes the listeners; call it when the write is over, also on
 * failure (no listener stays installed).
 *
 * @example
 * const release = removeTempOnSignal(tmp);
 * try { await fs.writeFile(tmp, bytes); await fs.rename(tmp, file); } finally { release(); }
 */
export function removeTempOnSignal(tmp: string, target: SignalTarget = process as unknown as SignalTarget): () => void {
  let released = false;
  const handle = (signal: 'SIGINT' | 'SIGTERM'): void => {
    release();
    try {
      rmSync(tmp, { force: true });
    } catch {
      // (nothing more can be done while being interrupted)
    }
    if (target.listenerCount(signal) === 0) target.exit(SIGNAL_EXIT_CODES[signal]);
  };
  const onInt = (): void => handle('SIGINT');
  const onTerm = (): void => handle('SIGTERM');
  target.on('SIGINT', onInt);
  target.on('SIGTERM', onTerm);
  function release(): void {
    if (released) return;
    released = true;
    target.off('SIGINT', onInt);
    target.off('SIGTERM', onTerm);
  }
  return release;
}

/**
 * Write `bytes` to `file` atomically: a temp file beside it, then a rename. On failure the
 * temp file is removed and `file` is untouched; so it is on SIGINT or SIGTERM during the
 * write, and the process then exits with 130 or 143 (see {@link removeTempOnSignal}).
 *
 * @example
 * await writeFileAtomic('out.glb', glb);
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array | string): Promise<void> {
  if (!file) throw Object.assign(new Error('no output path given'), { code: 'EINVAL' });
  // Replace a file, never a folder or a device (a rename would swap a device node for a file).
  const st = await fs.lstat(file).catch(() => null);
  if (st && !st.isFile() && !st.isSymbolicLink()) throw Object.assign(new Error(`${file} is ${st.isDirectory() ? 'a folder' : 'not a regular file'}`), { code: st.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const release = removeTempOnSignal(tmp);
  try {
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  } finally {
    release();
  }
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

/**
 * Read a GLB file, run the rig pass and write the result atomically. Throws
 * `bitrig/rig: …` when the input is missing or bad, or when `output` is the input.
 *
 * @example
 * const report = await rigFile('fox.glb', 'fox-rigged.glb', { mode: 'chain' });
 */
export async function rigFile(input: string, output: string, options: Partial<RigOptions> = {}): Promise<RigReport> {
  if (await samePath(input, output)) throw new Error(`bitrig/rig: refusing to write over the input ${input} (choose another output path)`);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await fs.readFile(input));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(`bitrig/rig: cannot read ${input}${code === 'ENOENT' ? ' (no such file)' : code === 'EISDIR' ? ' (it is a folder)' : code ? ` (${code})` : ''}`);
  }
  const { glb, report } = await rigGlb(bytes, options);
  await writeOrExplain(output, glb, 'bitrig/rig');
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
    const why = err.code === 'EISDIR' ? 'it is a folder' : err.code === 'ENOTFILE' ? 'it is not a regular file' : err.code === 'ENOENT' ? 'its folder does not exist'
      : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'permission denied' : err.code === 'ENOSPC' || err.code === 'EFBIG' || err.code === 'EDQUOT' ? 'no space left' : err.code ?? err.message;
    throw new Error(`${module}: cannot write ${file || '(empty path)'} (${why})`);
  }
}
