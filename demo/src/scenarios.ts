/**
 * Scene page scenarios: each is a pure function of time t — where the game puts
 * the character, the stance weights it supplies, the hand target, the ground — plus props.
 * Being pure in t is what lets the page pause, scrub and re-simulate deterministically.
 */
import {
  BoxGeometry, BufferAttribute, Color, CylinderGeometry, DoubleSide, Group, Matrix4, Mesh, MeshBasicMaterial,
  MeshStandardMaterial, type Object3D, PlaneGeometry, Quaternion, SphereGeometry, TorusGeometry, Vector3, ConeGeometry,
  AxesHelper, RingGeometry,
} from 'three';
import type { BitrigWorld } from '../../core/world';
import { addSupport, removeSupport, setSupportFrame, type GroundHit, type GroundQuery, type HandTargetInput } from '../../core/sceneIK';
import type { GaitTiming } from './sceneRig';

/** Layers: props 0 (both views), base copy 1 (left), corrected copy 2 (right). */
export const LAYER_PROPS = 0;
/** Layer of the base copy and its overlays. */
export const LAYER_BASE = 1;
/** Layer of the corrected copy and its overlays. */
export const LAYER_CORRECTED = 2;

/** What a scenario gets at setup. */
export interface ScenarioContext {
  /** Group the props go in (removed on switch). */
  props: Group;
  /** The corrected copy's world (supports live there). */
  world: BitrigWorld;
  /** Walk timing read off the clip. */
  gait: GaitTiming;
  /** Right wrist's world pose in the bind pose with the root at the origin, facing +Z. */
  handBind: { pos: Vector3; rot: Quaternion };
  /** Right forearm → wrist direction in the bind pose (world). */
  armDir: Vector3;
}

/** What a scenario writes per frame. */
export interface ScenarioFrame {
  /** Character root position (world). */
  rootPos: Vector3;
  /** Character heading about +Y (radians; 0 faces +Z). */
  rootYaw: number;
  /** Stance weight per foot: [left, right]. */
  feet: [number, number];
  /** Right hand target, or null. */
  hand: HandTargetInput | null;
  /** The ground under the character. */
  ground: GroundQuery;
}

/** A hand's world pose, for held objects. */
export interface HandPose {
  /** Wrist position (world). */
  pos: Vector3;
  /** Wrist rotation (world). */
  rot: Quaternion;
}

/** A running scenario. */
export interface ScenarioInstance {
  /** Fill the frame at time t (also moves platforms and targets; pure in t). */
  frame(t: number, out: ScenarioFrame): void;
  /** After both copies are posed: place held objects on each copy's wrist, streams, markers. */
  post(t: number, baseHand: HandPose, correctedHand: HandPose): void;
  /** A line of scenario-specific status for the readout. */
  status(): string;
  /** Remove supports (props go with the group). */
  dispose(): void;
}

/** A scenario definition. */
export interface Scenario {
  /** Stable id (tests, URL). */
  id: string;
  /** Label in the picker. */
  label: string;
  /** Clip the character plays. */
  clip: 'walk' | 'idle';
  /** Loop length (s), a whole number of clip cycles. */
  duration(ctx: ScenarioContext): number;
  /** Camera target and offset from it (world). */
  camera: { target: [number, number, number]; offset: [number, number, number] };
  /** Camera follows the character. */
  follow: boolean;
  /** Build props and return the instance. */
  setup(ctx: ScenarioContext): ScenarioInstance;
}

// ------------------------------------------------------------------------------------------
// Helpers

const smooth = (a: number, b: number, x: number): number => {
  const u = Math.min(1, Math.max(0, (x - a) / (b - a)));
  return u * u * (3 - 2 * u);
};

function setLayers(o: Object3D, layer: number): Object3D {
  o.traverse((x) => x.layers.set(layer));
  return o;
}

function flatGround(height = 0): GroundQuery {
  return (_p, out) => {
    out.height = height; out.support = -1;
    out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0;
    return true;
  };
}

function floorMesh(size = 10): Mesh {
  const m = new Mesh(new PlaneGeometry(size, size), new MeshStandardMaterial({ color: 0x2a303b, roughness: 1 }));
  m.rotation.x = -Math.PI / 2;
  return m;
}

/** Grip: the object's pose in the wrist frame, from the bind wrist and the object's bind pose. */
function gripFrom(hand: { pos: Vector3; rot: Quaternion }, objPos: Vector3, objRot: Quaternion): { position: number[]; rotation: number[] } {
  const inv = hand.rot.clone().invert();
  const p = objPos.clone().sub(hand.pos).applyQuaternion(inv);
  const q = inv.multiply(objRot);
  return { position: p.toArray(), rotation: [q.x, q.y, q.z, q.w] };
}

/** Place `obj` at wrist × grip. */
function placeOnHand(obj: Object3D, hand: HandPose, grip: { position: number[]; rotation: number[] }): void {
  obj.position.fromArray(grip.position).applyQuaternion(hand.rot).add(hand.pos);
  obj.quaternion.set(grip.rotation[0]!, grip.rotation[1]!, grip.rotation[2]!, grip.rotation[3]!).premultiply(hand.rot);
}

function gizmo(color: number, size = 0.05): Group {
  const g = new Group();
  g.add(new Mesh(new BoxGeometry(size * 1.6, size * 0.25, size), new MeshStandardMaterial({ color, transparent: true, opacity: 0.55 })));
  const ax = new AxesHelper(size * 1.6);
  (ax.material as MeshBasicMaterial).depthTest = false;
  ax.renderOrder = 5;
  g.add(ax);
  return g;
}

function makeKey(color: number, opacity = 1): Group {
  const mat = new MeshStandardMaterial({ color, metalness: 0.6, roughness: 0.35, transparent: opacity < 1, opacity });
  const g = new Group();
  const shaft = new Mesh(new CylinderGeometry(0.005, 0.005, 0.06, 10), mat);
  shaft.rotation.x = Math.PI / 2;
  shaft.position.z = 0.03;
  const bit = new Mesh(new BoxGeometry(0.003, 0.012, 0.02), mat);
  bit.position.set(0, -0.007, 0.045);
  const bow = new Mesh(new TorusGeometry(0.016, 0.005, 8, 20), mat);
  bow.position.z = -0.012;
  g.add(shaft, bit, bow);
  return g;
}

function makePitcher(color: number, opacity = 1): Group {
  const mat = new MeshStandardMaterial({ color, roughness: 0.5, transparent: opacity < 1, opacity, side: DoubleSide });
  const g = new Group();
  const body = new Mesh(new CylinderGeometry(0.038, 0.042, 0.11, 20, 1, true), mat);
  const bottom = new Mesh(new CylinderGeometry(0.042, 0.042, 0.004, 20), mat);
  bottom.position.y = -0.055;
  const spout = new Mesh(new ConeGeometry(0.012, 0.03, 10, 1, true), mat);
  spout.rotation.x = Math.PI / 2 + 0.5;
  spout.position.set(0, 0.05, 0.045);
  const handle = new Mesh(new TorusGeometry(0.025, 0.006, 8, 16, Math.PI), mat);
  handle.rotation.z = -Math.PI / 2;
  handle.rotation.y = Math.PI / 2;
  handle.position.set(0, 0.0, -0.042);
  g.add(body, bottom, spout, handle);
  return g;
}

/** Spout tip in the pitcher's frame. */
const SPOUT_LS = new Vector3(0, 0.058, 0.06);

function makeStream(): Mesh {
  const geo = new CylinderGeometry(0.005, 0.007, 1, 8, 1, true);
  geo.translate(0, -0.5, 0);
  const m = new Mesh(geo, new MeshBasicMaterial({ color: 0x4aa8ff, transparent: true, opacity: 0.85 }));
  m.visible = false;
  return m;
}

const _v = new Vector3();
const _q = new Quaternion();
const _q2 = new Quaternion();
const _m = new Matrix4();
const Y = new Vector3(0, 1, 0);
const X = new Vector3(1, 0, 0);
const Z = new Vector3(0, 0, 1);

// ------------------------------------------------------------------------------------------
// 1. Uneven terrain

/** Terrain height (m) and its gradient. */
export function terrainHeight(x: number, z: number): number {
  return 0.09 * Math.sin(1.3 * x + 0.4) * Math.cos(1.1 * z) + 0.05 * Math.sin(2.1 * x + 1.6 * z) + 0.03 * Math.cos(2.9 * z - 0.8 * x);
}
function terrainGrad(x: number, z: number, out: number[] | Float64Array): void {
  const dx = 0.09 * 1.3 * Math.cos(1.3 * x + 0.4) * Math.cos(1.1 * z) + 0.05 * 2.1 * Math.cos(2.1 * x + 1.6 * z) + 0.03 * 0.8 * Math.sin(2.9 * z - 0.8 * x);
  const dz = -0.09 * 1.1 * Math.sin(1.3 * x + 0.4) * Math.sin(1.1 * z) + 0.05 * 1.6 * Math.cos(2.1 * x + 1.6 * z) - 0.03 * 2.9 * Math.sin(2.9 * z - 0.8 * x);
  const l = Math.hypot(dx, 1, dz);
  out[0] = -dx / l; out[1] = 1 / l; out[2] = -dz / l;
}
const terrainQuery: GroundQuery = (p, out: GroundHit) => {
    const x = p[0]!, z = p[2]!;
  out.height = terrainHeight(x, z);
  out.support = -1;
  terrainGrad(x, z, out.normal);
  return true;
};

function walkLap(ctx: ScenarioContext): { R: number; D: number; v: number } {
  const v = ctx.gait.speed > 0.05 ? ctx.gait.speed : 0.6;
  const cycles = Math.max(4, Math.round((2 * Math.PI * 2.0) / (v * ctx.gait.duration)));
  const D = cycles * ctx.gait.duration;
  return { R: (v * D) / (2 * Math.PI), D, v };
}

const terrain: Scenario = {
  id: 'terrain',
  label: 'Walk over uneven terrain',
  clip: 'walk',
  duration: (ctx) => walkLap(ctx).D,
  camera: { target: [0, 0.5, 0], offset: [2.6, 1.1, 2.4] },
  follow: true,
  setup(ctx) {
    const { R, D } = walkLap(ctx);
    const geo = new PlaneGeometry(12, 12, 120, 120);
    geo.rotateX(-Math.PI / 2);
    const pos = geo.getAttribute('position') as BufferAttribute;
    const colors = new Float32Array(pos.count * 3);
    const lo = new Color(0x26352c), hi = new Color(0x5d6b4a), c = new Color();
    for (let i = 0; i < pos.count; i++) {
      const h = terrainHeight(pos.getX(i), pos.getZ(i));
      pos.setY(i, h);
      c.copy(lo).lerp(hi, Math.min(1, Math.max(0, (h + 0.15) / 0.3)));
      colors.set([c.r, c.g, c.b], i * 3);
    }
    geo.setAttribute('color', new BufferAttribute(colors, 3));
    geo.computeVertexNormals();
    const mesh = new Mesh(geo, new MeshStandardMaterial({ vertexColors: true, roughness: 0.95 }));
    const wire = new Mesh(geo, new MeshBasicMaterial({ color: 0x9fb38a, wireframe: true, transparent: true, opacity: 0.05 }));
    ctx.props.add(mesh, wire);
    let lastStatus = '';
    return {
      frame(t, out) {
        const th = (2 * Math.PI * (t % D)) / D;
        const x = R * Math.sin(th), z = R * Math.cos(th);
        out.rootPos.set(x, terrainHeight(x, z), z);
        out.rootYaw = th + Math.PI / 2;
        const tc = t % ctx.gait.duration;
        out.feet[0] = ctx.gait.stance(tc, 0);
        out.feet[1] = ctx.gait.stance(tc, 1);
        out.hand = null;
        out.ground = terrainQuery;
        lastStatus = `walking a ${R.toFixed(2)} m circle at ${ctx.gait.speed.toFixed(2)} m/s; stance L ${out.feet[0].toFixed(2)} R ${out.feet[1].toFixed(2)}`;
      },
      post() {},
      status: () => lastStatus,
      dispose() {},
    };
  },
};

// ------------------------------------------------------------------------------------------
// 2. Platform that translates

const platformTranslate: Scenario = {
  id: 'platform-move',
  label: 'Moving platform (translates)',
  clip: 'idle',
  duration: () => 6,
  camera: { target: [0, 0.55, 0], offset: [1.3, 1.2, 3.4] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const top = 0.22;
    const plat = new Mesh(new BoxGeometry(0.9, 0.12, 0.7), new MeshStandardMaterial({ color: 0x6a7486, roughness: 0.7 }));
    const stripes = new Mesh(new PlaneGeometry(0.9, 0.7, 9, 7), new MeshBasicMaterial({ color: 0x9aa6ba, wireframe: true, transparent: true, opacity: 0.35 }));
    stripes.rotation.x = -Math.PI / 2;
    stripes.position.y = 0.061;
    plat.add(stripes);
    ctx.props.add(plat);
    const support = addSupport(ctx.world);
    const px = (t: number): number => 0.45 * Math.sin((2 * Math.PI * t) / 6);
    const query: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!;
      const cx = plat.position.x;
      const on = Math.abs(x - cx) <= 0.45 && Math.abs(z) <= 0.35;
      out.height = on ? top : 0; out.support = on ? support : -1;
      out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0;
      return true;
    };
    return {
      frame(t, out) {
        plat.position.set(px(t), top - 0.06, 0);
        plat.updateMatrixWorld(true);
        _m.makeTranslation(px(t), top, 0);
        setSupportFrame(ctx.world, support, _m.elements);
        out.rootPos.set(px(t), top, 0);
        out.rootYaw = 0;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = null;
        out.ground = query;
      },
      post() {},
      status: () => `platform x ${plat.position.x.toFixed(2)} m`,
      dispose() { removeSupport(ctx.world, support); },
    };
  },
};

// ------------------------------------------------------------------------------------------
// 3. Platform that rotates (turns and tilts)

const platformRotate: Scenario = {
  id: 'platform-rotate',
  label: 'Moving platform (rotates and tilts)',
  clip: 'idle',
  duration: () => 12,
  camera: { target: [0, 0.5, 0], offset: [2.2, 1.4, 2.4] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const top = 0.2;
    const disc = new Mesh(new CylinderGeometry(1.0, 1.0, 0.08, 48), new MeshStandardMaterial({ color: 0x6a7486, roughness: 0.7 }));
    const marks = new Mesh(new RingGeometry(0.2, 0.98, 16, 3), new MeshBasicMaterial({ color: 0xa8b4c8, wireframe: true, transparent: true, opacity: 0.18 }));
    marks.rotation.x = -Math.PI / 2;
    marks.position.y = 0.041;
    disc.add(marks);
    const pivot = new Group(); // at the disc's top centre
    pivot.position.y = top;
    disc.position.y = -0.04;
    pivot.add(disc);
    ctx.props.add(pivot);
    const support = addSupport(ctx.world);
    const offset = new Vector3(0, 0, 0.45); // where the character stands on the disc
    const yawOf = (t: number): number => (2 * Math.PI * t) / 12;
    const tiltOf = (t: number): number => (7 * Math.PI / 180) * Math.sin((2 * Math.PI * t) / 6 + 0.6);
    const n = new Vector3();
    let tiltNow = 0;
    const query: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!;
      const dx = x, dz = z;
      if (dx * dx + dz * dz <= 1.0) {
        out.height = top - (n.x * dx + n.z * dz) / n.y; out.support = support;
        out.normal[0] = n.x; out.normal[1] = n.y; out.normal[2] = n.z;
      } else {
        out.height = 0; out.support = -1; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0;
      }
      return true;
    };
    return {
      frame(t, out) {
        const yaw = yawOf(t);
        tiltNow = tiltOf(t);
        _q.setFromAxisAngle(X, tiltNow);
        _q2.setFromAxisAngle(Y, yaw);
        pivot.quaternion.copy(_q).multiply(_q2); // tilt about world X, turn about the disc's axis
        pivot.updateMatrixWorld(true);
        setSupportFrame(ctx.world, support, pivot.matrixWorld.elements);
        n.copy(Y).applyQuaternion(pivot.quaternion);
        // The game carries the character with the disc, upright, heading turning with it.
        _v.copy(offset).applyQuaternion(pivot.quaternion).add(pivot.position);
        out.rootPos.copy(_v);
        out.rootYaw = yaw;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = null;
        out.ground = query;
      },
      post() {},
      status: () => `disc turning 30°/s, tilting ±7° (now ${((tiltNow * 180) / Math.PI).toFixed(1)}°)`,
      dispose() { removeSupport(ctx.world, support); },
    };
  },
};

// ------------------------------------------------------------------------------------------
// 4. Reach to a target with orientation

const reach: Scenario = {
  id: 'reach',
  label: 'Reach a target (position + orientation)',
  clip: 'idle',
  duration: () => 9,
  camera: { target: [-0.1, 0.75, 0.1], offset: [-1.2, 0.45, 1.5] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const target = setLayers(gizmo(0x50e0a0, 0.05), LAYER_PROPS) as Group;
    const onBase = setLayers(gizmo(0xe0e0e0, 0.05), LAYER_BASE) as Group;
    const onCorr = setLayers(gizmo(0xe0e0e0, 0.05), LAYER_CORRECTED) as Group;
    ctx.props.add(target, onBase, onCorr);
    // Grip: identity rotation at the wrist, so the gizmo shows the wrist's own frame.
    const grip = { position: [0, 0, 0], rotation: [0, 0, 0, 1] };
    const handRot = ctx.handBind.rot;
    const tgt: HandTargetInput = { position: [0, 0, 0], rotation: [0, 0, 0, 1], weight: 0 };
    const D = 9;
    return {
      frame(t, out) {
        const w = 2 * Math.PI * t / D;
        target.position.set(-0.2 + 0.09 * Math.sin(w), 0.8 + 0.08 * Math.sin(2 * w), 0.2 + 0.05 * Math.cos(w));
        _q.setFromAxisAngle(Y, 0.7 * Math.sin(w));
        _q2.setFromAxisAngle(X, -0.6 + 0.5 * Math.cos(2 * w));
        target.quaternion.copy(_q).multiply(_q2).multiply(handRot);
        (tgt.position as number[])[0] = target.position.x; (tgt.position as number[])[1] = target.position.y; (tgt.position as number[])[2] = target.position.z;
        const r = tgt.rotation as number[];
        r[0] = target.quaternion.x; r[1] = target.quaternion.y; r[2] = target.quaternion.z; r[3] = target.quaternion.w;
        tgt.weight = smooth(0, 1, t) * smooth(D, D - 1, t);
        tgt.rotationWeight = tgt.weight;
        out.rootPos.set(0, 0, 0);
        out.rootYaw = 0;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = tgt;
        out.ground = flatGround();
      },
      post(_t, bh, ch) {
        placeOnHand(onBase, bh, grip);
        placeOnHand(onCorr, ch, grip);
      },
      status: () => `target weight ${(tgt.weight ?? 0).toFixed(2)}`,
      dispose() {},
    };
  },
};

// ------------------------------------------------------------------------------------------
// 5. Key into a lock (held object with a grip)

interface KeyKey { t: number; p: [number, number, number]; turn: number; w: number }

const keyLock: Scenario = {
  id: 'key',
  label: 'Key into a lock (held object, grip)',
  clip: 'idle',
  duration: () => 9,
  camera: { target: [-0.06, 0.68, 0.18], offset: [-2.3, 0.45, -0.5] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const hole = new Vector3(-0.16, 0.78, 0.36); // keyhole on the lock's back face
    const post = new Mesh(new BoxGeometry(0.06, hole.y - 0.06, 0.06), new MeshStandardMaterial({ color: 0x5b4a3a, roughness: 0.9 }));
    post.position.set(hole.x, (hole.y - 0.06) / 2, hole.z + 0.06);
    const lock = new Mesh(new BoxGeometry(0.11, 0.13, 0.07), new MeshStandardMaterial({ color: 0xb58a3a, metalness: 0.7, roughness: 0.3 }));
    lock.position.set(hole.x, hole.y, hole.z + 0.035);
    const slot = new Mesh(new BoxGeometry(0.006, 0.02, 0.002), new MeshBasicMaterial({ color: 0x111111 }));
    slot.position.set(hole.x, hole.y - 0.004, hole.z - 0.0005);
    ctx.props.add(post, lock, slot);
    // The key is held pointing along the forearm; the grip is its pose in the wrist frame.
    const keyBindPos = ctx.handBind.pos.clone().addScaledVector(ctx.armDir, 0.075);
    const keyBindRot = new Quaternion().setFromUnitVectors(Z, ctx.armDir);
    const grip = gripFrom(ctx.handBind, keyBindPos, keyBindRot);
    const ghost = setLayers(makeKey(0x50e0a0, 0.45), LAYER_PROPS);
    const keyBase = setLayers(makeKey(0xd8d8e0), LAYER_BASE);
    const keyCorr = setLayers(makeKey(0xd8d8e0), LAYER_CORRECTED);
    ctx.props.add(ghost, keyBase, keyCorr);
    // Tip is 0.06 along the key's +Z from its origin: keys of the interaction sequence.
    const at = (dz: number): [number, number, number] => [hole.x, hole.y, hole.z - 0.06 + dz];
    const seq: KeyKey[] = [
      { t: 0, p: [-0.2, 0.68, 0.12], turn: 0, w: 0 },
      { t: 1.0, p: [-0.2, 0.7, 0.16], turn: 0, w: 1 },
      { t: 2.6, p: at(-0.05), turn: 0, w: 1 }, // approach: in line, 5 cm out
      { t: 3.6, p: at(0.025), turn: 0, w: 1 }, // insert
      { t: 4.6, p: at(0.025), turn: Math.PI / 2, w: 1 }, // turn
      { t: 5.4, p: at(0.025), turn: Math.PI / 2, w: 1 },
      { t: 6.2, p: at(0.025), turn: 0, w: 1 }, // turn back
      { t: 7.0, p: at(-0.05), turn: 0, w: 1 }, // withdraw
      { t: 8.2, p: [-0.2, 0.7, 0.16], turn: 0, w: 1 },
      { t: 9, p: [-0.2, 0.68, 0.12], turn: 0, w: 0 },
    ];
    const tgt: HandTargetInput = { position: [0, 0, 0], rotation: [0, 0, 0, 1], weight: 0, grip, mass: 0.05 };
    let phase = '';
    const names = ['reach', 'approach', 'insert', 'turn', 'hold', 'turn back', 'withdraw', 'return', 'release'];
    return {
      frame(t, out) {
        let i = 0;
        while (i < seq.length - 2 && t >= seq[i + 1]!.t) i++;
        const a = seq[i]!, b = seq[i + 1]!;
        const u = smooth(a.t, b.t, t);
        phase = names[i] ?? '';
        const p = tgt.position as number[];
        for (let k = 0; k < 3; k++) p[k] = a.p[k]! + (b.p[k]! - a.p[k]!) * u;
        const turn = a.turn + (b.turn - a.turn) * u;
        _q.setFromAxisAngle(Z, turn);
        ghost.position.fromArray(p);
        ghost.quaternion.copy(_q);
        const r = tgt.rotation as number[];
        r[0] = _q.x; r[1] = _q.y; r[2] = _q.z; r[3] = _q.w;
        tgt.weight = a.w + (b.w - a.w) * u;
        tgt.rotationWeight = tgt.weight;
        out.rootPos.set(0, 0, 0);
        out.rootYaw = 0;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = tgt;
        out.ground = flatGround();
      },
      post(_t, bh, ch) {
        placeOnHand(keyBase, bh, grip);
        placeOnHand(keyCorr, ch, grip);
      },
      status: () => `key: ${phase}`,
      dispose() {},
    };
  },
};

// ------------------------------------------------------------------------------------------
// 6. Pouring: spout kept over the cup while tilting

const pour: Scenario = {
  id: 'pour',
  label: 'Pour into a cup (spout over the cup)',
  clip: 'idle',
  duration: () => 9,
  camera: { target: [-0.06, 0.64, 0.16], offset: [-2.3, 0.5, -0.45] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const tableTop = 0.55;
    const table = new Mesh(new BoxGeometry(0.36, 0.03, 0.28), new MeshStandardMaterial({ color: 0x7a5a3c, roughness: 0.8 }));
    table.position.set(-0.15, tableTop - 0.015, 0.34);
    const leg = new Mesh(new CylinderGeometry(0.02, 0.02, tableTop - 0.03, 8), new MeshStandardMaterial({ color: 0x5a4030 }));
    leg.position.set(-0.15, (tableTop - 0.03) / 2, 0.34);
    const cupPos = new Vector3(-0.15, tableTop, 0.28);
    const cupR = 0.035, cupH = 0.08;
    const cup = new Mesh(new CylinderGeometry(cupR, cupR * 0.85, cupH, 24, 1, true), new MeshStandardMaterial({ color: 0xe8e8f0, side: DoubleSide }));
    cup.position.set(cupPos.x, tableTop + cupH / 2, cupPos.z);
    const cupBottom = new Mesh(new CylinderGeometry(cupR * 0.85, cupR * 0.85, 0.004, 24), new MeshStandardMaterial({ color: 0xe8e8f0 }));
    cupBottom.position.set(cupPos.x, tableTop + 0.002, cupPos.z);
    ctx.props.add(table, leg, cup, cupBottom);
    const spoutTarget = new Vector3(cupPos.x, tableTop + cupH + 0.07, cupPos.z);
    // Held upright in the fist, a little beyond the wrist.
    const pitcherBindPos = ctx.handBind.pos.clone().addScaledVector(ctx.armDir, 0.045);
    const grip = gripFrom(ctx.handBind, pitcherBindPos, new Quaternion());
    const ghost = setLayers(makePitcher(0x50e0a0, 0.35), LAYER_PROPS);
    const pBase = setLayers(makePitcher(0xc0d0e0), LAYER_BASE);
    const pCorr = setLayers(makePitcher(0xc0d0e0), LAYER_CORRECTED);
    const sBase = setLayers(makeStream(), LAYER_BASE) as Mesh;
    const sCorr = setLayers(makeStream(), LAYER_CORRECTED) as Mesh;
    ctx.props.add(ghost, pBase, pCorr, sBase, sCorr);
    const tgt: HandTargetInput = { position: [0, 0, 0], rotation: [0, 0, 0, 1], weight: 0, grip, mass: 0.4 };
    const D = 9;
    let tilt = 0;
    let inCup = { base: false, corrected: false };
    const stream = (s: Mesh, pitcher: Object3D): boolean => {
      // Pours when this pitcher (not the target) leans far enough.
      s.visible = _v.copy(Y).applyQuaternion(pitcher.quaternion).y < Math.cos((38 * Math.PI) / 180);
      const tip = _v.copy(SPOUT_LS).applyQuaternion(pitcher.quaternion).add(pitcher.position);
      const dx = tip.x - cupPos.x, dz = tip.z - cupPos.z;
      const overCup = dx * dx + dz * dz <= (cupR * 0.9) ** 2;
      const overTable = Math.abs(tip.x - table.position.x) <= 0.18 && Math.abs(tip.z - table.position.z) <= 0.14;
      const endY = overCup ? tableTop + 0.01 : overTable ? tableTop : 0;
      s.position.copy(tip);
      s.scale.set(1, Math.max(0.001, tip.y - endY), 1);
      return s.visible && overCup;
    };
    return {
      frame(t, out) {
        tilt = ((80 * Math.PI) / 180) * smooth(2.2, 4.2, t) * smooth(7.2, 5.6, t);
        _q.setFromAxisAngle(X, tilt); // spout (+Z) goes down
        // Desired pitcher pose: its spout stays on the point over the cup while it tilts.
        _v.copy(SPOUT_LS).applyQuaternion(_q);
        ghost.position.copy(spoutTarget).sub(_v);
        ghost.quaternion.copy(_q);
        const p = tgt.position as number[];
        p[0] = ghost.position.x; p[1] = ghost.position.y; p[2] = ghost.position.z;
        const r = tgt.rotation as number[];
        r[0] = _q.x; r[1] = _q.y; r[2] = _q.z; r[3] = _q.w;
        tgt.weight = smooth(0, 1.5, t) * smooth(D, D - 1.2, t);
        tgt.rotationWeight = tgt.weight;
        out.rootPos.set(0, 0, 0);
        out.rootYaw = 0;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = tgt;
        out.ground = flatGround();
      },
      post(_t, bh, ch) {
        placeOnHand(pBase, bh, grip);
        placeOnHand(pCorr, ch, grip);
        pBase.updateMatrixWorld(); pCorr.updateMatrixWorld();
        inCup = { base: stream(sBase, pBase), corrected: stream(sCorr, pCorr) };
      },
      status: () => `tilt ${((tilt * 180) / Math.PI).toFixed(0)}°${tilt > (38 * Math.PI) / 180 ? ` · stream ${inCup.corrected ? 'in the cup' : 'misses the cup'} (base: ${inCup.base ? 'in' : 'misses'})` : ''}`,
      dispose() {},
    };
  },
};

// ------------------------------------------------------------------------------------------
// 7. Out of reach

const outOfReach: Scenario = {
  id: 'out-of-reach',
  label: 'Target out of reach (flagged)',
  clip: 'idle',
  duration: () => 6,
  camera: { target: [-0.15, 0.72, 0.45], offset: [-2.0, 0.45, 0.3] },
  follow: false,
  setup(ctx) {
    ctx.props.add(floorMesh());
    const orb = new Mesh(new SphereGeometry(0.035, 20, 12), new MeshStandardMaterial({ color: 0xff6a5a, emissive: 0x401010 }));
    const stand = new Mesh(new CylinderGeometry(0.015, 0.015, 0.85, 8), new MeshStandardMaterial({ color: 0x555a66 }));
    ctx.props.add(orb, stand);
    const tgt: HandTargetInput = { position: [0, 0, 0], weight: 1 };
    return {
      frame(t, out) {
        const w = (2 * Math.PI * t) / 6;
        orb.position.set(-0.3 + 0.12 * Math.sin(w), 0.85 + 0.05 * Math.sin(2 * w), 0.95);
        stand.position.set(orb.position.x, 0.85 / 2, orb.position.z);
        const p = tgt.position as number[];
        p[0] = orb.position.x; p[1] = orb.position.y; p[2] = orb.position.z;
        tgt.weight = smooth(0, 0.8, t);
        out.rootPos.set(0, 0, 0);
        out.rootYaw = 0;
        out.feet[0] = 1; out.feet[1] = 1;
        out.hand = tgt;
        out.ground = flatGround();
      },
      post() {},
      status: () => 'target 0.95 m ahead; the arm is 0.36 m long',
      dispose() {},
    };
  },
};

/** Every scenario, in picker order. */
export const SCENARIOS: readonly Scenario[] = [terrain, platformTranslate, platformRotate, reach, keyLock, pour, outOfReach];
