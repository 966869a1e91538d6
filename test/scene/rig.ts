/**
 * Tiny biped built in code for the scene-contact tests: Hips, Spine, Head, two legs
 * (UpLeg → Leg → Foot → ToeBase), two arms (Shoulder → Arm → ForeArm → Hand) and an optional
 * tail, with exact inverse bind matrices, twisted bind rotations (so local frames are not
 * world-aligned), a box skin on each foot whose sole is flat at y = 0, and a root frame (the
 * skeleton's parent) that tests translate, rotate, scale and mirror.
 */
import { glMatrix, mat3, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton, beginCharacterFrame, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { addSceneIK, setSceneInputs, type SceneIKHandle, type SceneIKOptions, type SceneInputs, type SkinInput } from '../../core/sceneIK';

// Tests measure to 1e-9: gl-matrix must work in double precision here.
glMatrix.setMatrixArrayType(Float64Array as unknown as Float32ArrayConstructor);

export interface BipedOptions {
  /** Scene IK options. */
  ik?: Partial<SceneIKOptions>;
  /** Pass the generated skin (default true). */
  withSkin?: boolean;
  /** Add a 4-bone tail under the hips with skin hanging below the feet (dominated by tail bones). */
  withTail?: boolean;
  /** Twist of each bone's bind frame (radians about its own axis), exercising local frames. */
  twist?: number;
  /** Knee bend in the bind pose (m of forward knee offset). */
  kneeBend?: number;
  /** Use an existing world. */
  world?: BitrigWorld;
  /** Hang a bone named Tail_1 under the left foot, with skin 5 cm below the sole (tail-dominated skin must not count). */
  tailUnderFoot?: boolean;
  /** Add an IK-controller bone `LeftHandIK` where the left hand is, under the spine (or the named bone); pass `ik.limbs` to use it as the arm's end. */
  handController?: boolean | string;
}

export interface BipedRig {
  world: BitrigWorld;
  binding: CharacterBinding;
  ik: SceneIKHandle;
  names: string[];
  skin: SkinInput;
  /** Root frame (world matrix of the skeleton's parent) used by the next frames. */
  root: mat4;
  /** Per-bone local overrides for the next frames: name → { t?, r?, s? } in the bone's parent frame. */
  overrides: Map<string, { t?: ArrayLike<number>; r?: ArrayLike<number>; s?: ArrayLike<number> }>;
  /** Load locals (bind + overrides), set the root frame, inputs, run one pipeline frame. */
  frame(dt: number, inputs?: SceneInputs): void;
  /** World position of a bone (after the last frame). */
  pos(name: string): number[];
  /**
   * World rotation of a bone (quaternion): its world matrix's x column (negated when mirrored)
   * exactly, the y column made orthogonal to it — the library's documented convention, which
   * for a sheared matrix (non-uniformly scaled parent) is the only meaning of "orientation".
   */
  rot(name: string): quat;
  /** Local translation of a bone in the pose store. */
  localT(name: string): number[];
  /** Bind rest local of a bone (as the "engine" holds it). */
  rest: { t: number[]; r: number[]; s: number[] }[];
  slot(name: string): number;
}

function bone(names: string[], parents: number[], worlds: mat4[], name: string, parent: string | null, pos: number[], r: quat): void {
  names.push(name);
  parents.push(parent === null ? -1 : names.indexOf(parent));
  worlds.push(mat4.fromRotationTranslation(mat4.create(), r, pos as unknown as vec3));
}

/** Box vertices (8 corners + a grid on the bottom face) dominated by `joint`. */
function box(pos: number[], joints: number[], weights: number[], joint: number, min: number[], max: number[], second = -1): void {
  const add = (x: number, y: number, z: number): void => {
    pos.push(x, y, z);
    if (second >= 0) { joints.push(joint, second, 0, 0); weights.push(0.7, 0.3, 0, 0); } else { joints.push(joint, 0, 0, 0); weights.push(1, 0, 0, 0); }
  };
  for (const x of [min[0]!, max[0]!]) for (const y of [min[1]!, max[1]!]) for (const z of [min[2]!, max[2]!]) add(x, y, z);
  for (let i = 1; i < 4; i++) for (let j = 1; j < 4; j++) add(min[0]! + ((max[0]! - min[0]!) * i) / 4, min[1]!, min[2]! + ((max[2]! - min[2]!) * j) / 4);
}

export function makeBiped(o: BipedOptions = {}): BipedRig {
  const names: string[] = [];
  const parents: number[] = [];
  const worlds: mat4[] = [];
  const tw = o.twist ?? 0.4;
  const q = (ax: number[], ang: number): quat => quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), ax as unknown as vec3), ang);
  const kb = o.kneeBend ?? 0.03;
  bone(names, parents, worlds, 'Hips', null, [0, 0.95, 0], q([0, 1, 0], 0.2));
  bone(names, parents, worlds, 'Spine', 'Hips', [0, 1.15, 0], q([1, 0, 0], tw));
  bone(names, parents, worlds, 'Head', 'Spine', [0, 1.6, 0], q([0, 1, 0], tw));
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    bone(names, parents, worlds, `${side}UpLeg`, 'Hips', [0.1 * sx, 0.9, 0], q([0, 1, 0], tw * sx));
    bone(names, parents, worlds, `${side}Leg`, `${side}UpLeg`, [0.1 * sx, 0.5, kb], q([1, 0, 0], 0.3 + tw));
    bone(names, parents, worlds, `${side}Foot`, `${side}Leg`, [0.1 * sx, 0.1, 0], q([0, 0, 1], tw * sx));
    bone(names, parents, worlds, `${side}ToeBase`, `${side}Foot`, [0.1 * sx, 0.03, 0.12], q([1, 0, 0], -tw));
    bone(names, parents, worlds, `${side}Shoulder`, 'Spine', [0.08 * sx, 1.45, 0], q([0, 0, 1], tw));
    bone(names, parents, worlds, `${side}Arm`, `${side}Shoulder`, [0.2 * sx, 1.45, 0], q([0, 1, 0], -tw));
    bone(names, parents, worlds, `${side}ForeArm`, `${side}Arm`, [0.46 * sx, 1.45, -0.03], q([1, 1, 0], tw));
    bone(names, parents, worlds, `${side}Hand`, `${side}ForeArm`, [0.72 * sx, 1.45, 0], q([0, 1, 1], -tw));
  }
  if (o.withTail) {
    bone(names, parents, worlds, 'Tail_1', 'Hips', [0, 0.9, -0.1], q([1, 0, 0], 0.3));
    bone(names, parents, worlds, 'Tail_2', 'Tail_1', [0, 0.6, -0.25], q([1, 0, 0], 0.6));
    bone(names, parents, worlds, 'Tail_3', 'Tail_2', [0, 0.3, -0.35], q([1, 0, 0], 0.9));
    bone(names, parents, worlds, 'Tail_4', 'Tail_3', [0, 0.05, -0.45], q([1, 0, 0], 1.2));
  }
  if (o.tailUnderFoot) bone(names, parents, worlds, 'Tail_1', 'LeftFoot', [0.1, 0.05, -0.08], q([1, 0, 0], 0.2));
  if (o.handController) bone(names, parents, worlds, 'LeftHandIK', typeof o.handController === 'string' ? o.handController : 'Spine', [0.72, 1.45, 0], q([1, 0, 1], 0.3));
  const inverseBind = worlds.map((w) => mat4.invert(mat4.create(), w)!);
  const rest = worlds.map((w, i) => {
    const local = parents[i]! >= 0 ? mat4.multiply(mat4.create(), mat4.invert(mat4.create(), worlds[parents[i]!]!)!, w) : w;
    return { t: Array.from(mat4.getTranslation(vec3.create(), local)), r: Array.from(mat4.getRotation(quat.create(), local)), s: [1, 1, 1] };
  });
  // Skin: a box per foot (sole flat at y = 0, heel to toe), shins, and the tail's skin hanging
  // below floor level under the tail bones.
  const pos: number[] = [], joints: number[] = [], weights: number[] = [];
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const foot = names.indexOf(`${side}Foot`), toe = names.indexOf(`${side}ToeBase`), leg = names.indexOf(`${side}Leg`);
    box(pos, joints, weights, foot, [0.1 * sx - 0.045, 0, -0.06], [0.1 * sx + 0.045, 0.11, 0.1]);
    box(pos, joints, weights, toe, [0.1 * sx - 0.045, 0, 0.1], [0.1 * sx + 0.045, 0.05, 0.18], foot);
    box(pos, joints, weights, leg, [0.1 * sx - 0.05, 0.15, -0.05], [0.1 * sx + 0.05, 0.5, 0.05]);
  }
  if (o.tailUnderFoot) box(pos, joints, weights, names.indexOf('Tail_1'), [0.06, -0.05, -0.2], [0.14, 0.02, -0.05]);
  if (o.withTail) {
    const t4 = names.indexOf('Tail_4');
    box(pos, joints, weights, t4, [-0.05, -0.2, -0.6], [0.05, 0.05, -0.4]);
  }
  const skin: SkinInput = {
    positions: Float32Array.from(pos), joints: Uint16Array.from(joints), weights: Float32Array.from(weights),
    inverseBind: Float64Array.from(inverseBind.flatMap((m) => Array.from(m))),
  };
  const world = o.world ?? createBitrigWorld();
  const binding = bindSkeleton(world, { names, parents, inverseBind, rest }, { tail: { floorEnabled: false } });
  const ik = addSceneIK(world, binding, { ...(o.withSkin === false ? {} : { skin }), ...o.ik });
  const pose = world.pose;
  const root = mat4.create();
  const overrides = new Map<string, { t?: ArrayLike<number>; r?: ArrayLike<number>; s?: ArrayLike<number> }>();
  const slot = (name: string): number => binding.slotOf[names.indexOf(name)]!;
  const rig: BipedRig = {
    world, binding, ik, names, skin, root, overrides, rest, slot,
    frame(dt, inputs) {
      for (let i = 0; i < names.length; i++) {
        const s = binding.slotOf[i]!;
        const r = rest[i]!;
        const ov = overrides.get(names[i]!);
        const t = ov?.t ?? r.t, rr = ov?.r ?? r.r, sc = ov?.s ?? [1, 1, 1];
        for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = t[j]!; pose.localS[s * 3 + j] = sc[j]!; }
        for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = rr[j]!;
      }
      for (let j = 0; j < 16; j++) pose.charRootWs[binding.charId * 16 + j] = root[j]!;
      beginCharacterFrame(binding);
      if (inputs) setSceneInputs(world, ik, inputs);
      update(world, dt);
    },
    pos(name) {
      const s = slot(name);
      return [pose.worldM[s * 16 + 12]!, pose.worldM[s * 16 + 13]!, pose.worldM[s * 16 + 14]!];
    },
    rot(name) {
      const s = slot(name);
      const m = pose.worldM.subarray(s * 16, s * 16 + 16);
      const sign = mat4.determinant(mat4.clone(m as unknown as mat4)) < 0 ? -1 : 1;
      const x = vec3.normalize(vec3.create(), [sign * m[0]!, sign * m[1]!, sign * m[2]!]);
      const y0 = [m[4]!, m[5]!, m[6]!] as unknown as vec3;
      const y = vec3.normalize(vec3.create(), vec3.scaleAndAdd(vec3.create(), y0, x, -vec3.dot(x, y0)));
      const z = vec3.cross(vec3.create(), x, y);
      const r = mat3.fromValues(x[0]!, x[1]!, x[2]!, y[0]!, y[1]!, y[2]!, z[0]!, z[1]!, z[2]!);
      return quat.normalize(quat.create(), quat.fromMat3(quat.create(), r));
    },
    localT(name) {
      const s = slot(name);
      return [pose.localT[s * 3]!, pose.localT[s * 3 + 1]!, pose.localT[s * 3 + 2]!];
    },
  };
  return rig;
}

/** Distance between two points. */
export function dist(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
}

/** Angle between two unit quaternions (radians). */
export function quatAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = Math.abs(a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]! + a[3]! * b[3]!);
  return 2 * Math.acos(Math.min(1, d));
}

/** Angle between two vectors (radians). */
export function vecAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const la = Math.hypot(a[0]!, a[1]!, a[2]!), lb = Math.hypot(b[0]!, b[1]!, b[2]!);
  return Math.acos(Math.max(-1, Math.min(1, (a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!) / (la * lb))));
}

/** Root-frame matrices for the parent-transform tests. */
export const PARENTS: Record<string, () => mat4> = {
  identity: () => mat4.create(),
  translated: () => mat4.fromTranslation(mat4.create(), [3, -0.5, 7]),
  rotated: () => mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.3, 1, 0.2]), 1.1), [1, 0.2, -2]),
  uniformScale: () => mat4.fromRotationTranslationScale(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.7), [0.5, 0, 1], [2.5, 2.5, 2.5]),
  nonUniformScale: () => mat4.fromRotationTranslationScale(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.4), [0, 0, 0], [1.5, 0.8, 1.2]),
  mirrored: () => mat4.fromRotationTranslationScale(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.3), [1, 0, 0], [-1, 1, 1]),
  mirroredNonUniform: () => mat4.fromRotationTranslationScale(mat4.create(), quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, -0.3]), 0.9), [-0.4, 0.1, 0.6], [-1.3, 0.9, 1.1]),
};

/** The PARENTS entries whose scale is not uniform (world lengths and angles are not kept). */
export const SHEARED_PARENTS: ReadonlySet<string> = new Set(['nonUniformScale', 'mirroredNonUniform']);
