/**
 * The WebAssembly kernels, compiled once and laid out on one memory per world. They are the
 * only implementation of the tail step and write (wasm/tailStep.ts, compiled into
 * {@link TAIL_STEP_WASM_BASE64}), the scene two-bone IK (wasm/twoBone.ts,
 * {@link TWO_BONE_WASM_BASE64}) and the scene contacts, FootLock and PelvisHeight
 * (wasm/sceneContacts.ts, {@link SCENE_CONTACTS_WASM_BASE64}); the systems call them.
 *
 * The world's tail components, its scene components and the pose store's arrays live in the
 * kernels' memory, and the kernels read and write them in place: the components stay plain
 * objects of typed arrays, only their storage moves. Every re-layout (world creation,
 * capacity growth at setup) makes a new memory and new views, so code must read
 * `world.components.X.field` afresh after setup.
 *
 * WebAssembly SIMD is in every current browser and in Node; where it is missing, or a page's
 * Content-Security-Policy forbids compiling WebAssembly, attaching bitrig to a world throws an
 * error naming the fix (`'wasm-unsafe-eval'` in `script-src`).
 */
import type { BitrigWorld } from '../core/world';
import type { SceneContactsExports, TailAccel, TailStepExports, TwoBoneExports } from '../core/kernelTypes';
import { LINK_STRIDE } from '../core/components/tail';
import { TAIL_STEP_WASM_BASE64 } from './wasm/tailStepWasm';
import { TWO_BONE_WASM_BASE64 } from './wasm/twoBoneWasm';
import { SCENE_CONTACTS_WASM_BASE64 } from './wasm/sceneContactsWasm';


// Byte offset where the arena starts: the first page is left to the compiled module (it has no
// static data today; the reserve keeps a future one from landing on component data).
const ARENA_BASE = 65536;
const PAGE = 65536;
// Bytes of the scene contacts kernel's scratch (wasm/sceneContacts.ts).
const SCENE_SCRATCH_BYTES = 512;
// Bytes of the tail step's scratch (wasm/tailStep.ts SCRATCH: 16 group blocks of 55 + 7 × 16 v128, then 16 groups' step values).
const STEP_SCRATCH_BYTES = 16 * (55 + 8 * 16) * 16 + 16 * LINK_STRIDE * 8 * 16;

const _modules = new Map<string, WebAssembly.Module | null>();
let _unavailable: string | null = null;

function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Compile an embedded kernel once (synchronously: each is a few tens of KB); `null` where WebAssembly SIMD or compiling it is unavailable. */
function kernelModule(base64: string): WebAssembly.Module | null {
  const known = _modules.get(base64);
  if (known !== undefined) return known;
  let m: WebAssembly.Module | null = null;
  try {
    if (typeof WebAssembly === 'object' && typeof atob === 'function') {
      const bytes = decodeBase64(base64);
      if (WebAssembly.validate(bytes)) m = new WebAssembly.Module(bytes);
    }
  } catch (err) {
    m = null; // no SIMD, or compiling WebAssembly is not allowed here (a content-security policy without 'wasm-unsafe-eval')
    _unavailable = unavailableText(err);
  }
  if (m === null && _unavailable === null) _unavailable = 'bitrig: this runtime has no WebAssembly SIMD (every current browser and Node 16.4 or later has it); bitrig needs it';
  _modules.set(base64, m);
  return m;
}

/** Why compiling a kernel failed, in words a developer can act on. */
function unavailableText(err: unknown): string {
  const what = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const csp = /unsafe-eval|Content.Security|CSP|not allowed|disallowed|refused/i.test(what);
  return csp
    ? `bitrig: the page's Content-Security-Policy does not allow compiling WebAssembly (${what}); add 'wasm-unsafe-eval' to script-src (Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval').`
    : `bitrig: the WebAssembly kernels could not be compiled (${what}); if the page sets a Content-Security-Policy, add 'wasm-unsafe-eval' to script-src`;
}

/**
 * Why the WebAssembly kernels are off (`null`: they compiled, or none was asked for yet): a
 * refusal by the page's Content-Security-Policy names the fix, `'wasm-unsafe-eval'` in
 * `script-src`.
 *
 * @example
 * const why = kernelUnavailableReason(); if (why !== null) console.warn(why);
 */
export function kernelUnavailableReason(): string | null {
  return _unavailable;
}

/**
 * The compiled tail kernel (wasm/tailStep.ts), or `null` where WebAssembly SIMD is unavailable.
 *
 * @example
 * if (tailWasmModule() === null) console.info('bitrig: JavaScript tail step');
 */
export function tailWasmModule(): WebAssembly.Module | null {
  return kernelModule(TAIL_STEP_WASM_BASE64);
}

/**
 * The compiled two-bone IK kernel (wasm/twoBone.ts), or `null` where it is unavailable.
 *
 * @example
 * if (twoBoneWasmModule() === null) console.info('bitrig: JavaScript two-bone IK');
 */
export function twoBoneWasmModule(): WebAssembly.Module | null {
  return kernelModule(TWO_BONE_WASM_BASE64);
}

/**
 * The compiled scene contacts kernel (wasm/sceneContacts.ts: FootLock, PelvisHeight), or `null`
 * where it is unavailable.
 *
 * @example
 * if (sceneContactsWasmModule() === null) console.info('bitrig: JavaScript foot lock and pelvis');
 */
export function sceneContactsWasmModule(): WebAssembly.Module | null {
  return kernelModule(SCENE_CONTACTS_WASM_BASE64);
}

/** The scene contacts kernel's arrays (setScenePointers order; then comSegments, the character list, params, scratch). */
const SCENE_ORDER: ReadonlyArray<readonly ['SceneCharacter' | 'Limb' | 'FootContact' | 'SupportFrame' | 'HandTarget' | 'pose', string]> = [
  ['pose', 'worldM'], ['pose', 'charRootWs'], ['pose', 'parent'], ['pose', 'localT'], ['pose', 'dirty'],
  ['SceneCharacter', 'char'], ['SceneCharacter', 'legs'], ['SceneCharacter', 'legCount'], ['SceneCharacter', 'grounded'],
  ['SceneCharacter', 'groundBlend'], ['SceneCharacter', 'groundRate'], ['SceneCharacter', 'initialised'],
  ['SceneCharacter', 'balance'], ['SceneCharacter', 'balanceInput'], ['SceneCharacter', 'balanceMaxShift'],
  ['SceneCharacter', 'pelvisRate'], ['SceneCharacter', 'maxDrop'], ['SceneCharacter', 'maxRaise'], ['SceneCharacter', 'bodyMass'],
  ['SceneCharacter', 'arms'], ['SceneCharacter', 'armCount'], ['SceneCharacter', 'segStart'], ['SceneCharacter', 'segCount'],
  ['SceneCharacter', 'pelvisSlot'], ['SceneCharacter', 'pelvisSubEnd'], ['SceneCharacter', 'pelvisDense'],
  ['SceneCharacter', 'offsetWs'], ['SceneCharacter', 'bandLo'], ['SceneCharacter', 'bandHi'], ['SceneCharacter', 'bandLegs'],
  ['SceneCharacter', 'bandInfeasible'], ['SceneCharacter', 'bandBeyondLimits'], ['SceneCharacter', 'comWs'],
  ['SceneCharacter', 'supportWs'], ['SceneCharacter', 'comValid'],
  ['Limb', 'rootSlot'], ['Limb', 'midSlot'], ['Limb', 'endSlot'], ['Limb', 'endIsChild'], ['Limb', 'tipLs'], ['Limb', 'soften'],
  ['Limb', 'targetWs'], ['Limb', 'targetRotWs'], ['Limb', 'hasTargetRot'], ['Limb', 'weight'], ['Limb', 'rotWeight'], ['Limb', 'hasPole'],
  ['FootContact', 'stance'], ['FootContact', 'stanceEff'], ['FootContact', 'lockOn'], ['FootContact', 'maxTilt'],
  ['FootContact', 'locked'], ['FootContact', 'support'], ['FootContact', 'contactSs'], ['FootContact', 'rotSs'],
  ['FootContact', 'normalSs'], ['FootContact', 'soleLs'], ['FootContact', 'soleNormalLs'], ['FootContact', 'contactWs'],
  ['FootContact', 'normalWs'], ['FootContact', 'groundY'], ['FootContact', 'hasGround'], ['FootContact', 'groundSupport'],
  ['SupportFrame', 'row'], ['SupportFrame', 'matrixWs'], ['SupportFrame', 'invMatrixWs'], ['SupportFrame', 'rotWs'], ['SupportFrame', 'mirrored'],
  ['HandTarget', 'mass'], ['HandTarget', 'hasGrip'], ['HandTarget', 'objectPosWs'],
];

/** The two-bone IK kernel's arrays (setIkPointers order; then the limb list). */
const IK_ORDER: ReadonlyArray<readonly ['Limb' | 'HandTarget' | 'pose', string]> = [
  ['pose', 'parent'], ['pose', 'owner'], ['pose', 'localT'], ['pose', 'localR'], ['pose', 'localS'], ['pose', 'worldM'],
  ['pose', 'charRootWs'], ['pose', 'dirty'],
  ['Limb', 'char'], ['Limb', 'kind'], ['Limb', 'rootSlot'], ['Limb', 'midSlot'], ['Limb', 'endSlot'], ['Limb', 'endIsChild'],
  ['Limb', 'subtreeEnd'], ['Limb', 'bendHintLs'], ['Limb', 'soften'], ['Limb', 'reachTolerance'], ['Limb', 'weight'],
  ['Limb', 'rotWeight'], ['Limb', 'targetWs'], ['Limb', 'targetRotWs'], ['Limb', 'hasTargetRot'], ['Limb', 'poleWs'],
  ['Limb', 'hasPole'], ['Limb', 'reached'], ['Limb', 'missWs'], ['Limb', 'missFullWs'], ['Limb', 'extension'],
  ['Limb', 'solved'], ['Limb', 'invalid'],
  ['HandTarget', 'posWs'], ['HandTarget', 'rotWs'], ['HandTarget', 'hasRot'], ['HandTarget', 'weight'], ['HandTarget', 'rotWeight'],
  ['HandTarget', 'poleWs'], ['HandTarget', 'hasPole'], ['HandTarget', 'gripPos'], ['HandTarget', 'gripRot'], ['HandTarget', 'hasGrip'],
  ['HandTarget', 'objectPosWs'], ['HandTarget', 'objectRotWs'], ['HandTarget', 'reposition'],
  ['Limb', 'tipLs'], ['pose', 'charStart'], ['pose', 'charCount'],
];

/** The tail components' typed arrays, in the kernel's pointer order first (`tailRows.ent`: the chain of each row). */
const POINTER_ORDER: ReadonlyArray<readonly ['TailChain' | 'TailParticle' | 'BendState' | 'tailRows', string]> = [
  ['TailChain', 'anchorStep'], ['TailChain', 'links'], ['TailChain', 'row'], ['TailChain', 'stepsLastFrame'],
  ['BendState', 'headLs'], ['BendState', 'restDirLs'], ['BendState', 'lenRel'], ['BendState', 'scaleRel'],
  ['BendState', 'restR'], ['BendState', 'localCur'], ['BendState', 'localPrev'], ['BendState', 'toHipsM'],
  ['BendState', 'restDirHs'], ['BendState', 'bendOld'],
  ['TailParticle', 'pos'], ['TailParticle', 'vel'], ['TailParticle', 'contact'],
  ['TailChain', 'axesLs'], ['TailChain', 'frequency'], ['TailChain', 'tipRatio'], ['TailChain', 'damping'],
  ['TailChain', 'gravity'], ['TailChain', 'unitScale'], ['TailChain', 'floorY'], ['TailChain', 'floorClearance'],
  ['TailChain', 'floorEnabled'], ['TailChain', 'stepCache'], ['TailChain', 'origin'], ['tailRows', 'ent'],
];

/** The write's arrays (setWritePointers order; the pose store's five are laid out here too). */
const WRITE_ORDER: ReadonlyArray<readonly ['TailChain' | 'BendState' | 'pose', string]> = [
  ['TailChain', 'anchorCur'], ['TailChain', 'initialised'], ['TailChain', 'exactWorld'], ['TailChain', 'mirrored'],
  ['TailChain', 'slot'], ['BendState', 'tipDirLs'], ['pose', 'localR'], ['pose', 'worldM'],
  ['TailChain', 'writeFailed'], ['TailChain', 'endSlot'], ['TailChain', 'endLeaf'], ['TailChain', 'anchorPrev'],
  ['pose', 'localT'], ['pose', 'localS'], ['pose', 'owner'],
];

/** The tail colliders' arrays (setColliderPointers order). */
const COLLIDER_ORDER: ReadonlyArray<readonly ['TailChain' | 'TailCollider', string]> = [
  ['TailChain', 'colliderCount'], ['TailChain', 'colliders'], ['TailChain', 'colliderContacts'],
];

/** The collider placement's arrays (setColliderPlacePointers order, after the collider list). */
const COLLIDER_PLACE_ORDER: ReadonlyArray<readonly ['TailCollider', string]> = [
  ['TailCollider', 'slot'], ['TailCollider', 'char'], ['TailCollider', 'fresh'], ['TailCollider', 'refSlot'],
  ['TailCollider', 'shapeLs'], ['TailCollider', 'shapePrev'], ['TailCollider', 'shapeCur'], ['TailCollider', 'relPrev'],
];

/** The clock preparation's further arrays (setPreparePointers order; then the pose store's slot count and the per-link arrays' row count). */
const PREPARE_ORDER: ReadonlyArray<readonly ['TailChain', string]> = [
  ['TailChain', 'anchorSlot'], ['TailChain', 'resetLastFrame'], ['TailChain', 'exactWorldSetup'], ['TailChain', 'restSource'],
  ['TailChain', 'teleportDistance'], ['TailChain', 'seatEase'], ['TailChain', 'char'],
];

type Typed = Float64Array | Float32Array | Int32Array | Uint8Array;

/**
 * Move the world's components and the pose store's arrays into a fresh WebAssembly memory
 * sized for the current capacities and (re)connect the kernels. Setup-time; returns `false`
 * (the world keeps its arrays, and views into a previous memory stay valid) where the kernels
 * are unavailable or the memory cannot be had (over 4 GB).
 *
 * @example
 * layoutTailArena(world); // after the tail components grew
 */
export function layoutTailArena(world: BitrigWorld): boolean {
  const module = tailWasmModule();
  if (module === null) return false;
  const comps: Record<string, Record<string, unknown>> = {
    ...(world.components as unknown as Record<string, Record<string, unknown>>),
    pose: world.pose as unknown as Record<string, unknown>,
    tailRows: world.tailRows as unknown as Record<string, unknown>,
  };
  const entries: Array<{ owner: Record<string, unknown>; key: string; id: string; src: Typed }> = [];
  const seen = new Set<string>();
  const push = (c: string, key: string): void => {
    const id = c + '.' + key;
    if (seen.has(id)) return;
    const src = comps[c]![key];
    if (!(src instanceof Float64Array || src instanceof Float32Array || src instanceof Int32Array || src instanceof Uint8Array)) {
      throw new Error(`bitrig/wasm: ${id} is not a typed array`);
    }
    seen.add(id);
    entries.push({ owner: comps[c]!, key, id, src });
  };
  for (const [c, key] of POINTER_ORDER) push(c, key);
  for (const [c, key] of WRITE_ORDER) push(c, key);
  for (const [c, key] of COLLIDER_ORDER) push(c, key);
  for (const [c, key] of COLLIDER_PLACE_ORDER) push(c, key);
  const ikModule = twoBoneWasmModule();
  if (ikModule !== null) for (const [c, key] of IK_ORDER) push(c, key);
  for (const c of ['TailChain', 'TailParticle', 'BendState']) {
    for (const key of Object.keys(comps[c]!)) {
      const v = comps[c]![key];
      if (v instanceof Float64Array || v instanceof Float32Array || v instanceof Int32Array || v instanceof Uint8Array) push(c, key);
    }
  }
  const sceneModule = sceneContactsWasmModule();
  if (sceneModule !== null) {
    for (const [c, key] of SCENE_ORDER) push(c, key);
    comps['world'] = world as unknown as Record<string, unknown>; push('world', 'comSegments'); // (PelvisHeight's centre of mass)
  }
  const cap = world.capacity;
  let top = ARENA_BASE;
  const offsets: number[] = [];
  const offsetOf = new Map<string, number>();
  for (const e of entries) {
    top = (top + 15) & ~15;
    offsets.push(top);
    offsetOf.set(e.id, top);
    top += e.src.byteLength;
  }
  top = (top + 15) & ~15;
  const chainKOff = top; top += cap * 16 * 8;
  const entsOff = top; top += cap * 4;
  const colliderListOff = top; top += cap * 4;
  const colliderStampOff = top; top += cap * 4;
  top = (top + 15) & ~15;
  const paramsOff = top; top += 32;
  const scratchOff = top; top += STEP_SCRATCH_BYTES;
  const ikListOff = top; top += cap * 4;
  const sceneListOff = top; top += cap * 4;
  top = (top + 15) & ~15;
  const sceneParamsOff = top; top += 16;
  const sceneScratchOff = top; top += SCENE_SCRATCH_BYTES;
  const sceneGroundOff = top; top += cap * 5 * 8;
  const sceneGroundOkOff = top; top += cap;
  let memory: WebAssembly.Memory, instance: WebAssembly.Instance;
  try {
    if (top > 0xffff0000) throw new RangeError('over 4 GB');
    const pages = Math.ceil(top / PAGE);
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
    instance = new WebAssembly.Instance(module, { env: { memory } });
  } catch {
    // Too large for a 32-bit WebAssembly memory (or out of memory): the caller reports it
    // (attach throws; a growth keeps the previous layout, whose views stay valid).
    return false;
  }
  const kernel = instance.exports as unknown as TailStepExports;
  const buffer = memory.buffer as ArrayBuffer;
  for (let i = 0; i < entries.length; i++) {
    const { owner, key, src } = entries[i]!;
    const Ctor = src.constructor as { new (b: ArrayBuffer, o: number, n: number): Typed };
    const view = new Ctor(buffer, offsets[i]!, src.length);
    view.set(src);
    owner[key] = view;
  }
  kernel.setPointers(...POINTER_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), chainKOff, entsOff, paramsOff, scratchOff);
  kernel.setWritePointers(...WRITE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!));
  kernel.setColliderPointers(...COLLIDER_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!));
  kernel.setColliderPlacePointers(colliderListOff, colliderStampOff, ...COLLIDER_PLACE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!));
  kernel.setPreparePointers(...PREPARE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), world.pose.capacity, world.components.TailChain.slot.length / LINK_STRIDE);
  let ik: TwoBoneExports | null = null;
  if (ikModule !== null) {
    try {
      // (JavaScript's own exp, acos and sin)
      const ikInstance = new WebAssembly.Instance(ikModule, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin } });
      ik = ikInstance.exports as unknown as TwoBoneExports;
      if (ik.staticEnd() > ARENA_BASE) throw new Error('bitrig/wasm: the two-bone kernel\'s static data overlaps the arena');
      ik.setIkPointers(...IK_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), ikListOff, world.pose.capacity, world.pose.charCapacity, world.capacity);
    } catch {
      ik = null; // (no scene IK in this layout: TwoBoneIK does nothing)
    }
  }
  let scene: SceneContactsExports | null = null;
  if (sceneModule !== null) {
    try {
      // (JavaScript's own exp, acos, sin and cos)
      const sceneInstance = new WebAssembly.Instance(sceneModule, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin, cos: Math.cos } });
      scene = sceneInstance.exports as unknown as SceneContactsExports;
      scene.setScenePointers(...SCENE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), offsetOf.get('world.comSegments')!,
        sceneListOff, sceneParamsOff, sceneScratchOff, sceneGroundOff, sceneGroundOkOff);
      // (the capacities the kernel checks a character's structure fields against: slots, characters, entities, COM pool, support rows)
      scene.setSceneLimits(world.pose.capacity, world.pose.charCapacity, world.capacity, world.comSegments.length, world.components.SupportFrame.mirrored.length);
    } catch {
      scene = null; // (no scene contacts in this layout: FootLock and PelvisHeight do nothing)
    }
  }
  world.tailAccel = {
    memory, kernel,
    chainK: new Float64Array(buffer, chainKOff, cap * 16),
    ents: new Int32Array(buffer, entsOff, cap),
    colliderList: new Int32Array(buffer, colliderListOff, cap),
    ik,
    ikList: new Int32Array(buffer, ikListOff, cap),
    scene,
    sceneList: new Int32Array(buffer, sceneListOff, cap),
    sceneParams: new Float64Array(buffer, sceneParamsOff, 2),
    sceneGround: new Float64Array(buffer, sceneGroundOff, cap * 5),
    sceneGroundOk: new Uint8Array(buffer, sceneGroundOkOff, cap),
    params: new Float64Array(buffer, paramsOff, 4),
    capacity: cap,
  };
  return true;
}
