/**
 * Options and defaults of the tail runtime (SPEC §2). One interface, one defaults object,
 * one merge ({@link mergeTailOptions}). Angles in radians, frequencies in Hz, lengths in
 * metres (scaled by `unitScale` into world units), times in seconds.
 */

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
  /** Carry angle C (radians): backward-and-up raise of the whole tail, shared across joints. */
  carry: number;
  /** Centred rest arc β ∈ [0,1]: 0 removes the modelled sideways curl, 1 keeps it. */
  restCurve: number;
  /** Elastic bend limit θmax (radians) of each link's bend beyond rest. */
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
 * undefined keeps its default, as a field left out does). Setup-time.
 *
 * @example
 * const o = withDefaults(BITRIG_WORLD_DEFAULTS, { wasm: flags.wasm });
 */
export function withDefaults<D extends object>(defaults: D, user: object): D {
  const o = { ...defaults } as Record<string, unknown>;
  for (const [k, v] of Object.entries(user)) if (v !== undefined) o[k] = v;
  return o as D;
}

/** A value for an error message: strings quoted, so that `'2'` does not read as 2. */
export function describeValue(v: unknown): string {
  return typeof v === 'string' ? `${JSON.stringify(v)} (a string)` : String(v);
}

/**
 * Merge user options over the defaults, validating each. Throws `bitrig/tail: …` naming
 * the bad field (setup-time).
 *
 * @example
 * const o = mergeTailOptions({ frequency: 1.2, carry: 0 });
 */
export function mergeTailOptions(user: Partial<TailOptions> = {}, base: Readonly<TailOptions> = TAIL_DEFAULTS): TailOptions {
  if (typeof user !== 'object' || user === null) throw new Error(`bitrig/tail: options must be an object, got ${describeValue(user)}`);
  const o: TailOptions = { ...base };
  for (const k of Object.keys(user) as (keyof TailOptions)[]) {
    if (!(k in TAIL_DEFAULTS)) throw new Error(`bitrig/tail: unknown option ${String(k)} (options: ${Object.keys(TAIL_DEFAULTS).join(', ')})`);
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
  pos('bendLimit');
  pos('couplingRate', true);
  pos('floorClearance', true);
  pos('contactDamping', true);
  pos('unitScale');
  pos('teleportDistance');
  for (const k of ['gravity', 'carry', 'floorHeight'] as const) {
    if (typeof o[k] !== 'number' || !Number.isFinite(o[k])) throw new Error(`bitrig/tail: option ${k} must be a finite number, got ${describeValue(o[k])}`);
  }
  if (!(typeof o.restCurve === 'number' && o.restCurve >= 0 && o.restCurve <= 1)) throw new Error(`bitrig/tail: option restCurve must be a number in [0, 1], got ${describeValue(o.restCurve)}`);
  if (o.restSource !== 'bind' && o.restSource !== 'animation' && o.restSource !== 'auto') {
    throw new Error(`bitrig/tail: option restSource must be 'bind', 'animation' or 'auto', got ${String(o.restSource)}`);
  }
  if (typeof o.floorEnabled !== 'boolean') throw new Error(`bitrig/tail: option floorEnabled must be true or false, got ${describeValue(o.floorEnabled)}`);
  return o;
}
