/** Shared helpers for `npm run bench`: timing by medians of repeats, machine facts. */
import os from 'node:os';

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
