/**
 * The worker thread's program (bundled by scripts/build-wasm.mjs into workerSource.ts, a
 * string the main bundle starts as a Node worker or a browser `blob:` worker).
 *
 * It instantiates the tail kernel on the world's shared memory, rebuilds a view of the world
 * (every component and pose array as a typed array over that memory), then serves jobs until
 * told to stop: each time the job sequence moves, it runs chunks of the current scene job (the
 * scene systems: FootLock and PelvisHeight in an instance of its own of the scene contacts
 * kernel, the two-bone IK in one of the two-bone kernel, each on a slab of its own in the
 * shared memory, as on the calling thread; JavaScript where a kernel is unavailable, the same
 * results; the tail clock's preparation of chains in the tail kernel's `prepareList`, the rest
 * of them in JavaScript) and of the current tail job (the kernel's `run`).
 */
import { CTL, makeSceneView, runSceneChunks, SCENE_CHUNK, SCENE_SLAB, type SceneView } from './sceneJob';
import { createTailComponents } from '../components/tail';
import { createSceneComponents } from '../components/scene';
import type { SceneContactsExports, TwoBoneExports } from './tailAccel';

/** One array of the world laid out in the shared memory. */
export interface WorkerArray {
  /** Component name, or `pose`. */
  c: string;
  /** Field name. */
  k: string;
  /** Byte offset. */
  o: number;
  /** Element count. */
  n: number;
  /** Element type. */
  t: 'f64' | 'i32' | 'u8';
}

/** What a worker receives once, at start. */
export interface WorkerInit {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  pointers: number[];
  writePointers: number[];
  /** The tail kernel's clock-preparation pointers (setPreparePointers order, then the pose store's slot count and the per-link arrays' row count). */
  preparePointers: number[];
  control: number;
  /** Every component and pose array (scene jobs); empty when the world only shares the tail. */
  arrays: WorkerArray[];
  /** Byte offset of the JavaScript jobs' entity list (i32, `capacity` long). */
  jobChars: number;
  /** Byte offset of the tail finish job's next-chain links (i32, `capacity` long). */
  nextChain: number;
  capacity: number;
  /**
   * The two-bone IK kernel for scene jobs (`null`: the JavaScript solve): its module, pointers
   * (setIkPointers order, without the list), and the workers' limb lists — `slabs` of `slabLength`
   * i32 from byte `lists`, each claimed by one worker with the counter at byte `counter`.
   */
  ik: { module: WebAssembly.Module; pointers: number[]; lists: number; slabs: number; slabLength: number; counter: number; bones: number; chars: number } | null;
  /**
   * The scene contacts kernel for scene jobs (`null`: the JavaScript FootLock and PelvisHeight):
   * its module, pointers (setScenePointers order up to the COM segment pool), and the workers'
   * slabs — `count` of `SCENE_SLAB.BYTES` from byte `slabs`, each claimed by one worker with the
   * counter at byte `counter` — the world's ground hits (`ground`, `groundOk`: never read
   * here, no character with a ground query runs on a worker) and the capacities the kernel checks
   * structure fields against (`limits`, setSceneLimits order).
   */
  scene: { module: WebAssembly.Module; pointers: number[]; slabs: number; count: number; counter: number; ground: number; groundOk: number; limits: number[] } | null;
}

/** Polls of the job sequence before a worker sleeps (about 0.1 ms). */
const SPIN = 20_000;

interface Port { once?(ev: string, f: (d: unknown) => void): void; close(): void; onmessage?: ((e: { data: unknown }) => void) | null }

declare const self: Port;

function viewOf(init: WorkerInit): SceneView | null {
  if (init.arrays.length === 0) return null;
  const buffer = init.memory.buffer as ArrayBuffer;
  // Objects with the main thread's shapes, fields replaced by the shared views: objects built
  // by adding many computed keys would be left in slow dictionary mode, and the systems read
  // component fields in their inner loops.
  const comps = { ...createTailComponents(1), ...createSceneComponents(1) } as unknown as Record<string, Record<string, unknown>>;
  const world: Record<string, unknown> = { comSegments: new Float64Array(0) };
  const pose: Record<string, unknown> = {
    parent: null, owner: null, bindT: null, bindR: null, bindS: null, localT: null, localR: null, localS: null,
    worldM: null, charStart: null, charCount: null, charRootWs: null, dirty: null,
  };
  for (const a of init.arrays) {
    const C = a.t === 'f64' ? Float64Array : a.t === 'i32' ? Int32Array : Uint8Array;
    const owner = a.c === 'pose' ? pose : a.c === 'world' ? world : comps[a.c];
    if (owner !== undefined) owner[a.k] = new C(buffer, a.o, a.n);
  }
  const cap = init.capacity;
  const SC = comps['SceneCharacter']!;
  SC['ground'] = new Array<null>(cap).fill(null); // characters with a ground query never run here
  const view = makeSceneView(comps as unknown as SceneView['components'], pose as unknown as SceneView['pose'], cap, world['comSegments'] as Float64Array, new Int32Array(buffer, init.nextChain, cap));
  const ik = init.ik;
  if (ik !== null) {
    // this worker's limb list: a slab of its own (none left: the JavaScript solve, same results)
    const slab = Atomics.add(new Int32Array(buffer, ik.counter, 1), 0, 1);
    if (slab < ik.slabs) {
      try {
        const at = ik.lists + slab * ik.slabLength * 4;
        // (JavaScript's own exp, acos and sin, as on the calling thread)
        const k = new WebAssembly.Instance(ik.module, { env: { memory: init.memory, exp: Math.exp, acos: Math.acos, sin: Math.sin } }).exports as unknown as TwoBoneExports;
        k.setIkPointers(...ik.pointers, at, ik.bones, ik.chars);
        view.ikAccel = { ik: k, ikList: new Int32Array(buffer, at, ik.slabLength) };
      } catch {
        view.ikAccel = null;
      }
    }
  }
  const sc = init.scene;
  if (sc !== null) {
    // this worker's slab: list, parameters, scratch (none left: the JavaScript systems, same results)
    const slab = Atomics.add(new Int32Array(buffer, sc.counter, 1), 0, 1);
    if (slab < sc.count) {
      try {
        const at = sc.slabs + slab * SCENE_SLAB.BYTES;
        // (JavaScript's own exp, acos, sin and cos, as on the calling thread)
        const k = new WebAssembly.Instance(sc.module, { env: { memory: init.memory, exp: Math.exp, acos: Math.acos, sin: Math.sin, cos: Math.cos } }).exports as unknown as SceneContactsExports;
        k.setScenePointers(...sc.pointers, at + SCENE_SLAB.LIST, at + SCENE_SLAB.PARAMS, at + SCENE_SLAB.SCRATCH, sc.ground, sc.groundOk);
        k.setSceneLimits(...(sc.limits as [number, number, number, number, number]));
        view.sceneAccel = {
          scene: k, sceneList: new Int32Array(buffer, at + SCENE_SLAB.LIST, SCENE_CHUNK), sceneParams: new Float64Array(buffer, at + SCENE_SLAB.PARAMS, 2),
          sceneGround: new Float64Array(buffer, sc.ground, cap * 5), sceneGroundOk: new Uint8Array(buffer, sc.groundOk, cap),
          memory: { buffer }, legs: new Int32Array(buffer, at + SCENE_SLAB.LEGS, 1),
        };
      } catch {
        view.sceneAccel = null;
      }
    }
  }
  return view;
}

function serve(init: WorkerInit, close: () => void): void {
  const ex = new WebAssembly.Instance(init.module, { env: { memory: init.memory } }).exports as unknown as {
    setPointers(...p: number[]): void; setWritePointers(...p: number[]): void; setPreparePointers(...p: number[]): void; setControl(o: number): void; run(): number;
    prepareList(list: number, from: number, to: number, steps: number): number;
  };
  ex.setPointers(...init.pointers);
  ex.setWritePointers(...init.writePointers);
  ex.setPreparePointers(...init.preparePointers);
  ex.setControl(init.control);
  const buffer = init.memory.buffer as ArrayBuffer;
  const ctl = new Int32Array(buffer, init.control, CTL.BYTES / 4);
  const ctlF64 = new Float64Array(buffer, init.control, CTL.BYTES / 8);
  const chars = new Int32Array(buffer, init.jobChars, init.capacity);
  const view = viewOf(init);
  if (view !== null) view.tailPrepare = { kernel: ex, list: init.jobChars }; // (the prepare job's common case in this instance)
  let seen = Atomics.load(ctl, CTL.SEQ);
  Atomics.add(ctl, CTL.READY, 1);
  for (;;) {
    if (Atomics.load(ctl, CTL.STOP) !== 0) break;
    if (view !== null) runSceneChunks(view, ctl, ctlF64, chars, true);
    ex.run();
    // Spin a little before sleeping: a frame's jobs come back to back (scene, steps, write),
    // and waking a sleeping thread costs more than the spin.
    for (let i = 0; i < SPIN && Atomics.load(ctl, CTL.SEQ) === seen; i++);
    Atomics.wait(ctl, CTL.SEQ, seen);
    seen = Atomics.load(ctl, CTL.SEQ);
  }
  Atomics.sub(ctl, CTL.READY, 1);
  close();
}

// Node (≥ 20.16, as core/wasm/tailThreads.ts requires) reaches worker_threads through
// process.getBuiltinModule: no \`require\`, which a bundler would turn into a shim that throws in
// a browser.
const nodeProcess = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
const nodePort = nodeProcess?.versions?.node !== undefined && typeof nodeProcess.getBuiltinModule === 'function'
  ? (nodeProcess.getBuiltinModule('node:worker_threads') as { parentPort: Port | null }).parentPort
  : null;
if (nodePort !== null && nodePort.once) {
  const p = nodePort;
  p.once!('message', (d) => serve(d as WorkerInit, () => p.close()));
} else {
  self.onmessage = (e) => { self.onmessage = null; serve(e.data as WorkerInit, () => self.close()); };
}
