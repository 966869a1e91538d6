/**
 * The scene-contact job shared by the calling thread and worker threads
 * (`createBitrigWorld({ threads })`): FootLock → PelvisHeight → TwoBoneIK for chunks of scene
 * characters, on a shared memory that holds every component and pose array.
 *
 * The calling thread lists the characters that may run anywhere (those without a ground
 * callback: the game's function can only be called on its own thread) and publishes the job as
 * one 32-bit word (the tail clock's per-chain preparation and the tail write's per-chain
 * finish are published the same way, a chain per entry); every thread then claims chunks with compare-and-swap and runs the three
 * systems on a "view" of the world whose queries hold just that chunk's characters and their
 * limbs. Characters are independent in these systems (each reads and writes its own bones,
 * contacts and limbs; supports are only read), so the results are bit-identical to the
 * single-threaded pipeline (test/scene/threads.test.ts).
 *
 * The systems run their WebAssembly kernels on every thread, as on one: the calling thread's
 * view inherits the world (its `tailAccel`, `groundError`, clock), a worker's view has
 * instances of its own of the two-bone kernel (`ikAccel`) and of the scene contacts kernel
 * (`sceneAccel`: FootLock and PelvisHeight), each with its own list, parameters and scratch in
 * the shared memory ({@link SCENE_SLAB}).
 *
 * This module is bundled into the worker (scripts/build-wasm.mjs): it imports only the systems
 * and constants, never the world or bitECS.
 */
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { tailPrepareChain } from '../../systems/tailClock';
import { tailFinishChain } from '../tailFinish';
import { MAX_ARMS, MAX_LEGS } from '../components/scene';
import { CLOCK } from '../components/tail';
import type { BitrigWorld } from '../world';
import type { SceneContactsKernel, TwoBoneExports } from './tailAccel';

/** Control block layout: i32 indices (the wasm tail job's 64-bit claim word sits at bytes 16–23). */
export const CTL = {
  /** Job sequence: bumped (and notified) when a job is published. */
  SEQ: 0,
  /** Workers ready (incremented by each worker once instantiated). */
  READY: 1,
  /** Pairs finished in the current tail job (the kernel's CTL_DONE, byte 8). */
  DONE: 2,
  /** Set to 1 to stop every worker. */
  STOP: 3,
  /** JavaScript job word: bits 0–12 next chunk, 13–25 chunk count, 26–29 job number, 30–31 kind ({@link JOB}). */
  SCENE_WORD: 8,
  /** Chunks finished. */
  SCENE_DONE: 9,
  /** Entities listed for the job. */
  SCENE_N: 10,
  /** Entities per chunk. */
  SCENE_K: 11,
  /** The job's integer argument (tail prepare: steps this frame), bytes 56–59. */
  JOB_ARG: 14,
  /**
   * Tests: milliseconds a worker sleeps after claiming a JavaScript chunk, before running it
   * (a stalled worker, to exercise the time-out), bytes 60–63; 0 in use.
   */
  STALL_MS: 15,
  /** A word that stays 0 (what a stalling worker waits on), bytes 28–31. */
  STALL_WORD: 7,
  /** f64 index of the scene job's dt (seconds; for the tail prepare job, the world's fixed step), bytes 48–55. */
  SCENE_DT_F64: 6,
  /** Bytes of the block. */
  BYTES: 64,
} as const;

/** Most chunks a JavaScript job can have (13 bits). */
export const SCENE_MAX_CHUNKS = 8191;

/** Kinds of JavaScript job: the scene systems on characters, the tail clock's per-chain preparation, the tail write's per-chain finish. */
export const JOB = { SCENE: 0, TAIL_PREPARE: 1, TAIL_FINISH: 2 } as const;

/** The parts of a world the scene systems read: components, pose store, queries, capacity. */
export interface SceneView {
  components: BitrigWorld['components'];
  pose: BitrigWorld['pose'];
  /** The current chunk: one of {@link SceneView.lists}' views, never a new array. */
  queries: { sceneChars: { dense: Int32Array }; limbs: { dense: Int32Array } };
  capacity: number;
  /** The world's centre-of-mass segment pool (`world.comSegments`). */
  comSegments: Float64Array;
  /** Tail finish job: the next chain of the same character, by chain entity (-1: the last). */
  chainNext: Int32Array;
  /** The world's clock numbers the tail prepare job reads (`CLOCK.FIXED_STEP`, passed in the job's control block). */
  clock: Float64Array;
  /** Backing lists and their views by length (made on first use of a length: warm-up, not per frame). */
  lists: { chars: Int32Array; limbs: Int32Array; charViews: Int32Array[]; limbViews: Int32Array[] };
  /** This thread's two-bone IK kernel and limb list in the shared memory (`null`: the JavaScript solve; systems/twoBoneIK.ts). */
  ikAccel: { ik: TwoBoneExports | null; ikList: Int32Array } | null;
  /**
   * A worker's scene contacts kernel (FootLock, PelvisHeight) and its slab in the shared memory
   * ({@link SCENE_SLAB}; `null`: the JavaScript systems, or the calling thread's view, which reads
   * the world's `tailAccel`). `legs`: the slab's count of legs whose FootLock ran in the kernel
   * (diagnostics and tests).
   */
  sceneAccel: (SceneContactsKernel & { legs: Int32Array }) | null;
  /**
   * This thread's tail kernel for the prepare job's chunks (`null`: every chain in JavaScript):
   * its `prepareList` does the common case of a chunk's chains, in place in the job's list at
   * byte `list` ({@link runSceneChunks}' `list`), and leaves the rest to `tailPrepareChain`.
   */
  tailPrepare: { kernel: { prepareList(list: number, from: number, to: number, steps: number): number }; list: number } | null;
}

/**
 * A view of the world for chunks of characters (the scene job). Setup-time.
 *
 * @example
 * const view = makeSceneView(world.components, world.pose, world.capacity, world.comSegments, new Int32Array(world.capacity));
 */
export function makeSceneView(
  components: SceneView['components'], pose: SceneView['pose'], capacity: number, comSegments: Float64Array, chainNext: Int32Array,
): SceneView {
  const empty = new Int32Array(0);
  return {
    components, pose, capacity, comSegments, chainNext, clock: new Float64Array(CLOCK.SIZE),
    queries: { sceneChars: { dense: empty }, limbs: { dense: empty } },
    lists: { chars: new Int32Array(SCENE_CHUNK), limbs: new Int32Array(SCENE_CHUNK * (MAX_LEGS + MAX_ARMS)), charViews: [], limbViews: [] },
    ikAccel: null,
    sceneAccel: null,
    tailPrepare: null,
  };
}

/** Characters per chunk of the scene job (and of the calling thread's own characters). */
export const SCENE_CHUNK = 64;

/** Bytes of the scene contacts kernel's scratch (PelvisHeight's per-leg arrays, FootLock's foot rotations). */
export const SCENE_SCRATCH_BYTES = 512;

/**
 * A worker's slab for its scene contacts kernel (byte offsets in the slab): the chunk's
 * character list (i32 × {@link SCENE_CHUNK}), the kernel's parameters ([0] dt), its scratch,
 * and the count of legs whose FootLock ran in the kernel (i32; diagnostics and tests).
 */
export const SCENE_SLAB = {
  LIST: 0,
  PARAMS: SCENE_CHUNK * 4,
  SCRATCH: SCENE_CHUNK * 4 + 16,
  LEGS: SCENE_CHUNK * 4 + 16 + SCENE_SCRATCH_BYTES,
  BYTES: SCENE_CHUNK * 4 + 16 + SCENE_SCRATCH_BYTES + 16,
} as const;

function listView(views: Int32Array[], backing: Int32Array, n: number): Int32Array {
  return views[n] ??= backing.subarray(0, n);
}

/**
 * Put characters `chars[from..to)` (at most {@link SCENE_CHUNK}) and their limbs (legs, then
 * arms) into the view's queries. No allocation once each chunk length has been seen.
 *
 * @example
 * fillSceneChunk(view, chars, 0, 64); runSceneSystems(view, 1 / 60);
 */
export function fillSceneChunk(view: SceneView, chars: ArrayLike<number>, from: number, to: number): void {
  const SC = view.components.SceneCharacter;
  const L = view.lists;
  let nc = 0, nl = 0;
  for (let i = from; i < to; i++) {
    const c = chars[i]!;
    L.chars[nc++] = c;
    // (only limbs that are entities, at most MAX_LEGS and MAX_ARMS: the fields are public arrays — core/sceneGuard.ts)
    const legs = Math.min(SC.legCount[c]!, MAX_LEGS), arms = Math.min(SC.armCount[c]!, MAX_ARMS), cap = view.capacity;
    for (let k = 0; k < legs; k++) { const e = SC.legs[c * MAX_LEGS + k]!; if (e >= 0 && e < cap) L.limbs[nl++] = e; }
    for (let k = 0; k < arms; k++) { const e = SC.arms[c * MAX_ARMS + k]!; if (e >= 0 && e < cap) L.limbs[nl++] = e; }
  }
  view.queries.sceneChars.dense = listView(L.charViews, L.chars, nc);
  view.queries.limbs.dense = listView(L.limbViews, L.limbs, nl);
}

/**
 * Run the scene systems on `chars[from..to)` in chunks of {@link SCENE_CHUNK} (the calling thread's own characters).
 *
 * @example
 * runSceneList(view, groundChars, 0, count, dt); // this thread's own characters
 */
export function runSceneList(view: SceneView, chars: ArrayLike<number>, from: number, to: number, dt: number): void {
  for (let i = from; i < to; i += SCENE_CHUNK) {
    fillSceneChunk(view, chars, i, i + SCENE_CHUNK < to ? i + SCENE_CHUNK : to);
    runSceneSystems(view, dt);
  }
}

/**
 * Run the three scene systems on the view's current chunk.
 *
 * @example
 * runSceneSystems(view, 1 / 60);
 */
export function runSceneSystems(view: SceneView, dt: number): void {
  const w = view as unknown as BitrigWorld;
  footLock(w, dt);
  pelvisHeight(w, dt);
  twoBoneIK(w, dt);
}

/**
 * Claim chunks of the current JavaScript job (the scene systems on characters, the tail
 * clock's preparation of chains, or the tail write's finish of chains) and run them until none
 * is left. Returns the chunks this call
 * ran. Any number of threads may call it at once; each chunk runs exactly once. `worker`: the
 * caller is a worker thread (which honours the tests' {@link CTL.STALL_MS} and reads a scene
 * job's dt from the block); `dt`: the scene job's dt (seconds) on the thread that published
 * it (the value it wrote into the block).
 *
 * @example
 * const chunks = publishJsJob(ctl, JOB.SCENE, n, 64);
 * const ran = runSceneChunks(view, ctl, ctlF64, list, false, dt); // then wait for SCENE_DONE = chunks
 */
export function runSceneChunks(view: SceneView, ctl: Int32Array, ctlF64: Float64Array, list: Int32Array, worker = false, dt = NaN): number {
  let w = Atomics.load(ctl, CTL.SCENE_WORD);
  let ran = 0;
  for (;;) {
    const idx = w & 0x1fff, count = (w >>> 13) & 0x1fff;
    if (idx >= count) return ran;
    const next = (w & ~0x1fff) | (idx + 1);
    const seen = Atomics.compareExchange(ctl, CTL.SCENE_WORD, w, next);
    if (seen !== w) { w = seen; continue; }
    if (worker && ctl[CTL.STALL_MS]! > 0) Atomics.wait(ctl, CTL.STALL_WORD, 0, ctl[CTL.STALL_MS]!); // (tests only)
    // Read after the claim: these belong to the job whose word was claimed.
    const n = ctl[CTL.SCENE_N]!, k = ctl[CTL.SCENE_K]!;
    const from = idx * k, to = from + k < n ? from + k : n;
    const kind = w >>> 30;
    if (kind === JOB.TAIL_PREPARE) {
      const steps = ctl[CTL.JOB_ARG]!;
      view.clock[CLOCK.FIXED_STEP] = ctlF64[CTL.SCENE_DT_F64]!; // (the world's fixed step: the seat's ease-in reads it)
      const world = view as unknown as BitrigWorld, tp = view.tailPrepare;
      // the common case in the kernel (the same results); the chains it leaves, listed from `from` on, here
      const end = tp !== null ? from + tp.kernel.prepareList(tp.list, from, to, steps) : to;
      for (let i = from; i < end; i++) tailPrepareChain(world, list[i]!, steps);
    } else if (kind === JOB.TAIL_FINISH) {
      // one entry per character: its first chain, then the rest in order
      const world = view as unknown as BitrigWorld, next = view.chainNext;
      for (let i = from; i < to; i++) for (let e = list[i]!; e >= 0; e = next[e]!) tailFinishChain(world, e);
    } else if (worker) {
      runSceneList(view, list, from, to, ctlF64[CTL.SCENE_DT_F64]!);
      const k = view.sceneAccel;
      if (k !== null) Atomics.add(k.legs, 0, k.scene!.pairedLegsSince() + k.scene!.scalarLegsSince()); // (the kernel's own counters of the chunk's legs)
    } else runSceneList(view, list, from, to, dt); // (the publisher's own dt, passed on as it came: a number read from the block and passed to a call is boxed, 16 bytes a chunk)
    Atomics.add(ctl, CTL.SCENE_DONE, 1);
    ran++;
    w = next;
  }
}

/**
 * Publish a JavaScript job of `n` listed entities in chunks of `k` (the list, dt and argument
 * already written). Returns the number of chunks.
 *
 * @example
 * ctl[CTL.JOB_ARG] = steps;
 * const chunks = publishJsJob(ctl, JOB.TAIL_PREPARE, chains, 128);
 */
export function publishJsJob(ctl: Int32Array, kind: number, n: number, k: number): number {
  const count = Math.ceil(n / k);
  ctl[CTL.SCENE_N] = n;
  ctl[CTL.SCENE_K] = k;
  Atomics.store(ctl, CTL.SCENE_DONE, 0);
  const job = ((Atomics.load(ctl, CTL.SCENE_WORD) >>> 26) + 1) & 15;
  Atomics.store(ctl, CTL.SCENE_WORD, (kind << 30) | (job << 26) | (count << 13));
  Atomics.add(ctl, CTL.SEQ, 1);
  Atomics.notify(ctl, CTL.SEQ);
  return count;
}
