/**
 * The scene-contact job shared by the calling thread and worker threads
 * (`createBitrigWorld({ threads })`): FootLock → PelvisHeight → TwoBoneIK for chunks of scene
 * characters, on a shared memory that holds every component and pose array.
 *
 * The calling thread lists the characters that may run anywhere (those without a ground
 * callback: the game's function can only be called on its own thread) and publishes the job as
 * one 32-bit word; every thread then claims chunks with compare-and-swap and runs the three
 * systems on a "view" of the world whose queries hold just that chunk's characters and their
 * limbs. Characters are independent in these systems (each reads and writes its own bones,
 * contacts and limbs; supports are only read), so the results are bit-identical to the
 * single-threaded pipeline (test/scene/threads.test.ts).
 *
 * This module is bundled into the worker (scripts/build-wasm.mjs): it imports only the systems
 * and constants, never the world or bitECS.
 */
import { footLock } from '../../systems/footLock';
import { pelvisHeight } from '../../systems/pelvisHeight';
import { twoBoneIK } from '../../systems/twoBoneIK';
import { MAX_ARMS, MAX_LEGS } from '../components/scene';
import type { BitrigWorld } from '../world';

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
  /** Scene job word: bits 0–12 next chunk, 13–25 chunk count, 26–31 job number. */
  SCENE_WORD: 8,
  /** Scene chunks finished. */
  SCENE_DONE: 9,
  /** Characters listed for the scene job. */
  SCENE_N: 10,
  /** Characters per chunk. */
  SCENE_K: 11,
  /** f64 index of the scene job's dt (seconds), bytes 48–55. */
  SCENE_DT_F64: 6,
  /** Bytes of the block. */
  BYTES: 64,
} as const;

/** Most chunks a scene job can have (13 bits). */
export const SCENE_MAX_CHUNKS = 8191;

/** The parts of a world the scene systems read: components, pose store, queries, capacity. */
export interface SceneView {
  components: BitrigWorld['components'];
  pose: BitrigWorld['pose'];
  queries: { sceneChars: { dense: number[] }; limbs: { dense: number[] } };
  capacity: number;
}

/**
 * Put characters `chars[from..to)` and their limbs (legs, then arms) into the view's queries.
 * No allocation once the arrays have grown to their largest chunk.
 */
export function fillSceneChunk(view: SceneView, chars: ArrayLike<number>, from: number, to: number): void {
  const SC = view.components.SceneCharacter;
  const cd = view.queries.sceneChars.dense, ld = view.queries.limbs.dense;
  cd.length = 0; ld.length = 0;
  for (let i = from; i < to; i++) {
    const c = chars[i]!;
    cd.push(c);
    const nl = SC.legCount[c]!, na = SC.armCount[c]!;
    for (let k = 0; k < nl; k++) ld.push(SC.legs[c * MAX_LEGS + k]!);
    for (let k = 0; k < na; k++) ld.push(SC.arms[c * MAX_ARMS + k]!);
  }
}

/** Run the three scene systems on the view's current chunk. */
export function runSceneSystems(view: SceneView, dt: number): void {
  const w = view as unknown as BitrigWorld;
  footLock(w, dt);
  pelvisHeight(w, dt);
  twoBoneIK(w, dt);
}

/**
 * Claim chunks of the current scene job and run them until none is left. Returns the chunks
 * this call ran. Any number of threads may call it at once; each chunk runs exactly once.
 */
export function runSceneChunks(view: SceneView, ctl: Int32Array, ctlF64: Float64Array, chars: Int32Array): number {
  let w = Atomics.load(ctl, CTL.SCENE_WORD);
  let ran = 0;
  for (;;) {
    const idx = w & 0x1fff, count = (w >>> 13) & 0x1fff;
    if (idx >= count) return ran;
    const next = (w & ~0x1fff) | (idx + 1);
    const seen = Atomics.compareExchange(ctl, CTL.SCENE_WORD, w, next);
    if (seen !== w) { w = seen; continue; }
    // Read after the claim: these belong to the job whose word was claimed.
    const n = ctl[CTL.SCENE_N]!, k = ctl[CTL.SCENE_K]!;
    const from = idx * k;
    fillSceneChunk(view, chars, from, from + k < n ? from + k : n);
    runSceneSystems(view, ctlF64[CTL.SCENE_DT_F64]!);
    Atomics.add(ctl, CTL.SCENE_DONE, 1);
    ran++;
    w = next;
  }
}
