/**
 * What the systems see of the WebAssembly kernels: their exports and the views a world's
 * layout shares with JavaScript (`world.tailAccel`). Types only — the runtime
 * (runtime/kernels.ts) compiles the kernels and lays the memory out; the systems call the
 * kernels through these, so neither core nor the systems import the runtime.
 */
/** The tail kernel's exports (see wasm/tailStep.ts). */
export interface TailStepExports {
  setPointers(...offsets: number[]): void;
  setWritePointers(...offsets: number[]): void;
  setPreparePointers(...offsets: number[]): void;
  /** Byte offsets of the collider arrays: `TailChain.colliderCount`, `.colliders`, `.colliderContacts`. */
  setColliderPointers(...offsets: number[]): void;
  prepareChains(count: number, steps: number): number;
  prepareList(list: number, from: number, to: number, steps: number): number;
  /** Each listed chain's anchor at the step's time params[2]; returns how many need the full slerp (listed first). */
  anchorSteps(count: number): number;
  /** Step the chains of row groups [g0, g1) by params[0] seconds. */
  tailStep(g0: number, g1: number): void;
  /** Write the chains of row groups [g0, g1) for the display fraction params[1]. */
  tailWrite(g0: number, g1: number): void;
  finishLeftCount(count: number): number;
  /** Byte offsets of the collider placement's arrays: the collider list, the colliders' placement stamps (i32 per entity), then `TailCollider.slot`, `.char`, `.fresh`, `.refSlot`, `.shapeLs`, `.shapePrev`, `.shapeCur`, `.relPrev`. */
  setColliderPlacePointers(...offsets: number[]): void;
  /** The frame's world shapes of the `count` colliders in the collider list. */
  placeColliders(count: number): void;
}

/** The two-bone IK kernel's exports (see wasm/twoBone.ts). */
export interface TwoBoneExports {
  setIkPointers(...offsets: number[]): void;
  /** Solve every limb of `ikList[from..count)` in order (a limb outside the layout: `solved` 0, `invalid` 1); returns `count`. */
  twoBoneRun(from: number, count: number): number;
  /** Byte address of the flat two-bone record (64 f64) that {@link twoBoneSolveRecord} solves. */
  twoBoneRecord(): number;
  /** Solve the flat record in place: 1 solved, 0 invalid input. */
  twoBoneSolveRecord(): number;
  /** The end of the kernel's static data: a layout's arrays start above it. */
  staticEnd(): number;
  /** 1 when limb `e`'s ids lie inside the layout (what `twoBoneRun` solves). */
  limbOk(e: number): number;
}

/** The scene contacts kernel's exports (see wasm/sceneContacts.ts). */
export interface SceneContactsExports {
  setScenePointers(...offsets: number[]): void;
  /** The capacities a character's structure fields are checked against (slots, characters, entities, COM pool length, support rows). */
  setSceneLimits(slots: number, chars: number, ents: number, pool: number, supportRows: number): void;
  /** The legs whose ground the game's queries are asked about before {@link footLockRun}: each leg's sole point (world) in `sceneGround[e*5..]`, its character at `[e*5 + 4]`, the leg ids in `sceneList[count..]`; returns how many. */
  footGroundPoints(count: number): number;
  /** FootLock for the characters `sceneList[from..count)` in order (an entry `-1 - c`: character c has a ground query, its legs' hits in {@link TailAccel.sceneGround}); returns `count`. */
  footLockRun(from: number, count: number): number;
  /** PelvisHeight for the characters `sceneList[from..count)` (an entry `-1 - c`: character c, as {@link footLockRun} reads it). */
  pelvisRun(from: number, count: number): void;
  /** 1 when scene character `c`'s structure fields lie inside the layout (what FootLock and PelvisHeight solve). */
  characterOk(c: number): number;
  /** The centre of mass of scene character `c` now (world): 1 with the point in `comXOf()`..`comZOf()`, 0 without one. */
  centerOfMassOf(c: number): number;
  /** x of the last `centerOfMassOf`. */
  comXOf(): number;
  /** y of the last `centerOfMassOf`. */
  comYOf(): number;
  /** z of the last `centerOfMassOf`. */
  comZOf(): number;
  /** Legs whose foot rotation ran two to a f64x2 since the last call (a test counter). */
  pairedLegsSince(): number;
  /** Legs whose foot rotation ran alone (odd, degenerate or branching differently) since the last call (a test counter). */
  scalarLegsSince(): number;
  /** Legs whose whole FootLock ran two to a f64x2 (planted on static ground, no ground query) since the last call (a test counter). */
  pairedLocksSince(): number;
}

/**
 * What FootLock and PelvisHeight need of a WebAssembly layout (`world.tailAccel`): the scene contacts kernel, its character list,
 * parameters and ground hits, and the memory's buffer (the systems check their arrays live in it).
 */
export interface SceneContactsKernel {
  scene: SceneContactsExports | null;
  sceneList: Int32Array;
  sceneParams: Float64Array;
  sceneGround: Float64Array;
  sceneGroundOk: Uint8Array;
  memory: { readonly buffer: ArrayBufferLike };
}

/**
 * A world's WebAssembly tail step: instance, memory and the views it shares with JavaScript
 * (`world.tailAccel`, `null` on the JavaScript step).
 *
 * @example
 * const mb = world.tailAccel ? world.tailAccel.memory.buffer.byteLength / 2 ** 20 : 0;
 */
export interface TailAccel {
  /** The instance's memory (every tail component array, the pose store's `localT`, `localR`, `localS`, `worldM` and `owner`). */
  memory: WebAssembly.Memory;
  /** The kernel's exported functions. */
  kernel: TailStepExports;
  /** Per-chain constants of the step, filled by the kernel for a chain with a link on the floor (16 f64 per entity id; layout in wasm/tailStep.ts). */
  chainK: Float64Array;
  /** Entity ids the clock's preparation and the write's finish count run over this call (i32). */
  ents: Int32Array;
  /** The scene two-bone IK kernel on this memory (`null`: systems/twoBoneIK.ts solves every limb in JavaScript). */
  ik: TwoBoneExports | null;
  /** The limb entity ids {@link TailAccel.ik} solves this call (i32, `capacity` long). */
  ikList: Int32Array;
  /** The scene contacts kernel (FootLock, PelvisHeight) on this memory (`null`: systems/footLock.ts and systems/pelvisHeight.ts run in JavaScript). */
  scene: SceneContactsExports | null;
  /** The character ids {@link TailAccel.scene} runs this call (i32, `capacity` long; negative: left to JavaScript). */
  sceneList: Int32Array;
  /** The scene contacts kernel's parameters: [0] dt (seconds). */
  sceneParams: Float64Array;
  /** Per leg entity, the game's ground query's hit for FootLock's kernel: height, normal x y z, support (f64 × 5). */
  sceneGround: Float64Array;
  /** Per leg entity, 1 where that ground query hit (u8). */
  sceneGroundOk: Uint8Array;
  /** Collider entity ids the placement runs over this frame (i32, `capacity` long). */
  colliderList: Int32Array;
  /** [0]: the step length h (seconds); [1]: the write's display fraction α; [2]: the current step's time within the frame (0…1); [3]: a step's share of the frame (at most 1: the colliders' lead per step, set by `tailCollidersBegin`). */
  params: Float64Array;
  /** Entity capacity this layout was made for. */
  capacity: number;
}
