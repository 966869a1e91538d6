/**
 * The tail options, one table: each row gives an option's default, kind, range (what keeps the
 * step stable and the values meaningful), unit, the `TailChain` field the kernels read it from
 * and its README line. The `TailOptions` type, `TAIL_DEFAULTS`, the key list, the validation
 * in `mergeTailOptions` and the README's options table (`npm run docs:options`) are all made
 * from it: adding an option is one row here plus its use in the step.
 *
 * Ranges: each option has a static range; the spring's stiffness and damping together are also
 * checked against the world's fixed step by {@link checkTailStability} (the step is stepped
 * semi-implicitly, stable only below a stiffness that depends on the step and the damping).
 */

/** One option of a family. */
export interface OptionRow {
  /** Default value. */
  readonly default: number | boolean | string;
  /** `number` (range-checked), `angle` (radians, range-checked, with a degrees hint), `boolean`, `enum`. */
  readonly kind: 'number' | 'angle' | 'boolean' | 'enum';
  /** Lower bound (`number`, `angle`). */
  readonly min?: number;
  /** Upper bound (`number`, `angle`). */
  readonly max?: number;
  /** The lower bound itself is excluded. */
  readonly openMin?: boolean;
  /** How the bounds print (`angle`: '-π', '2π'). */
  readonly minText?: string;
  /** How the upper bound prints. */
  readonly maxText?: string;
  /** The value must be an integer (`number`). */
  readonly integer?: boolean;
  /** Allowed values (`enum`). */
  readonly values?: readonly string[];
  /** Unit for messages and the README (`Hz`, `m`, `/s`, `rad`; '' for a plain number). */
  readonly unit: string;
  /** The README's default column (defaults to the value and unit). */
  readonly defaultText?: string;
  /** The `TailChain` field the kernels read (`floorHeight` is `floorY`). */
  readonly field: string;
  /** The README's meaning column. */
  readonly doc: string;
}

/** The tail option table (per chain). Order is the README's and the messages'. */
export const TAIL_OPTION_TABLE = {
  frequency: { default: 0.9, kind: 'number', min: 0, openMin: true, max: 30, unit: 'Hz', field: 'frequency', doc: 'root spring frequency f (ω = 2πf)' },
  tipRatio: { default: 0.5, kind: 'number', min: 0, openMin: true, max: 4, unit: '', field: 'tipRatio', doc: 'tip frequency as a fraction of the root\'s (muscle at the base, fur at the end)' },
  damping: { default: 0.65, kind: 'number', min: 0, max: 10, unit: '', field: 'damping', doc: 'damping ratio ζ' },
  gravity: { default: 1, kind: 'number', min: -50, max: 50, unit: 'm/s²', field: 'gravity', doc: 'gravity on the tail (a tail has muscle, not 9.8)' },
  carry: { default: (50 * Math.PI) / 180, kind: 'angle', min: -Math.PI, max: Math.PI, minText: '-π', maxText: 'π', unit: 'rad', defaultText: '50° (0.873 rad)', field: 'carry', doc: 'backward-and-up raise of the whole tail, shared across its joints (`\'bind\'` rest only: an `\'animation\'` chain rides the clip\'s pose)' },
  restCurve: { default: 0, kind: 'number', min: 0, max: 1, unit: '', field: 'restCurve', doc: 'β: 0 straightens the modelled sideways curl, 1 keeps the artist\'s curve (`\'bind\'` rest only)' },
  bendLimit: { default: Math.PI / 6, kind: 'angle', min: 0, openMin: true, max: 2 * Math.PI, minText: '0', maxText: '2π', unit: 'rad', defaultText: '30° (0.524 rad)', field: 'bendLimit', doc: 'elastic bend limit per joint beyond rest (π or more: no limit)' },
  couplingRate: { default: 12, kind: 'number', min: 0, max: 1000, unit: '/s', field: 'couplingRate', doc: 'bend coupling between neighbours, α = 1 − e^(−kΔt)' },
  floorHeight: { default: 0, kind: 'number', min: -1e6, max: 1e6, minText: '-1e6', maxText: '1e6', unit: 'world units', field: 'floorY', doc: 'floor plane height (world Y): a fixed plane, so a character walking on terrain or another level needs it set (`setTailOptions`) or the floor off' },
  floorEnabled: { default: true, kind: 'boolean', unit: '', field: 'floorEnabled', doc: 'floor contact on/off' },
  floorClearance: { default: 0.025, kind: 'number', min: 0, max: 1, unit: 'm', field: 'floorClearance', doc: 'centre-line clearance above the floor (tail thickness)' },
  contactDamping: { default: 8, kind: 'number', min: 0, max: 1000, unit: '/s', field: 'contactDamping', doc: 'damping of a particle resting on the floor' },
  restSource: { default: 'auto', kind: 'enum', values: ['bind', 'animation', 'auto'], unit: '', defaultText: '`\'auto\'`', field: 'restSource', doc: '`\'bind\'` (grown chains no clip keys), `\'animation\'` (ride the clip\'s own tail keys and add follow-through), `\'auto\'` (picks by whether the playing clip keys the tail)' },
  unitScale: { default: 1, kind: 'number', min: 0, openMin: true, max: 1000, unit: '', field: 'unitScale', doc: 'world units per metre (the animator guesses 100 for rigs taller than 20 units, once, at creation; `diagnostics().tails[i].unitScale` shows each chain\'s)' },
  colliderGroups: { default: 3, kind: 'number', integer: true, min: 0, max: 2147483647, maxText: '2³¹ − 1', unit: '', defaultText: '3 (legs \\| body)', field: 'colliderGroups', doc: 'bit mask of the collider groups the chain collides with (its own character\'s; 1 legs, 2 body, higher bits the game\'s own; 0: none): see `addTailCollider`' },
  teleportDistance: { default: 2, kind: 'number', min: 0, openMin: true, max: 1e6, maxText: '1e6', unit: 'm', field: 'teleportDistance', doc: 'an anchor jump larger than this in one frame resets the tail to rest' },
} as const satisfies Record<string, OptionRow>;

type Table = typeof TAIL_OPTION_TABLE;
type ValueOf<R> = R extends { kind: 'boolean' } ? boolean : R extends { kind: 'enum'; values: readonly (infer V)[] } ? V : number;

/** Per-chain tail options (fields, defaults and ranges: {@link TAIL_OPTION_TABLE}). */
export type TailOptions = { -readonly [K in keyof Table]: ValueOf<Table[K]> };

/** Where a chain's rest pose comes from. */
export type TailRestSource = TailOptions['restSource'];

/** The option keys, in the table's order. */
export const TAIL_OPTION_KEYS: readonly (keyof TailOptions)[] = Object.freeze(Object.keys(TAIL_OPTION_TABLE) as (keyof TailOptions)[]);

/** Defaults of every tail option (from {@link TAIL_OPTION_TABLE}). */
export const TAIL_DEFAULTS: Readonly<TailOptions> = Object.freeze(
  Object.fromEntries(TAIL_OPTION_KEYS.map((k) => [k, TAIL_OPTION_TABLE[k].default])) as unknown as TailOptions,
);

/** An interval as messages print it: `(0, 15] Hz`. */
export function rangeText(r: OptionRow): string {
  const lo = r.minText ?? String(r.min), hi = r.maxText ?? String(r.max);
  return `${r.openMin ? '(' : '['}${lo}, ${hi}]${r.unit && r.kind === 'number' ? ` ${r.unit}` : ''}`;
}

/** The README's options table (markdown), made from {@link TAIL_OPTION_TABLE}. */
export function tailOptionsMarkdown(): string {
  const rows = TAIL_OPTION_KEYS.map((k) => {
    const r: OptionRow = TAIL_OPTION_TABLE[k];
    const def = r.defaultText ?? `${String(r.default)}${r.unit && r.kind === 'number' ? ` ${r.unit}` : ''}`;
    const range = r.kind === 'boolean' ? 'true, false' : r.kind === 'enum' ? r.values!.map((v) => `\`'${v}'\``).join(', ') : rangeText(r);
    return `| \`${k}\` | ${def} | ${range} | ${r.doc} |`;
  });
  return ['| option | default | range | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * The spring's stability at fixed step `h` (seconds): the step is semi-implicit Euler
 * (velocity, then position), whose update of a damped spring is stable exactly while
 * x² + 4ζx < 4 for x = ω·h (and 2ζx < 2), ω = 2π · frequency · max(1, tipRatio) for the stiffest
 * link. Throws `bitrig/tail: …` when x² + 4ζx exceeds 3.6 (a 10 % margin), naming the largest
 * frequency the step allows at that damping. Setup-time.
 *
 * @example
 * checkTailStability(TAIL_DEFAULTS, 1 / 60); // fine
 * checkTailStability({ ...TAIL_DEFAULTS, frequency: 25 }, 1 / 60); // throws
 */
export function checkTailStability(o: Pick<TailOptions, 'frequency' | 'tipRatio' | 'damping'>, h: number): void {
  const stiff = Math.max(1, o.tipRatio);
  const x = 2 * Math.PI * o.frequency * stiff * h;
  if (x * x + 4 * o.damping * x <= 3.6) return;
  const xMax = -2 * o.damping + Math.sqrt(4 * o.damping * o.damping + 3.6);
  const fMax = xMax / (2 * Math.PI * h * stiff);
  throw new Error(`bitrig/tail: option frequency ${o.frequency} Hz${stiff > 1 ? ` (× tipRatio ${o.tipRatio} at the tip)` : ''} with damping ${o.damping} is too stiff for the world's fixed step ${+h.toPrecision(4)} s: the step would go unstable; frequency must be at most ${fMax.toPrecision(3)} Hz here (or a smaller fixedStep, or less damping)`);
}
