/**
 * One flag parser for every `bitrig` command, so they all say the same things the same way:
 * `--flag value` and `--flag=value` for every flag; an empty value (`--rest-curve=`) refused;
 * a flag given twice refused (aliases such as `-o`/`--out` count as one) unless it is
 * repeatable; boolean flags take no value or `=true|false|yes|no|1|0`; an unknown flag names
 * the nearest known one. `--` ends the flags (what follows is a file name, even `-x.glb`).
 * Throws {@link CliUsageError} (exit 2).
 */

/** A bad command line: exit code 2 with a one-line reason (and the usage when `usage` is set). */
export class CliUsageError extends Error {
  /** Print the command's usage after the reason. */
  usage: boolean;
  constructor(message: string, usage = false) {
    super(message);
    this.usage = usage;
  }
}

/** One flag of a command. */
export interface FlagSpec {
  /** Its spellings, the canonical one first (`['--out', '-o', '--output']`). */
  names: readonly string[];
  /** `value` takes a value; `bool` is on or off. */
  kind: 'value' | 'bool';
  /** A value flag that may be given more than once: its values are joined with commas, in order. */
  repeatable?: boolean;
}

/** Parsed arguments: positional ones, and flags by their canonical name. */
export interface ParsedArgs {
  /** Positional arguments, in order. */
  _: string[];
  /** Flag values by canonical name (`true`/`false` for boolean flags). */
  flags: Record<string, string | boolean>;
}

const TRUE_WORDS = ['true', 'yes', '1', 'on'];
const FALSE_WORDS = ['false', 'no', '0', 'off'];

/** Edit distance of two short strings (insert, delete, replace, swap of neighbours: 1 each). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) d.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known word nearest to `word` (within a third of its length, at least 2 edits), or null.
 *
 * @example
 * nearest('--jsn', ['--json', '--clip']); // '--json'
 */
export function nearest(word: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(word.toLowerCase(), k.toLowerCase());
    if (d < bestD) { bestD = d; best = k; }
  }
  const allowed = Math.max(2, Math.floor(word.replace(/^-+/, '').length / 3));
  return best !== null && bestD <= allowed ? best : null;
}

/** ` (did you mean --json?)` or ''. */
export function didYouMean(word: string, known: readonly string[]): string {
  const n = nearest(word, known);
  return n ? ` (did you mean ${n}?)` : '';
}

function boolValue(name: string, v: string): boolean {
  const w = v.toLowerCase();
  if (TRUE_WORDS.includes(w)) return true;
  if (FALSE_WORDS.includes(w)) return false;
  throw new CliUsageError(`${name} is on or off: give it alone, or ${name}=true or ${name}=false (yes/no, 1/0 also work), got "${v}"`);
}

/** A next argument that is a flag, not a value (`-30` is a value: a negative number). */
function looksLikeFlag(v: string): boolean {
  return v.startsWith('-') && v.length > 1 && !/^-\d|^-\.\d/.test(v);
}

/**
 * Parse a command's arguments against its flags (see the module header).
 *
 * @example
 * parseFlags(['in.glb', '--clip=Walk', '--json=yes'], [{ names: ['--clip'], kind: 'value' }, { names: ['--json'], kind: 'bool' }]);
 * // { _: ['in.glb'], flags: { '--clip': 'Walk', '--json': true } }
 */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const out: ParsedArgs = { _: [], flags: {} };
  const byName = new Map<string, FlagSpec>();
  for (const s of specs) for (const n of s.names) byName.set(n, s);
  const seenAs = new Map<FlagSpec, string>();
  let positionalOnly = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (positionalOnly || a === '-' || !a.startsWith('-')) { out._.push(a); continue; }
    if (a === '--') { positionalOnly = true; continue; }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const spec = byName.get(name);
    if (!spec) throw new CliUsageError(`unknown option ${name}${didYouMean(name, [...byName.keys()].filter((k) => k.startsWith('--')))}`, true);
    const key = spec.names[0]!;
    const before = seenAs.get(spec);
    if (before !== undefined && !spec.repeatable) {
      throw new CliUsageError(before === name ? `${name} is given twice; give it once` : `${before} and ${name} are the same option; give it once`);
    }
    seenAs.set(spec, name);
    if (spec.kind === 'bool') {
      out.flags[key] = eq > 0 ? boolValue(name, a.slice(eq + 1)) : true;
      continue;
    }
    let v: string | undefined;
    if (eq > 0) v = a.slice(eq + 1);
    else {
      v = argv[i + 1];
      if (v === undefined || looksLikeFlag(v)) throw new CliUsageError(`${name} needs a value`, true);
      i++;
    }
    if (v.trim() === '') throw new CliUsageError(`${name} needs a value (got an empty one)`, true);
    const had = out.flags[key];
    out.flags[key] = typeof had === 'string' ? `${had},${v}` : v;
  }
  return out;
}
