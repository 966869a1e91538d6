/**
 * Option handling shared by every option family: the merge with defaults, the unknown-key check
 * with did-you-mean, value descriptions for messages, and the tail options' merge made from
 * their table (core/tailOptions.ts). Angles in radians, frequencies in Hz, lengths in metres
 * (scaled by `unitScale` into world units), times in seconds.
 */
import { rangeText, TAIL_DEFAULTS, TAIL_OPTION_KEYS, TAIL_OPTION_TABLE, type OptionRow, type TailOptions } from './tailOptions';

/**
 * An options object as callers pass it: every field of `T` optional, and `undefined` accepted
 * explicitly (`field?: T[K] | undefined`), because a field given as undefined keeps its
 * default, as a field left out does — also under `exactOptionalPropertyTypes`, where a plain
 * `Partial<T>` would refuse `{ field: undefined }`.
 *
 * @example
 * const tail: PartialOptions<TailOptions> = { frequency: flags.freq }; // flags.freq: number | undefined
 */
export type PartialOptions<T> = { [K in keyof T]?: T[K] | undefined };

export { TAIL_DEFAULTS, TAIL_OPTION_KEYS, TAIL_OPTION_TABLE, tailOptionsMarkdown, checkTailStability } from './tailOptions';
export type { TailOptions, TailRestSource, OptionRow } from './tailOptions';

/**
 * `defaults` with every field of `user` that is not undefined laid over it (a field given as
 * undefined keeps its default, as a field left out does). Lenient: keys `defaults` does not
 * have are copied too (for option objects whose other keys the caller reads itself); see
 * {@link withDefaultsStrict} to refuse them. Setup-time.
 *
 * @example
 * const o = withDefaults(BITRIG_WORLD_DEFAULTS, { wasm: flags.wasm });
 */
export function withDefaults<D extends object>(defaults: D, user: object): D {
  const o = { ...defaults } as Record<string, unknown>;
  for (const [k, v] of Object.entries(user)) if (v !== undefined) o[k] = v;
  return o as D;
}

/**
 * {@link withDefaults} that first refuses a `user` that is not a plain object and any key not in
 * `known` (default: the keys of `defaults`) with {@link checkOptionKeys}'s message. Setup-time.
 *
 * @example
 * const o = withDefaultsStrict(BITRIG_WORLD_DEFAULTS, options, 'bitrig/world');
 * // withDefaultsStrict(BITRIG_WORLD_DEFAULTS, { fixedstep: 1 / 30 }, 'bitrig/world') throws
 * // 'bitrig/world: unknown option "fixedstep" (did you mean "fixedStep"?); options: entities, …'
 */
export function withDefaultsStrict<D extends object>(
  defaults: D, user: unknown, module: string, known: readonly string[] = Object.keys(defaults), nested: Readonly<Record<string, readonly string[]>> = {},
): D {
  checkOptionKeys(user, known, module, nested);
  return withDefaults(defaults, user as object);
}

/**
 * Edit distance between two strings: insertions, deletions, substitutions and swaps of two
 * neighbouring characters count 1 each; a case change of a letter counts 1 (`fixedstep` →
 * `fixedStep` is 1).
 *
 * @example
 * editDistance('frequncy', 'frequency'); // 1
 */
export function editDistance(a: string, b: string): number {
  const m = a.length, n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= m; i++) {
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n]!;
}

/**
 * The known key nearest to `key` within `maxDistance` edits ({@link editDistance}) and fewer
 * edits than half the longer name (so `b` does not suggest `a`), or null. A key equal but for
 * letter case always counts as near. Ties go to a key with the same first letter, then to the
 * first in `known`.
 *
 * @example
 * nearestKey('fixedstep', ['fixedStep', 'wasm']); // 'fixedStep'
 */
export function nearestKey(key: string, known: readonly string[], maxDistance = 2): string | null {
  let best: string | null = null, bestScore = Infinity;
  const first = key.charAt(0).toLowerCase();
  for (const k of known) {
    const d = k.toLowerCase() === key.toLowerCase() ? 0.5 : editDistance(key, k);
    if (d > maxDistance || 2 * d >= Math.max(key.length, k.length)) continue;
    const score = d + (k.charAt(0).toLowerCase() === first ? 0 : 0.25);
    if (score < bestScore) { best = k; bestScore = score; }
  }
  return best;
}

/**
 * Refuse an options value that is not a plain object (null, a string, a number, an array) and
 * any key not in `known`, with the nearest known key when one is close (≤ 2 edits), the
 * sub-object a key belongs under when `nested` lists it there (`{ tail: ['carry', …] }`), or a
 * hint when the keys look like a spread string or array (`"0"`, `"1"`, …). A key whose value is
 * undefined is still checked (a typo with an undefined value is still a typo). Throws
 * `<module>: …`; `what` names the object in messages (`'options'`, or e.g. `'limbs[0]'`). Setup-time.
 *
 * @example
 * checkOptionKeys({ fixedstep: 1 / 30 }, Object.keys(BITRIG_WORLD_DEFAULTS), 'bitrig/world');
 * // throws 'bitrig/world: unknown option "fixedstep" (did you mean "fixedStep"?); options: entities, bones, …'
 */
export function checkOptionKeys(
  user: unknown, known: readonly string[], module: string, nested: Readonly<Record<string, readonly string[]>> = {}, what = 'options',
): void {
  if (typeof user !== 'object' || user === null || Array.isArray(user)) {
    throw new Error(`${module}: ${what} must be an object, got ${describeValue(user)}`);
  }
  for (const k of Object.keys(user)) {
    if (known.includes(k)) continue;
    let hint = '';
    const near = nearestKey(k, known);
    const parent = Object.keys(nested).find((p) => nested[p]!.includes(k));
    if (parent !== undefined) hint = ` (${JSON.stringify(k)} belongs under ${parent}: pass { ${parent}: { ${k}: … } })`;
    else if (near !== null) hint = ` (did you mean ${JSON.stringify(near)}?)`;
    else if (/^\d+$/.test(k)) hint = ' (a string or an array spread into the options? pass an object of named options)';
    const unknown = what === 'options' ? 'unknown option' : `unknown key in ${what}`;
    throw new Error(`${module}: ${unknown} ${JSON.stringify(k)}${hint}; ${what === 'options' ? 'options' : `${what} keys`}: ${known.join(', ')}`);
  }
}

/**
 * A value for an error message: strings quoted (so that `'2'` does not read as 2 nor `'false'` as
 * false) and named as strings; arrays, objects and functions named by type; numbers, booleans,
 * null and undefined as they are.
 *
 * @example
 * describeValue('30'); // '"30" (a string)'
 * describeValue(30);   // '30'
 */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return `${JSON.stringify(v)} (a string)`;
  if (typeof v === 'bigint') return `${v}n (a bigint)`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'symbol') return `${String(v)} (a symbol)`;
  if (Array.isArray(v)) {
    let text: string;
    try { text = JSON.stringify(v) ?? '[…]'; } catch { text = '[…]'; }
    if (text.length > 60) text = `${text.slice(0, 57)}…`;
    return `${text} (an array)`;
  }
  if (typeof v === 'object' && v !== null) return 'an object';
  return String(v);
}

/**
 * An angle option's check: `v` must be a finite number of radians in [lo, hi] (`openLo`: lo itself
 * excluded). Throws `<module>: option <name> must be an angle in radians in [lo, hi], got v`, with
 * `(degrees? use v * Math.PI / 180)` when `v` is out of range but `v` degrees would be in it.
 * `loText` / `hiText` print the bounds (e.g. `'-π'`). Setup-time.
 *
 * @example
 * checkAngle('bitrig/tail', 'carry', 50, -Math.PI, Math.PI, '-π', 'π');
 * // throws 'bitrig/tail: option carry must be an angle in radians in [-π, π], got 50 (degrees? use 50 * Math.PI / 180)'
 */
export function checkAngle(module: string, name: string, v: unknown, lo: number, hi: number, loText: string, hiText: string, openLo = false): void {
  // (1e-3 rad of slack on the ends: a rounded 3.1416 or a float32 π is π; the hint only where
  // the value cannot be radians, beyond a full turn)
  const inRange = (x: number): boolean => x >= lo - 1e-3 && x <= hi + 1e-3 && !(openLo && x <= lo);
  if (typeof v === 'number' && Number.isFinite(v) && inRange(v)) return;
  const deg = typeof v === 'number' && Number.isFinite(v) && Math.abs(v) > 2 * Math.PI && inRange((v * Math.PI) / 180);
  throw new Error(`${module}: option ${name} must be an angle in radians in ${openLo ? '(' : '['}${loText}, ${hiText}], got ${describeValue(v)}`
    + (deg ? ` (degrees? use ${v} * Math.PI / 180)` : ''));
}

/**
 * Merge user options over the defaults (or `base`), validating each against its row of
 * {@link TAIL_OPTION_TABLE}. Throws `bitrig/tail: …` naming the bad field, its value and the
 * fix: an unknown key (with the nearest known one), a number out of its range (the range
 * printed), an angle out of range (with a hint when it reads as degrees), a wrong type.
 * Setup-time.
 *
 * @example
 * const o = mergeTailOptions({ frequency: 1.2, carry: 0 });
 */
export function mergeTailOptions(user: PartialOptions<TailOptions> = {}, base: Readonly<TailOptions> = TAIL_DEFAULTS): TailOptions {
  checkOptionKeys(user, TAIL_OPTION_KEYS, 'bitrig/tail');
  const o: TailOptions = { ...base };
  for (const k of Object.keys(user) as (keyof TailOptions)[]) {
    const v = user[k];
    if (v === undefined) continue;
    (o as unknown as Record<string, unknown>)[k] = v;
  }
  for (const k of TAIL_OPTION_KEYS) checkOption('bitrig/tail', k, TAIL_OPTION_TABLE[k], o[k]);
  return o;
}

/**
 * Check one option's value against its table row; throws `<module>: option <name> must be …,
 * got <value>` (numbers with their range and unit, angles with a degrees hint). Setup-time.
 *
 * @example
 * checkOption('bitrig/tail', 'frequency', TAIL_OPTION_TABLE.frequency, 1e9);
 * // throws 'bitrig/tail: option frequency must be a number in (0, 30] Hz, got 1000000000'
 */
export function checkOption(module: string, name: string, row: OptionRow, v: unknown): void {
  if (row.kind === 'angle') { checkAngle(module, name, v, row.min!, row.max!, row.minText!, row.maxText!, row.openMin === true); return; }
  if (row.kind === 'boolean') {
    if (typeof v !== 'boolean') throw new Error(`${module}: option ${name} must be true or false, got ${describeValue(v)}`);
    return;
  }
  if (row.kind === 'enum') {
    const vals = row.values!;
    if (!vals.includes(v as string)) {
      const list = vals.map((x) => `'${x}'`);
      throw new Error(`${module}: option ${name} must be ${list.slice(0, -1).join(', ')} or ${list[list.length - 1]}, got ${describeValue(v)}`);
    }
    return;
  }
  const ok = typeof v === 'number' && Number.isFinite(v) && (row.openMin ? v > row.min! : v >= row.min!) && v <= row.max! && (row.integer !== true || Number.isInteger(v));
  if (!ok) throw new Error(`${module}: option ${name} must be a number in ${rangeText(row)}${row.integer === true ? ' (an integer)' : ''}, got ${describeValue(v)}`);
}
