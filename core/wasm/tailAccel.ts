/**
 * The WebAssembly SIMD tail step and write: the world's tail components (and the pose store's
 * `localT`, `localR`, `localS`, `worldM` and `owner`) live in a WebAssembly memory and `systems/tailStep` and
 * `systems/tailWrite` hand their link loops to `wasm/tailStep.ts` (compiled into
 * {@link TAIL_STEP_WASM_BASE64}), `systems/tailClock` the common case of its per-chain
 * preparation and of its per-step anchors (bit-identical: the same operations).
 *
 * The step runs in float32, four chains of the same link count per f32x4 group, on the
 * kernel's own interleaved float32 copy of the chains' data (the mirror, laid out here: group
 * records, the group table, each chain's anchor reference and lane; and per thread, a scratch
 * for what lives one step only); after every step it writes the particle state back into the
 * f64 components, which stay the truth for everything else. JavaScript that writes a chain's
 * per-link data marks it in `TailChain.mirrorStale` (bitrig's own writers do; others call
 * `markTailChainChanged`), and the kernel reads it in again before its next step. Results agree with the f64 JavaScript step
 * (the reference) within float32 rounding — tip positions within 1e-5 × the chain's length,
 * local rotations within 0.01° on the test fixtures and ordinary motion (test/tail/wasm.test.ts
 * and wasmPrecision.test.ts; seeded extreme worlds: 1e-4 × length, 0.12°, wasmFuzz.test.ts) — and
 * exactly with themselves, on any number of threads. The write runs two chains per f64x2 lane
 * pair and is bit-identical to the JavaScript write for the same state. Where WebAssembly or
 * its SIMD extension is missing (or a content-security policy forbids compiling it), the world
 * keeps ordinary typed arrays and the JavaScript step.
 *
 * The scene two-bone IK (systems/twoBoneIK.ts) solves the limbs it can with `wasm/twoBone.ts`
 * (compiled into {@link TWO_BONE_WASM_BASE64}), a second instance on the same memory: the Limb
 * and HandTarget components and the pose store's `parent`, `charRootWs` and `dirty` move in too
 * (`TailAccel.ik`; `null`, the JavaScript solve, where that module is unavailable).
 *
 * The scene contacts (systems/footLock.ts, systems/pelvisHeight.ts) run with
 * `wasm/sceneContacts.ts` (compiled into {@link SCENE_CONTACTS_WASM_BASE64}), a third instance on
 * the same memory: SceneCharacter, FootContact, SupportFrame, the Limb request, HandTarget's
 * loads, the pose store and the COM segment pool (`world.comSegments`) move in too
 * (`TailAccel.scene`; `null`, the JavaScript systems, where that module is unavailable).
 *
 * The components stay plain objects of typed arrays: only their storage moves. Every re-layout
 * (world creation, capacity growth at setup) makes a new memory and new views, like the
 * JavaScript growth does, so code must read `world.components.X.field` afresh after setup —
 * and after a frame in which a worker timed out ({@link settleTimedOutWorkers}), the one time
 * the arrays are replaced outside setup: read them afresh each frame, never cache a view.
 */
import type { BitrigWorld } from '../world';
import { CLOCK, LINK_STRIDE } from '../components/tail';
import { TAIL_STEP_WASM_BASE64 } from './tailStepWasm';
import { TWO_BONE_WASM_BASE64 } from './twoBoneWasm';
import { SCENE_CONTACTS_WASM_BASE64 } from './sceneContactsWasm';
import { CTL, WAIT_LIMIT_MS, runTailJob, startTailWorkers, stopTailWorkers, threadsAvailable, waitCounter, type TailWorker, type WorkerInit } from './tailThreads';
import { JOB, makeSceneView, publishJsJob, runSceneChunks, runSceneList, SCENE_CHUNK, SCENE_MAX_CHUNKS, SCENE_SCRATCH_BYTES, SCENE_SLAB, type SceneView } from './sceneJob';
import { MAX_ARMS, MAX_LEGS } from '../components/scene';
import type { WorkerArray } from './worker';
import { tailFinishChain } from '../tailFinish';

/** The kernel's exports (see wasm/tailStep.ts). */
interface TailStepExports {
  setPointers(...offsets: number[]): void;
  setWritePointers(...offsets: number[]): void;
  setControl(offset: number): void;
  setPreparePointers(...offsets: number[]): void;
  prepareChains(count: number, steps: number): number;
  prepareList(list: number, from: number, to: number, steps: number): number;
  anchorSteps(count: number, t: number): number;
  prepareStep(count: number): number;
  prepareWrite(count: number): number;
  run(): number;
  tailStep(count: number): void;
  tailWrite(count: number): void;
  finishLeftCount(count: number): number;
}

/** The two-bone IK kernel's exports (see wasm/twoBone.ts). */
export interface TwoBoneExports {
  setIkPointers(...offsets: number[]): void;
  /** Solve the limbs `ikList[from..count)` in order; returns the index of the first one left to JavaScript (`count`: none). */
  twoBoneRun(from: number, count: number): number;
  /** The list index the last `twoBoneRun` was at (after a trap: the limb or pair it stopped in; the ones before it are solved). */
  twoBoneAt(): number;
}

/** The scene contacts kernel's exports (see wasm/sceneContacts.ts). */
export interface SceneContactsExports {
  setScenePointers(...offsets: number[]): void;
  /** The capacities a character's structure fields are checked against (slots, characters, entities, COM pool length, support rows). */
  setSceneLimits(slots: number, chars: number, ents: number, pool: number, supportRows: number): void;
  /** FootLock for the characters `sceneList[from..count)` in order (an entry `-1 - c`: character c has a ground query, its legs' hits in {@link TailAccel.sceneGround}); returns `count`. */
  footLockRun(from: number, count: number): number;
  /** PelvisHeight for the characters `sceneList[0..count)`. */
  pelvisRun(count: number): void;
  /** Legs whose foot rotation ran two to a f64x2 since the last call (a test counter). */
  pairedLegsSince(): number;
  /** Legs whose foot rotation ran alone (odd, degenerate or branching differently) since the last call (a test counter). */
  scalarLegsSince(): number;
  /** Legs whose whole FootLock ran two to a f64x2 (planted on static ground, no ground query) since the last call (a test counter). */
  pairedLocksSince(): number;
}

/**
 * What FootLock and PelvisHeight need of a WebAssembly layout (`world.tailAccel`, or a worker's
 * scene view's `sceneAccel`): the scene contacts kernel, this thread's character list,
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
  /** The step mirror's anchor reference of each chain (3 f64 per entity id; copied into a new layout so the mirror continues exactly). */
  mirrorRef: Float64Array;
  /** Entity ids to step this call (i32). */
  ents: Int32Array;
  /** The scene two-bone IK kernel on this memory (`null`: systems/twoBoneIK.ts solves every limb in JavaScript). */
  ik: TwoBoneExports | null;
  /** The limb entity ids {@link TailAccel.ik} solves this call (i32, `capacity` long; calling thread only). */
  ikList: Int32Array;
  /** The scene contacts kernel (FootLock, PelvisHeight) on this memory (`null`: systems/footLock.ts and systems/pelvisHeight.ts run in JavaScript). */
  scene: SceneContactsExports | null;
  /** The character ids {@link TailAccel.scene} runs this call (i32, `capacity` long; calling thread only; negative: left to JavaScript). */
  sceneList: Int32Array;
  /** The scene contacts kernel's parameters: [0] dt (seconds). */
  sceneParams: Float64Array;
  /** Per leg entity, the game's ground query's hit for FootLock's kernel: height, normal x y z, support (f64 × 5; calling thread only). */
  sceneGround: Float64Array;
  /** Per leg entity, 1 where that ground query hit (u8). */
  sceneGroundOk: Uint8Array;
  /** [0]: the step length h (seconds); [1]: the write's display fraction α. */
  params: Float64Array;
  /** Entity capacity this layout was made for. */
  capacity: number;
  /** The current job control block (i32; see core/wasm/sceneJob.ts `CTL`): one of {@link TailAccel.controls}. */
  control: Int32Array;
  /** Control blocks in turn: dropping the workers (a failure, a time-out, disposal) moves to the next, so workers being stopped can never see a later job (a re-layout has a new memory and starts at the first). */
  controls: Array<{ offset: number; i32: Int32Array; f64: Float64Array }>;
  /** Index of the current control block. */
  controlIndex: number;
  /** Worker threads asked for (`createBitrigWorld({ threads })`); 0 when the memory is not shared. */
  threads: number;
  /** Started workers (`null` until the first job after a layout). */
  workers: TailWorker[] | null;
  /** What a worker needs to join this layout (`null` without threads). */
  workerInit: WorkerInit | null;
  /** The scene job: every thread's view of the world (`null` without threads) … */
  sceneView: SceneView | null;
  /**
   * The calling thread's view for {@link sceneContactsChunked} and for its chunks of the scene
   * job (the world itself, through the prototype, but for its own chunk queries and lists;
   * `null` without threads and without both scene kernels).
   */
  chunkView: SceneView | null;
  /** … the characters listed for it (i32 over the shared memory) … */
  jobChars: Int32Array;
  /** … the entities only the calling thread may run (characters with a ground callback), reused … */
  ownChars: Int32Array;
  /** … and the control block as f64 (the job's dt). */
  controlF64: Float64Array;
  /** The tail clock's per-chain preparation on the worker threads, of the chains the caller listed in {@link TailAccel.jobChars} (`null` without threads); `false` when it did nothing. */
  prepareThreaded: ((world: BitrigWorld, steps: number) => boolean) | null;
  /** The tail write's per-chain finish on the worker threads (`null` without threads); `false` when it did nothing. */
  finishThreaded: ((world: BitrigWorld) => boolean) | null;
  /** The last chain listed so far per pose character (scratch of the finish job). */
  chainsPerChar: Int32Array;
  /** A worker reported an error: the workers are dropped before the next job. */
  failed: boolean;
  /** How long the calling thread waits for chunks a worker claimed (ms; {@link WAIT_LIMIT_MS}, or what {@link setLayoutWaitLimitMs} set; tests lower it). */
  waitLimitMs: number;
  /** A worker missed {@link TailAccel.waitLimitMs}: it may still write late, so at the end of the frame the world leaves this memory ({@link settleTimedOutWorkers}). */
  timedOut: boolean;
  /** Units the workers ran since this layout: step groups (four chains) and write pairs (diagnostics and tests). */
  pairsByWorkers: number;
  /** Scene chunks the workers ran since this layout (diagnostics and tests). */
  sceneChunksByWorkers: number;
  /** Tail-clock preparation chunks the workers ran since this layout. */
  prepareChunksByWorkers: number;
  /** Tail-write finish chunks the workers ran since this layout. */
  finishChunksByWorkers: number;
}

// Byte offset where the arena starts: the first page is left to the compiled module (it has no
// static data today; the reserve keeps a future one from landing on component data).
const ARENA_BASE = 65536;
// Control blocks used in turn (see TailAccel.controls); a worker of a start 32 starts ago would
// have to be still alive for a reused block to matter.
const CONTROL_BLOCKS = 32;
const PAGE = 65536;
// Bytes of one group-link record of the step's mirror and of one step scratch (wasm/tailStep.ts REC, SCRATCH).
const MIRROR_RECORD_BYTES = 34 * 16;
const STEP_SCRATCH_BYTES = 16 * 52 * 16 + 16 * LINK_STRIDE * 8 * 16;

// The wait limit new layouts start with (see setLayoutWaitLimitMs).
let _waitLimitMs = WAIT_LIMIT_MS;

/**
 * Set the wait limit (ms) that layouts made from now on start with, instead of
 * {@link WAIT_LIMIT_MS}; returns the previous one. Not part of the public API: the test suite
 * raises it (test/setup.ts) so that a worker descheduled for over 2 s on a loaded test machine
 * does not make a thread bit-identity test fail by a time-out; the tests of the time-out itself
 * set {@link TailAccel.waitLimitMs} on their world.
 *
 * @example
 * const before = setLayoutWaitLimitMs(60_000); // … setLayoutWaitLimitMs(before);
 */
export function setLayoutWaitLimitMs(ms: number): number {
  if (!(ms >= 0 && ms <= 2 ** 31 - 1)) throw new Error(`bitrig/wasm: the wait limit must be a number of milliseconds in [0, 2^31 - 1], got ${String(ms)}`);
  const before = _waitLimitMs;
  _waitLimitMs = ms;
  return before;
}

let _shared: WebAssembly.Module | null | undefined;
let _unshared: WebAssembly.Module | null | undefined;
let _ikShared: WebAssembly.Module | null | undefined;
let _ikUnshared: WebAssembly.Module | null | undefined;
let _sceneShared: WebAssembly.Module | null | undefined;
let _sceneUnshared: WebAssembly.Module | null | undefined;

function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function readLeb(b: Uint8Array, at: { i: number }): number {
  let v = 0, shift = 0, byte: number;
  do { byte = b[at.i++]!; v += (byte & 127) * 2 ** shift; shift += 7; } while (byte & 128);
  return v;
}

/**
 * The module with its memory import declared unshared (limits flag 0x03 → 0x01, the same
 * minimum and maximum): the kernel is compiled for a shared memory (worker threads), and this
 * variant runs it on an ordinary memory where SharedArrayBuffer is unavailable (atomic
 * instructions are valid on unshared memories). `null` when the import is not where expected.
 */
export function unsharedTailModuleBytes(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | null {
  const out = bytes.slice();
  const at = { i: 8 };
  while (at.i < out.length) {
    const id = out[at.i++]!;
    const size = readLeb(out, at);
    const end = at.i + size;
    if (id === 2) {
      const n = readLeb(out, at);
      for (let k = 0; k < n; k++) {
        for (let s = 0; s < 2; s++) { const len = readLeb(out, at); at.i += len; } // module, field
        const kind = out[at.i++]!;
        if (kind === 2) {
          if (out[at.i] !== 3) return null;
          out[at.i] = 1;
          return out;
        }
        if (kind === 0) readLeb(out, at); // function: type index
        else if (kind === 1) { at.i++; const f = out[at.i++]!; readLeb(out, at); if (f & 1) readLeb(out, at); } // table
        else if (kind === 3) at.i += 2; // global: type, mutability
        else return null;
      }
      return null;
    }
    at.i = end;
  }
  return null;
}

/**
 * The compiled tail kernel, or `null` where WebAssembly SIMD is unavailable. Compiled once
 * per variant (synchronously: the module is about 22 KB) on first use: `shared` for a shared
 * memory (worker threads), otherwise for an ordinary memory.
 *
 * @example
 * if (tailWasmModule() === null) console.info('bitrig: JavaScript tail step');
 */
export function tailWasmModule(shared = false): WebAssembly.Module | null {
  if (shared ? _shared !== undefined : _unshared !== undefined) return shared ? _shared! : _unshared!;
  let m: WebAssembly.Module | null = null;
  try {
    if (typeof WebAssembly === 'object' && typeof atob === 'function') {
      const raw = decodeBase64(TAIL_STEP_WASM_BASE64);
      const bytes = shared ? raw : unsharedTailModuleBytes(raw);
      if (bytes !== null && WebAssembly.validate(bytes)) m = new WebAssembly.Module(bytes);
    }
  } catch {
    m = null; // no SIMD, or compiling WebAssembly is not allowed here
  }
  if (shared) _shared = m; else _unshared = m;
  return m;
}

/**
 * The compiled two-bone IK kernel (wasm/twoBone.ts), or `null` where it is unavailable;
 * compiled once per variant (`shared`: for a shared memory) on first use.
 *
 * @example
 * if (twoBoneWasmModule() === null) console.info('bitrig: JavaScript two-bone IK');
 */
export function twoBoneWasmModule(shared = false): WebAssembly.Module | null {
  if (shared ? _ikShared !== undefined : _ikUnshared !== undefined) return shared ? _ikShared! : _ikUnshared!;
  let m: WebAssembly.Module | null = null;
  try {
    if (typeof WebAssembly === 'object' && typeof atob === 'function') {
      const raw = decodeBase64(TWO_BONE_WASM_BASE64);
      const bytes = shared ? raw : unsharedTailModuleBytes(raw);
      if (bytes !== null && WebAssembly.validate(bytes)) m = new WebAssembly.Module(bytes);
    }
  } catch {
    m = null;
  }
  if (shared) _ikShared = m; else _ikUnshared = m;
  return m;
}

/**
 * The compiled scene contacts kernel (wasm/sceneContacts.ts: FootLock, PelvisHeight), or `null`
 * where it is unavailable; compiled once per variant (`shared`: for a shared memory) on first use.
 *
 * @example
 * if (sceneContactsWasmModule() === null) console.info('bitrig: JavaScript foot lock and pelvis');
 */
export function sceneContactsWasmModule(shared = false): WebAssembly.Module | null {
  if (shared ? _sceneShared !== undefined : _sceneUnshared !== undefined) return shared ? _sceneShared! : _sceneUnshared!;
  let m: WebAssembly.Module | null = null;
  try {
    if (typeof WebAssembly === 'object' && typeof atob === 'function') {
      const raw = decodeBase64(SCENE_CONTACTS_WASM_BASE64);
      const bytes = shared ? raw : unsharedTailModuleBytes(raw);
      if (bytes !== null && WebAssembly.validate(bytes)) m = new WebAssembly.Module(bytes);
    }
  } catch {
    m = null;
  }
  if (shared) _sceneShared = m; else _sceneUnshared = m;
  return m;
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
];

/** The tail components' typed arrays, in the kernel's pointer order first. */
const POINTER_ORDER: ReadonlyArray<readonly ['TailChain' | 'TailParticle' | 'BendState', string]> = [
  ['TailChain', 'anchorStep'], ['TailChain', 'links'], ['TailChain', 'row'], ['TailChain', 'stepsLastFrame'],
  ['BendState', 'headLs'], ['BendState', 'restDirLs'], ['BendState', 'lenRel'], ['BendState', 'scaleRel'],
  ['BendState', 'restR'], ['BendState', 'localCur'], ['BendState', 'localPrev'], ['BendState', 'toHipsM'],
  ['BendState', 'restDirHs'], ['BendState', 'bendOld'], ['BendState', 'bendNew'],
  ['TailParticle', 'pos'], ['TailParticle', 'vel'], ['TailParticle', 'contact'],
  ['TailChain', 'axesLs'], ['TailChain', 'frequency'], ['TailChain', 'tipRatio'], ['TailChain', 'damping'],
  ['TailChain', 'gravity'], ['TailChain', 'unitScale'], ['TailChain', 'floorY'], ['TailChain', 'floorClearance'],
  ['TailChain', 'floorEnabled'], ['TailChain', 'stepCache'],
];

/** The write's arrays (setWritePointers order; the pose store's five are laid out here too). */
const WRITE_ORDER: ReadonlyArray<readonly ['TailChain' | 'BendState' | 'pose', string]> = [
  ['TailChain', 'anchorCur'], ['TailChain', 'initialised'], ['TailChain', 'exactWorld'], ['TailChain', 'mirrored'],
  ['TailChain', 'slot'], ['BendState', 'tipDirLs'], ['pose', 'localR'], ['pose', 'worldM'],
  ['TailChain', 'writeFailed'], ['TailChain', 'endSlot'], ['TailChain', 'endLeaf'], ['TailChain', 'anchorPrev'],
  ['pose', 'localT'], ['pose', 'localS'], ['pose', 'owner'],
];

/** The clock preparation's further arrays (setPreparePointers order; then the pose store's slot count and the per-link arrays' row count). */
const PREPARE_ORDER: ReadonlyArray<readonly ['TailChain', string]> = [
  ['TailChain', 'anchorSlot'], ['TailChain', 'resetLastFrame'], ['TailChain', 'exactWorldSetup'], ['TailChain', 'restSource'],
  ['TailChain', 'teleportDistance'], ['TailChain', 'seatEase'], ['TailChain', 'char'],
];

type Typed = Float64Array | Int32Array | Uint8Array;

/**
 * Move the world's tail components and the pose store's `localT`, `localR`, `localS`, `worldM` and `owner` into a fresh
 * WebAssembly memory sized for the current capacities and (re)connect the kernel. Setup-time;
 * returns `false` (the world keeps, or goes back to, the JavaScript step) where the kernel is
 * unavailable or the memory cannot be had (over 4 GB).
 *
 * @example
 * layoutTailArena(world); // after the tail components grew
 */
export function layoutTailArena(world: BitrigWorld): boolean {
  const prev = world.tailAccel;
  if (prev !== null && prev.workers !== null) { stopTailWorkers(prev.control, prev.workers); prev.workers = null; } // (the new layout has a new memory)
  const wantThreads = world.tailThreadsWanted > 0 && threadsAvailable() && tailWasmModule(true) !== null;
  const module = tailWasmModule(wantThreads);
  if (module === null) return false;
  const comps: Record<string, Record<string, unknown>> = {
    ...(world.components as unknown as Record<string, Record<string, unknown>>),
    pose: world.pose as unknown as Record<string, unknown>,
  };
  const entries: Array<{ owner: Record<string, unknown>; key: string; id: string; src: Typed }> = [];
  const seen = new Set<string>();
  const push = (c: string, key: string): void => {
    const id = c + '.' + key;
    if (seen.has(id)) return;
    const src = comps[c]![key];
    if (!(src instanceof Float64Array || src instanceof Int32Array || src instanceof Uint8Array)) {
      throw new Error(`bitrig/wasm: ${id} is not a typed array`);
    }
    seen.add(id);
    entries.push({ owner: comps[c]!, key, id, src });
  };
  for (const [c, key] of POINTER_ORDER) push(c, key);
  push('TailChain', 'mirrorStale');
  for (const [c, key] of WRITE_ORDER) push(c, key);
  const ikModule = twoBoneWasmModule(wantThreads);
  if (ikModule !== null) for (const [c, key] of IK_ORDER) push(c, key);
  // With worker threads every component and pose array moves in (the scene systems run there
  // too); otherwise the tail's.
  const owners = wantThreads ? Object.keys(comps) : ['TailChain', 'TailParticle', 'BendState'];
  for (const c of owners) {
    for (const key of Object.keys(comps[c]!)) {
      const v = comps[c]![key];
      if (v instanceof Float64Array || v instanceof Int32Array || v instanceof Uint8Array) push(c, key);
    }
  }
  if (wantThreads) { comps['world'] = world as unknown as Record<string, unknown>; push('world', 'comSegments'); } // the COM segment pool
  const sceneModule = sceneContactsWasmModule(wantThreads);
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
  top = (top + 15) & ~15;
  const pendingOff = top; top += (LINK_STRIDE + 1) * 4;
  top = (top + 15) & ~15;
  const paramsOff = top; top += 16;
  const pairsOff = top; top += (cap + LINK_STRIDE + 1) * 8;
  top = (top + 15) & ~15;
  const controlOff = top; top += CTL.BYTES * CONTROL_BLOCKS;
  // The step's float32 mirror (wasm/tailStep.ts): groups of four chains with the same link
  // count, at most ⌈c/4⌉ + 8 groups and Σ n·⌈c_n/4⌉ ≤ 2c + 27 link records for c chains.
  const chains = Math.min(cap, Math.floor(world.components.TailChain.slot.length / LINK_STRIDE));
  const groups = Math.ceil(chains / 4) + 9;
  top = (top + 15) & ~15;
  const mirrorOff = top; top += (2 * chains + 28) * MIRROR_RECORD_BYTES;
  // the step's scratch: one per thread that may step (this one, the workers, one spare), then
  // one per chunk of 16 groups for any instance beyond them
  const scratchSlots = (wantThreads ? world.tailThreadsWanted : 0) + 2;
  const scratchOff = top; top += (scratchSlots + Math.ceil(groups / 16)) * STEP_SCRATCH_BYTES;
  const scratchTakenOff = top; top += 16;
  const groupsOff = top; top += groups * 32;
  const refOff = top; top += cap * 3 * 8;
  const laneOfOff = top; top += cap * 4;
  const jobCharsOff = top; top += cap * 4;
  const nextChainOff = top; top += cap * 4;
  const ikListOff = top; top += cap * 4;
  // the workers' limb lists (a scene chunk's limbs each) and the counter they claim them with
  const ikSlabs = wantThreads ? Math.max(1, world.tailThreadsWanted) : 0, ikSlabLength = SCENE_CHUNK * (MAX_LEGS + MAX_ARMS);
  const ikSlabsOff = top; top += ikSlabs * ikSlabLength * 4;
  const ikCounterOff = top; top += 16;
  const sceneListOff = top; top += cap * 4;
  top = (top + 15) & ~15;
  const sceneParamsOff = top; top += 16;
  const sceneScratchOff = top; top += SCENE_SCRATCH_BYTES;
  const sceneGroundOff = top; top += cap * 5 * 8;
  const sceneGroundOkOff = top; top += cap;
  // the workers' scene contacts slabs (a scene chunk's list, parameters, scratch each) and the counter they claim them with
  const sceneSlabs = wantThreads && sceneModule !== null ? Math.max(1, world.tailThreadsWanted) : 0;
  top = (top + 15) & ~15;
  const sceneSlabsOff = top; top += sceneSlabs * SCENE_SLAB.BYTES;
  const sceneCounterOff = top; top += 16;
  let memory: WebAssembly.Memory, instance: WebAssembly.Instance;
  let shared = wantThreads;
  try {
    if (top > 0xffff0000) throw new RangeError('over 4 GB');
    const pages = Math.ceil(top / PAGE);
    try {
      memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
      instance = new WebAssembly.Instance(shared ? module : tailWasmModule(false)!, { env: { memory } });
    } catch (err) {
      if (!shared || tailWasmModule(false) === null) throw err;
      shared = false; // no shared memory after all: one thread
      memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
      instance = new WebAssembly.Instance(tailWasmModule(false)!, { env: { memory } });
    }
  } catch {
    // Too large for a 32-bit WebAssembly memory (or out of memory): the world goes on with the
    // JavaScript step on the arrays it has (views into the previous memory stay valid).
    world.tailAccel = null;
    return false;
  }
  const kernel = instance.exports as unknown as TailStepExports;
  const buffer = memory.buffer as ArrayBuffer;
  // (the chains' anchor references: read in again from the write-back, the mirror continues bit for bit)
  if (prev !== null) new Float64Array(buffer, refOff, cap * 3).set(prev.mirrorRef.subarray(0, Math.min(prev.mirrorRef.length, cap * 3)));
  for (let i = 0; i < entries.length; i++) {
    const { owner, key, src } = entries[i]!;
    const Ctor = src.constructor as { new (b: ArrayBuffer, o: number, n: number): Typed };
    const view = new Ctor(buffer, offsets[i]!, src.length);
    view.set(src);
    owner[key] = view;
  }
  const pointers = [
    ...POINTER_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), chainKOff, entsOff, pendingOff, paramsOff, pairsOff,
    mirrorOff, groupsOff, refOff, laneOfOff, offsetOf.get('TailChain.mirrorStale')!, scratchOff, scratchTakenOff, scratchSlots,
  ];
  const writePointers = WRITE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!);
  kernel.setPointers(...pointers);
  kernel.setWritePointers(...writePointers);
  const preparePointers = [...PREPARE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), world.pose.capacity, world.components.TailChain.slot.length / LINK_STRIDE];
  kernel.setPreparePointers(...preparePointers);
  let ik: TwoBoneExports | null = null;
  const ikPointers = IK_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!);
  if (ikModule !== null) {
    try {
      // (JavaScript's own exp, acos and sin: the kernel's results are bit for bit the JavaScript solve's)
      const ikInstance = new WebAssembly.Instance(shared ? ikModule : twoBoneWasmModule(false)!, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin } });
      ik = ikInstance.exports as unknown as TwoBoneExports;
      ik.setIkPointers(...ikPointers, ikListOff, world.pose.capacity, world.pose.charCapacity);
    } catch {
      ik = null; // (the JavaScript solve, on the same arrays)
    }
  }
  let scene: SceneContactsExports | null = null;
  // (the capacities the kernel checks a character's structure fields against: slots, characters, entities, COM pool, support rows)
  const sceneLimits: [number, number, number, number, number] = [world.pose.capacity, world.pose.charCapacity, world.capacity, world.comSegments.length, world.components.SupportFrame.mirrored.length];
  const scenePointers = sceneModule !== null ? [...SCENE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), offsetOf.get('world.comSegments')!] : [];
  if (sceneModule !== null) {
    try {
      // (JavaScript's own exp, acos, sin and cos: the kernel's results are bit for bit the JavaScript systems')
      const sceneInstance = new WebAssembly.Instance(shared ? sceneModule : sceneContactsWasmModule(false)!, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin, cos: Math.cos } });
      scene = sceneInstance.exports as unknown as SceneContactsExports;
      scene.setScenePointers(...scenePointers, sceneListOff, sceneParamsOff, sceneScratchOff, sceneGroundOff, sceneGroundOkOff);
      scene.setSceneLimits(...sceneLimits);
    } catch {
      scene = null; // (the JavaScript systems, on the same arrays)
    }
  }
  const arrays: WorkerArray[] = shared ? entries.map((e, i) => ({
    c: e.id.slice(0, e.id.indexOf('.')), k: e.key, o: offsets[i]!, n: e.src.length,
    t: e.src instanceof Float64Array ? 'f64' as const : e.src instanceof Int32Array ? 'i32' as const : 'u8' as const,
  })) : [];
  world.tailAccel = {
    memory, kernel,
    chainK: new Float64Array(buffer, chainKOff, cap * 16),
    ents: new Int32Array(buffer, entsOff, cap),
    ik,
    ikList: new Int32Array(buffer, ikListOff, cap),
    scene,
    sceneList: new Int32Array(buffer, sceneListOff, cap),
    sceneParams: new Float64Array(buffer, sceneParamsOff, 2),
    sceneGround: new Float64Array(buffer, sceneGroundOff, cap * 5),
    sceneGroundOk: new Uint8Array(buffer, sceneGroundOkOff, cap),
    mirrorRef: new Float64Array(buffer, refOff, cap * 3),
    params: new Float64Array(buffer, paramsOff, 2),
    capacity: cap,
    control: null as unknown as Int32Array, // set below
    controls: Array.from({ length: CONTROL_BLOCKS }, (_, i) => ({
      offset: controlOff + i * CTL.BYTES,
      i32: new Int32Array(buffer, controlOff + i * CTL.BYTES, CTL.BYTES / 4),
      f64: new Float64Array(buffer, controlOff + i * CTL.BYTES, CTL.BYTES / 8),
    })),
    controlIndex: 0,
    threads: shared ? world.tailThreadsWanted : 0,
    workers: null,
    workerInit: shared ? {
      module, memory, pointers, writePointers, preparePointers, control: controlOff, arrays, jobChars: jobCharsOff, nextChain: nextChainOff, capacity: cap,
      ik: ik !== null ? { module: ikModule!, pointers: ikPointers, lists: ikSlabsOff, slabs: ikSlabs, slabLength: ikSlabLength, counter: ikCounterOff, bones: world.pose.capacity, chars: world.pose.charCapacity } : null,
      scene: scene !== null && sceneSlabs > 0 ? { module: sceneModule!, pointers: scenePointers, slabs: sceneSlabsOff, count: sceneSlabs, counter: sceneCounterOff, ground: sceneGroundOff, groundOk: sceneGroundOkOff, limits: sceneLimits } : null,
    } : null,
    failed: false,
    waitLimitMs: _waitLimitMs,
    timedOut: false,
    pairsByWorkers: 0,
    sceneChunksByWorkers: 0,
    prepareChunksByWorkers: 0,
    finishChunksByWorkers: 0,
    sceneView: shared ? makeSceneView(world.components, world.pose, cap, world.comSegments, new Int32Array(buffer, nextChainOff, cap)) : null,
    chunkView: shared || (scene !== null && ik !== null) ? makeChunkView(world) : null,
    jobChars: new Int32Array(buffer, jobCharsOff, cap),
    ownChars: new Int32Array(shared ? cap : 0),
    controlF64: null as unknown as Float64Array, // set below
    prepareThreaded: shared ? tailPrepareThreaded : null,
    finishThreaded: shared ? tailFinishThreaded : null,
    chainsPerChar: new Int32Array(shared ? world.pose.charCapacity : 0),
  };
  // (the calling thread's chunks of the prepare job: the common case in this kernel, as without threads)
  if (world.tailAccel.sceneView !== null) world.tailAccel.sceneView.tailPrepare = { kernel, list: jobCharsOff };
  useControl(world.tailAccel, 0);
  return true;
}

/** Make control block `i` current (zeroed) for the kernel, the calling thread and the next workers. */
function useControl(a: TailAccel, i: number): void {
  const c = a.controls[i]!;
  c.i32.fill(0);
  a.controlIndex = i;
  a.control = c.i32;
  a.controlF64 = c.f64;
  a.kernel.setControl(c.offset);
  if (a.workerInit !== null) a.workerInit.control = c.offset;
}

/** Stop the current workers on their control block and move on to the next block. */
function retireWorkers(a: TailAccel): void {
  if (a.workers !== null) stopTailWorkers(a.control, a.workers);
  a.workers = null;
  useControl(a, (a.controlIndex + 1) % CONTROL_BLOCKS);
}

/**
 * Make sure the world's workers run on its current layout: started on the first job after a
 * layout (everything they read, COM segments included, lives in the shared memory, so adding
 * or removing characters needs no restart). Returns whether any worker may take work.
 * Per-frame and allocation-free but on that first job.
 */
function ensureWorkers(accel: TailAccel): boolean {
  if (accel.threads === 0) return false;
  if (accel.failed) { dropWorkers(accel); return false; }
  if (accel.workers === null) {
    startWorkers(accel);
    if (accel.workers!.length === 0) { accel.threads = 0; return false; }
  }
  return true;
}

/**
 * Start a layout's workers (setup of the first job; allocates). A function of its own: the
 * failure callback captures `accel`, and a function whose parameter a closure captures
 * allocates a context for it on every call, taken or not (40 bytes a frame in
 * {@link ensureWorkers}, which runs every frame).
 */
function startWorkers(accel: TailAccel): void {
  accel.workers = startTailWorkers(accel.threads, accel.workerInit!, () => { accel.failed = true; });
}

/**
 * Run the job just published by the kernel's `prepareStep`/`prepareWrite` (`np` pairs): on
 * this thread alone, or with the world's workers. Per-frame; never throws.
 */
export function tailJob(world: BitrigWorld, accel: TailAccel, np: number): void {
  if (accel.threads === 0 || !ensureWorkers(accel)) { accel.kernel.run(); return; }
  if (np <= 16) {
    // One chunk: not worth a wake-up, but a worker still awake may take it: wait for it.
    const here = accel.kernel.run();
    if (!waitCounter(accel.control, CTL.DONE, np, accel.waitLimitMs)) timedOut(accel); else accel.pairsByWorkers += np - here;
    return;
  }
  const ran = runTailJob(accel.control, np, accel.kernel, accel.waitLimitMs);
  if (ran < 0) timedOut(accel); else accel.pairsByWorkers += np - ran;
}

/**
 * Pipeline steps 1–3 (FootLock → PelvisHeight → TwoBoneIK) with the world's worker threads:
 * chunks of characters run on every thread (core/wasm/sceneJob.ts), each in the scene kernels
 * where they run (this thread's on the world's `tailAccel`, a worker's on instances of its
 * own); characters with a ground callback run on this thread (the game's function is called
 * where the game lives; one that throws is kept in `world.groundError`, as on one thread: this
 * thread's view is the world's). Returns `false`, having done nothing, when the world has no
 * worker threads (the caller runs the three systems itself). Same results as the
 * single-threaded steps. Per-frame; never throws.
 */
export function sceneContactsThreaded(world: BitrigWorld, dt: number): boolean {
  const a = world.tailAccel;
  if (a === null || a.threads === 0 || a.sceneView === null || a.chunkView === null) return false;
  const chars = world.queries.sceneChars.dense;
  if (chars.length < 32 || !ensureWorkers(a)) return false;
  const SC = world.components.SceneCharacter;
  const list = a.jobChars, own = a.ownChars, ctl = a.control;
  let n = 0, m = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (SC.ground[c]) own[m++] = c; else list[n++] = c;
  }
  a.controlF64[CTL.SCENE_DT_F64] = dt;
  const count = publishJsJob(ctl, JOB.SCENE, n, Math.max(64, Math.ceil(n / SCENE_MAX_CHUNKS)));
  const view = a.chunkView; // (the world's: its kernels, ground callbacks and groundError)
  const ran = runSceneChunks(view, ctl, a.controlF64, list, false, dt);
  if (m > 0) runSceneList(view, own, 0, m, dt);
  if (!waitCounter(ctl, CTL.SCENE_DONE, count, a.waitLimitMs)) timedOut(a); else a.sceneChunksByWorkers += count - ran;
  return true;
}

/**
 * A view of `world` for {@link sceneContactsChunked} and this thread's chunks of the scene job: every property is the world's (through the
 * prototype: components, pose, `tailAccel`, `groundError`, the clock…) but the two queries and
 * the chunk lists, which are its own. Setup-time.
 */
function makeChunkView(world: BitrigWorld): SceneView {
  const v = Object.create(world) as SceneView;
  const empty = new Int32Array(0);
  v.queries = { sceneChars: { dense: empty }, limbs: { dense: empty } };
  v.lists = { chars: new Int32Array(SCENE_CHUNK), limbs: new Int32Array(SCENE_CHUNK * (MAX_LEGS + MAX_ARMS)), charViews: [], limbViews: [] };
  v.ikAccel = null; // (the two-bone dispatch reads the world's tailAccel through the prototype)
  return v;
}

/**
 * Pipeline steps 1–3 (FootLock → PelvisHeight → TwoBoneIK) on the calling thread alone, in
 * chunks of {@link SCENE_CHUNK} characters — each chunk through all three systems before the
 * next — where both scene kernels run (`tailAccel.scene`, `tailAccel.ik`) and there are at least
 * two chunks; `false`, having done nothing, otherwise. Characters are independent (each system
 * reads and writes only its character's bones and components), so every number is the one the
 * three systems give over all characters in turn — as on worker threads, which run the same
 * chunks —, while a chunk's pose and components stay in cache between the three kernels (a
 * crowd of 10,000: 8.5 against 10.1 ms). A game's ground query called in a later chunk sees the
 * earlier chunks' characters already solved. Per-frame; never throws.
 */
export function sceneContactsChunked(world: BitrigWorld, dt: number): boolean {
  const a = world.tailAccel;
  if (a === null || a.chunkView === null || a.scene === null || a.ik === null) return false;
  const chars = world.queries.sceneChars.dense;
  if (chars.length < 2 * SCENE_CHUNK) return false;
  runSceneList(a.chunkView, chars, 0, chars.length, dt);
  return true;
}

/**
 * The tail clock's per-chain preparation on the world's worker threads (chunks of 128 chains)
 * of the chains the caller listed in `jobChars` (every tail entity, in
 * `world.queries.tails.dense` order: systems/tailClock.ts lists them): each thread does the
 * common case of its chunk in its tail kernel instance (`prepareList`, as `prepareChains` on
 * one thread) and the rest with `tailPrepareChain`; `false`, having done
 * nothing, when it would not pay (no workers, fewer than 256 chains). Same results as the
 * loop on one thread. Per-frame; never throws.
 */
function tailPrepareThreaded(world: BitrigWorld, steps: number): boolean {
  const a = world.tailAccel;
  if (a === null || a.threads === 0 || a.sceneView === null) return false;
  const n = world.queries.tails.dense.length;
  if (n < 256 || !ensureWorkers(a)) return false;
  const list = a.jobChars, ctl = a.control; // (the chains, listed by the caller)
  ctl[CTL.JOB_ARG] = steps;
  // (from the clock array, not through the world.tailClock getter: a number a getter returns
  // from a call V8 does not inline is boxed, 16 bytes a frame)
  a.controlF64[CTL.SCENE_DT_F64] = world.clock[CLOCK.FIXED_STEP]!;
  const count = publishJsJob(ctl, JOB.TAIL_PREPARE, n, Math.max(128, Math.ceil(n / SCENE_MAX_CHUNKS)));
  const ran = runSceneChunks(a.sceneView, ctl, a.controlF64, list);
  if (!waitCounter(ctl, CTL.SCENE_DONE, count, a.waitLimitMs)) timedOut(a); else a.prepareChunksByWorkers += count - ran;
  return true;
}

/**
 * The tail write's per-chain finish (`tailFinishChain`) on the world's worker threads, by
 * character: a character's chains (a tail under a tail shares its subtree and the pose's
 * `dirty` scratch) are linked in their order and run by one thread, characters in chunks of
 * 128. `false`, having done nothing, when it would not pay. Same results as the loop on one
 * thread. Per-frame; never throws.
 */
function tailFinishThreaded(world: BitrigWorld): boolean {
  const a = world.tailAccel;
  if (a === null || a.threads === 0 || a.sceneView === null) return false;
  const ents = world.queries.tails.dense;
  const n = ents.length;
  if (n < 256 || !ensureWorkers(a)) return false;
  const C = world.components.TailChain;
  const last = a.chainsPerChar, next = a.sceneView.chainNext;
  for (let i = 0; i < n; i++) { const c = C.char[ents[i]!]!; if (c >= 0 && c < last.length) last[c] = -1; }
  const list = a.jobChars, own = a.ownChars, ctl = a.control;
  let m = 0, o = 0;
  for (let i = 0; i < n; i++) {
    const eid = ents[i]!, c = C.char[eid]!;
    next[eid] = -1;
    if (!(c >= 0 && c < last.length)) { own[o++] = eid; continue; }
    const prev = last[c]!;
    if (prev < 0) list[m++] = eid; else next[prev] = eid; // (the character's chains, in order)
    last[c] = eid;
  }
  const count = publishJsJob(ctl, JOB.TAIL_FINISH, m, Math.max(128, Math.ceil(m / SCENE_MAX_CHUNKS)));
  for (let i = 0; i < o; i++) tailFinishChain(world, own[i]!);
  const ran = runSceneChunks(a.sceneView, ctl, a.controlF64, list);
  if (!waitCounter(ctl, CTL.SCENE_DONE, count, a.waitLimitMs)) timedOut(a); else a.finishChunksByWorkers += count - ran;
  return true;
}

/** A worker missed the wait limit: drop the workers now, leave their memory at the end of the frame. */
function timedOut(accel: TailAccel): void {
  dropWorkers(accel);
  accel.timedOut = true;
}

/**
 * After a worker timed out (it missed {@link WAIT_LIMIT_MS} with a chunk in hand: a thread
 * stalled by the system or a debugger), it may still write that chunk late, into the shared
 * memory. Called at the end of the frame (the tail write, pipeline step 8), this moves the
 * world out of that memory — every array copied into fresh memory, the tail arrays back into a
 * new, unshared WebAssembly memory — so a late write lands nowhere that is read again, and
 * resets what the lost chunk may have left half-done: every tail chain restarts from its rest
 * pose, every foot lock is released and the pelvis smoothing restarts (a one-time pop after a
 * stall of seconds). The world then runs on the calling thread. Allocates (once).
 *
 * @example
 * settleTimedOutWorkers(world); // end of tailWrite: a no-op unless a worker timed out
 */
export function settleTimedOutWorkers(world: BitrigWorld): void {
  const a = world.tailAccel;
  if (a === null || !a.timedOut) return;
  a.timedOut = false;
  world.tailThreadsWanted = 0;
  const old = a.memory.buffer;
  const moveOut = (owner: Record<string, unknown>): void => {
    for (const key of Object.keys(owner)) {
      const v = owner[key];
      if ((v instanceof Float64Array || v instanceof Int32Array || v instanceof Uint8Array) && v.buffer === old) owner[key] = v.slice();
    }
  };
  for (const c of Object.values(world.components as unknown as Record<string, Record<string, unknown>>)) moveOut(c);
  moveOut(world.pose as unknown as Record<string, unknown>);
  moveOut(world as unknown as Record<string, unknown>); // comSegments
  if (!layoutTailArena(world)) world.tailAccel = null; // (the JavaScript step goes on with the copies)
  world.components.TailChain.initialised.fill(0);
  world.components.SceneCharacter.initialised.fill(0);
  world.components.FootContact.locked.fill(0);
}

/** Stop a layout's workers for good: the world goes on with the calling thread alone. */
function dropWorkers(accel: TailAccel): void {
  retireWorkers(accel); // (a worker still running can never see a later job)
  accel.workers = [];
  accel.threads = 0;
}

/**
 * Stop a world's tail worker threads (if it has any); the world keeps working on the calling
 * thread. Call when the world is no longer used.
 *
 * @example
 * disposeTailThreads(world);
 */
export function disposeTailThreads(world: BitrigWorld): void {
  const a = world.tailAccel;
  if (a !== null && a.threads > 0) dropWorkers(a);
  world.tailThreadsWanted = 0;
}

/**
 * How many worker threads are helping with the world's tail step right now (0: the calling
 * thread alone — no `threads` asked for, no SharedArrayBuffer here, or the workers not started
 * yet: they start on the first frame and join within milliseconds).
 *
 * @example
 * const world = createBitrigWorld({ threads: 3 });
 * // … a few frames later
 * console.log(tailThreads(world)); // 3 in Node or a cross-origin-isolated page
 */
export function tailThreads(world: BitrigWorld): number {
  const a = world.tailAccel;
  return a !== null && a.threads > 0 && a.workers !== null ? Atomics.load(a.control, CTL.READY) : 0;
}

/**
 * Legs whose FootLock ran in a worker thread's scene contacts kernel since the world's layout
 * (diagnostics and tests: 0 without workers, or where the workers run the JavaScript systems).
 *
 * @example
 * const before = sceneKernelLegsByWorkers(world); update(world, dt);
 * console.log(sceneKernelLegsByWorkers(world) - before); // the workers' share of the legs
 */
export function sceneKernelLegsByWorkers(world: BitrigWorld): number {
  const a = world.tailAccel;
  const s = a !== null && a.workerInit !== null ? a.workerInit.scene : null;
  if (s === null) return 0;
  const slabs = new Int32Array(a!.memory.buffer, s.slabs, (s.count * SCENE_SLAB.BYTES) / 4);
  let n = 0;
  for (let i = 0; i < s.count; i++) n += Atomics.load(slabs, (i * SCENE_SLAB.BYTES + SCENE_SLAB.LEGS) / 4);
  return n;
}

/**
 * Which tail step a world runs: `'wasm-simd'` (WebAssembly: the step four chains per float32 SIMD group, the write two per f64 pair)
 * or `'js'`.
 *
 * @example
 * console.log(tailBackend(world)); // 'wasm-simd' in current browsers and Node
 */
export function tailBackend(world: BitrigWorld): 'wasm-simd' | 'js' {
  return world.tailAccel !== null ? 'wasm-simd' : 'js';
}
