/**
 * `bitrig bake <in.glb> -o <out.glb> [--clips A,B] [--fps 30] [--clip-mode auto|loop|once]` —
 * bake the runtime's tail motion into real keyframes so Blender, Unity or Unreal
 * play it without bitrig. Loops are warmed up to loop closure; one-shot clips (whose last
 * pose differs from their first, or forced with `--clip-mode`) settle on their first pose and
 * are recorded once.
 *
 * Never writes over the input (same path, or the same file through a link, is refused);
 * the output is written to a temporary file in the output folder and renamed into place,
 * so a failed run leaves no half-written file. Progress goes to stderr on long runs.
 *
 * Exit codes: 0 done, 2 bad input (one line on stderr), 1 unexpected failure.
 */
import { readGlbBytes, unknownExtensions, writeGlbBytes } from '../rig/glb';
import { checkOutputPath, readFileCapped, samePath, writeOrExplain } from '../rig/node';
import type { CliCommand } from './main';
import { bakeTails, type BakedClipReport, type BakeOptions, type BakeReport, type ClipModeSetting } from '../rig/bake';
import { PROCESS_IO, progressShown, readInput, tailFlags, type CliIo } from './measure';
import { CliUsageError as CliInputError, parseFlags, type FlagSpec } from './args';
import { failWith } from './fail';

/**
 * Bake a GLB file into another (Node). Refuses to write over the input; atomic output.
 * Throws `bitrig/bake: …` on bad input.
 *
 * @example
 * const report = await bakeFile('fox.glb', 'fox-baked.glb', { clips: ['Walk'], fps: 30 });
 */
export async function bakeFile(input: string, output: string, options: Partial<BakeOptions> = {}): Promise<BakeReport> {
  if (await samePath(input, output)) throw new Error(`bitrig/bake: refusing to write over the input file ${input}`);
  // (before the simulation, not after it: a .glb name, not a folder, in a folder that exists)
  await checkOutputPath(output, 'bitrig/bake', { glb: true });
  const bytes = await readFileCapped(input, 'bitrig/bake', undefined, { glb: true });
  const doc = await readGlbBytes(bytes);
  const report = bakeTails(doc, options);
  const lost = unknownExtensions(bytes);
  if (lost.length) {
    const msg = `the output drops the extension${lost.length > 1 ? 's' : ''} ${lost.join(', ')} (not known to bitrig's reader)`;
    report.warnings.push(msg);
    options.onWarning?.(msg);
  }
  options.onProgress?.('encode', 1);
  const glb = await writeGlbBytes(doc);
  await writeOrExplain(output, glb, 'bitrig/bake');
  return report;
}

/** The flags of `bitrig bake` (-o, --out and --output are one option; --clip-mode may repeat: its values merge). */
export const BAKE_FLAGS: readonly FlagSpec[] = [
  { names: ['--out', '-o', '--output'], kind: 'value' }, { names: ['--clips'], kind: 'value' }, { names: ['--fps'], kind: 'value' },
  { names: ['--rest-curve'], kind: 'value' }, { names: ['--carry'], kind: 'value' }, { names: ['--unit-scale'], kind: 'value' },
  { names: ['--clip-mode'], kind: 'value', repeatable: true },
  { names: ['--json'], kind: 'bool' }, { names: ['--progress'], kind: 'bool' }, { names: ['--help', '-h'], kind: 'bool' },
];

/** One-line usage of `bitrig bake`. */
export const BAKE_USAGE = 'usage: bitrig bake <in.glb> -o <out.glb> [--clips A,B] [--fps 30] [--clip-mode auto|loop|once|Clip=mode,...] [--json] [--rest-curve 0..1] [--carry degrees] [--unit-scale N]';

const MODES: readonly ClipModeSetting[] = ['auto', 'loop', 'once'];

/** A one-shot whose last key is more than this many degrees from the tail settled on its end pose gets a hint line. */
const END_UNSETTLED_HINT_DEG = 2;

/**
 * Parse `--clip-mode`: a mode for every clip (`auto`, `loop`, `once`), `Clip=mode` pairs for
 * single clips, or both in one comma list (`once,Walk=loop`). Throws a {@link CliInputError}.
 *
 * @example
 * parseClipModeFlag('auto,Death=once'); // { clipMode: 'auto', clipModes: { Death: 'once' } }
 */
export function parseClipModeFlag(value: string): { clipMode: ClipModeSetting | undefined; clipModes: Record<string, ClipModeSetting> } {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (items.length === 0) throw new CliInputError('--clip-mode needs a mode (auto, loop, once) or Clip=mode pairs');
  let clipMode: ClipModeSetting | undefined;
  const clipModes: Record<string, ClipModeSetting> = {};
  for (const item of items) {
    const eq = item.lastIndexOf('=');
    const mode = (eq >= 0 ? item.slice(eq + 1) : item).trim();
    if (eq >= 0) {
      const clip = item.slice(0, eq).trim();
      if (clip === '') throw new CliInputError(`--clip-mode: "${item}" names no clip (Clip=mode)`);
      if (!MODES.includes(mode as ClipModeSetting)) throw new CliInputError(`--clip-mode: "${mode}" is not a mode for clip "${clip}" (auto, loop, once)`);
      if (Object.prototype.hasOwnProperty.call(clipModes, clip)) throw new CliInputError(`--clip-mode: clip "${clip}" is given twice`);
      clipModes[clip] = mode as ClipModeSetting;
    } else {
      if (!MODES.includes(mode as ClipModeSetting)) throw new CliInputError(`--clip-mode must be auto, loop or once (or Clip=mode pairs), got "${mode}"`);
      if (clipMode !== undefined) throw new CliInputError('--clip-mode: give at most one mode for every clip (then Clip=mode pairs)');
      clipMode = mode as ClipModeSetting;
    }
  }
  return { clipMode, clipModes };
}

/** How the clip was simulated and why, for the text report. */
function modeText(c: BakedClipReport): string {
  const e = c.endPose;
  const diff = `last pose vs first ${e.rotationDeg.toFixed(1)}°${e.rotationJoint ? ` at ${e.rotationJoint}` : ''}, `
    + `${(100 * e.translation).toFixed(1)} % of the height${e.translationJoint ? ` at ${e.translationJoint}` : ''}`
    + (e.scaleJoint ? `, scale ${(100 * e.scale).toFixed(1)} % at ${e.scaleJoint}` : '')
    + (e.rootMotion >= 0.001 ? `, root motion ${(100 * e.rootMotion).toFixed(1)} % of the height` : '');
  return `${c.mode === 'once' ? 'one-shot' : 'loop'} (${c.modeSource === 'option' ? 'forced' : 'auto'}: ${diff})`;
}

/**
 * Run `bitrig bake` with the arguments after the command name. Returns the exit code.
 *
 * @example
 * process.exitCode = await bakeCommand(['fox.glb', '-o', 'fox-baked.glb', '--clips', 'Walk']);
 */
export async function bakeCommand(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    // --clip-mode may repeat: its values merge (a clip named twice is refused by parseClipModeFlag).
    const args = parseFlags(argv, BAKE_FLAGS);
    if (args.flags['--help']) { io.out(BAKE_USAGE); return 0; }
    if (args._.length !== 1) throw new CliInputError('expected one input file', true);
    const out = args.flags['--out'];
    if (typeof out !== 'string' || out === '') throw new CliInputError('-o <out.glb> is required', true);
    if (out === '-') throw new CliInputError('-o needs a file path (writing to standard output is not supported)');
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
    const modes = typeof args.flags['--clip-mode'] === 'string' ? parseClipModeFlag(args.flags['--clip-mode']) : { clipMode: undefined, clipModes: undefined };
    const tail = tailFlags(args.flags);
    const t0 = Date.now();
    let shown = 0;
    const always = !!args.flags['--progress'];
    const report = await bakeFile(args._[0]!, out, {
      clips, fps, tail, clipMode: modes.clipMode, clipModes: modes.clipModes,
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
        const step = Math.max(0, ...c.maxStepDeg);
        if (c.mode === 'once') {
          io.out(`${c.clip}: ${c.keys} keys × ${c.bones.length} bones, settled on the first pose in ${c.warmupSeconds.toFixed(1)} s${c.converged ? '' : ' (not settled)'}, `
            + `recorded once, largest key step ${step.toFixed(2)}°, tail ${c.endUnsettledDeg.toFixed(1)}° from settled at the end, root swing ${c.rootSwingDeg.toFixed(1)}°, ${modeText(c)}`);
          if (c.endUnsettledDeg > END_UNSETTLED_HINT_DEG) {
            io.out(`  hint: ${c.clip} stops while its tail still swings (${c.endUnsettledDeg.toFixed(1)}° from where it would settle); an engine that holds the last frame freezes it mid-swing. `
              + 'The bake does not lengthen the clip; to let the tail settle, hold the end pose longer in the source clip and bake again');
          }
          continue;
        }
        const seam = Math.max(0, ...c.seamJumpDeg);
        const rm = c.rootMotionWs ? `, root motion ${Math.hypot(c.rootMotionWs[0], c.rootMotionWs[2]).toPrecision(3)} units a cycle (carried)` : '';
        io.out(`${c.clip}: ${c.keys} keys × ${c.bones.length} bones, warm-up ${c.warmupCycles} cycle(s)${c.converged ? '' : ' (not converged)'}, `
          + `loop seam ≤ ${seam.toFixed(3)}°, largest key step ${step.toFixed(2)}°, root swing ${c.rootSwingDeg.toFixed(1)}°${rm}, ${modeText(c)}`);
      }
      io.out(`wrote ${out}`);
    }
    return 0;
  } catch (e) {
    return failWith('bake', e, io);
  }
}

/** `bitrig bake` as registered in the dispatcher (cli/main.ts). */
export const BAKE_COMMAND: CliCommand = {
  summary: 'bake the runtime tail motion into keyframes for every Tail_* bone (loops closed, one-shots settled)',
  usage: [
    BAKE_USAGE,
    '',
    'Simulates each clip on a private copy of the skeleton, warms up until the tail closes its',
    'loop, then writes real rotation keys for every Tail_* link (Blender, Unity, Unreal play them).',
    'A one-shot clip (a death, a sit-down: glTF has no loop flag) is not replayed as a loop: its',
    'first pose is held until the tail settles, then the clip is recorded once from there. The',
    'clip is not lengthened: the report says how far its last key is from the tail settled on the',
    'end pose ("tail N° from settled at the end"; a hint above 2°).',
    '',
    '  -o, --out, --output <file.glb>',
    '                         where to write (never the input; written atomically; a .glb name)',
    '  --clips A,B            clips to bake (default: all)',
    '  --fps 30               keys per second',
    '  --clip-mode <mode>     loop, once, or auto (default) for every clip; Clip=mode,... per clip',
    '                         (e.g. --clip-mode auto,Death=once; may repeat: the pairs merge, a clip',
    '                         named twice is refused; every named clip must be among --clips).',
    '                         auto: a clip whose last pose differs from its first by more than 10°',
    '                         (a rotation), 2 % of the height (a translation) or 2 % (a scale), over',
    '                         the joints, keyed tail bones and nodes above the skeleton, is a',
    '                         one-shot; root motion (the hips end further on, same pose) is a loop',
    '                         and is carried across warm-up cycles',
    '  --rest-curve 0..1      keep the modelled tail curve (1) or centre it (0, default); tails the clip does not key',
    '  --carry <degrees>      carry angle of the whole tail (default 50); tails the clip does not key',
    '                         (a clip that keys the tail is its rest: the bake adds follow-through to it)',
    '  --unit-scale <n>       model units per metre (default: guessed from the height; 100 for centimetres)',
    '  --json                 print the report as JSON',
    '  --progress             always print progress lines',
    '  --flag=value works for every flag; --json=false and --json=no turn a switch off',
    '',
    'Exit codes: 0 success, 2 bad input or usage (one line), 1 a bug in bitrig (please report it).',
  ].join('\n'),
  run: (args, io) => bakeCommand(args, io),
};
