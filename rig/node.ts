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
  await writeFileAtomic(output, glb);
  return report;
}
