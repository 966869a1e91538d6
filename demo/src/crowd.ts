/**
 * Crowd page: the pipeline alone on many characters, in two worlds on this thread, timed side
 * by side and compared byte for byte after every frame (determinism). bitrig keeps no thread
 * pool: a game splits the systems' ranges over its own jobs, or a worker owns the whole world. Skeletons are made in code (hips, two legs, a six-link tail); nothing is drawn.
 */
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { addSceneIK, setSceneInputs } from '../../core/sceneIK';
import { update } from '../../systems/pipeline';
import { tailBackend } from '../../runtime/kernels';
import { reportError, setStatus } from './common';

/** A biped of hips, two bent legs and a six-link tail with its end. */
function source(): SkeletonSource {
  const names: string[] = [], parents: number[] = [], pos: number[][] = [];
  const add = (n: string, p: number, x: number[]): number => { names.push(n); parents.push(p); pos.push(x); return names.length - 1; };
  const hips = add('Hips', -1, [0, 0.93, 0]);
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const up = add(`${side}UpLeg`, hips, [0.1 * sx, 0.9, 0]);
    const leg = add(`${side}Leg`, up, [0.1 * sx, 0.5, 0.04]);
    add(`${side}Foot`, leg, [0.1 * sx, 0.1, 0]);
  }
  let p = hips;
  for (let i = 0; i <= 6; i++) p = add(i < 6 ? `Tail_${i + 1}` : 'Tail_End', p, [0, 0.85 - 0.06 * i, -0.1 - 0.11 * i]);
  return {
    names, parents,
    inverseBind: pos.map((x) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -x[0]!, -x[1]!, -x[2]!, 1]),
    rest: pos.map((x, i) => ({ t: parents[i]! >= 0 ? x.map((v, k) => v - pos[parents[i]!]![k]!) : x, r: [0, 0, 0, 1], s: [1, 1, 1] })),
  };
}

interface Crowd { world: BitrigWorld; bindings: CharacterBinding[]; src: SkeletonSource }

function makeCrowd(n: number): Crowd {
  const src = source();
  const world = createBitrigWorld({ entities: n * 4 + 16, chains: n + 16, bones: n * src.names.length + 16, characters: n + 16 });
  const bindings: CharacterBinding[] = [];
  for (let i = 0; i < n; i++) {
    const b = bindSkeleton(world, src, { tail: { floorEnabled: true } });
    const h = addSceneIK(world, b, { arms: false });
    setSceneInputs(world, h, { feet: [1, 1], grounded: true });
    bindings.push(b);
  }
  return { world, bindings, src };
}

/** What an adapter's read does: the animated pose into the pose store; the bodies sway. */
function read(c: Crowd, f: number): void {
  const pose = c.world.pose;
  for (let i = 0; i < c.bindings.length; i++) {
    const b = c.bindings[i]!;
    for (let k = 0; k < c.src.names.length; k++) {
      const s = b.slotOf[k]!, r = c.src.rest[k]!;
      for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = r.t[j]!; pose.localS[s * 3 + j] = 1; }
      for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = r.r[j]!;
    }
    const o = b.charId * 16;
    pose.charRootWs[o] = 1; pose.charRootWs[o + 5] = 1; pose.charRootWs[o + 10] = 1; pose.charRootWs[o + 15] = 1;
    pose.charRootWs[o + 12] = (i % 100) * 2 + 0.03 * Math.sin(f * 0.1 + i);
    pose.charRootWs[o + 14] = Math.floor(i / 100) * 2 + 0.03 * Math.cos(f * 0.13 + i);
    beginCharacterFrame(b);
  }
}

function sameBytes(a: BitrigWorld, b: BitrigWorld): boolean {
  const arrays = (w: BitrigWorld): ArrayBufferView[] => [w.pose.localR, w.pose.localT, w.pose.worldM, w.components.TailParticle.pos, w.components.Limb.targetWs, w.components.SceneCharacter.offsetWs];
  const x = arrays(a), y = arrays(b);
  for (let i = 0; i < x.length; i++) {
    const p = new Uint8Array(x[i]!.buffer, x[i]!.byteOffset, x[i]!.byteLength), q = new Uint8Array(y[i]!.buffer, y[i]!.byteOffset, y[i]!.byteLength);
    if (p.length !== q.length) return false;
    for (let k = 0; k < p.length; k++) if (p[k] !== q[k]) return false;
  }
  return true;
}

const median = (xs: number[]): number => { const s = [...xs].sort((p, q) => p - q); return s[s.length >> 1]!; };
const $ = (id: string): HTMLElement => document.getElementById(id)!;
let running = false;

async function run(): Promise<void> {
  if (running) return;
  running = true;
  try { await measure(); } finally { running = false; }
}

async function measure(): Promise<void> {
  const n = Number((document.getElementById('count') as HTMLSelectElement).value);
  document.body.dataset.crowdDone = '';
  setStatus(`building ${n.toLocaleString()} characters…`, 'busy');
  await new Promise((r) => setTimeout(r, 0));
  const one = makeCrowd(n), many = makeCrowd(n);
  $('isolated').textContent = String(globalThis.crossOriginIsolated === true);
  $('backend').textContent = tailBackend(one.world);
  let same = true;
  const tOne: number[] = [], tMany: number[] = [];
  const FRAMES = 90;
  for (let f = 0; f < FRAMES; f++) {
    read(one, f); read(many, f);
    let t0 = performance.now(); update(one.world, 1 / 60); tOne.push(performance.now() - t0);
    t0 = performance.now(); update(many.world, 1 / 60); tMany.push(performance.now() - t0);
    if (!sameBytes(one.world, many.world)) same = false;
    if (f % 10 === 9) { setStatus(`frame ${f + 1} / ${FRAMES}`, 'busy'); await new Promise((r) => setTimeout(r, 0)); }
  }
  const joined = 0;
  $('threads').textContent = 'none (bitrig keeps no thread pool)';
  $('one').textContent = median(tOne.slice(30)).toFixed(2);
  $('many').textContent = median(tMany.slice(30)).toFixed(2);
  $('same').textContent = same ? 'yes' : 'NO';
  document.body.dataset.threads = String(joined);
  document.body.dataset.same = String(same);
  document.body.dataset.isolated = String(globalThis.crossOriginIsolated === true);
  document.body.dataset.crowdDone = '1';
  setStatus(same ? 'done' : 'the two worlds differ', same ? 'info' : 'error');
}

$('run').addEventListener('click', () => { void run().catch(reportError); });
void run().catch(reportError);
