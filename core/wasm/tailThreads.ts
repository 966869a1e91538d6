/**
 * Worker threads for the WebAssembly tail step and write and for the scene-contact systems
 * (`createBitrigWorld({ threads })`); the worker's program is core/wasm/worker.ts, bundled
 * into {@link WORKER_SOURCE}, and the scene job is core/wasm/sceneJob.ts.
 *
 * The world's arrays live in a shared WebAssembly memory; each worker instantiates the same
 * compiled module on it and views the same arrays. A tail step or write is published by the
 * calling thread as one 64-bit word (wasm/tailStep.ts `prepareStep`/`prepareWrite`), a
 * JavaScript job (scene systems, tail clock preparation, tail write finish) as one 32-bit word
 * (sceneJob.ts); every thread then claims chunks with an atomic compare-and-swap until none is
 * left. Chains and characters are independent within a job, so which thread ran what never
 * changes a result (test/tail/threads.test.ts, test/scene/threads.test.ts).
 *
 * The calling thread never waits for a worker to start or wake: it claims chunks itself from
 * the first moment, and waits only for chunks a worker has already claimed (a spin on the done
 * counter: the browser's main thread may not block). A worker that has not started yet, or is
 * slow to wake, simply finds less work.
 *
 * Workers need SharedArrayBuffer: Node ≥ 20.16 (worker_threads), or a browser page that is
 * cross-origin isolated (COOP `same-origin` + COEP `require-corp`) and may start workers from a
 * `blob:` URL. Elsewhere the world runs everything on the calling thread.
 */
import { CTL } from './sceneJob';
import { WORKER_SOURCE } from './workerSource';
import type { WorkerInit } from './worker';

export { CTL };
export type { WorkerInit };

/** How long the calling thread waits for chunks a worker claimed before it gives the workers up (ms). */
export const WAIT_LIMIT_MS = 2000;

/** A started worker, whatever the platform. */
export interface TailWorker {
  /** Stop the worker (no-op when already stopped). */
  terminate(): void;
}

interface NodeWorker { postMessage(v: unknown): void; terminate(): unknown; unref(): void; on(ev: string, f: (e: unknown) => void): void }
interface BrowserWorker { postMessage(v: unknown): void; terminate(): void; onerror: ((e: unknown) => void) | null }

/**
 * Can this runtime start tail workers at all (shared memory and a way to start a worker)?
 *
 * @example
 * if (!threadsAvailable()) console.info('bitrig: no SharedArrayBuffer here, one thread');
 */
export function threadsAvailable(): boolean {
  if (typeof SharedArrayBuffer !== 'function' || typeof Atomics !== 'object') return false;
  const g = globalThis as { crossOriginIsolated?: boolean; Worker?: unknown; Blob?: unknown; URL?: { createObjectURL?: unknown } };
  if (nodeWorkerCtor() !== null) return true;
  return g.crossOriginIsolated === true && typeof g.Worker === 'function' && typeof g.Blob === 'function' && typeof g.URL?.createObjectURL === 'function';
}

function nodeWorkerCtor(): (new (src: string, o: { eval: boolean }) => NodeWorker) | null {
  const p = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: (id: string) => unknown } }).process;
  if (!p?.versions?.node || typeof p.getBuiltinModule !== 'function') return null;
  try {
    const wt = p.getBuiltinModule('node:worker_threads') as { Worker?: new (src: string, o: { eval: boolean }) => NodeWorker } | undefined;
    return wt?.Worker ?? null;
  } catch {
    return null;
  }
}

/**
 * Start `count` workers on a shared kernel memory; returns those that could be started (maybe
 * none: a content-security policy may forbid `blob:` workers). Setup-time; never throws.
 * `onFail` is called when a worker reports an error (it then no longer takes work).
 *
 * @example
 * accel.workers = startTailWorkers(2, init, () => { accel.failed = true; });
 */
export function startTailWorkers(count: number, init: WorkerInit, onFail: () => void): TailWorker[] {
  const out: TailWorker[] = [];
  const NodeW = nodeWorkerCtor();
  for (let i = 0; i < count; i++) {
    try {
      if (NodeW !== null) {
        const w = new NodeW(WORKER_SOURCE, { eval: true });
        w.unref(); // an idle worker never keeps the process alive
        w.on('error', onFail);
        w.postMessage(init);
        out.push({ terminate: () => { void w.terminate(); } });
      } else {
        const g = globalThis as unknown as { Worker: new (url: string) => BrowserWorker; Blob: typeof Blob; URL: typeof URL };
        const url = g.URL.createObjectURL(new g.Blob([WORKER_SOURCE], { type: 'text/javascript' }));
        const w = new g.Worker(url);
        g.URL.revokeObjectURL(url);
        w.onerror = onFail;
        w.postMessage(init);
        out.push({ terminate: () => w.terminate() });
      }
    } catch {
      break; // workers not allowed here: the calling thread does the work
    }
  }
  return out;
}

/**
 * Wake the workers for the job just published, run chunks on this thread until none is left,
 * then wait for the chunks workers took. Per-frame; never allocates or throws. Returns the
 * pairs this thread ran, or -1 when a worker failed to finish its chunks within
 * {@link WAIT_LIMIT_MS} (the caller then drops the workers; the chains of the lost chunks
 * missed this job).
 *
 * @example
 * const ran = runTailJob(ctl, kernel.prepareStep(count), kernel); // -1: give the workers up
 */
export function runTailJob(ctl: Int32Array, np: number, kernel: { run(): number }, limitMs = WAIT_LIMIT_MS): number {
  Atomics.add(ctl, CTL.SEQ, 1);
  Atomics.notify(ctl, CTL.SEQ);
  const ran = kernel.run();
  return waitCounter(ctl, CTL.DONE, np, limitMs) ? ran : -1;
}

/**
 * Wait until `ctl[index]` reaches `target` (spin: the browser's main thread may not block);
 * false after `limitMs` (default {@link WAIT_LIMIT_MS}; 0: do not wait at all), counted from
 * the first 2^20 spins. Per-frame; no allocation unless the wait lasts that long.
 *
 * @example
 * if (!waitCounter(ctl, CTL.SCENE_DONE, chunks)) dropWorkers(accel);
 */
export function waitCounter(ctl: Int32Array, index: number, target: number, limitMs = WAIT_LIMIT_MS): boolean {
  if (Atomics.load(ctl, index) >= target) return true;
  if (!(limitMs > 0)) return false;
  // The clock is first read after 2^20 spins (about a millisecond), and the limit counts from
  // there: performance.now() allocates (Node's returns a fresh number; 16–32 bytes a call),
  // and nearly every wait ends sooner (a worker finishing its chunk).
  let t0 = -1;
  let spins = 0;
  while (Atomics.load(ctl, index) < target) {
    if (++spins === 1 << 20) {
      spins = 0;
      const now = performance.now();
      if (t0 < 0) t0 = now;
      else if (now - t0 > limitMs) return false;
    }
  }
  return true;
}

/**
 * Stop workers: the STOP flag for those waiting, then terminate. Setup-time.
 *
 * @example
 * stopTailWorkers(accel.control, accel.workers);
 */
export function stopTailWorkers(ctl: Int32Array | null, workers: TailWorker[]): void {
  if (ctl !== null) {
    Atomics.store(ctl, CTL.STOP, 1);
    Atomics.add(ctl, CTL.SEQ, 1);
    Atomics.notify(ctl, CTL.SEQ);
  }
  for (const w of workers) w.terminate();
}
