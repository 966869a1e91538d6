/**
 * `npm run bench:stage -- [ik|tail|crowd]`: per-stage timings for kernel work, not the headline
 * (that is `npm run bench`). Medians of per-frame timings; the machine is shared, so compare two
 * trees only in alternating runs of this same script.
 *
 * - `ik`: FootLock, PelvisHeight, TwoBoneIK ns per limb on the `ik.limb` crowd (env `N`
 *   characters, default 5,000; `FR` frames).
 * - `tail`: TailClock, the internal steps, TailWrite ns per link on the `tail.link` world
 *   (`JS=1`: the JavaScript step).
 * - `crowd`: ms per frame for each pipeline stage on the `crowd.frame` crowd (`N`, default
 *   10,000), and steps 1–3 as `update` runs them (in chunks with the scene kernels).
 * - `ikt`, `crowdt`: the same crowds with one worker thread (`createBitrigWorld({ threads: 1 })`,
 *   opt-in): steps 1–3 as `update` runs them on both threads (ns per limb; ms per frame for
 *   `crowdt`, with the whole `update`), and the share of the scene chunks the worker ran.
 */
import { footLock } from '../systems/footLock';
import { pelvisHeight } from '../systems/pelvisHeight';
import { twoBoneIK } from '../systems/twoBoneIK';
import { tailClockBegin, tailClockStep } from '../systems/tailClock';
import { tailStep } from '../systems/tailStep';
import { tailWrite } from '../systems/tailWrite';
import { disposeTailThreads, sceneContactsChunked, sceneContactsThreaded, sceneKernelLegsByWorkers, tailThreads } from '../core/wasm/tailAccel';
import { update } from '../systems/pipeline';
import type { BitrigWorld } from '../core/world';
import { crowd } from './ik';
import { oursWorld } from './tail';
import { median } from './common';

const DT = 1 / 60;
const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);

function stageIk(): void {
  const N = env('N', 5000), FR = env('FR', 600);
  const c = crowd(N, false);
  const t: number[][] = [[], [], []];
  for (let k = 0; k < FR; k++) {
    c.read(k);
    const t0 = performance.now(); footLock(c.world, DT);
    const t1 = performance.now(); pelvisHeight(c.world, DT);
    const t2 = performance.now(); twoBoneIK(c.world, DT);
    const t3 = performance.now();
    if (k >= 100) { t[0]!.push(t1 - t0); t[1]!.push(t2 - t1); t[2]!.push(t3 - t2); }
  }
  const per = (x: number[]): string => ((median(x) * 1e6) / (2 * N)).toFixed(1);
  console.log(`ik: ${N} characters — ns per limb: footLock ${per(t[0]!)}, pelvis ${per(t[1]!)}, twoBone ${per(t[2]!)}`);
}

function stageTail(): void {
  const FR = env('FR', 400);
  const o = oursWorld(!process.env['JS']);
  const links = o.world.queries.tails.dense.length * 6;
  const t: number[][] = [[], [], []];
  for (let f = 0; f < FR; f++) {
    o.base(1);
    const t0 = performance.now();
    const steps = tailClockBegin(o.world, DT);
    const t1 = performance.now();
    for (let s = 0; s < steps; s++) { tailClockStep(o.world, s); tailStep(o.world); }
    const t2 = performance.now();
    tailWrite(o.world);
    const t3 = performance.now();
    if (f >= 50) { t[0]!.push(t1 - t0); t[1]!.push(t2 - t1); t[2]!.push(t3 - t2); }
  }
  const per = (x: number[]): string => ((median(x) * 1e6) / links).toFixed(1);
  console.log(`tail: ${links} links (${process.env['JS'] ? 'JavaScript' : 'default backend'}) — ns per link: clock ${per(t[0]!)}, step ${per(t[1]!)}, write ${per(t[2]!)}`);
}

function stageCrowd(): void {
  const N = env('N', 10000), FR = env('FR', 200);
  const c = crowd(N, true);
  const w = c.world;
  const names = ['footLock', 'pelvis', 'twoBone', 'clock', 'step', 'write', 'total', 'steps 1-3 as update'];
  const t: number[][] = names.map(() => []);
  for (let k = 0; k < FR; k++) {
    c.read(2 * k);
    const t0 = performance.now(); footLock(w, DT);
    const t1 = performance.now(); pelvisHeight(w, DT);
    const t2 = performance.now(); twoBoneIK(w, DT);
    const t3 = performance.now(); const steps = tailClockBegin(w, DT);
    const t4 = performance.now(); for (let s = 0; s < steps; s++) { tailClockStep(w, s); tailStep(w); }
    const t5 = performance.now(); tailWrite(w);
    const t6 = performance.now();
    c.read(2 * k + 1);
    const t7 = performance.now();
    if (!sceneContactsChunked(w, DT)) { footLock(w, DT); pelvisHeight(w, DT); twoBoneIK(w, DT); }
    const t8 = performance.now();
    if (k >= 40) [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t6 - t0, t8 - t7].forEach((x, i) => t[i]!.push(x));
  }
  console.log(`crowd: ${N} characters — ms per frame: ${names.map((n, i) => `${n} ${median(t[i]!).toFixed(2)}`).join(', ')}`);
}

/** Wait (at most 5 s) until the world's worker has joined. */
async function joined(w: BitrigWorld): Promise<number> {
  const t0 = Date.now();
  while (tailThreads(w) < 1 && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 5));
  return tailThreads(w);
}

/** Steps 1–3 on both threads: `sceneContactsThreaded` (what `update` runs first with workers). */
function scene3(w: BitrigWorld): void {
  if (!sceneContactsThreaded(w, DT)) throw new Error('bench: no worker threads');
}

async function stageIkThreads(): Promise<void> {
  const N = env('N', 5000), FR = env('FR', 600);
  // the same crowd on one thread (steps 1-3 as update runs them there: in chunks) and with one
  // worker, in alternating blocks of 10 frames (the machine's speed drifts)
  const c1 = crowd(N, false), c = crowd(N, false, 1);
  const one = (k: number): number => {
    c1.read(k);
    const t0 = performance.now();
    if (!sceneContactsChunked(c1.world, DT)) { footLock(c1.world, DT); pelvisHeight(c1.world, DT); twoBoneIK(c1.world, DT); }
    return performance.now() - t0;
  };
  const two = (k: number): number => { c.read(k); const t0 = performance.now(); scene3(c.world); return performance.now() - t0; };
  for (let k = 0; k < 60; k++) { one(k); two(k); }
  const j = await joined(c.world);
  const t1: number[] = [], t2: number[] = [];
  const a = c.world.tailAccel!;
  for (let k = 60; k < 100; k++) { one(k); two(k); }
  const before = a.sceneChunksByWorkers, legsBefore = sceneKernelLegsByWorkers(c.world);
  for (let k = 100; k < 100 + FR; k += 10) {
    for (let i = 0; i < 10; i++) t1.push(one(k + i));
    for (let i = 0; i < 10; i++) t2.push(two(k + i));
  }
  const chunks = Math.ceil(N / 64) * FR;
  const per = (x: number[]): string => ((median(x) * 1e6) / (2 * N)).toFixed(1);
  console.log(`ikt: ${N} characters — ns per limb, steps 1-3 as update runs them: one thread ${per(t1)}, with ${j} worker ${per(t2)} (the worker ran ${((100 * (a.sceneChunksByWorkers - before)) / chunks).toFixed(0)}% of the chunks, ${sceneKernelLegsByWorkers(c.world) - legsBefore} legs in its scene kernel)`);
  disposeTailThreads(c.world);
}

async function stageCrowdThreads(): Promise<void> {
  const N = env('N', 10000), FR = env('FR', 200);
  // `update` on one thread and with one worker, in alternating blocks of 10 frames; then steps
  // 1-3 alone as update runs them, likewise
  const c1 = crowd(N, true), c = crowd(N, true, 1);
  const timed = (x: typeof c, k: number, f: () => void): number => { x.read(k); const t0 = performance.now(); f(); return performance.now() - t0; };
  const up1 = (k: number): number => timed(c1, k, () => update(c1.world, DT));
  const up2 = (k: number): number => timed(c, k, () => update(c.world, DT));
  const sc1 = (k: number): number => timed(c1, k, () => { if (!sceneContactsChunked(c1.world, DT)) { footLock(c1.world, DT); pelvisHeight(c1.world, DT); twoBoneIK(c1.world, DT); } });
  const sc2 = (k: number): number => timed(c, k, () => scene3(c.world));
  for (let k = 0; k < 30; k++) { up1(k); up2(k); }
  const j = await joined(c.world);
  for (let k = 30; k < 40; k++) { up1(k); up2(k); }
  const t: number[][] = [[], [], [], []];
  for (let k = 40; k < 40 + FR; k += 10) {
    for (let i = 0; i < 10; i++) t[0]!.push(up1(k + i));
    for (let i = 0; i < 10; i++) t[1]!.push(up2(k + i));
  }
  for (let k = 40 + FR; k < 40 + 2 * FR; k += 10) {
    for (let i = 0; i < 10; i++) t[2]!.push(sc1(k + i));
    for (let i = 0; i < 10; i++) t[3]!.push(sc2(k + i));
  }
  const ms = (x: number[]): string => median(x).toFixed(2);
  console.log(`crowdt: ${N} characters — ms per frame: update one thread ${ms(t[0]!)}, with ${j} worker ${ms(t[1]!)}; steps 1-3 one thread ${ms(t[2]!)}, with the worker ${ms(t[3]!)}`);
  disposeTailThreads(c.world);
}

const which = process.argv.slice(2);
const all: Array<[string, () => void | Promise<void>]> = [['ik', stageIk], ['tail', stageTail], ['crowd', stageCrowd], ['ikt', stageIkThreads], ['crowdt', stageCrowdThreads]];
for (const [name, f] of all) if (which.length === 0 || which.includes(name)) await f();
