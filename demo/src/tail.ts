/**
 * Tail page: the same clip at the same frame on three rigs of one character — as rigged
 * (the de-tailed fox: its tail skinned to the left shin and both thighs), rigid on the
 * pelvis, and the grown chain swung by bitrig's runtime — with a side view of the chain and
 * its skeleton, the spring options as live controls, and the live edge stretch (p99, torn %)
 * of every copy. Opens on the de-tailed fox walking.
 */
import GUI, { type Controller } from 'lil-gui';
import { createColliderWires } from './colliderWires';
import {
  BufferAttribute, BufferGeometry, Color, DoubleSide, GridHelper, Line, LineBasicMaterial, type Material, Mesh,
  MeshBasicMaterial, MeshStandardMaterial, OrthographicCamera, PlaneGeometry, Points, PointsMaterial, Scene, type SkinnedMesh,
  Vector3,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { createBuiltinCharacter } from '../../core/character/index';
import { TAIL_DEFAULTS, type TailOptions } from '../../core/defaults';
import { characterToGlb } from '../../rig/characterDocument';
import {
  addLights, createRenderer, fitCanvas, fitOrtho, fmt, grabPixels, makeCamera, nextFrame, renderInto, reportError, setStatus, viewRect,
} from './common';
import { COPY_KINDS, type CopyKind, loadTailSet, type TailSet } from './models';
import { listSharedAssets, fetchSharedAsset } from './assets';
import { fetchRepoModel, FIRST_MODEL, pickClip, REPO_MODELS } from './catalog';
import { stepAnimator } from './animate';

const RAD = Math.PI / 180;
const FIXED = 1 / 60;
const WARM_SECONDS = 3;

const canvas = document.getElementById('gl') as HTMLCanvasElement;
const viewsEl = document.getElementById('views') as HTMLElement;
const viewEl = (name: string): HTMLElement => document.querySelector(`.view[data-view="${name}"]`) as HTMLElement;
const readoutEl = (name: string): HTMLElement => document.querySelector(`.readout[data-readout="${name}"]`) as HTMLElement;
const modelSelect = document.getElementById('model') as HTMLSelectElement;
const fileInput = document.getElementById('file') as HTMLInputElement;

const params = {
  clip: 'walk',
  physics: true,
  bones: false,
  colliders: true,
  paused: false,
  speed: 1,
  frequency: TAIL_DEFAULTS.frequency,
  damping: TAIL_DEFAULTS.damping,
  gravity: TAIL_DEFAULTS.gravity,
  carry: TAIL_DEFAULTS.carry / RAD,
  restCurve: TAIL_DEFAULTS.restCurve,
  floor: TAIL_DEFAULTS.floorEnabled,
  floorHeight: TAIL_DEFAULTS.floorHeight,
};

const tailOptions = () => ({
  frequency: params.frequency, damping: params.damping, gravity: params.gravity, carry: params.carry * RAD,
  restCurve: params.restCurve, floorEnabled: params.floor, floorHeight: params.floorHeight,
});

// ------------------------------------------------------------------------------------------
// Scene

const renderer = createRenderer(canvas);
const scene = new Scene();
scene.background = new Color(0x1b1f27);
addLights(scene);
const grid = new GridHelper(8, 32, 0x4a5568, 0x2d3442);
scene.add(grid);
const ground = new Mesh(new PlaneGeometry(8, 8), new MeshStandardMaterial({ color: 0x232833, roughness: 1 }));
ground.rotation.x = -Math.PI / 2;
ground.position.y = -0.002;
scene.add(ground);
const tailFloor = new Mesh(new PlaneGeometry(3, 3), new MeshBasicMaterial({ color: 0x3d7fff, transparent: true, opacity: 0.12, side: DoubleSide, depthWrite: false }));
tailFloor.rotation.x = -Math.PI / 2;
scene.add(tailFloor);

const camera = makeCamera();
const controls = new OrbitControls(camera, viewsEl);
controls.enableDamping = true;
controls.dampingFactor = 0.12;
const sideCam = new OrthographicCamera(-1, 1, 1, -1, 0.01, 100);

// The chain drawn on its own in the side view.
const chainGeo = new BufferGeometry();
chainGeo.setAttribute('position', new BufferAttribute(new Float32Array(3 * 10), 3));
const chainLine = new Line(chainGeo, new LineBasicMaterial({ color: 0xf0a050, depthTest: false }));
const chainDots = new Points(chainGeo, new PointsMaterial({ color: 0xffd08a, size: 7, sizeAttenuation: false, depthTest: false }));
chainLine.renderOrder = chainDots.renderOrder = 20;
chainLine.frustumCulled = chainDots.frustumCulled = false;
scene.add(chainLine, chainDots);
const colliderWires = createColliderWires(); // (the chain copy's tail colliders, as wireframes)
scene.add(colliderWires.lines);
const ghost = new MeshBasicMaterial({ color: 0x9fb3c8, transparent: true, opacity: 0.22, depthWrite: false });

// ------------------------------------------------------------------------------------------
// State

let set: TailSet | null = null;
let loading = false;
let time = 0;
let sampleAcc = 0;
let duration = 1;
let lastReadout = 0;

function clipDuration(): number {
  const c = set?.copies.chain.clips.find((k) => k.name === params.clip);
  return c && c.duration > 0 ? c.duration : 1;
}

/** Advance every copy by dt (same dt, so the same frame), and sample the stretch meters. */
function step(dt: number): void {
  if (!set) return;
  for (const k of COPY_KINDS) {
    const c = set.copies[k];
    if (c.animator) stepAnimator(c.animator, dt, params.physics);
    else c.mixer.update(dt);
  }
  colliderWires.update(params.colliders ? set.copies.chain.animator : null);
  time += dt;
  sampleAcc += dt;
  const interval = duration / 24;
  if (sampleAcc >= interval) {
    sampleAcc %= interval;
    for (const k of COPY_KINDS) {
      const c = set.copies[k];
      if (!c.meter) continue;
      c.holder.updateMatrixWorld(true);
      c.meter.sample();
    }
  }
}

/**
 * Show time `t` deterministically: restart every copy `WARM_SECONDS` earlier and step at a
 * fixed 60 Hz up to t (the springs settle, the stretch window fills with the last cycle).
 */
function seek(t: number): void {
  if (!set) return;
  const t0 = t - Math.max(WARM_SECONDS, duration * 1.5);
  const start = ((t0 % duration) + duration) % duration;
  for (const k of COPY_KINDS) {
    const c = set.copies[k];
    c.animator?.restoreAnimatedPose(); // the mixer is advanced here, not by the animator
    c.mixer.setTime(start);
    c.animator?.setTailPhysics(params.physics);
    c.animator?.reset(); // re-seats the chain at rest and restarts its fixed-step clock
    c.meter?.reset();
  }
  time = t0;
  sampleAcc = 0;
  const n = Math.round((t - t0) / FIXED);
  for (let i = 0; i < n; i++) step(FIXED);
  time = t;
  updateReadouts(true);
}

function setClip(name: string): void {
  if (!set) return;
  if (!set.clipNames.includes(name)) name = set.clipNames[0] ?? '';
  params.clip = name;
  for (const k of COPY_KINDS) {
    const c = set.copies[k];
    c.mixer.stopAllAction();
    c.action = null;
    const clip = c.clips.find((x) => x.name === name);
    if (clip) { c.action = c.mixer.clipAction(clip); c.action.play(); }
  }
  duration = clipDuration();
  seek(0);
}

function setPhysics(on: boolean): void {
  params.physics = on;
  set?.copies.chain.animator?.setTailPhysics(on);
  if (params.paused) seek(time);
}

function applyTail(): void {
  tailFloor.visible = params.floor;
  tailFloor.position.y = params.floorHeight + 0.001;
  const a = set?.copies.chain.animator;
  if (!a) return;
  try {
    a.setTailOptions(tailOptions());
  } catch (e) {
    reportError(e);
  }
  if (params.paused) seek(time);
}

// ------------------------------------------------------------------------------------------
// Readouts

function updateReadouts(force = false): void {
  const now = performance.now();
  if (!set || (!force && now - lastReadout < 500)) return;
  lastReadout = now;
  for (const k of COPY_KINDS) {
    const el = readoutEl(k);
    const m = set.copies[k].meter;
    if (!m) { el.textContent = 'no tail to measure'; el.dataset.p99 = ''; el.dataset.torn = 'no'; continue; }
    const s = m.stats();
    el.textContent = `p99 ${fmt(s.p99)} · p1 ${fmt(s.p1)} · torn ${fmt(s.torn * 100, 1)} %`;
    el.title = 'edge stretch over the last clip cycle: 99th percentile (stretch), 1st percentile (squash), torn = ratio > 1.5 or < 0.67';
    el.dataset.p99 = String(s.p99);
    el.dataset.p1 = String(s.p1);
    el.dataset.torn = s.torn > 0 ? 'yes' : 'no';
    el.dataset.tornFraction = String(s.torn);
    el.dataset.samples = String(s.samples);
  }
  const a = set.copies.chain.animator;
  const side = readoutEl('side');
  if (a) {
    const d = a.diagnostics();
    const t = d.tails[0];
    if (t) {
      const maxBend = Math.max(0, ...t.bendAngles) / RAD;
      const contacts = t.contacts.filter(Boolean).length;
      side.textContent = `${t.bones.length} links · rest ${t.restSource} · max bend ${maxBend.toFixed(0)}° · floor contacts ${contacts} · collider contacts ${t.colliderContacts}${params.physics ? '' : ' · physics off (carried rest pose)'}`;
    } else side.textContent = 'no tail chain';
  }
}

// ------------------------------------------------------------------------------------------
// Rendering

const _p = new Vector3();
const originalMaterials = new Map<SkinnedMesh, Material | Material[]>();

function updateChainLine(): void {
  if (!set) return;
  const pos = chainGeo.getAttribute('position') as BufferAttribute;
  const bones = set.chainBones;
  const n = Math.min(bones.length, pos.count);
  for (let i = 0; i < n; i++) {
    bones[i]!.getWorldPosition(_p);
    pos.setXYZ(i, _p.x, _p.y, _p.z);
  }
  pos.needsUpdate = true;
  chainGeo.setDrawRange(0, n);
}

function render(): void {
  fitCanvas(renderer);
  renderer.setScissorTest(true);
  if (!set) {
    for (const k of [...COPY_KINDS, 'side']) renderInto(renderer, viewEl(k), scene, camera);
    return;
  }
  scene.updateMatrixWorld(true);
  updateChainLine();
  chainLine.visible = chainDots.visible = false;
  for (const k of COPY_KINDS) {
    for (const j of COPY_KINDS) {
      set.copies[j].holder.visible = j === k;
      set.copies[j].helper.visible = params.bones && j === k;
    }
    renderInto(renderer, viewEl(k), scene, camera);
  }
  // Side view: the chain copy as a ghost, its skeleton, and the tail chain drawn bold.
  const chain = set.copies.chain;
  for (const j of COPY_KINDS) { set.copies[j].holder.visible = j === 'chain'; set.copies[j].helper.visible = j === 'chain'; }
  chainLine.visible = chainDots.visible = set.chainBones.length > 1;
  for (const m of chain.meshes) { originalMaterials.set(m, m.material); m.material = ghost; }
  grid.visible = false;
  const r = viewRect(renderer, viewEl('side'));
  const size = set.box.getSize(_p);
  const half = Math.max(size.y * 0.62, (Math.max(size.z, size.x) * 0.62) / Math.max(r.aspect, 0.1));
  fitOrtho(sideCam, half, r.aspect);
  renderInto(renderer, viewEl('side'), scene, sideCam);
  for (const m of chain.meshes) m.material = originalMaterials.get(m)!;
  grid.visible = true;
  for (const j of COPY_KINDS) set.copies[j].holder.visible = true;
}

/** Put the camera where the three copies are seen from the back-left, tail in profile. */
function frameCamera(): void {
  if (!set) return;
  const box = set.box;
  const c = box.getCenter(new Vector3());
  const size = box.getSize(new Vector3());
  const r = viewRect(renderer, viewEl('chain'));
  const aspect = r.visible ? r.aspect : 0.7;
  const radius = 0.5 * Math.max(size.y, Math.hypot(size.x, size.z));
  const fov = (camera.fov * Math.PI) / 180;
  const dist = (radius / Math.tan(fov / 2)) * 1.15 / Math.min(1, aspect);
  const dir = new Vector3(1, 0.32, -0.62).normalize();
  controls.target.copy(c);
  camera.position.copy(c).addScaledVector(dir, dist);
  camera.near = dist / 100;
  camera.far = dist * 20;
  camera.updateProjectionMatrix();
  controls.update();
  sideCam.position.set(c.x + dist * 2, c.y, c.z);
  sideCam.lookAt(c);
  sideCam.near = 0.01;
  sideCam.far = dist * 4 + size.x;
  sideCam.updateProjectionMatrix();
}

// ------------------------------------------------------------------------------------------
// Loading

async function install(bytes: Uint8Array, label: string, tailVertex?: Uint8Array, preset: Partial<TailOptions> = {}): Promise<void> {
  if (loading) return;
  loading = true;
  setStatus(`${label}: loading…`, 'busy');
  await nextFrame();
  try {
    setSpring(preset);
    const next = await loadTailSet(bytes, { label, tailVertex, tail: tailOptions(), onProgress: (s) => setStatus(s, 'busy') });
    set?.dispose();
    set = next;
    for (const k of COPY_KINDS) { scene.add(set.copies[k].holder); scene.add(set.copies[k].helper); }
    clipCtl = clipCtl.options(set.clipNames).name('clip').onChange((v: string) => setClip(v));
    const want = pickClip(set.clipNames);
    params.clip = want;
    clipCtl.updateDisplay();
    set.copies.chain.animator?.setTailPhysics(params.physics);
    applyTail();
    frameCamera();
    setClip(want);
    setLabels();
    setStatus(`${label} · ${set.notes.join(' · ')}`, 'info');
  } catch (e) {
    reportError(e);
  } finally {
    loading = false;
  }
}

/**
 * Sub-labels of the views: what each copy is for the model on show. A file that already has
 * tail bones gives the rig pass nothing to do, so its middle copy is the left one again: the
 * label says so instead of inviting a comparison.
 */
function setLabels(): void {
  if (!set) return;
  const grown = set.reports.chain.chains > 0;
  const rigid = set.reports.rigid.appendages.some((a) => a.verdict === 'rigid');
  const own = !grown && set.chainBones.length > 0;
  const text: Record<CopyKind, string> = {
    shin: grown ? 'tail skinned to the legs, as the auto-rigger left it' : own ? 'its own tail bones, moved by the clip only' : 'the file as it came',
    rigid: rigid ? 'repaired: the tail follows the pelvis as one piece'
      : own ? 'same as the left: the file already has tail bones, so the rig pass leaves it alone'
        : 'same as the left: the rig pass found no loose tail to repair',
    chain: grown ? 'repaired: grown tail bones, swung by the runtime' : own ? 'its tail bones, swung by the runtime' : 'no tail chain: nothing to swing',
  };
  for (const k of COPY_KINDS) {
    const small = viewEl(k).querySelector('.label small');
    if (small) small.textContent = text[k];
    viewEl(k).dataset.same = k === 'rigid' && !rigid ? 'yes' : 'no';
  }
}

/** Spring controls back to the defaults, then the model's own preset (its rest curve, its carry). */
function setSpring(preset: Partial<TailOptions>): void {
  Object.assign(params, {
    frequency: TAIL_DEFAULTS.frequency, damping: TAIL_DEFAULTS.damping, gravity: TAIL_DEFAULTS.gravity,
    carry: TAIL_DEFAULTS.carry / RAD, restCurve: TAIL_DEFAULTS.restCurve, floor: TAIL_DEFAULTS.floorEnabled, floorHeight: TAIL_DEFAULTS.floorHeight,
  });
  if (preset.restCurve !== undefined) params.restCurve = preset.restCurve;
  if (preset.carry !== undefined) params.carry = preset.carry / RAD;
  spring.controllersRecursive().forEach((c) => c.updateDisplay());
}

async function loadBuiltin(): Promise<void> {
  const data = createBuiltinCharacter({ variant: 'shin' });
  const bytes = await characterToGlb(data);
  await install(bytes, 'built-in critter', data.tailVertex);
}

async function loadRepo(file: string): Promise<void> {
  const m = REPO_MODELS.find((x) => x.file === file);
  if (!m) { reportError(new Error(`bitrig demo: no model ${file}`)); return; }
  try {
    setStatus(`${m.file}: fetching…`, 'busy');
    await install(await fetchRepoModel(m), m.file, undefined, m.tail);
  } catch (e) {
    reportError(e);
  }
}

async function loadShared(name: string): Promise<void> {
  try {
    setStatus(`${name}: fetching…`, 'busy');
    const bytes = await fetchSharedAsset(name);
    await install(bytes, name);
  } catch (e) {
    reportError(e);
  }
}

modelSelect.addEventListener('change', () => {
  const v = modelSelect.value;
  if (v === 'builtin') void loadBuiltin();
  else if (v.startsWith('repo:')) void loadRepo(v.slice(5));
  else if (v.startsWith('shared:')) void loadShared(v.slice(7));
});
fileInput.addEventListener('change', async () => {
  const f = fileInput.files?.[0];
  if (!f) return;
  const bytes = new Uint8Array(await f.arrayBuffer());
  let opt = modelSelect.querySelector('option[value="file"]') as HTMLOptionElement | null;
  if (!opt) { opt = document.createElement('option'); opt.value = 'file'; modelSelect.append(opt); }
  opt.textContent = `your file: ${f.name}`;
  modelSelect.value = 'file';
  await install(bytes, f.name);
});

// ------------------------------------------------------------------------------------------
// Controls

const gui = new GUI({ container: document.getElementById('controls')!, title: 'Tail' });
let clipCtl: Controller = gui.add(params, 'clip', ['walk']).name('clip').onChange((v: string) => setClip(v));
gui.add(params, 'physics').name('tail physics').onChange((v: boolean) => setPhysics(v));
gui.add(params, 'bones').name('bones');
gui.add(params, 'colliders').name('colliders').onChange(() => { colliderWires.update(params.colliders ? set?.copies.chain.animator ?? null : null); render(); });
gui.add(params, 'paused').name('pause');
gui.add(params, 'speed', 0.05, 1.5, 0.05).name('speed');
const spring = gui.addFolder('Tail spring (live)');
spring.add(params, 'frequency', 0.1, 3, 0.05).name('frequency (Hz)').onChange(applyTail);
spring.add(params, 'damping', 0.05, 2, 0.01).name('damping ratio').onChange(applyTail);
spring.add(params, 'gravity', 0, 9.81, 0.1).name('gravity (m/s²)').onChange(applyTail);
spring.add(params, 'carry', 0, 90, 1).name('carry (°)').onChange(applyTail);
spring.add(params, 'restCurve', 0, 1, 0.05).name('restCurve β').onChange(applyTail);
spring.add(params, 'floor').name('floor contact').onChange(applyTail);
spring.add(params, 'floorHeight', -0.2, 0.6, 0.01).name('floor height (m)').onChange(applyTail);
spring.add({
  defaults() {
    setSpring({});
    applyTail();
  },
}, 'defaults').name('library defaults');

// ------------------------------------------------------------------------------------------
// Loop and test hook

let last = performance.now();
window.addEventListener('resize', () => frameCamera());

function loop(): void {
  const now = performance.now();
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  if (set && !params.paused && !loading) step(dt * params.speed);
  updateReadouts();
  controls.update();
  render();
}

const hook = {
  page: 'tail' as const,
  ready: false,
  setPaused(on: boolean) { params.paused = on; gui.controllersRecursive().forEach((c) => c.updateDisplay()); },
  seek(t: number) { seek(t); render(); },
  setPhysics(on: boolean) { setPhysics(on); gui.controllersRecursive().forEach((c) => c.updateDisplay()); render(); },
  setClip(name: string) { setClip(name); clipCtl.updateDisplay(); render(); },
  stats() {
    const out: Partial<Record<CopyKind, { p1: number; p99: number; max: number; torn: number; samples: number; edges: number }>> = {};
    if (set) {
      for (const k of COPY_KINDS) {
        const s = set.copies[k].meter?.stats();
        if (s) out[k] = { p1: s.p1, p99: s.p99, max: s.max, torn: s.torn, samples: s.samples, edges: s.edges };
      }
    }
    return out;
  },
  grab(view: string) { render(); return grabPixels(renderer, viewEl(view)); },
  load(name: string) { return name === 'builtin' ? loadBuiltin() : name.startsWith('shared:') ? loadShared(name.slice(7)) : loadRepo(name); },
  get clip() { return params.clip; },
  get label() { return set?.label ?? ''; },
};
(window as unknown as { __bitrigDemo: typeof hook }).__bitrigDemo = hook;

async function main(): Promise<void> {
  renderer.setAnimationLoop(loop);
  modelSelect.textContent = '';
  for (const m of REPO_MODELS) modelSelect.append(new Option(m.label, `repo:${m.file}`));
  modelSelect.append(new Option('Built-in critter, tail skinned to the shin (made in code)', 'builtin'));
  modelSelect.value = `repo:${FIRST_MODEL}`;
  listSharedAssets().then((files) => {
    for (const f of files) {
      if (REPO_MODELS.some((m) => m.file === f.name)) continue; // already offered
      const o = document.createElement('option');
      o.value = `shared:${f.name}`;
      o.textContent = `${f.name} (shared assets)`;
      modelSelect.append(o);
    }
  }).catch(() => { /* no shared assets: the built-in only */ });
  await loadRepo(FIRST_MODEL);
  hook.ready = set !== null;
}
main().catch(reportError);
