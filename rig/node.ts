/**
 * Node-only file helpers around the rig pass: read a GLB file, run {@link rigGlb}, write the
 * result atomically (temp file in the same folder, then rename). Never writes over its
 * input. Not part of the browser-safe `bitrig/rig` core; the CLI and Node scripts import it.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { RigOptions } from './options';
import type { RigReport } from './pass';
import { rigGlb } from './glb';

/**
 * Write `bytes` to `file` atomically: a temp file beside it, then a rename. On failure the
 * temp file is removed and `file` is untouched.
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
  try {
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
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
