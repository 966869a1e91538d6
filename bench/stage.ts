/**
 * `npm run bench:stage -- [ik|tail|crowd]`: per-stage timings for kernel work, not the headline
 * (that is `npm run bench`). Medians of per-frame timings; the machine is shared, so compare two
 * trees only in alternating runs of this same script.
 *
 * - `ik`: FootLock, PelvisHeight, TwoBoneIK ns per limb on the `ik.limb` crowd (env `N`
 *   characters, default 5,000; `FR` frames), and the three block by block as `update` runs
 *   them (`sceneContacts`), in frames of their own.
 * - `tail`: TailClock, the internal steps, TailWrite ns per link on the `tail.link` world (env
 *   `N` chains, default 10,000).
 * - `tailColliders`: the same on the `tail.link.colliders` world (`N` default 2,000), with the
 *   frame's collider placement (TailColliders) apart.
 * - `tailContacts`: the same with the `tail.link.contacts` walls (the tail in contact).
 * - `crowd`: ms per frame for each pipeline stage on the `crowd.frame` crowd (`N`, default
 *   10,000), and steps 1–3 as `update` runs them.
 */
import { footLock } from '../systems/footLock';
import { pelvisHeight } from '../systems/pelvisHeight';
import { twoBoneIK } from '../systems/twoBoneIK';
import { tailClockBegin, tailClockStep } from '../systems/tailClock';
import { tailStep } from '../systems/tailStep';
import { tailCollidersBegin } from '../systems/tailColliders';
import { tailWrite } from '../systems/tailWrite';
import { update, sceneContacts } from '../systems/pipeline';
import { crowd } from './ik';
import { contactWalls, oursWorld } from './tail';
import { median } from './common';

const DT = 1 / 60;
const env = (k: string, d: number): number => (process.env[k] !== undefined ? Number(process.env[k]) : d);

function stageIk(): void {
  const N = env('N', 5000), FR = env('FR', 600);
  const c = crowd(N, false);
  const t: number[][] = [[], [], [], []];
  for (let k = 0; k < FR; k++) {
    c.read(2 * k);
    const t0 = performance.now(); footLock(c.world, DT);
    const t1 = performance.now(); pelvisHeight(c.world, DT);
    const t2 = performance.now(); twoBoneIK(c.world, DT);
    const t3 = performance.now();
    c.read(2 * k + 1);
    const t4 = performance.now(); sceneContacts(c.world, DT);
    const t5 = performance.now();
    if (k >= 100) { t[0]!.push(t1 - t0); t[1]!.push(t2 - t1); t[2]!.push(t3 - t2); t[3]!.push(t5 - t4); }
  }
  const per = (x: number[]): string => ((median(x) * 1e6) / (2 * N)).toFixed(1);
  console.log(`ik: ${N} characters — ns per limb: footLock ${per(t[0]!)}, pelvis ${per(t[1]!)}, twoBone ${per(t[2]!)}; the three block by block (sceneContacts) ${per(t[3]!)}`);
}

function stageTail(colliders: boolean, walls = false): void {
  const FR = env('FR', 400);
  const o = colliders ? oursWorld(env('N', 2000), true, walls ? contactWalls() : undefined) : oursWorld(env('N', 10000));
  const links = o.world.queries.tails.dense.length * 6;
  const t: number[][] = [[], [], [], []];
  for (let f = 0; f < FR; f++) {
    o.base(1);
    const t0 = performance.now();
    const steps = tailClockBegin(o.world, DT);
    const t1 = performance.now();
    tailCollidersBegin(o.world);
    const tb = performance.now() - t1;
    for (let s = 0; s < steps; s++) {
      tailClockStep(o.world, s);
      tailStep(o.world);
    }
    const t2 = performance.now();
    tailWrite(o.world);
    const t3 = performance.now();
    if (f >= 50) { t[0]!.push(t1 - t0); t[1]!.push(t2 - t1 - tb); t[2]!.push(t3 - t2); t[3]!.push(tb); }
  }
  const per = (x: number[]): string => ((median(x) * 1e6) / links).toFixed(1);
  console.log(`${walls ? 'tailContacts' : colliders ? 'tailColliders' : 'tail'}: ${links} links — ns per link: clock ${per(t[0]!)}, colliders ${per(t[3]!)}, step ${per(t[1]!)}, write ${per(t[2]!)}`);
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
    sceneContacts(w, DT);
    const t8 = performance.now();
    if (k >= 40) [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t6 - t0, t8 - t7].forEach((x, i) => t[i]!.push(x));
  }
  console.log(`crowd: ${N} characters — ms per frame: ${names.map((n, i) => `${n} ${median(t[i]!).toFixed(2)}`).join(', ')}`);
}

const which = process.argv.slice(2);
const all: Array<[string, () => void]> = [['ik', stageIk], ['tail', () => stageTail(false)], ['tailColliders', () => stageTail(true)], ['tailContacts', () => stageTail(true, true)], ['crowd', stageCrowd]];
for (const [name, f] of all) if (which.length === 0 || which.includes(name)) await f();
