/**
 * Options and defaults of the tail runtime (SPEC §2). One interface, one defaults object,
 * one merge ({@link mergeTailOptions}). Angles in radians, frequencies in Hz, lengths in
 * metres (scaled by `unitScale` into world units), times in seconds.
 */

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

/** Where a chain's rest pose comes from. */
export type TailRestSource = 'bind' | 'animation' | 'auto';

/** Per-chain tail options. */
export interface TailOptions {
  /** Root spring frequency f (Hz); ω = 2πf. */
  frequency: number;
  /** Tip frequency as a fraction of the root's (the tip runs at frequency × tipRatio). */
  tipRatio: number;
  /** Damping ratio ζ (1 = critical). */
  damping: number;
  /** Gravity on the particles (m/s², world −Y). A tail has muscle: 1, not 9.8. */
  gravity: number;
  /** Carry angle C (radians, in [-π, π]; default 50° = 0.8727): backward-and-up raise of the whole tail, shared across joints. */
  carry: number;
  /** Centred rest arc β ∈ [0,1]: 0 removes the modelled sideways curl, 1 keeps it. */
  restCurve: number;
  /** Elastic bend limit θmax (radians, in (0, 2π]; π or more means no limit; default 30° = π/6) of each link's bend beyond rest. */
  bendLimit: number;
  /** Bend coupling rate k (1/s); α = 1 − exp(−k·Δt). 0 disables coupling. */
  couplingRate: number;
  /** Floor height g0 (world Y, world units). */
  floorHeight: number;
  /** Floor contact on or off. */
  floorEnabled: boolean;
  /** Centre-line clearance ρ above the floor (metres). */
  floorClearance: number;
  /** Contact damping γ (1/s) on a particle touching the floor. */
  contactDamping: number;
  /** `'bind'` (grown chains no clip mentions), `'animation'` (ride the clip's tail keys) or `'auto'`. */
  restSource: TailRestSource;
  /** World units per metre (100 for a centimetre rig left unscaled). */
  unitScale: number;
  /** An anchor jump larger than this (metres) in one frame resets the chain to rest. */
  teleportDistance: number;
}

/** SPEC §2 defaults (11 September update). */
export const TAIL_DEFAULTS: Readonly<TailOptions> = Object.freeze({
  frequency: 0.9,
  tipRatio: 0.5,
  damping: 0.65,
  gravity: 1,
  carry: (50 * Math.PI) / 180,
  restCurve: 0,
  bendLimit: Math.PI / 6,
  couplingRate: 12,
  floorHeight: 0,
  floorEnabled: true,
  floorClearance: 0.025,
  contactDamping: 8,
  restSource: 'auto',
  unitScale: 1,
  teleportDistance: 2,
});

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
 * nearestKey('fixedstep', ['fixedStep', 'threads']); // 'fixedStep'
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

/** The keys of {@link TailOptions} (what `tail: { … }` may hold). */
export const TAIL_OPTION_KEYS: readonly string[] = Object.freeze(Object.keys(TAIL_DEFAULTS));

/**
 * Merge user options over the defaults, validating each. Throws `bitrig/tail: …` naming
 * the bad field, its value and the fix: an unknown key (with the nearest known one), an
 * angle out of range (with a hint when it reads as degrees), a wrong type (setup-time).
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
  const pos = (k: keyof TailOptions, allowZero = false): void => {
    const v = o[k] as number;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) {
      throw new Error(`bitrig/tail: option ${k} must be a ${allowZero ? 'non-negative' : 'positive'} finite number, got ${describeValue(v)}`);
    }
  };
  pos('frequency');
  pos('tipRatio');
  pos('damping', true);
  pos('couplingRate', true);
  pos('floorClearance', true);
  pos('contactDamping', true);
  pos('unitScale');
  pos('teleportDistance');
  // Angles in radians; a value that fits only as degrees gets a hint (carry: 50 bends a tail 117°).
  checkAngle('bitrig/tail', 'carry', o.carry, -Math.PI, Math.PI, '-π', 'π');
  checkAngle('bitrig/tail', 'bendLimit', o.bendLimit, 0, 2 * Math.PI, '0', '2π', true); // (π or more: no limit)
  for (const k of ['gravity', 'floorHeight'] as const) {
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) throw new Error(`bitrig/tail: option ${k} must be a finite number, got ${describeValue(o[k])}`);
  }
  if (!(typeof o.restCurve === 'number' && o.restCurve >= 0 && o.restCurve <= 1)) throw new Error(`bitrig/tail: option restCurve must be a number in [0, 1], got ${describeValue(o.restCurve)}`);
  if (o.restSource !== 'bind' && o.restSource !== 'animation' && o.restSource !== 'auto') {
    throw new Error(`bitrig/tail: option restSource must be 'bind', 'animation' or 'auto', got ${describeValue(o.restSource)}`);
  }
  if (typeof o.floorEnabled !== 'boolean') throw new Error(`bitrig/tail: option floorEnabled must be true or false, got ${describeValue(o.floorEnabled)}`);
  return o;
}
