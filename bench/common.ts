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

/** What {@link machineProbes} measured: medians over the rounds it was taken in. */
export interface ProbeResult {
  /** Streaming bandwidth over two 64 MB Float64Arrays (b += a: two reads and a write), GB/s. */
  memProbeGBs: number;
  /** Scalar JavaScript on objects in cache (a quaternion rotating 1,000 `{x, y, z}`), ns per rotation. */
  jsProbeNs: number;
}

/**
 * Two probes of the machine's state, taken in a benchmark's own interleaved rounds (call
 * `round()` once per round, `result()` at the end): the shared machine alternates between
 * modes, and the two sides of a comparison slow down differently (bitrig's crowd frames are
 * bound by memory traffic, the JavaScript libraries by execution), so the probes say which
 * mode a run's numbers and ratios come from.
 *
 * @example
 * const probes = machineProbes();
 * for (let r = 0; r < 7; r++) { timeOurs(); timeTheirs(); probes.round(); }
 * const { memProbeGBs, jsProbeNs } = probes.result();
 */
export function machineProbes(): { round(): void; result(): ProbeResult } {
  const N = 8 << 20; // 8 Mi f64 = 64 MB per array: far beyond the caches
  const a = new Float64Array(N).fill(1), b = new Float64Array(N);
  const pts = Array.from({ length: 1000 }, (_, i) => ({ x: i * 1e-3, y: 1, z: -i * 1e-3 }));
  const q = { x: 0.0087, y: 0.0175, z: 0.0262, w: Math.sqrt(1 - 0.0087 ** 2 - 0.0175 ** 2 - 0.0262 ** 2) }; // (unit)
  const mem: number[] = [], js: number[] = [];
  const stream = (): void => {
    for (let i = 0; i < N; i += 4) { b[i] = b[i]! + a[i]!; b[i + 1] = b[i + 1]! + a[i + 1]!; b[i + 2] = b[i + 2]! + a[i + 2]!; b[i + 3] = b[i + 3]! + a[i + 3]!; }
  };
  const rotate = (): void => {
    for (let pass = 0; pass < 100; pass++) {
      for (const p of pts) {
        // v' = v + 2w(q×v) + 2q×(q×v)
        const tx = 2 * (q.y * p.z - q.z * p.y), ty = 2 * (q.z * p.x - q.x * p.z), tz = 2 * (q.x * p.y - q.y * p.x);
        p.x += q.w * tx + q.y * tz - q.z * ty; p.y += q.w * ty + q.z * tx - q.x * tz; p.z += q.w * tz + q.x * ty - q.y * tx;
      }
    }
  };
  stream(); rotate(); rotate(); // (warm: compiled before the first round)
  return {
    round: () => {
      mem.push((24 * N) / (timeOnce(stream) * 1e6));
      js.push((timeOnce(rotate) * 1e6) / (100 * pts.length));
    },
    result: () => ({ memProbeGBs: median(mem), jsProbeNs: median(js) }),
  };
}
