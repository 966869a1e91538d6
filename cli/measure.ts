/**
 * `bitrig measure <in.glb> --clip <name> [--json] [--grounding]` — the seed's stretch table
 * for one clip (SPEC §5), and with `--grounding` the pelvis-lift comparison (SPEC §3).
 *
 * Exit codes: 0 done, 2 bad input (one line on stderr: unknown clip with the clip list, no
 * skin, no animations, unreadable file, bad arguments), 1 unexpected failure.
 */
import { readFile } from 'node:fs/promises';
import { readGlbBytes } from '../rig/glb';
import { readFailure } from '../rig/node';
import { formatMeasureTable, measureJson, measureTail, type MeasureOptions } from '../rig/measure';
import type { CliCommand } from './main';

/** Where a command writes (replaceable in tests). */
export interface CliIo {
  /** Standard output, one chunk per call (a newline is added). */
  out: (text: string) => void;
  /** Standard error, one chunk per call (a newline is added). */
  err: (text: string) => void;
  /** True when stderr is a terminal (progress lines are shown). */
  isTTY?: boolean;
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

/** A bad-input error: exit code 2 with a one-line reason (and the usage when `usage` is set). */
export class CliInputError extends Error {
  /** Print the command's usage after the reason. */
  usage: boolean;
  constructor(message: string, usage = false) {
    super(message);
    this.usage = usage;
  }
}

/**
 * Parse `--flag value` / `--flag=value` / boolean flags; positional arguments in `_`.
 * Unknown options throw a {@link CliInputError}, and so does a value flag given twice unless
 * it is `repeatable` (its values are then joined with commas, in order).
 *
 * @example
 * parseArgs(['in.glb', '--clip', 'Walk', '--json'], ['--clip'], ['--json']); // { _: ['in.glb'], flags: { '--clip': 'Walk', '--json': true } }
 */
export function parseArgs(argv: readonly string[], valueFlags: readonly string[], boolFlags: readonly string[], repeatable: readonly string[] = []): { _: string[]; flags: Record<string, string | boolean> } {
  const out: { _: string[]; flags: Record<string, string | boolean> } = { _: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('-') && a !== '-') {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(0, eq) : a;
      if (valueFlags.includes(name)) {
        const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new CliInputError(`${name} needs a value`, true);
        const had = out.flags[name];
        if (typeof had === 'string') {
          // (a second value must not silently replace the first)
          if (!repeatable.includes(name)) throw new CliInputError(`${name} is given twice; give it once`);
          out.flags[name] = `${had},${v}`;
        } else out.flags[name] = v;
      } else if (boolFlags.includes(name) && eq < 0) {
        out.flags[name] = true;
      } else {
        throw new CliInputError(`unknown option ${name}`, true);
      }
    } else {
      out._.push(a);
    }
  }
  return out;
}

/**
 * One-line reason from an error: the library prefix (`bitrig/x: `) and stack removed.
 *
 * @example
 * reasonOf(new Error('bitrig/sample: the file has no animations')); // 'the file has no animations'
 */
export function reasonOf(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0]!.replace(/^bitrig\/[a-z]+: /, '');
}

/**
 * Is this error a bad-input error (exit 2) rather than a defect (exit 1)? Library setup
 * errors (`bitrig/…: `) and file-system errors are bad input.
 *
 * @example
 * isInputError(new Error('bitrig/skinning: the file has no skin')); // true
 */
export function isInputError(e: unknown): boolean {
  if (e instanceof CliInputError) return true;
  const msg = e instanceof Error ? e.message : String(e);
  return /^bitrig\/[a-z]+: /.test(msg) || /ENOENT|EISDIR|EACCES|ENOTDIR/.test(msg);
}

/**
 * Tail options from `--rest-curve` and `--carry` (degrees).
 *
 * @example
 * tailFlags({ '--carry': '30' }); // { carry: 0.5236 }
 */
export function tailFlags(flags: Record<string, string | boolean>): MeasureOptions['tail'] {
  const tail: MeasureOptions['tail'] = {};
  if (typeof flags['--rest-curve'] === 'string') {
    const v = Number(flags['--rest-curve']);
    if (!(v >= 0 && v <= 1)) throw new CliInputError('--rest-curve must be a number in [0, 1]');
    tail.restCurve = v;
  }
  if (typeof flags['--carry'] === 'string') {
    const v = Number(flags['--carry']);
    if (!(Number.isFinite(v) && v >= -180 && v <= 180)) throw new CliInputError(`--carry must be a number of degrees in [-180, 180], got ${flags['--carry']}`);
    tail.carry = (v * Math.PI) / 180;
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
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    const why = readFailure((e as NodeJS.ErrnoException).code);
    throw new CliInputError(`cannot read ${file}${why ? ` (${why})` : ''}`);
  }
  return readGlbBytes(bytes);
}

/** One-line usage of `bitrig measure`. */
export const MEASURE_USAGE = 'usage: bitrig measure <in.glb> --clip <name> [--json] [--grounding] [--samples 24] [--rest-curve 0..1] [--carry degrees]';

/**
 * Run `bitrig measure` with the arguments after the command name. Returns the exit code.
 *
 * @example
 * process.exitCode = await measureCommand(['fox.glb', '--clip', 'Walk', '--json']);
 */
export async function measureCommand(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  try {
    const args = parseArgs(argv, ['--clip', '--samples', '--rest-curve', '--carry'], ['--json', '--grounding', '--help', '-h']);
    if (args.flags['--help'] || args.flags['-h']) { io.out(MEASURE_USAGE); return 0; }
    if (args._.length !== 1) throw new CliInputError('expected one input file', true);
    const clip = args.flags['--clip'];
    if (typeof clip !== 'string' || clip === '') throw new CliInputError('--clip <name> is required', true);
    let samples = 24;
    if (typeof args.flags['--samples'] === 'string') {
      samples = Number(args.flags['--samples']);
      if (!(Number.isInteger(samples) && samples >= 1 && samples <= 10_000)) throw new CliInputError('--samples must be an integer in 1…10000');
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
    io.err(`bitrig measure: ${reasonOf(e)}`);
    if (e instanceof CliInputError && e.usage) io.err(MEASURE_USAGE);
    return isInputError(e) ? 2 : 1;
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
    '',
    'Exit codes: 0 success, 2 bad input, 1 internal error.',
  ].join('\n'),
  run: (args, io) => measureCommand(args, io),
};
