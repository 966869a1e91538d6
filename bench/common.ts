/** Shared helpers for `npm run bench`: timing by medians of repeats, machine facts. */
import os from 'node:os';
import { Session } from 'node:inspector/promises';

/** One benchmark result as written to bench/results.json. */
export interface BenchResult {
  /** Stable id, e.g. `tail.link`. */
  id: string;
  /** Nanoseconds per item (link, limb, bone…), or undefined for whole-run timings. */
  nsPerItem?: number;
  /** Milliseconds for a whole operation (e.g. `rig.pass`, `crowd.frame`). */
  ms?: number;
  /** The comparison run side by side in the same process. */
  compare?: { id: string; nsPerItem?: number; ms?: number };
  /** compare / ours (higher is better for us). */
  ratio?: number;
  /** Extra numbers (bytes per link, heap growth…). */
  extra?: Record<string, number | string>;
}

/** Median of numbers. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Time one call of `fn` in milliseconds. */
export function timeOnce(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Time `fn` `repeats` times; returns the median in milliseconds. */
export function timeMedian(fn: () => void, repeats = 5): number {
  const t: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

/** Machine line printed with the results. */
export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model ?? 'cpu'} ×${cpus.length}, node ${process.version}, ${os.platform()} ${os.arch()}`;
}

/**
 * Bytes allocated per frame under the function named `under` while `run` executes `frames`
 * frames, from V8's sampling heap
 * profiler (every allocation counted, collected or not; sampled every 32 bytes, so tiny
 * numbers are estimates). heapUsed deltas cannot tell this apart from code and feedback
 * growth.
 */
export async function sampledAllocationPerFrame(run: () => void, frames: number, under: string): Promise<number> {
  const s = new Session();
  s.connect();
  await s.post('HeapProfiler.enable');
  await s.post('HeapProfiler.startSampling', {
    samplingInterval: 32, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
  } as { samplingInterval: number });
  run();
  const { profile } = await s.post('HeapProfiler.stopSampling');
  s.disconnect();
  let bytes = 0;
  const walk = (n: { selfSize: number; children: unknown[]; callFrame: { functionName: string } }): void => {
    bytes += n.selfSize;
    for (const c of n.children) walk(c as typeof n);
  };
  // Only what ran under `under` counts (the profiler's own promises sit outside it).
  const find = (n: { callFrame: { functionName: string }; children: unknown[]; selfSize: number }): boolean => {
    if (n.callFrame.functionName === under) { walk(n); return true; }
    return n.children.some((c) => find(c as typeof n));
  };
  if (!find(profile.head as never)) walk(profile.head as never);
  return bytes / frames;
}
