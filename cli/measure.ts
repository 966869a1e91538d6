/**
 * `bitrig measure <in.glb> --clip <name> [--json] [--grounding]` — the seed's stretch table
 * for one clip, and with `--grounding` the pelvis-lift comparison.
 *
 * Exit codes: 0 done, 2 bad input (one line on stderr: unknown clip with the clip list, no
 * skin, no animations, unreadable file, bad arguments), 1 unexpected failure.
 */
import { readGlbBytes } from '../rig/glb';
import { readFileCapped } from '../rig/node';
import { formatMeasureTable, measureJson, measureTail, type MeasureOptions } from '../rig/measure';
import { INPUT_LIMITS } from '../rig/validate/limits';
import type { CliCommand } from './main';
import { CliUsageError, parseFlags, type FlagSpec } from './args';
import { failWith } from './fail';

/** Where a command writes (replaceable in tests). */
export interface CliIo {
  /** Standard output, one chunk per call (a newline is added). */
  out: (text: string) => void;
  /** Standard error, one chunk per call (a newline is added). */
  err: (text: string) => void;
  /** True when stderr is a terminal (progress lines are shown). */
  isTTY?: boolean;
  /** Print the stack of an internal error (`--debug`). */
  debug?: boolean;
}

/** Process stdout/stderr. */
export const PROCESS_IO: CliIo = {
  out: (t) => { process.stdout.write(`${t}\n`); },
  err: (t) => { process.stderr.write(`${t}\n`); },
};

/**
 * Progress lines go to a terminal only (an io may say so with `isTTY`; else stderr decides).
 *
 * @example
 * if (progressShown(io)) io.err('bake: walk 40 %');
 */
export function progressShown(io: CliIo): boolean {
  return io.isTTY ?? !!process.stderr?.isTTY;
}

/** A bad-input error: exit code 2 with a one-line reason (the same class as the flag parser's). */
export { CliUsageError as CliInputError, parseFlags } from './args';
export { isInputError, reasonOf } from './fail';

/**
 * Parse `--flag value` / `--flag=value` / boolean flags with the shared parser
 * ({@link parseFlags}); positional arguments in `_`. Unknown options, empty values and a flag
 * given twice (unless `repeatable`: its values are then joined with commas) throw.
 *
 * @example
 * parseArgs(['in.glb', '--clip', 'Walk', '--json'], ['--clip'], ['--json']); // { _: ['in.glb'], flags: { '--clip': 'Walk', '--json': true } }
 */
export function parseArgs(argv: readonly string[], valueFlags: readonly string[], boolFlags: readonly string[], repeatable: readonly string[] = []): { _: string[]; flags: Record<string, string | boolean> } {
  return parseFlags(argv, [
    ...valueFlags.map((n) => ({ names: [n], kind: 'value' as const, repeatable: repeatable.includes(n) })),
    ...boolFlags.map((n) => ({ names: [n], kind: 'bool' as const })),
  ]);
}

/**
 * Tail options from `--rest-curve`, `--carry` (degrees) and `--unit-scale` (model units per metre).
 *
 * @example
 * tailFlags({ '--carry': '30' }); // { carry: 0.5236 }
 */
export function tailFlags(flags: Record<string, string | boolean>): MeasureOptions['tail'] {
  const tail: MeasureOptions['tail'] = {};
  if (typeof flags['--rest-curve'] === 'string') {
    const v = Number(flags['--rest-curve']);
    if (!(v >= 0 && v <= 1)) throw new CliUsageError('--rest-curve must be a number in [0, 1]');
    tail.restCurve = v;
  }
  if (typeof flags['--carry'] === 'string') {
    const v = Number(flags['--carry']);
    if (!(Number.isFinite(v) && v >= -180 && v <= 180)) throw new CliUsageError(`--carry must be a number of degrees in [-180, 180], got ${flags['--carry']}`);
    tail.carry = (v * Math.PI) / 180;
  }
  if (typeof flags['--unit-scale'] === 'string') {
    const v = Number(flags['--unit-scale']);
    if (!(Number.isFinite(v) && v > 0)) throw new CliUsageError(`--unit-scale must be a positive number of model units per metre (100 for centimetres, 1000 for millimetres), got ${flags['--unit-scale']}`);
    tail.unitScale = v;
  }
  return tail;
}

/**
 * Read a GLB file into a Document (bad files give a one-line error; a missing file, a folder
 * or an unreadable one say so as `bitrig rig` does: `cannot read x (it is a folder)`).
 *
 * @example
 * const doc = await readInput('fox.glb');
 */
export async function readInput(file: string) {
  return readGlbBytes(await readFileCapped(file, 'bitrig/rig', undefined, { glb: true }));
}

/** The flags of `bitrig measure`. */
export const MEASURE_FLAGS: readonly FlagSpec[] = [
  { names: ['--clip'], kind: 'value' }, { names: ['--samples'], kind: 'value' }, { names: ['--rest-curve'], kind: 'value' },
  { names: ['--carry'], kind: 'value' }, { names: ['--unit-scale'], kind: 'value' },
  { names: ['--json'], kind: 'bool' }, { names: ['--grounding'], kind: 'bool' }, { names: ['--help', '-h'], kind: 'bool' },
];

/** One-line usage of `bitrig measure`. */
export const MEASURE_USAGE = 'usage: bitrig measure <in.glb> --clip <name> [--json] [--grounding] [--samples 24] [--rest-curve 0..1] [--carry degrees] [--unit-scale N]';

/**
 * Run `bitrig measure` with the arguments after the command name. Returns the exit code.
 *
 * @example
 * process.exitCode = await measureCommand(['fox.glb', '--clip', 'Walk', '--json']);
 */
export async function measureCommand(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    const args = parseFlags(argv, MEASURE_FLAGS);
    if (args.flags['--help']) { io.out(MEASURE_USAGE); return 0; }
    if (args._.length !== 1) throw new CliUsageError('expected one input file', true);
    const clip = args.flags['--clip'];
    if (typeof clip !== 'string' || clip === '') throw new CliUsageError('--clip <name> is required', true);
    let samples = 24;
    if (typeof args.flags['--samples'] === 'string') {
      samples = Number(args.flags['--samples']);
      if (!(Number.isInteger(samples) && samples >= 1 && samples <= INPUT_LIMITS.maxMeasureSamples)) throw new CliUsageError(`--samples must be a whole number in 1…${INPUT_LIMITS.maxMeasureSamples}, got ${args.flags['--samples']}`);
    }
    const tail = tailFlags(args.flags);
    const doc = await readInput(args._[0]!);
    const t0 = Date.now();
    let shown = 0;
    const report = measureTail(doc, clip, {
      samples, tail, grounding: !!args.flags['--grounding'],
      onProgress: (stage, f) => {
        const now = Date.now();
        if (progressShown(io) && now - t0 > 1000 && now - shown > 1000) { shown = now; io.err(`measure: ${stage} ${(100 * f).toFixed(0)} %`); }
      },
    });
    io.out(args.flags['--json'] ? JSON.stringify(measureJson(report), null, 2) : formatMeasureTable(report));
    return 0;
  } catch (e) {
    return failWith('measure', e, io);
  }
}

/** `bitrig measure` as registered in the dispatcher (cli/main.ts). */
export const MEASURE_COMMAND: CliCommand = {
  summary: 'edge stretch of a clip: original / rigid / chain / body rows, bone distance, pelvis lift',
  usage: [
    MEASURE_USAGE,
    '',
    'Skins the clip at 24 evenly spaced times and prints the seed\'s table: p95, p99, max and',
    'torn % (> 1.5 or < 0.67) of tail edges for the rig as it came, the tail rigid on the pelvis,',
    'the grown chain swung by the runtime (warmed up first), and the body edges as the baseline.',
    '',
    '  --clip <name>          the clip to measure (required)',
    '  --json                 JSON: { clip, samples, tailEdgeSamples, rows, boneDistance }',
    '  --grounding            also compare the hips height with the tail counted vs excluded',
    '  --samples 24           sample times through the clip',
    '  --rest-curve 0..1      runtime rest arc: keep the modelled tail curve (1) or centre it (0)',
    '  --carry <degrees>      runtime carry angle of the whole tail (default 50)',
    '  --unit-scale <n>       model units per metre (default: guessed from the height; 100 for centimetres)',
    '  --flag=value works for every flag; --json=false and --json=no turn a switch off',
    '',
    'Exit codes: 0 success, 2 bad input or usage (one line), 1 a bug in bitrig (please report it).',
  ].join('\n'),
  run: (args, io) => measureCommand(args, io),
};
