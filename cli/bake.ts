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
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { unknownExtensions, writeGlbBytes } from '../rig/glb';
import { samePath, writeOrExplain } from '../rig/node';
import type { CliCommand } from './main';
import { bakeTails, type BakeOptions, type BakeReport } from '../rig/bake';
import { CliInputError, isInputError, parseArgs, PROCESS_IO, progressShown, readInput, reasonOf, tailFlags, type CliIo } from './measure';

/**
 * Bake a GLB file into another (Node). Refuses to write over the input; atomic output.
 * Throws `bitrig/bake: …` on bad input.
 *
 * @example
 * const report = await bakeFile('fox.glb', 'fox-baked.glb', { clips: ['Walk'], fps: 30 });
 */
export async function bakeFile(input: string, output: string, options: Partial<BakeOptions> = {}): Promise<BakeReport> {
  if (await samePath(input, output)) throw new Error(`bitrig/bake: refusing to write over the input file ${input}`);
  if (!/\.glb$/i.test(output)) throw new Error(`bitrig/bake: the output must be a .glb file, got ${output}`);
  // (before the simulation, not after it: the output's folder must exist)
  const dir = path.dirname(path.resolve(output));
  const st = await fs.stat(dir).catch(() => null);
  if (!st || !st.isDirectory()) throw new Error(`bitrig/bake: cannot write ${output}: its folder ${dir} does not exist`);
  const doc = await readInput(input);
  const report = bakeTails(doc, options);
  const lost = unknownExtensions(new Uint8Array(await fs.readFile(input)));
  if (lost.length) {
    const msg = `the output drops the extension${lost.length > 1 ? 's' : ''} ${lost.join(', ')} (not known to bitrig's reader)`;
    report.warnings.push(msg);
    options.onWarning?.(msg);
  }
  options.onProgress?.('encode', 1);
  const bytes = await writeGlbBytes(doc);
  await writeOrExplain(output, bytes, 'bitrig/bake');
  return report;
}

/** One-line usage of `bitrig bake`. */
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
        if (always || (progressShown(io) && now - t0 > 1000 && now - shown > 1000)) {
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

/** `bitrig bake` as registered in the dispatcher (cli/main.ts). */
export const BAKE_COMMAND: CliCommand = {
  summary: 'bake the runtime tail motion into keyframes for every Tail_* bone (loop-closed)',
  usage: [
    BAKE_USAGE,
    '',
    'Simulates each clip on a private copy of the skeleton, warms up until the tail closes its',
    'loop, then writes real rotation keys for every Tail_* link (Blender, Unity, Unreal play them).',
    '',
    '  -o, --out <file.glb>   where to write (never the input; written atomically)',
    '  --clips A,B            clips to bake (default: all)',
    '  --fps 30               keys per second',
    '  --rest-curve 0..1      keep the modelled tail curve (1) or centre it (0, default); tails the clip does not key',
    '  --carry <degrees>      carry angle of the whole tail (default 50); tails the clip does not key',
    '                         (a clip that keys the tail is its rest: the bake adds follow-through to it)',
    '  --json                 print the report as JSON',
    '  --progress             always print progress lines',
    '',
    'Exit codes: 0 success, 2 bad input, 1 internal error.',
  ].join('\n'),
  run: (args, io) => bakeCommand(args, io),
};
