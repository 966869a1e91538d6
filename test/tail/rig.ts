/**
 * Tiny tail rigs built in code for the tail tests: a hips bone (optionally under a parent
 * with its own transform) and an N-link tail hanging back and down, with exact inverse bind
 * matrices. Helpers drive the hips and read the tail back.
 */
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';

// Float64 everywhere in the fixtures: the assertions go to 1e-9.
glMatrix.setMatrixArrayType(Float64Array as unknown as Float32ArrayConstructor);
import { type BitrigWorld, type BitrigWorldOptions } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton, beginCharacterFrame, endCharacterFrame, type CharacterBinding, type BindOptions } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailLinkIndex } from '../../core/tailSetup';
import { linkEl } from '../../core/components/tail';
import type { TailOptions } from '../../core/defaults';

export interface TailRigOptions {
  links?: number;
  /** Total tail length (m). */
  length?: number;
  /** Hips height (m). */
  hipsHeight?: number;
  /** Bind rotation of the hips (quaternion). */
  hipsRot?: [number, number, number, number];
  /** Add a Tail_End helper. */
  withEnd?: boolean;
  /** Rotation (radians about X) of each tail bone's bind local frame, to exercise bind rotations. */
  boneTwist?: number;
  /** Direction of the tail in model space (default back-down). */
  tailDir?: [number, number, number];
  /** Extra bind local rotation on the last tail bone (the mouse's 28°): applied to the LOADED pose only. */
  loadedLastRot?: number;
  tail?: Partial<TailOptions>;
  world?: BitrigWorldOptions;
  bind?: BindOptions;
  /** Units per metre of the whole rig (1 = metres, 100 = centimetres). */
  unitScale?: number;
  /** Make link `zeroLinkAt` zero-length (its child joint sits on its head). */
  zeroLinkAt?: number;
}

export interface TailRig {
  world: BitrigWorld;
  binding: CharacterBinding;
  names: string[];
  /** Set the hips world position (world units) and rotation, then run one frame. */
  frame(dt: number, hipsPos?: ArrayLike<number>, hipsRot?: ArrayLike<number>): void;
  /** World positions of the tail joints J0..JN (head of link 0 … tip of the last link). */
  joints(): number[][];
  /** Angle (rad) of each link's local rotation away from its rest rotation. */
  linkAngles(): number[];
  /** Link lengths (world units) from the pose store. */
  linkLengths(): number[];
  /** Bind local (bone, rest) */
  hipsPos: vec3;
  hipsRot: quat;
  eid: number;
}

export function makeTailRig(o: TailRigOptions = {}): TailRig {
  const us = o.unitScale ?? 1;
  const n = o.links ?? 4;
  const length = (o.length ?? 0.8) * us;
  const hipsH = (o.hipsHeight ?? 0.9) * us;
  const hipsRot = quat.fromValues(...(o.hipsRot ?? [0, 0, 0, 1]));
  quat.normalize(hipsRot, hipsRot);
  const dir = vec3.normalize(vec3.create(), vec3.fromValues(...(o.tailDir ?? [0, -0.6, -1])));
  const names = ['Hips'];
  const parents = [-1];
  // World bind matrices
  const worlds: mat4[] = [mat4.fromRotationTranslation(mat4.create(), hipsRot, [0, hipsH, 0])];
  const seg = length / n;
  const twist = o.boneTwist ?? 0.3;
  for (let i = 0; i < n; i++) {
    names.push(`Tail_${i + 1}`);
    parents.push(i);
    const along = o.zeroLinkAt !== undefined && i > o.zeroLinkAt ? i - 1 : i;
    const p = vec3.scaleAndAdd(vec3.create(), [0, hipsH - 0.05 * us, -0.1 * us], dir, seg * along);
    const r = quat.setAxisAngle(quat.create(), [1, 0, 0], twist * (i + 1));
    worlds.push(mat4.fromRotationTranslation(mat4.create(), r, p));
  }
  if (o.withEnd) {
    names.push('Tail_End');
    parents.push(n);
    const p = vec3.scaleAndAdd(vec3.create(), [0, hipsH - 0.05 * us, -0.1 * us], dir, seg * n);
    worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.create(), p));
  }
  const inverseBind = worlds.map((w) => mat4.invert(mat4.create(), w)!);
  const rest = worlds.map((w, i) => {
    const local = parents[i]! >= 0 ? mat4.multiply(mat4.create(), mat4.invert(mat4.create(), worlds[parents[i]!]!)!, w) : w;
    const t = mat4.getTranslation(vec3.create(), local);
    const r = mat4.getRotation(quat.create(), local);
    return { t: Array.from(t), r: Array.from(r), s: [1, 1, 1] };
  });
  if (o.loadedLastRot) {
    const last = rest[n]!;
    const extra = quat.setAxisAngle(quat.create(), [0, 0, 1], o.loadedLastRot);
    const r = quat.multiply(quat.create(), last.r as unknown as quat, extra);
    last.r = Array.from(r);
  }
  const world = createBitrigWorld(o.world);
  const binding = bindSkeleton(world, { names, parents, inverseBind, rest }, { tail: { unitScale: us, ...o.tail }, ...o.bind });
  const pose = world.pose;
  const hipsSlot = binding.slotOf[0]!;
  const state = { pos: vec3.fromValues(0, hipsH, 0), rot: quat.clone(hipsRot) };
  // Loaded pose: locals = rest (the adapter would copy them from the engine each frame).
  const loadLocals = (): void => {
    for (let i = 0; i < names.length; i++) {
      const s = binding.slotOf[i]!;
      const r = rest[i]!;
      for (let j = 0; j < 3; j++) pose.localT[s * 3 + j] = r.t[j]!;
      for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = r.r[j]!;
      for (let j = 0; j < 3; j++) pose.localS[s * 3 + j] = 1;
    }
  };
  const eid = binding.tails[0]!.eid;
  return {
    world, binding, names, eid,
    hipsPos: state.pos, hipsRot: state.rot,
    frame(dt, hp, hr) {
      if (hp) vec3.set(state.pos, hp[0]!, hp[1]!, hp[2]!);
      if (hr) quat.set(state.rot, hr[0]!, hr[1]!, hr[2]!, hr[3]!);
      loadLocals();
      for (let j = 0; j < 3; j++) pose.localT[hipsSlot * 3 + j] = state.pos[j]!;
      for (let j = 0; j < 4; j++) pose.localR[hipsSlot * 4 + j] = state.rot[j]!;
      beginCharacterFrame(binding);
      update(world, dt);
      endCharacterFrame(binding); // (as an adapter does after copying the bones out)
    },
    joints() {
      const out: number[][] = [];
      const C = world.components.TailChain;
      const B = world.components.BendState;
      for (let i = 0; i < n; i++) {
        const s = C.slot[tailLinkIndex(world, eid, i)]!;
        out.push([pose.worldM[s * 16 + 12]!, pose.worldM[s * 16 + 13]!, pose.worldM[s * 16 + 14]!]);
      }
      // tip of the last link: last bone world × tipLs
      const s = C.slot[tailLinkIndex(world, eid, n - 1)]!;
      const k = tailLinkIndex(world, eid, n - 1);
      const m = pose.worldM.subarray(s * 16, s * 16 + 16);
      const t = [B.tipLs[linkEl(k, 3, 0)]!, B.tipLs[linkEl(k, 3, 1)]!, B.tipLs[linkEl(k, 3, 2)]!];
      out.push([
        m[0]! * t[0]! + m[4]! * t[1]! + m[8]! * t[2]! + m[12]!,
        m[1]! * t[0]! + m[5]! * t[1]! + m[9]! * t[2]! + m[13]!,
        m[2]! * t[0]! + m[6]! * t[1]! + m[10]! * t[2]! + m[14]!,
      ]);
      return out;
    },
    linkAngles() {
      const C = world.components.TailChain;
      const B = world.components.BendState;
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const k = tailLinkIndex(world, eid, i);
        const s = C.slot[k]!;
        const cur = quat.fromValues(pose.localR[s * 4]!, pose.localR[s * 4 + 1]!, pose.localR[s * 4 + 2]!, pose.localR[s * 4 + 3]!);
        const rr = quat.normalize(quat.create(), quat.fromValues(B.restR[linkEl(k, 4, 0)]!, B.restR[linkEl(k, 4, 1)]!, B.restR[linkEl(k, 4, 2)]!, B.restR[linkEl(k, 4, 3)]!)); // (float32: unit to 1e-7, which acos near 1 would turn into 5e-4 rad)
        const d = Math.min(1, Math.abs(quat.dot(cur, rr)));
        out.push(2 * Math.acos(d));
      }
      return out;
    },
    linkLengths() {
      const j = this.joints();
      const out: number[] = [];
      for (let i = 0; i + 1 < j.length; i++) out.push(Math.hypot(j[i + 1]![0]! - j[i]![0]!, j[i + 1]![1]! - j[i]![1]!, j[i + 1]![2]! - j[i]![2]!));
      return out;
    },
  };
}

/** The seed's fast hip sweep: 0.5 m sideways over 2/3 s (smoothstep), then hold. */
export function sweepX(t: number, dist = 0.5, dur = 2 / 3): number {
  const u = Math.min(1, Math.max(0, t / dur));
  return dist * u * u * (3 - 2 * u);
}
