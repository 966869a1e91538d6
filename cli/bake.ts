/**
 * `bitrig bake <in.glb> -o <out.glb> [--clips A,B] [--fps 30]` — bake the runtime's tail
 * motion into real keyframes (SPEC §5) so Blender, Unity or Unreal play it without bitrig.
 *
 * Never writes over the input (same path, or the same file through a link, is refused);
 * the output is written to a temporary file in the output folder and renamed into place,
 * so a failed run leaves no half-written file. Progress goes to stderr on long runs.
 *
 * Exit codes: 0 done, 2 bad input (one line on stderr), 1 unexpected failure.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeGlbBytes } from '../rig/glb';
import { bakeTails, type BakeOptions, type BakeReport } from '../rig/bake';
import { CliInputError, isInputError, parseArgs, PROCESS_IO, readInput, reasonOf, tailFlags, type CliIo } from './measure';

function sameFile(a: string, b: string): boolean {
  const ra = path.resolve(a);
  const rb = path.resolve(b);
  if (ra === rb) return true;
  try {
    if (realpathSync(ra) === realpathSync(rb)) return true;
    const sa = statSync(ra);
    const sb = statSync(rb);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false; // the output does not exist yet
  }
}

/**
 * Write bytes atomically: a temporary file beside the target, then a rename. The temporary
 * file is removed when anything fails.
 *
 * @example
 * await writeFileAtomic('out.glb', bytes);
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, bytes, { flag: 'wx' });
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}

/**
 * Bake a GLB file into another (Node). Refuses to write over the input; atomic output.
 * Throws `bitrig/bake: …` on bad input.
 *
 * @example
 * const report = await bakeFile('fox.glb', 'fox-baked.glb', { clips: ['Walk'], fps: 30 });
 */
export async function bakeFile(input: string, output: string, options: Partial<BakeOptions> = {}): Promise<BakeReport> {
  if (sameFile(input, output)) throw new Error(`bitrig/bake: refusing to write over the input file ${input}`);
  if (!/\.glb$/i.test(output)) throw new Error(`bitrig/bake: the output must be a .glb file, got ${output}`);
  const doc = await readInput(input);
  const report = bakeTails(doc, options);
  options.onProgress?.('encode', 1);
  const bytes = await writeGlbBytes(doc);
  await writeFileAtomic(output, bytes);
  return report;
}

export const BAKE_USAGE = 'usage: bitrig bake <in.glb> -o <out.glb> [--clips A,B] [--fps 30] [--json] [--rest-curve 0..1] [--carry degrees]';

/**
 * Run `bitrig bake` with the arguments after the command name. Returns the exit code.
 *
 * @example
 * process.exitCode = await bakeCommand(['fox.glb', '-o', 'fox-baked.glb', '--clips', 'Walk']);
 */
export async function bakeCommand(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    const args = parseArgs(argv, ['-o', '--out', '--clips', '--fps', '--rest-curve', '--carry'], ['--json', '--help', '-h', '--progress']);
    if (args.flags['--help'] || args.flags['-h']) { io.out(BAKE_USAGE); return 0; }
    if (args._.length !== 1) throw new CliInputError('expected one input file', true);
    const out = (args.flags['-o'] ?? args.flags['--out']) as string | undefined;
    if (typeof out !== 'string' || out === '') throw new CliInputError('-o <out.glb> is required', true);
    let fps = 30;
    if (typeof args.flags['--fps'] === 'string') {
      fps = Number(args.flags['--fps']);
      if (!(Number.isFinite(fps) && fps > 0 && fps <= 1000)) throw new CliInputError('--fps must be a number in (0, 1000]');
    }
    let clips: string[] | null = null;
    if (typeof args.flags['--clips'] === 'string') {
      clips = args.flags['--clips'].split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      if (clips.length === 0) throw new CliInputError('--clips needs at least one clip name');
    }
    const tail = tailFlags(args.flags);
    const t0 = Date.now();
    let shown = 0;
    const always = !!args.flags['--progress'];
    const report = await bakeFile(args._[0]!, out, {
      clips, fps, tail,
      onProgress: (stage, f) => {
        const now = Date.now();
        if ((always || (io.isTTY && now - t0 > 1000)) && (always || now - shown > 1000)) {
          shown = now;
          io.err(`bake: ${stage} ${(100 * f).toFixed(0)} %`);
        }
      },
      onWarning: (m) => io.err(`bitrig bake: warning: ${m}`),
    });
    if (args.flags['--json']) {
      io.out(JSON.stringify({ output: out, clips: report.clips, warnings: report.warnings, units: report.units }, null, 2));
    } else {
      for (const c of report.clips) {
        const seam = Math.max(0, ...c.seamJumpDeg);
        io.out(`${c.clip}: ${c.keys} keys × ${c.bones.length} bones, warm-up ${c.warmupCycles} cycle(s)${c.converged ? '' : ' (not converged)'}, `
          + `loop seam ≤ ${seam.toFixed(3)}°, root swing ${c.rootSwingDeg.toFixed(1)}°`);
      }
      io.out(`wrote ${out}`);
    }
    return 0;
  } catch (e) {
    io.err(`bitrig bake: ${reasonOf(e)}`);
    if (e instanceof CliInputError && e.usage) io.err(BAKE_USAGE);
    return isInputError(e) ? 2 : 1;
  }
}
