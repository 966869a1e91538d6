/**
 * The bitrig world: the game's own bitECS 0.4 world with bitrig's data attached
 * ({@link attachBitrigData}): the pose store, the per-world components (plain objects of typed
 * arrays indexed by entity id) and their registered queries, as properties of the world beside
 * the game's own.
 *
 * Components are per world (not module globals) so that several worlds — a game's and a
 * bake's private copy — never share state. Arrays are replaced (grown) only inside the named
 * setup calls (binding, adding tails, scene IK or supports) when entities outgrow them: a view
 * kept between those calls stays valid (docs/runtime.md).
 */
import { $internal, addEntity, getAllEntities, hasComponent, registerQuery, removeComponent, removeEntity, commitRemovals, type Query, type World } from 'bitecs';
import { createPoseStore, type PoseStore } from './pose';
import { describeValue, withDefaultsStrict } from './defaults';
import { CLOCK, LINK_STRIDE, createTailComponents, TAIL_LINK_FIELDS } from './components/tail';
import { createSceneComponents, MAX_ARMS, MAX_LEGS, SUPPORT_ROW_FIELDS } from './components/scene';
import type { TailAccel } from './kernelTypes';
import { createCharacterComponents } from './components/character';
import { createColliderComponents } from './components/collider';
import { rotationToWorld, transformPoint } from './ik/frames';
import { qRotate } from './qmath';

/**
 * The tail chains' dense rows: four rows make a group whose chains have the same link count
 * (the WebAssembly step runs a group's four chains side by side), so a row is taken from a
 * group of the chain's link count, or a new group is opened. Setup-time bookkeeping, but
 * `ent` (the chain entity of each row, −1: none) lives in the kernels' memory.
 */
export interface TailRows {
  /** Rows the per-link arrays hold (a multiple of 4). */
  capacity: number;
  /** Groups opened so far: rows [0, 4 · groups) may hold chains. */
  groups: number;
  /** Link count of each opened group's chains (0: an empty group, reusable by any count). */
  groupLinks: number[];
  /** Free rows of partly filled groups, by link count. */
  free: number[][];
  /** Chain entity of each row (−1: none). */
  ent: Int32Array;
}

/** Empty {@link TailRows} for `capacity` rows. */
function createTailRows(capacity: number): TailRows {
  return { capacity, groups: 0, groupLinks: [], free: Array.from({ length: LINK_STRIDE + 1 }, () => [] as number[]), ent: new Int32Array(capacity).fill(-1) };
}

/**
 * Take a row for a chain of `links` links: a free lane of a group of that link count, else an
 * empty group, else a new group (the caller grows the arrays to fit: {@link ensureTailRow}).
 * Returns the row; `rows.ent[row]` is for the caller to set. Setup-time.
 */
export function takeTailRow(rows: TailRows, links: number): number {
  const free = rows.free[links]!;
  if (free.length > 0) return free.pop()!;
  let g = rows.groupLinks.indexOf(0);
  if (g < 0) { g = rows.groups++; rows.groupLinks.push(0); }
  rows.groupLinks[g] = links;
  free.push(g * 4 + 3, g * 4 + 2, g * 4 + 1);
  return g * 4;
}

/** Give `row` back (its chain was removed); a group left empty becomes reusable by any link count. Setup-time. */
export function releaseTailRow(rows: TailRows, row: number): void {
  const g = row >> 2, n = rows.groupLinks[g]!;
  rows.ent[row] = -1;
  const free = rows.free[n]!;
  free.push(row);
  let count = 0;
  for (const r of free) if (r >> 2 === g) count++;
  if (count < 4) return;
  rows.free[n] = free.filter((r) => r >> 2 !== g);
  rows.groupLinks[g] = 0;
}

/** Options of {@link createBitrigWorld} (a field given as undefined keeps its default). */
export interface BitrigWorldOptions {
  /** Initial entity capacity (grows at setup). */
  entities?: number | undefined;
  /** Initial bone slots in the pose store (grows at setup). */
  bones?: number | undefined;
  /**
   * Initial tail chain capacity: the rows of per-link data (about 4.9 KB per chain; grows at
   * setup, doubling — each growth lays the WebAssembly arrays out again). Per-link arrays are
   * sized by chains, not by entities, so a crowd of scene characters with few tails stays
   * small; a crowd with a tail each should pass its size here.
   */
  chains?: number | undefined;
  /** Initial character capacity of the pose store and of the centre-of-mass segment pool (grow at setup). */
  characters?: number | undefined;
  /** Tail fixed internal step (seconds). */
  fixedStep?: number | undefined;
  /** Most tail steps per frame (a 10 s tab switch runs at most this many). */
  maxStepsPerFrame?: number | undefined;
}

/** Largest initial capacity {@link createBitrigWorld} accepts (entities, chains, bones, characters). */
export const MAX_CAPACITY = 1 << 24;

/** Defaults of {@link BitrigWorldOptions}. */
export const BITRIG_WORLD_DEFAULTS: { [K in keyof BitrigWorldOptions]-?: Exclude<BitrigWorldOptions[K], undefined> } = { entities: 256, chains: 64, bones: 1024, characters: 16, fixedStep: 1 / 60, maxStepsPerFrame: 8 };

function makeComponents(cap: number, rows: number) {
  return { ...createTailComponents(cap, rows), ...createSceneComponents(cap, SUPPORT_ROWS_INITIAL), ...createCharacterComponents(cap), ...createColliderComponents(cap) };
}

/** Support rows a world starts with (SupportFrame's per-row arrays; they double as supports are added). */
const SUPPORT_ROWS_INITIAL = 16;

/** Per-row fields of each component (sized by their own rows, not by entities). */
const ROW_FIELDS: Record<string, readonly string[]> = { ...TAIL_LINK_FIELDS, SupportFrame: SUPPORT_ROW_FIELDS };

/** All components of a world. */
export type BitrigComponents = ReturnType<typeof makeComponents>;

/** What a bitrig world carries besides bitECS's own state (and the game's). */
export interface BitrigContext {
  /** Set by {@link attachBitrigData}: the world has bitrig attached. */
  bitrigAttached: true;
  /** Character entity of each bound pose-store character (pose id → entity): setup-time bookkeeping. */
  characterEntities: Map<number, number>;
  /** Lays the kernels' memory out again after a capacity grew (set by the runtime; `null`: no kernels). */
  relayout: ((world: BitrigWorld) => void) | null;
  /** Every bound skeleton's bones. */
  pose: PoseStore;
  /** Per-world components. */
  components: BitrigComponents;
  /** Registered queries (iterate `q.dense`, no allocation). */
  queries: { tails: Query; sceneChars: Query; limbs: Query; colliders: Query };
  /** Entity capacity of the component arrays (the tail's per-link arrays: `tailRows.capacity` rows). */
  capacity: number;
  /** Seconds simulated so far (sum of valid frame dts); kept in `clock[CLOCK.TIME]`. */
  time: number;
  /**
   * The tail clock's numbers and `time`, at the {@link CLOCK} indices: what the systems read
   * and write every frame (elements of a typed array hold fractional seconds without boxing
   * them: no allocation). `tailClock` is a view of the same numbers by name.
   */
  clock: Float64Array;
  /**
   * The last error a game's ground query threw (FootLock counts it as "no ground", so a bug in
   * the game's terrain query would be invisible): the scene character's entity, the error and
   * `time` at the start of that frame; `char` −1 until one throws. Filled in place; `sceneDiagnostics` reports it.
   */
  groundError: { char: number; error: unknown; time: number };
  /** The tail's fixed internal clock, shared by every chain of the world. */
  tailClock: TailClock;
  /** Dense rows of tail chains' per-link data, four to a group of chains with one link count (see {@link TailRows}). */
  tailRows: TailRows;
  /** Tail chain entities of each character (character id → eids): setup-time bookkeeping, so that
   * adding a chain looks only at its own character's other chains. */
  tailsByChar: Map<number, number[]>;
  /** Tail collider entities of each character (character id → eids, in the order added): setup-time bookkeeping. */
  collidersByChar: Map<number, number[]>;
  /** Dense rows of supports' frames (`SupportFrame`): row capacity, next unused row and released rows to reuse. */
  supportRows: { capacity: number; next: number; free: number[] };
  /** The WebAssembly tail step holding the tail components, or `null` (JavaScript step). */
  tailAccel: TailAccel | null;
  /** Every scene character's centre-of-mass segments (see `SceneCharacter.segStart`); grows at setup. */
  comSegments: Float64Array;
  /** f64 of {@link BitrigContext.comSegments} in use (live segments and holes left by removals). */
  comSegmentsUsed: number;
}

/** The tail systems' fixed-step clock (world-wide, so all chains step together). */
export interface TailClock {
  /** Fixed internal step (seconds). */
  fixedStep: number;
  /** Most internal steps per frame; a longer frame drops the excess time. */
  maxStepsPerFrame: number;
  /** Seconds not yet simulated. */
  accumulator: number;
  /** Accumulator at the start of this frame (for anchor interpolation). */
  accumulatorAtFrameStart: number;
  /** Length of this frame (seconds, 0 when the frame's dt was invalid). */
  frameDt: number;
  /** Internal steps to run this frame. */
  steps: number;
  /** 1 when this frame hit the step cap (time was dropped). */
  capped: number;
  /** Fraction of a step left in the accumulator after this frame's steps, for display interpolation. */
  alpha: number;
}


/** The {@link TailClock} fields by name over the world's `clock` array (setup, tests, diagnostics: the systems index the array). */
function tailClockView(c: Float64Array): TailClock {
  return {
    get fixedStep(): number { return c[CLOCK.FIXED_STEP]!; }, set fixedStep(v: number) { c[CLOCK.FIXED_STEP] = v; },
    get maxStepsPerFrame(): number { return c[CLOCK.MAX_STEPS]!; }, set maxStepsPerFrame(v: number) { c[CLOCK.MAX_STEPS] = v; },
    get accumulator(): number { return c[CLOCK.ACC]!; }, set accumulator(v: number) { c[CLOCK.ACC] = v; },
    get accumulatorAtFrameStart(): number { return c[CLOCK.ACC_START]!; }, set accumulatorAtFrameStart(v: number) { c[CLOCK.ACC_START] = v; },
    get frameDt(): number { return c[CLOCK.FRAME_DT]!; }, set frameDt(v: number) { c[CLOCK.FRAME_DT] = v; },
    get steps(): number { return c[CLOCK.STEPS]!; }, set steps(v: number) { c[CLOCK.STEPS] = v; },
    get capped(): number { return c[CLOCK.CAPPED]!; }, set capped(v: number) { c[CLOCK.CAPPED] = v; },
    get alpha(): number { return c[CLOCK.ALPHA]!; }, set alpha(v: number) { c[CLOCK.ALPHA] = v; },
  };
}

/** A bitECS world with the bitrig context. */
export type BitrigWorld = World<BitrigContext>;

/**
 * Whether `world` has bitrig attached ({@link attachBitrigData}, through `attachBitrig` or
 * `createBitrigWorld`). Never throws.
 *
 * @example
 * if (!isBitrigWorld(world)) attachBitrig(world);
 */
export function isBitrigWorld(world: unknown): world is BitrigWorld {
  return typeof world === 'object' && world !== null && (world as { bitrigAttached?: unknown }).bitrigAttached === true;
}

/**
 * Throw `${module}: …` unless `world` has bitrig attached: the check every setup call makes
 * first, so misuse is a clear error rather than a TypeError deep inside. Setup-time.
 *
 * @example
 * requireBitrigWorld(world, 'bitrig/bind');
 */
export function requireBitrigWorld(world: unknown, module: string): asserts world is BitrigWorld {
  if (isBitrigWorld(world)) return;
  const what = typeof world !== 'object' || world === null ? describeValue(world) : 'a world bitrig is not attached to';
  throw new Error(`${module}: expected a bitrig world, got ${what}; call attachBitrig(world) once on your bitECS world (or make one with createBitrigWorld())`);
}

/** Properties {@link attachBitrigData} sets on the game's world. */
const CONTEXT_KEYS = [
  'bitrigAttached', 'pose', 'components', 'queries', 'capacity', 'time', 'clock', 'groundError', 'tailClock', 'tailRows', 'supportRows',
  'tailsByChar', 'collidersByChar', 'characterEntities', 'tailAccel', 'relayout', 'comSegments', 'comSegmentsUsed',
] as const;

/**
 * Attach bitrig's data to a bitECS 0.4 world the game made (`createWorld()` from bitecs): the
 * pose store, the components (plain objects of typed arrays sized for `options`' capacities),
 * their queries and the tail clock, set as properties of `world` itself, beside the game's
 * own. No kernels: the runtime's `attachBitrig` calls this, then lays the WebAssembly memory
 * out. Throws `bitrig/world: …` for a bad option (unknown key: the nearest known one), a world
 * already attached, or a property of the world bitrig would overwrite. Setup-time.
 *
 * @example
 * const world = attachBitrigData(createWorld(), { entities: 1024 });
 */
export function attachBitrigData<W extends object>(world: W, options: BitrigWorldOptions = {}): W & BitrigWorld {
  if (typeof world !== 'object' || world === null) throw new Error(`bitrig/world: expected a bitECS world (createWorld() from bitecs), got ${describeValue(world)}`);
  if (isBitrigWorld(world)) throw new Error('bitrig/world: this world already has bitrig attached');
  if (!Object.getOwnPropertySymbols(world).some((k) => k === $internal)) throw new Error('bitrig/world: expected a bitECS 0.4 world (createWorld() from bitecs)');
  for (const k of CONTEXT_KEYS) if (k in world) throw new Error(`bitrig/world: the world already has a property "${k}" that bitrig would overwrite`);
  const o = withDefaultsStrict(BITRIG_WORLD_DEFAULTS, options, 'bitrig/world');
  for (const key of ['entities', 'chains', 'bones', 'characters'] as const) {
    const v = o[key];
    if (!(Number.isInteger(v) && v >= 0 && v <= MAX_CAPACITY)) {
      throw new Error(`bitrig/world: ${key} must be an integer in [0, ${MAX_CAPACITY}], got ${describeValue(v)}`);
    }
  }
  if (!(typeof o.fixedStep === 'number' && o.fixedStep > 0 && o.fixedStep <= 0.1)) {
    throw new Error(`bitrig/world: fixedStep must be a number of seconds in (0, 0.1], got ${describeValue(o.fixedStep)}`
      + (typeof o.fixedStep === 'number' && o.fixedStep > 0.1 && o.fixedStep <= 1000 && 1 / o.fixedStep <= 0.1 ? ` (a rate in Hz? use 1 / ${o.fixedStep})` : ''));
  }
  if (!(Number.isInteger(o.maxStepsPerFrame) && o.maxStepsPerFrame >= 1 && o.maxStepsPerFrame <= 64)) {
    throw new Error(`bitrig/world: maxStepsPerFrame must be an integer in [1, 64], got ${describeValue(o.maxStepsPerFrame)}`);
  }
  // (entity ids of the game's world: bitrig's arrays cover every id bitECS may hand out next)
  const cap = Math.max(2, o.entities, nextEntityBound(world));
  const rows = Math.max(4, Math.ceil(o.chains / 4) * 4); // (whole groups of four chains)
  const components = makeComponents(cap, rows);
  const clock = new Float64Array(CLOCK.SIZE);
  clock[CLOCK.FIXED_STEP] = o.fixedStep; clock[CLOCK.MAX_STEPS] = o.maxStepsPerFrame;
  const ctx = {
    bitrigAttached: true as const,
    pose: createPoseStore(Math.max(1, o.bones), Math.max(1, o.characters)),
    components,
    queries: {} as BitrigContext['queries'],
    capacity: cap,
    get time(): number { return clock[CLOCK.TIME]!; },
    set time(v: number) { clock[CLOCK.TIME] = v; },
    clock,
    groundError: { char: -1, error: undefined as unknown, time: 0 },
    tailClock: tailClockView(clock),
    tailRows: createTailRows(rows),
    supportRows: { capacity: SUPPORT_ROWS_INITIAL, next: 0, free: [] as number[] },
    tailsByChar: new Map<number, number[]>(),
    collidersByChar: new Map<number, number[]>(),
    characterEntities: new Map<number, number>(),
    tailAccel: null as TailAccel | null,
    relayout: null as ((world: BitrigWorld) => void) | null,
    comSegments: new Float64Array(Math.max(256, 48 * Math.max(1, o.characters))), // about 16 segments per character
    comSegmentsUsed: 0,
  };
  Object.defineProperties(world, Object.getOwnPropertyDescriptors(ctx)); // (the clock's `time` stays an accessor)
  const w = world as W & BitrigWorld;
  w.queries.tails = registerQuery(w, [components.TailChain]);
  w.queries.sceneChars = registerQuery(w, [components.SceneCharacter]);
  w.queries.limbs = registerQuery(w, [components.Limb]);
  w.queries.colliders = registerQuery(w, [components.TailCollider]);
  w.pose.onRemove = (id) => stopCharacterSystems(w, id);
  return w;
}

/**
 * Undo {@link attachBitrigData} on a world whose kernels could not be laid out (so a failed
 * attach leaves the game's world as it was). Setup-time.
 */
export function detachBitrigData(world: BitrigWorld): void {
  for (const k of CONTEXT_KEYS) delete (world as unknown as Record<string, unknown>)[k];
}

/** One past the largest entity id the world has handed out (0 for a fresh world). */
function nextEntityBound(world: object): number {
  let n = 0;
  for (const e of getAllEntities(world as World)) if (e + 1 > n) n = e + 1;
  return n;
}

/**
 * Lay the kernels' memory out again after a capacity grew (`world.relayout`, installed by the
 * runtime's `attachBitrig`; nothing without kernels). Setup-time.
 *
 * @example
 * relayout(world); // after the tail rows grew
 */
export function relayout(world: BitrigWorld): void {
  if (world.tailAccel !== null && world.relayout !== null) world.relayout(world);
}

/**
 * A character leaves the pose store (`poseRemoveCharacter`) while tail chains or scene IK still
 * run on it (the way out is `unbindSkeleton`, after `removeSceneIK`): its slots and id go to
 * the next character bound, so those systems must never touch them again. Its tail chains are
 * cut loose (no character, no anchor: they simulate and write nothing) and its scene character
 * and limbs leave the scene systems' queries. Their entities stay, so that `unbindSkeleton`,
 * `removeTailChain` and `removeSceneIK` later release them as usual. Setup-time.
 */
function stopCharacterSystems(world: BitrigWorld, id: number): void {
  const C = world.components.TailChain;
  const tails = world.tailsByChar.get(id);
  if (tails) {
    for (const eid of tails) {
      C.char[eid] = -1; C.anchorSlot[eid] = -1;
      C.initialised[eid] = 0; C.stepsLastFrame[eid] = 0;
    }
    world.tailsByChar.delete(id);
  }
  // (its colliders go inert: their entities stay for removeTailCollider)
  const K = world.components.TailCollider;
  for (const c of world.collidersByChar.get(id) ?? []) { K.char[c] = -1; K.slot[c] = -1; }
  world.collidersByChar.delete(id);
  const { SceneCharacter: SC, Limb: L } = world.components;
  const chars = Array.from(world.queries.sceneChars.dense).filter((eid) => SC.char[eid] === id);
  for (const c of chars) {
    for (let k = 0; k < SC.legCount[c]!; k++) { const le = SC.legs[c * MAX_LEGS + k]!; if (le >= 0 && hasComponent(world, le, L)) removeComponent(world, le, L); }
    for (let k = 0; k < SC.armCount[c]!; k++) { const le = SC.arms[c * MAX_ARMS + k]!; if (le >= 0 && hasComponent(world, le, L)) removeComponent(world, le, L); }
    removeComponent(world, c, SC);
  }
  if (chars.length > 0) commitRemovals(world);
}

function growComponent(comp: Record<string, unknown>, oldCap: number, newCap: number, keys: readonly string[]): void {
  for (const key of keys) {
    const a = comp[key];
    if (ArrayBuffer.isView(a) && !(a instanceof DataView)) {
      const arr = a as unknown as { length: number; constructor: new (n: number) => Float64Array };
      const stride = arr.length / oldCap;
      const b = new arr.constructor(newCap * stride);
      b.set(a as unknown as Float64Array);
      comp[key] = b;
    }
  }
}

/**
 * Add an entity, growing every component so that its id fits. Setup-time.
 *
 * @example
 * const eid = addBitrigEntity(world);
 */
export function addBitrigEntity(world: BitrigWorld): number {
  const eid = addEntity(world);
  if (eid >= world.capacity) {
    let cap = world.capacity;
    while (cap <= eid) cap *= 2;
    for (const [name, c] of Object.entries(world.components)) {
      const perRow = ROW_FIELDS[name] ?? [];
      const keys = Object.keys(c).filter((k) => !perRow.includes(k));
      growComponent(c as unknown as Record<string, unknown>, world.capacity, cap, keys);
    }
    world.components.SupportFrame.row.fill(-1, world.capacity); // (no new entity is a support)
    world.components.Character.pose.fill(-1, world.capacity);
    world.components.PartOf.character.fill(-1, world.capacity);
    world.components.TailCollider.char.fill(-1, world.capacity);
    world.capacity = cap;
    relayout(world); // the grown tail arrays back into wasm memory
  }
  return eid;
}

/**
 * Make room for tail chain row `row` (a chain's per-link data), doubling the row capacity of
 * the per-link arrays as needed. Setup-time (`addTailChain` calls it).
 *
 * @example
 * ensureTailRow(world, world.tailRows.next);
 */
export function ensureTailRow(world: BitrigWorld, row: number): void {
  if (growTailRows(world, row)) relayout(world); // the grown arrays back into wasm memory
}

/** {@link ensureTailRow}'s growth of the JavaScript arrays alone; returns whether they grew. */
export function growTailRows(world: BitrigWorld, row: number): boolean {
  if (!(Number.isInteger(row) && row >= 0 && row < MAX_CAPACITY)) {
    throw new Error(`bitrig/world: tail row must be an integer in [0, ${MAX_CAPACITY}), got ${describeValue(row)}`);
  }
  const rows = world.tailRows;
  if (row < rows.capacity) return false;
  let cap = rows.capacity;
  while (cap <= row) cap *= 2;
  const comps = world.components as unknown as Record<string, Record<string, unknown>>;
  for (const [name, keys] of Object.entries(TAIL_LINK_FIELDS)) growComponent(comps[name]!, rows.capacity, cap, keys);
  const ent = new Int32Array(cap).fill(-1);
  ent.set(rows.ent);
  rows.ent = ent;
  rows.capacity = cap;
  return true;
}

/**
 * Feet locked on a support that goes away keep its last frame until they lift: their contact
 * (point, orientation, normal) moves from the support's frame into world space, with no support.
 * Feet that last stood on it (unlocked) no longer report it.
 */
function detachFeet(world: BitrigWorld, eid: number, row: number): void {
  const F = world.components.FootContact, S = world.components.SupportFrame;
  const limbs = world.queries.limbs.dense;
  const mir = S.mirrored[row] === 1;
  for (let i = 0; i < limbs.length; i++) {
    const e = limbs[i]!;
    if (F.groundSupport[e] === eid) F.groundSupport[e] = -1; // (diagnostics: its id may be reused)
    if (F.locked[e] !== 1 || F.support[e] !== eid) continue;
    transformPoint(F.contactSs, e * 3, S.matrixWs, row * 16, F.contactSs, e * 3);
    rotationToWorld(F.rotSs, e * 4, S.rotWs, row * 4, F.rotSs, e * 4, mir);
    if (mir) F.normalSs[e * 3] = -F.normalSs[e * 3]!;
    qRotate(F.normalSs, e * 3, S.rotWs, row * 4, F.normalSs, e * 3);
    F.support[e] = -1;
  }
}

/**
 * Make room for support row `row`, doubling the support rows as needed. Setup-time
 * (`addSupport` calls it).
 *
 * @example
 * ensureSupportRow(world, world.supportRows.next);
 */
export function ensureSupportRow(world: BitrigWorld, row: number): void {
  if (!(Number.isInteger(row) && row >= 0 && row < MAX_CAPACITY)) {
    throw new Error(`bitrig/world: support row must be an integer in [0, ${MAX_CAPACITY}), got ${describeValue(row)}`);
  }
  const rows = world.supportRows;
  if (row < rows.capacity) return;
  let cap = rows.capacity;
  while (cap <= row) cap *= 2;
  growComponent(world.components.SupportFrame as unknown as Record<string, unknown>, rows.capacity, cap, SUPPORT_ROW_FIELDS);
  rows.capacity = cap;
  relayout(world); // (the scene contacts kernel reads the support rows)
}

/**
 * Remove an entity and commit the removal from every query; a tail chain's dense row and a
 * support's row are released for reuse. Setup-time.
 *
 * @example
 * removeBitrigEntity(world, eid);
 */
export function removeBitrigEntity(world: BitrigWorld, eid: number): void {
  const C = world.components.TailChain;
  if (hasComponent(world, eid, C)) {
    if (C.row[eid]! >= 0) {
      releaseTailRow(world.tailRows, C.row[eid]!);
      C.row[eid] = -1;
      C.links[eid] = 0;
    }
    const list = world.tailsByChar.get(C.char[eid]!);
    const at = list ? list.indexOf(eid) : -1;
    if (at >= 0) { list!.splice(at, 1); if (list!.length === 0) world.tailsByChar.delete(C.char[eid]!); }
  }
  const S = world.components.SupportFrame;
  if (eid >= 0 && eid < world.capacity && S.row[eid]! >= 0) {
    detachFeet(world, eid, S.row[eid]!);
    world.supportRows.free.push(S.row[eid]!);
    S.row[eid] = -1;
  }
  removeEntity(world, eid);
  commitRemovals(world);
}
