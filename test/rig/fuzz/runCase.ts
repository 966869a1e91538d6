/**
 * Run one malformed GLB through `bitrig rig`, `measure` and `bake` in-process and list what
 * broke the promise: exit 0 with an output the Khronos validator passes (no error the input
 * did not have; measure: finite numbers), or exit 2 with one line on stderr; never a stack,
 * never another exit code, the input never changed, no output or temp file after a refusal.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeGlbBytes } from '../../../rig/glb';
import { makeCritter } from '../../bake/fixtures';
import { runCli } from '../../helpers/cli';
import { validateGlb } from '../validate';
import type { FuzzCase } from './malformedGlb';

/** What one command did with one case. */
export interface CommandOutcome {
  /** rig, measure or bake. */
  command: string;
  /** Exit code. */
  code: number;
  /** The stderr lines (the reason on exit 2). */
  err: string[];
  /** Broken promises (empty when the command behaved). */
  problems: string[];
  /** Exit 0 with an output: whether the validator found no error at all in it. */
  clean?: boolean;
  /** Exit 0 with an output that is not clean: the validator's error codes in it (each also in the input). */
  outputCodes?: string[];
}

/** The base GLBs the cases start from: a critter with a tail chain (bake, measure) and one whose tail is on a shin (rig). */
export async function fuzzBases(): Promise<Uint8Array[]> {
  return [await writeGlbBytes(makeCritter({ variant: 'chain' }).doc), await writeGlbBytes(makeCritter({ variant: 'shin' }).doc)];
}

const STACK = /^\s+at |\b(?:TypeError|RangeError|ReferenceError|SyntaxError)\b|Cannot read properties|Invalid typed array|Maximum call stack|is not a function|\.ts:\d+/;

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

function commandsFor(input: string, out: string): [string, string[]][] {
  return [
    ['rig', ['rig', input, '-o', out, '-q']],
    ['measure', ['measure', input, '--clip', 'walk', '--samples', '3']],
    ['bake', ['bake', input, '-o', out, '--clips', 'walk', '--fps', '10']],
  ];
}

/**
 * Run a case through the three commands in `dir` (emptied first) and check each outcome.
 *
 * @example
 * const outcomes = await runFuzzCase(dir, c);
 * expect(outcomes.flatMap((o) => o.problems)).toEqual([]);
 */
export async function runFuzzCase(dir: string, c: FuzzCase): Promise<CommandOutcome[]> {
  for (const f of readdirSync(dir)) rmSync(path.join(dir, f), { force: true, recursive: true });
  const input = path.join(dir, 'in.glb');
  const out = path.join(dir, 'out.glb');
  writeFileSync(input, c.bytes);
  const before = sha(c.bytes);
  let inputCodes: Record<string, number> | null = null;
  const outcomes: CommandOutcome[] = [];
  for (const [command, argv] of commandsFor(input, out)) {
    rmSync(out, { force: true });
    const r = await runCli(argv);
    const problems: string[] = [];
    const o: CommandOutcome = { command, code: r.code, err: r.err, problems };
    const reasons = r.err.filter((l) => !l.startsWith('bitrig bake: warning:'));
    if (r.code !== 0 && r.code !== 2) problems.push(`exit ${r.code}: ${r.err.join(' | ')}`);
    if ([...r.err, ...r.out].some((l) => STACK.test(l))) problems.push(`JavaScript in the output: ${r.err.join(' | ').slice(0, 300)}`);
    if (r.code === 2 && reasons.length !== 1) problems.push(`exit 2 with ${reasons.length} lines: ${r.err.join(' | ')}`);
    if (sha(readFileSync(input)) !== before) problems.push('the input was changed');
    const left = readdirSync(dir).filter((f) => f !== 'in.glb' && f !== 'out.glb');
    if (left.length) problems.push(`files left behind: ${left.join(', ')}`);
    if (r.code !== 0 && existsSync(out)) problems.push('an output was written on failure');
    if (r.code === 0 && command === 'measure' && /NaN|Infinity/.test(r.out.join('\n'))) problems.push(`measure printed a non-finite number: ${r.out.join(' | ').slice(0, 300)}`);
    if (r.code === 0 && command !== 'measure') {
      if (!existsSync(out)) problems.push('exit 0 but no output');
      else {
        const v = await validateGlb(new Uint8Array(readFileSync(out)));
        o.clean = v.errors === 0;
        if (!o.clean) o.outputCodes = Object.keys(v.codes);
        inputCodes ??= (await validateGlb(c.bytes)).codes;
        const fresh = Object.keys(v.codes).filter((k) => !(k in inputCodes!));
        if (fresh.length) problems.push(`the output has validator errors the input did not have: ${fresh.join(', ')}`);
      }
    }
    outcomes.push(o);
  }
  return outcomes;
}
