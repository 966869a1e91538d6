/**
 * Scene page: the base pose (the clip alone) on the left, bitrig's corrected pose on the
 * right, one camera for both (drag either view), corrections on/off, pause and scrub, and
 * the scenarios: uneven terrain, moving platforms, a reach with orientation, a key
 * into a lock, pouring, and an out-of-reach target flagged "needs repositioning".
 */
import GUI from 'lil-gui';
import { Box3, Color, Group, type Mesh, Quaternion, Scene, Vector3 } from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { characterToThree } from '../../adapters/three/index';
import { createBuiltinCharacter } from '../../core/character/index';
import type { HandTargetInput, SceneDiagnostics, SceneInputs } from '../../core/sceneIK';
import { addLights, createRenderer, fitCanvas, grabPixels, makeCamera, renderInto, reportError, setStatus, viewRect } from './common';
import { createOverlays } from './overlays';
import {
  LAYER_BASE, LAYER_CORRECTED, LAYER_PROPS, SCENARIOS, type HandPose, type Scenario, type ScenarioContext, type ScenarioFrame,
  type ScenarioInstance,
} from './scenarios';
import { analyzeGait, makeSceneCopy, stepCorrected } from './sceneRig';

const FIXED = 1 / 60;
const WARM_SECONDS = 2;

const canvas = document.getElementById('gl') as HTMLCanvasElement;
const viewsEl = document.getElementById('views') as HTMLElement;
const viewEl = (name: string): HTMLElement => document.querySelector(`.view[data-view="${name}"]`) as HTMLElement;
const readoutEl = (name: string): HTMLElement => document.querySelector(`.readout[data-readout="${name}"]`) as HTMLElement;
const flagEl = document.getElementById('flag') as HTMLElement;
const playBtn = document.getElementById('play') as HTMLButtonElement;
const scrub = document.getElementById('scrub') as HTMLInputElement;
const timeEl = document.getElementById('time') as HTMLElement;

const params = {
  scenario: SCENARIOS[0]!.id,
  corrections: true,
  tail: true,
  paused: false,
  speed: 1,
  contacts: true,
  com: true,
  trail: true,
};

// ------------------------------------------------------------------------------------------
// Scene, copies, overlays

const renderer = createRenderer(canvas);
const scene = new Scene();
scene.background = new Color(0x1b1f27);
addLights(scene, [LAYER_PROPS, LAYER_BASE, LAYER_CORRECTED]);
const camera = makeCamera();
const controls = new OrbitControls(camera, viewsEl);
controls.enableDamping = true;
controls.dampingFactor = 0.12;

const data = createBuiltinCharacter({ variant: 'chain' });
const base = makeSceneCopy(data, false);
const corrected = makeSceneCopy(data, true);
base.setLayer(LAYER_BASE);
corrected.setLayer(LAYER_CORRECTED);
scene.add(base.c.root, corrected.c.root);
const ik = corrected.ik!;
const world = corrected.animator!.world;

const overlays = createOverlays();
scene.add(overlays.group);
const props = new Group();
scene.add(props);

// Bind pose facts the scenarios need: the right wrist and forearm at the origin, facing +Z.
const scratch = characterToThree(data);
scratch.root.updateMatrixWorld(true);
const rightHand = scratch.bones.find((b) => b.name === 'RightHand')!;
const rightFore = scratch.bones.find((b) => b.name === 'RightForeArm')!;
const handBind = { pos: rightHand.getWorldPosition(new Vector3()), rot: rightHand.getWorldQuaternion(new Quaternion()) };
const armDir = handBind.pos.clone().sub(rightFore.getWorldPosition(new Vector3())).normalize();
/** The character's size at bind (metres), for framing. */
const charSize = new Box3().setFromObject(scratch.root).getSize(new Vector3());
const ankleBindY = scratch.bones.find((b) => b.name === 'LeftFoot')!.getWorldPosition(new Vector3()).y;

const ctx: ScenarioContext = { props, world, gait: analyzeGait(data, 'walk'), handBind, armDir };
const legSide = ik.legs.map((l) => (l.side === 'left' ? 0 : 1));
const rightArm = ik.arms.findIndex((a) => a.side === 'right');

// ------------------------------------------------------------------------------------------
// State

let scenario: Scenario = SCENARIOS[0]!;
let inst: ScenarioInstance | null = null;
let duration = 1;
let time = 0;
let unlockNext = false;
let diag: SceneDiagnostics | null = null;
let lastReadout = 0;
const followLast = new Vector3();

const groundPt = new Float64Array(3);
const frame: ScenarioFrame = { rootPos: new Vector3(), rootYaw: 0, feet: [1, 1], hand: null, ground: () => false };
const feetIn = new Float64Array(ik.legs.length);
const handsIn: (HandTargetInput | null)[] = ik.arms.map(() => null);
const inputs: SceneInputs = { feet: feetIn, hands: handsIn, ground: null, grounded: true };
const basePose: HandPose = { pos: new Vector3(), rot: new Quaternion() };
const corrPose: HandPose = { pos: new Vector3(), rot: new Quaternion() };
const _p = new Vector3();
const baseHand = base.bone('RightHand'), corrHand = corrected.bone('RightHand');
const baseHips = base.bone('Hips'), corrHips = corrected.bone('Hips');

/** Pose both copies at scenario time t, advancing the clips and the runtime by dt. */
function frameAt(t: number, dt: number): void {
  if (!inst) return;
  inst.frame(t, frame);
  for (const c of [base, corrected]) {
    c.c.root.position.copy(frame.rootPos);
    c.c.root.rotation.set(0, frame.rootYaw, 0);
    c.c.root.updateMatrixWorld(true);
  }
  base.mixer.update(dt);
  const on = params.corrections;
  for (let i = 0; i < feetIn.length; i++) feetIn[i] = on && !unlockNext ? frame.feet[legSide[i] as 0 | 1] : 0;
  for (let i = 0; i < handsIn.length; i++) handsIn[i] = on && i === rightArm ? frame.hand : null;
  inputs.ground = frame.ground;
  inputs.grounded = on;
  unlockNext = false;
  diag = stepCorrected(corrected, dt, params.tail, inputs, diag ?? undefined);
  scene.updateMatrixWorld(true);
  baseHand.matrixWorld.decompose(basePose.pos, basePose.rot, _p);
  corrHand.matrixWorld.decompose(corrPose.pos, corrPose.rot, _p);
  inst.post(t, basePose, corrPose);
  overlays.pushTrail('base', baseHips.getWorldPosition(_p));
  overlays.pushTrail('corrected', corrHips.getWorldPosition(_p));
  overlays.update(diag);
}

/** Show time t deterministically: restart up to two seconds earlier and step at 60 Hz. */
function seek(t: number): void {
  t = Math.min(Math.max(0, t), duration);
  const n = Math.max(1, Math.round(Math.min(t, WARM_SECONDS) / FIXED));
  const t0 = t - n * FIXED;
  base.mixer.setTime(Math.max(0, t0));
  corrected.animator!.restoreAnimatedPose(); // the mixer is advanced here, not by the animator
  corrected.mixer.setTime(Math.max(0, t0));
  corrected.animator!.setTailPhysics(params.tail);
  corrected.animator!.reset(); // tail at rest, clock, locks, pelvis smoothing and fade restart
  unlockNext = true; // and the first frame releases the feet, so a replay is bit-for-bit
  overlays.resetTrails();
  for (let i = 1; i <= n; i++) frameAt(t0 + i * FIXED, FIXED);
  time = t;
  followCamera(true);
  updateReadouts(true);
}

function followCamera(jump: boolean): void {
  if (!scenario.follow) return;
  if (jump) {
    const o = scenario.camera;
    const offset = camera.position.clone().sub(controls.target);
    controls.target.set(frame.rootPos.x + o.target[0], frame.rootPos.y + o.target[1], frame.rootPos.z + o.target[2]);
    camera.position.copy(controls.target).add(offset);
  } else {
    _p.copy(frame.rootPos).sub(followLast);
    controls.target.add(_p);
    camera.position.add(_p);
  }
  followLast.copy(frame.rootPos);
}

function setScenario(id: string): void {
  const next = SCENARIOS.find((s) => s.id === id) ?? SCENARIOS[0]!;
  inst?.dispose();
  for (const o of [...props.children]) {
    o.removeFromParent();
    o.traverse((x) => {
      const m = x as Mesh;
      if (m.isMesh || (x as { isLine?: boolean }).isLine) {
        m.geometry?.dispose();
        const mats = Array.isArray(m.material) ? m.material : [m.material];
        for (const mat of mats) mat?.dispose();
      }
    });
  }
  scenario = next;
  params.scenario = next.id;
  duration = next.duration(ctx);
  inst = next.setup(ctx);
  base.play(next.clip);
  corrected.play(next.clip);
  const o = next.camera;
  controls.target.set(o.target[0], o.target[1], o.target[2]);
  camera.position.set(o.target[0] + o.offset[0], o.target[1] + o.offset[1], o.target[2] + o.offset[2]);
  controls.update();
  frameCharacter();
  scrub.max = String(duration);
  seek(0);
  setStatus(`${next.label}: ${CORRECTS[next.id] ?? 'scene contacts'} · drag to orbit, wheel to zoom`, 'info');
}

// ------------------------------------------------------------------------------------------
// Readouts

/** A length in centimetres (one decimal below 10 cm). */
function cm(m: number): string {
  const c = m * 100;
  return `${Math.abs(c) < 10 ? c.toFixed(1) : c.toFixed(0)} cm`;
}

/** Height of an ankle over the ground in words ("3.2 cm above", "1.0 cm below", "on it"). */
function heightWords(m: number): string {
  if (Math.abs(m) < 0.005) return 'on the ground';
  return `${cm(Math.abs(m))} ${m > 0 ? 'above' : 'below'} it`;
}

/** What each scenario corrects, in plain words (the status line). */
const CORRECTS: Record<string, string> = {
  terrain: 'feet planted on the bumps, hips lowered to keep both feet down',
  'platform-move': 'feet stay planted on the sliding platform instead of skating',
  'platform-rotate': 'feet stay planted on the turning, tilting disc',
  reach: 'the right hand reaches the target, wrist turned to match it',
  key: 'the right hand brings the key into the lock, turned to fit',
  pour: 'the right hand holds the spout over the cup while tilting',
  'out-of-reach': 'the target is too far: the arm stretches as far as it can and the character is flagged to move closer',
};

/** Pull the camera back along its direction until the character fits the narrower view with a margin. */
function frameCharacter(): void {
  const r = viewRect(renderer, viewEl('corrected'));
  const aspect = r.visible ? r.aspect : 0.8;
  const vfov = (camera.fov * Math.PI) / 180;
  const hfov = 2 * Math.atan(Math.tan(vfov / 2) * aspect);
  const radius = 0.5 * Math.hypot(charSize.y, Math.max(charSize.x, charSize.z)) * 1.35;
  const need = radius / Math.sin(Math.min(vfov, hfov) / 2);
  const offset = camera.position.clone().sub(controls.target);
  if (offset.length() < need) camera.position.copy(controls.target).addScaledVector(offset.normalize(), need);
  controls.update();
}

function updateReadouts(force = false): void {
  const now = performance.now();
  if (!force && now - lastReadout < 200) return;
  lastReadout = now;
  // Base: where its ankles are against the ground (the clip knows nothing of it).
  const bl: string[] = [];
  for (const side of ['Left', 'Right'] as const) {
    const a = base.bone(`${side}Foot`).getWorldPosition(_p);
    const hit = { height: 0, normal: [0, 1, 0], support: -1 };
    groundPt[0] = a.x; groundPt[1] = a.y; groundPt[2] = a.z;
    frame.ground(groundPt, hit);
    bl.push(`${side.toLowerCase()} ankle ${heightWords(a.y - ankleBindY - hit.height)}`);
  }
  readoutEl('base').textContent = `The clip alone ignores the ground: ${bl.join(', ')}`;
  const d = diag;
  if (!d) return;
  const lines: string[] = [];
  if (!params.corrections) lines.push('Corrections off: the clip as authored, the ground ignored.');
  else {
    lines.push(`Feet: ${d.contacts.map((c) => `${c.side} ${c.locked ? `planted on the ground (${cm(Math.abs(c.gapWs))} off)` : c.stance > 0.02 ? 'coming down' : 'in the air'}`).join(', ')}`);
    const dy = d.pelvis.offsetWs[1];
    lines.push(Math.abs(dy) < 0.001 ? 'Hips: where the clip put them' : `Hips ${dy < 0 ? 'lowered' : 'raised'} ${cm(Math.abs(dy))} so the feet reach the ground`);
    const h = d.hands[rightArm];
    if (h && h.weight > 0) lines.push(`Right hand: ${h.reached ? 'on its target' : `${cm(h.missWs)} short of its target`}`);
    lines.push(`Balance: body centre ${cm(Math.hypot(d.comWs[0] - d.supportWs[0], d.comWs[2] - d.supportWs[2]))} from over the feet`);
  }
  const el = readoutEl('corrected');
  el.textContent = lines.join('\n');
  const flagged = params.corrections && d.repositionNeeded;
  flagEl.hidden = !flagged;
  el.dataset.reposition = flagged ? 'yes' : 'no';
  timeEl.textContent = `${time.toFixed(2)} s`;
  if (document.activeElement !== scrub) scrub.value = String(time);
}

// ------------------------------------------------------------------------------------------
// Rendering

function render(): void {
  fitCanvas(renderer);
  overlays.setVisible(params);
  camera.layers.set(LAYER_PROPS);
  camera.layers.enable(LAYER_BASE);
  renderInto(renderer, viewEl('base'), scene, camera);
  camera.layers.disable(LAYER_BASE);
  camera.layers.enable(LAYER_CORRECTED);
  renderInto(renderer, viewEl('corrected'), scene, camera);
}

// ------------------------------------------------------------------------------------------
// Controls

const gui = new GUI({ container: document.getElementById('controls')!, title: 'Scene' });
const labels = Object.fromEntries(SCENARIOS.map((s) => [s.label, s.id]));
gui.add(params, 'scenario', labels).name('scenario').onChange((id: string) => setScenario(id));
gui.add(params, 'corrections').name('corrections').onChange(() => { if (params.paused) seek(time); });
gui.add(params, 'tail').name('tail physics').onChange((v: boolean) => { corrected.animator!.setTailPhysics(v); if (params.paused) seek(time); });
gui.add(params, 'paused').name('pause').onChange(() => syncPlay());
gui.add(params, 'speed', 0.05, 1.5, 0.05).name('speed');
const ov = gui.addFolder('Overlays');
ov.add(params, 'contacts').name('contacts');
ov.add(params, 'com').name('centre of mass');
ov.add(params, 'trail').name('pelvis trail');
gui.add({ reset: () => setScenario(params.scenario) }, 'reset').name('restart scenario');

function syncPlay(): void {
  playBtn.textContent = params.paused ? '▶' : '❚❚';
  playBtn.setAttribute('aria-label', params.paused ? 'play' : 'pause');
  gui.controllersRecursive().forEach((c) => c.updateDisplay());
}
playBtn.addEventListener('click', () => { params.paused = !params.paused; syncPlay(); });
scrub.addEventListener('input', () => {
  params.paused = true;
  syncPlay();
  seek(Number(scrub.value));
});

// ------------------------------------------------------------------------------------------
// Loop and test hook

let last = performance.now();
function loop(): void {
  const now = performance.now();
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  if (inst && !params.paused && dt > 0) {
    const step = dt * params.speed;
    time += step;
    if (time >= duration) time -= duration; // loops close: platforms, laps and clips are periodic in it
    frameAt(time, step);
    followCamera(false);
  }
  updateReadouts();
  controls.update();
  render();
}

const hook = {
  page: 'scene' as const,
  ready: false,
  scenarios: SCENARIOS.map((s) => s.id),
  setScenario(id: string) { setScenario(id); gui.controllersRecursive().forEach((c) => c.updateDisplay()); render(); },
  setCorrections(on: boolean) { params.corrections = on; if (params.paused) seek(time); gui.controllersRecursive().forEach((c) => c.updateDisplay()); render(); },
  setPaused(on: boolean) { params.paused = on; syncPlay(); },
  seek(t: number) { seek(t); render(); },
  state() {
    return {
      scenario: params.scenario, time, duration, corrections: params.corrections, paused: params.paused,
      repositionNeeded: !!diag?.repositionNeeded, flagShown: !flagEl.hidden,
      hands: diag?.hands.map((h) => ({ side: h.side, weight: h.weight, reached: h.reached, missWs: h.missWs, reposition: h.reposition })) ?? [],
      contacts: diag?.contacts.map((c) => ({ side: c.side, stance: c.stance, locked: c.locked, gapWs: c.gapWs, pointWs: [...c.pointWs], soleWs: [...c.soleWs], reached: c.reached, missWs: c.missWs })) ?? [],
      pelvis: diag ? { offsetWs: [...diag.pelvis.offsetWs], band: [...diag.pelvis.band], legs: diag.pelvis.legs, infeasibleLegs: diag.pelvis.infeasibleLegs } : null,
      problems: ik.problems,
    };
  },
  grab(view: string) { render(); return grabPixels(renderer, viewEl(view)); },
};
(window as unknown as { __bitrigDemo: typeof hook }).__bitrigDemo = hook;

try {
  setScenario(new URLSearchParams(location.search).get('scenario') ?? params.scenario);
  syncPlay();
  renderer.setAnimationLoop(loop);
  hook.ready = true;
} catch (e) {
  reportError(e);
}
