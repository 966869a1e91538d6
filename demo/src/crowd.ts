/**
 * Crowd page: hundreds to thousands of characters walking in rings, each with two legs held
 * on the ground by the scene systems and a six-link tail swung by the tail systems, drawn
 * with two instanced meshes (one draw call for every body and leg, one for every tail).
 * The world is built a slice per frame (progress shown, the page stays responsive); the
 * frame time and the systems' share of it are measured on this run only (a new run clears
 * them first).
 */
import {
  AmbientLight, Color, CylinderGeometry, DirectionalLight, GridHelper, InstancedMesh, Matrix4, MeshStandardMaterial,
  PerspectiveCamera, Quaternion, Scene, Vector3,
} from 'three';
import type { BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { addSceneIK, setSceneInputs, type SceneIKHandle } from '../../core/sceneIK';
import { update } from '../../systems/pipeline';
import { createRenderer, fitCanvas, grabPixels, reportError, setStatus } from './common';

/** A walker of hips, two bent legs and a six-link tail with its end (metres, Y up, facing +Z). */
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

const SRC = source();
const HIPS = SRC.names.indexOf('Hips');
const UPLEG = [SRC.names.indexOf('LeftUpLeg'), SRC.names.indexOf('RightUpLeg')];
/** Drawn segments (child bone, parent bone): legs and body, then the tail. */
const BODY_SEGS = SRC.names.map((n, i) => [i, SRC.parents[i]!] as const).filter(([i, p]) => p >= 0 && !SRC.names[i]!.startsWith('Tail') && p !== HIPS);
const TAIL_SEGS = SRC.names.map((n, i) => [i, SRC.parents[i]!] as const).filter(([i, p]) => p >= 0 && SRC.names[i]!.startsWith('Tail'));
const WALK_SPEED = 1.1; // m/s along each ring
const STRIDE_HZ = 1.6;

interface Walker { binding: CharacterBinding; ik: SceneIKHandle; radius: number; angle0: number; phase: number }
interface Crowd { world: BitrigWorld; walkers: Walker[]; target: number; outer: number }

/** Ring layout: ring k has radius 2 + 1.1 k and as many walkers as fit 0.9 m apart. */
function ringOf(i: number): { radius: number; angle0: number } {
  let k = 0, first = 0;
  for (;;) {
    const r = 2 + 1.1 * k;
    const n = Math.max(6, Math.floor((2 * Math.PI * r) / 0.9));
    if (i < first + n) return { radius: r, angle0: ((i - first) / n) * 2 * Math.PI };
    first += n;
    k++;
  }
}

const canvas = document.getElementById('gl') as HTMLCanvasElement;
const renderer = createRenderer(canvas);
const scene = new Scene();
scene.background = new Color(0x1b1f27);
scene.add(new AmbientLight(0xffffff, 0.55));
const sun = new DirectionalLight(0xffffff, 1.6);
sun.position.set(3, 8, 5);
scene.add(sun);
const camera = new PerspectiveCamera(45, 1, 0.1, 500);
const segGeo = new CylinderGeometry(1, 1, 1, 6, 1).translate(0, 0.5, 0);
let bodies: InstancedMesh | null = null, tails: InstancedMesh | null = null, grid: GridHelper | null = null;

const $ = (id: string): HTMLElement => document.getElementById(id)!;
const countEl = $('count') as HTMLSelectElement;
let crowd: Crowd | null = null;
let runId = 0;
let time = 0;
const frameMs: number[] = [], systemsMs: number[] = [];
let lastFrame = 0, lastShown = 0;

function clearNumbers(): void {
  frameMs.length = systemsMs.length = 0;
  for (const id of ['built', 'frame', 'systems', 'share']) $(id).textContent = '–';
  document.body.dataset.crowdReady = '';
}

/** Start a run: clear the numbers, then bind the characters a slice per frame. */
function start(): void {
  const n = Number(countEl.value);
  const id = ++runId;
  clearNumbers();
  bodies?.removeFromParent(); tails?.removeFromParent(); grid?.removeFromParent();
  bodies?.dispose(); tails?.dispose();
  const world = createBitrigWorld({ entities: n * 4 + 16, chains: n + 16, bones: n * SRC.names.length + 16, characters: n + 16 });
  const c: Crowd = { world, walkers: [], target: n, outer: ringOf(n - 1).radius };
  crowd = null;
  const slice = (): void => {
    if (id !== runId) return; // a newer run replaced this one
    const t0 = performance.now();
    while (c.walkers.length < n && performance.now() - t0 < 12) {
      const i = c.walkers.length;
      const binding = bindSkeleton(world, SRC, { tail: { floorEnabled: true } });
      const ik = addSceneIK(world, binding, { arms: false });
      c.walkers.push({ binding, ik, ...ringOf(i), phase: (i * 0.37) % 1 });
    }
    setStatus(`building the crowd: ${c.walkers.length.toLocaleString()} / ${n.toLocaleString()} characters`, 'busy');
    $('built').textContent = `${c.walkers.length.toLocaleString()} / ${n.toLocaleString()}`;
    if (c.walkers.length < n) { requestAnimationFrame(slice); return; }
    makeMeshes(c);
    crowd = c;
    time = 0;
    lastFrame = 0;
    setStatus(`${n.toLocaleString()} characters walking: the systems hold the feet and swing the tails`, 'info');
  };
  requestAnimationFrame(slice);
}

function makeMeshes(c: Crowd): void {
  const n = c.walkers.length;
  bodies = new InstancedMesh(segGeo, new MeshStandardMaterial({ color: 0x9fb3c8, roughness: 0.7 }), n * (BODY_SEGS.length + 1));
  tails = new InstancedMesh(segGeo, new MeshStandardMaterial({ color: 0xf0a050, roughness: 0.6 }), n * TAIL_SEGS.length);
  bodies.frustumCulled = tails.frustumCulled = false;
  grid = new GridHelper(2 * c.outer + 4, Math.round(c.outer + 2), 0x4a5568, 0x2d3442);
  scene.add(bodies, tails, grid);
  const d = c.outer * 1.7 + 3;
  camera.position.set(0, d * 0.75, d);
  camera.lookAt(0, 0, 0);
  camera.far = d * 4;
  camera.updateProjectionMatrix();
}

const _q = new Quaternion(), _a = new Vector3(), _b = new Vector3(), _d = new Vector3(), _s = new Vector3(), _m = new Matrix4();
const UP = new Vector3(0, 1, 0);
const feet: [number, number] = [1, 1];
const inputs = { feet, grounded: true };

/** What an adapter's read does: root on its ring, legs swinging, stance weights from the stride. */
function read(c: Crowd, t: number): void {
  const pose = c.world.pose;
  for (const w of c.walkers) {
    const b = w.binding;
    for (let k = 0; k < SRC.names.length; k++) {
      const s = b.slotOf[k]!, r = SRC.rest[k]!;
      for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = r.t[j]!; pose.localS[s * 3 + j] = 1; }
      pose.localR[s * 4] = 0; pose.localR[s * 4 + 1] = 0; pose.localR[s * 4 + 2] = 0; pose.localR[s * 4 + 3] = 1;
    }
    const cyc = 2 * Math.PI * (STRIDE_HZ * t + w.phase);
    for (let side = 0; side < 2; side++) {
      const a = 0.35 * Math.sin(cyc + side * Math.PI); // thigh swing about X (radians)
      const s = b.slotOf[UPLEG[side]!]!;
      pose.localR[s * 4] = Math.sin(a / 2); pose.localR[s * 4 + 3] = Math.cos(a / 2);
      feet[side] = Math.cos(cyc + side * Math.PI) > 0 ? 1 : 0; // planted while the leg swings back
    }
    const ang = w.angle0 + (WALK_SPEED / w.radius) * t;
    const yaw = ang; // facing along the ring (counter-clockwise seen from above)
    const o = b.charId * 16, cy = Math.cos(yaw), sy = Math.sin(yaw);
    pose.charRootWs.fill(0, o, o + 16);
    pose.charRootWs[o] = cy; pose.charRootWs[o + 2] = -sy; pose.charRootWs[o + 5] = 1;
    pose.charRootWs[o + 8] = sy; pose.charRootWs[o + 10] = cy; pose.charRootWs[o + 15] = 1;
    pose.charRootWs[o + 12] = w.radius * Math.cos(ang);
    pose.charRootWs[o + 14] = -w.radius * Math.sin(ang);
    setSceneInputs(c.world, w.ik, inputs);
    beginCharacterFrame(b);
  }
}

/** One instance per segment, from the world matrices the systems wrote. */
function draw(c: Crowd): void {
  const W = c.world.pose.worldM;
  let nb = 0, nt = 0;
  const seg = (mesh: InstancedMesh, at: number, slotA: number, slotB: number, radius: number): void => {
    _a.set(W[slotA * 16 + 12]!, W[slotA * 16 + 13]!, W[slotA * 16 + 14]!);
    _b.set(W[slotB * 16 + 12]!, W[slotB * 16 + 13]!, W[slotB * 16 + 14]!);
    _d.subVectors(_b, _a);
    const len = _d.length();
    _q.setFromUnitVectors(UP, len > 1e-9 ? _d.divideScalar(len) : UP);
    _m.compose(_a, _q, _s.set(radius, len, radius));
    mesh.setMatrixAt(at, _m);
  };
  for (const w of c.walkers) {
    const slot = w.binding.slotOf;
    for (const [i, p] of BODY_SEGS) seg(bodies!, nb++, slot[p]!, slot[i]!, 0.035);
    // the body: a short thick piece from the hips forward
    const h = slot[HIPS]! * 16;
    _a.set(W[h + 12]!, W[h + 13]!, W[h + 14]!);
    _d.set(W[h + 8]!, W[h + 9]!, W[h + 10]!).normalize();
    _q.setFromUnitVectors(UP, _d);
    _m.compose(_a.addScaledVector(_d, -0.1), _q, _s.set(0.12, 0.45, 0.12));
    bodies!.setMatrixAt(nb++, _m);
    TAIL_SEGS.forEach(([i, p], j) => seg(tails!, nt++, slot[p]!, slot[i]!, 0.04 - 0.005 * j));
  }
  bodies!.instanceMatrix.needsUpdate = true;
  tails!.instanceMatrix.needsUpdate = true;
}

const median = (xs: number[]): number => { const s = [...xs].sort((p, q) => p - q); return s[s.length >> 1] ?? 0; };

function loop(now: number): void {
  fitCanvas(renderer);
  const r = renderer.domElement.getBoundingClientRect();
  camera.aspect = r.width / Math.max(1, r.height);
  camera.updateProjectionMatrix();
  const c = crowd;
  if (c) {
    const dt = lastFrame ? Math.min((now - lastFrame) / 1000, 1 / 20) : 1 / 60;
    if (lastFrame) frameMs.push(now - lastFrame);
    lastFrame = now;
    time += dt;
    read(c, time);
    const t0 = performance.now();
    update(c.world, dt);
    systemsMs.push(performance.now() - t0);
    draw(c);
    if (frameMs.length > 120) frameMs.shift();
    if (systemsMs.length > 120) systemsMs.shift();
    if (now - lastShown > 500 && frameMs.length >= 10) {
      lastShown = now;
      const f = median(frameMs), s = median(systemsMs);
      $('frame').textContent = `${f.toFixed(1)} ms (${(1000 / f).toFixed(0)} fps)`;
      $('systems').textContent = `${s.toFixed(2)} ms`;
      $('share').textContent = `${((100 * s) / f).toFixed(0)} %`;
      document.body.dataset.frameMs = String(f);
      document.body.dataset.systemsMs = String(s);
      document.body.dataset.crowdReady = '1';
    }
  }
  renderer.setScissorTest(false);
  renderer.setViewport(0, 0, r.width, r.height);
  renderer.render(scene, camera);
}

(window as unknown as { __bitrigDemo: unknown }).__bitrigDemo = {
  page: 'crowd',
  get ready() { return document.body.dataset.crowdReady === '1'; },
  grab() { return grabPixels(renderer, canvas); },
  get characters() { return crowd?.walkers.length ?? 0; },
  run(n: number) { countEl.value = String(n); start(); },
};

$('run').addEventListener('click', () => { try { start(); } catch (e) { reportError(e); } });
countEl.addEventListener('change', () => { try { start(); } catch (e) { reportError(e); } });
renderer.setAnimationLoop(loop);
try { start(); } catch (e) { reportError(e); }
