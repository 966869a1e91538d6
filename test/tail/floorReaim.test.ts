/**
 * The write's floor re-aim turned exactly 180° from a link's rest direction
 * (systems/tailWrite.ts; wasm/tailStep.ts `writeLanes`). A displayed tip under the floor goes
 * back onto the floor circle, aimed with the least twist from rest; when the floor direction is
 * exactly opposite the rest direction u (in the parent frame) that swing has no unique axis and
 * the write takes a fallback: x × u, or y × u when x × u is ~0 (u = ±x). Two ways into it, each
 * with both fallback axes:
 *
 *  - hanging: a tail hanging straight down, its hips sunk more than a link length under the
 *    floor: the floor circle clamps to straight up, exactly opposite (the whole pipeline);
 *  - raised: a tail held up and back; link 0 shown (α = ½, a frame without steps) between two
 *    set step rotations that put its tip forward and down under a floor placed where the floor
 *    circle's direction is exactly opposite the rest direction.
 *
 * Parents: plain, translated+rotated, scaled (2.5), mirrored. Every such chain is paired (the
 * WebAssembly write runs two chains per f64x2 pair) with a control chain whose floor re-aim is
 * not anti-parallel, so the branch's lane masks are exercised too. Checked: no NaN, unit
 * rotations (1e-12), bone lengths kept, link 0 = a 180° turn about the fallback axis from its
 * rest rotation (per quaternion component, up to sign), the bone opposite its rest direction,
 * written world matrices = parent world · written local, raised tips on the floor (each 1e-7:
 * the rest data is float32), and the write repeated on the same state bit-identical.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat3, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { setTailOptions, tailLinkIndex } from '../../core/tailSetup';
import { worldSnapshot, expectSameBytes } from '../helpers/worldBytes';
import { linkEl } from '../../core/components/tail';
import { tailWrite } from '../../systems/tailWrite';
import { loadRest, sourceFromWorlds, type RestLocals } from '../helpers/skeleton';

glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

const SEG = 0.3; // link length (m, bind)
const PSI = Math.PI / 6; // raised tails: rest direction 30° above horizontal, backwards
const H = 1 / 60; // the world's fixed step (default)
const TOL = 1e-7; // (the rest data is float32: lengths and directions to its rounding)

type Kind = 'hanging' | 'raised';
/** Link 0's rest direction in the hips frame: generic (fallback x × u) or ±x (fallback y × u). */
const AXES: { name: string; u: vec3 }[] = [
  { name: 'primary', u: vec3.normalize(vec3.create(), [0.2, -0.9, 0.35]) },
  { name: 'degenerate +x', u: vec3.fromValues(1, 0, 0) },
  { name: 'degenerate -x', u: vec3.fromValues(-1, 0, 0) },
];
/** The hips' animated transform: translation, yaw about world y, twist about the rest direction, uniform scale, mirror (hips-local z reflected). */
const PARENTS: { name: string; pos: [number, number, number]; yaw: number; twist: number; scale: number; mirror: boolean }[] = [
  { name: 'plain', pos: [0, 1, 0], yaw: 0, twist: 0, scale: 1, mirror: false },
  { name: 'translated+rotated', pos: [3.2, -1.7, -4.1], yaw: 0.7, twist: 0.45, scale: 1, mirror: false },
  { name: 'scaled', pos: [-1, 1.2, 0.5], yaw: -1.1, twist: -0.3, scale: 2.5, mirror: false },
  { name: 'mirrored', pos: [0.6, 0.8, -0.2], yaw: 0.3, twist: 0.2, scale: 1, mirror: true },
];

interface Char {
  kind: Kind; axis: (typeof AXES)[number]; parent: (typeof PARENTS)[number];
  /** A control chain: floor re-aim, but not anti-parallel (the SIMD partner of a branch chain). */
  control: boolean;
  b: CharacterBinding; rest: RestLocals; hipsR: quat; hipsS: vec3;
  /** Raised tails: the floor height set for the re-aim frame. */
  floor: number;
}
const tag = (c: Char): string => `${c.control ? 'control ' : ''}${c.kind} ${c.axis.name} ${c.parent.name}`;

/**
 * Shortest arc taking unit `a` onto unit `b` (not opposite), in float64 (gl-matrix's
 * quat.rotationTo keeps its cross product in a Float32Array made at import: 1e-8 off).
 */
function arc(a: vec3, b: vec3): quat {
  const c = vec3.cross(vec3.create(), a, b);
  return quat.normalize(quat.create(), quat.fromValues(c[0]!, c[1]!, c[2]!, 1 + vec3.dot(a, b)));
}

/** The tail's rest direction in the world at bind (and, before the yaw, animated). */
function restDirWorld(kind: Kind): vec3 {
  return kind === 'hanging' ? vec3.fromValues(0, -1, 0) : vec3.fromValues(0, Math.sin(PSI), -Math.cos(PSI));
}

/**
 * Hips, two links and an end helper along the world direction `w0`; the hips' bind rotation puts
 * `w0` at `axis.u` in the hips frame; the links have generic bind rotations (restR ≠ identity).
 * No carry, no rest curve (the rest direction is the bind's), no gravity, floor clearance 0;
 * hanging tails get a floor at 10 m (above everything), raised ones theirs in {@link setRaised}.
 */
function bind(world: BitrigWorld, kind: Kind, axis: Char['axis'], parent: Char['parent'], control: boolean): Char {
  const w0 = restDirWorld(kind);
  const hipsBind = quat.multiply(quat.create(), arc(axis.u, w0), quat.setAxisAngle(quat.create(), axis.u, 0.4));
  const root = vec3.fromValues(0, 0.9, -0.1);
  const linkAxis = vec3.normalize(vec3.create(), [1, 0.3, -0.2]);
  const worlds = [mat4.fromRotationTranslation(mat4.create(), hipsBind, [0, 1, 0])];
  for (let i = 0; i < 3; i++) {
    const p = vec3.scaleAndAdd(vec3.create(), root, w0, SEG * i);
    const r = i < 2 ? quat.setAxisAngle(quat.create(), linkAxis, 0.3 * (i + 1)) : quat.create();
    worlds.push(mat4.fromRotationTranslation(mat4.create(), r, p));
  }
  const src = sourceFromWorlds(['Hips', 'Tail_1', 'Tail_2', 'Tail_End'], [-1, 0, 1, 2], worlds);
  const b = bindSkeleton(world, src, {
    tail: { carry: 0, restCurve: 0, gravity: 0, bendLimit: Math.PI, restSource: 'bind', floorClearance: 0, floorHeight: kind === 'hanging' ? 10 : -100 },
  });
  // Animated hips H = T · R · S with R·S·u along the yawed w0: the rest direction stays straight
  // down (hanging) or 30° up (raised) whatever the parent transform. A hanging control is
  // tilted 0.5 rad about world x (its floor circle, straight up, is then not opposite).
  const sgn = parent.mirror ? -1 : 1;
  const hipsS = vec3.fromValues(parent.scale, parent.scale, sgn * parent.scale);
  const v = vec3.normalize(vec3.create(), [axis.u[0]!, axis.u[1]!, sgn * axis.u[2]!]);
  const hipsR = quat.setAxisAngle(quat.create(), [1, 0, 0], control && kind === 'hanging' ? 0.5 : 0);
  quat.multiply(hipsR, hipsR, quat.setAxisAngle(quat.create(), [0, 1, 0], parent.yaw));
  quat.multiply(hipsR, hipsR, arc(v, w0));
  quat.multiply(hipsR, hipsR, quat.setAxisAngle(quat.create(), v, parent.twist));
  return { kind, axis, parent, control, b, rest: src.rest, hipsR, hipsS, floor: NaN };
}

function frame(world: BitrigWorld, chars: Char[], dt: number): void {
  const pose = world.pose;
  for (const c of chars) {
    loadRest(c.b, c.rest);
    const s = c.b.slotOf[0]!;
    for (let j = 0; j < 3; j++) pose.localT[s * 3 + j] = c.parent.pos[j]!;
    for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = c.hipsR[j]!;
    for (let j = 0; j < 3; j++) pose.localS[s * 3 + j] = c.hipsS[j]!;
    beginCharacterFrame(c.b);
  }
  update(world, dt);
}

const col = (m: ArrayLike<number>, o: number): vec3 => vec3.fromValues(m[o]!, m[o + 1]!, m[o + 2]!);
const quatAt = (a: ArrayLike<number>, o: number): quat => quat.fromValues(a[o]!, a[o + 1]!, a[o + 2]!, a[o + 3]!);
/** Width-3 / width-4 per-link field at link number k (core/components/tail.ts linkEl). */
const colL = (m: ArrayLike<number>, k: number): vec3 => vec3.fromValues(m[linkEl(k, 3, 0)]!, m[linkEl(k, 3, 1)]!, m[linkEl(k, 3, 2)]!);
const quatL = (a: ArrayLike<number>, k: number): quat => quat.normalize(quat.create(), quat.fromValues(a[linkEl(k, 4, 0)]!, a[linkEl(k, 4, 1)]!, a[linkEl(k, 4, 2)]!, a[linkEl(k, 4, 3)]!));
const at = (world: BitrigWorld, slot: number): vec3 => col(world.pose.worldM, slot * 16 + 12);
/** The hips' world 3×3 (linear part, with scale and reflection). */
function hipsLinear(world: BitrigWorld, c: Char): mat3 {
  const o = c.b.slotOf[0]! * 16;
  return mat3.fromMat4(mat3.create(), world.pose.worldM.subarray(o, o + 16) as unknown as mat4);
}
/** Link 0's rest direction in the world: hips linear · restDirLs, normalised. */
function restWorld(world: BitrigWorld, c: Char): vec3 {
  const k = tailLinkIndex(world, c.b.tails[0]!.eid, 0);
  const w = vec3.transformMat3(vec3.create(), colL(world.components.BendState.restDirLs, k), hipsLinear(world, c));
  return vec3.normalize(w, w);
}

/**
 * Raised tails: link 0 shown between two step rotations that put its tip forward and down (in
 * the vertical plane of its rest direction, 0.25 and 0.6 rad steeper than the opposite of rest:
 * under the floor), link 1 at rest, and the floor where the floor circle's height is exactly
 * −(rest direction)_y (a control: 0.05 link lengths higher, so not opposite).
 */
function setRaised(world: BitrigWorld, c: Char): void {
  const B = world.components.BendState;
  const eid = c.b.tails[0]!.eid;
  const k0 = tailLinkIndex(world, eid, 0), k1 = tailLinkIndex(world, eid, 1);
  const w = restWorld(world, c);
  const hz = vec3.normalize(vec3.create(), [w[0]!, 0, w[2]!]); // rest's horizontal
  const inv = mat3.invert(mat3.create(), hipsLinear(world, c))!;
  const u = colL(B.restDirLs, k0);
  const restR = quatL(B.restR, k0);
  for (const [arr, beta] of [[B.localPrev, PSI + 0.25], [B.localCur, PSI + 0.6]] as const) {
    const d = vec3.fromValues(-Math.cos(beta) * hz[0]!, -Math.sin(beta), -Math.cos(beta) * hz[2]!);
    const dp = vec3.normalize(vec3.create(), vec3.transformMat3(vec3.create(), d, inv));
    const q = quat.multiply(quat.create(), arc(u, dp), restR);
    for (let j = 0; j < 4; j++) arr[linkEl(k0, 4, j)] = q[j]!;
    for (let j = 0; j < 4; j++) arr[linkEl(k1, 4, j)] = B.restR[linkEl(k1, 4, j)]!;
  }
  const hy = at(world, c.b.slotOf[1]!)[1]!;
  const len = world.components.TailChain.anchorCur[eid * 8 + 7]! * B.lenRel[k0]!;
  c.floor = hy + len * ((c.control ? 0.05 : 0) - w[1]!); // floor circle height (F − hy)/len = −w_y
  setTailOptions(world, eid, { floorHeight: c.floor });
}

interface Run { world: BitrigWorld; chars: Char[]; stepped: Map<Char, Measure> }

/** A world with every (kind, axis, parent), each followed by its control; run into the branch. */
function run(): Run {
  const world = createBitrigWorld({ entities: 128, bones: 256, chains: 64, characters: 64 });
  const chars: Char[] = [];
  for (const kind of ['hanging', 'raised'] as const) for (const axis of AXES) for (const parent of PARENTS) {
    chars.push(bind(world, kind, axis, parent, false), bind(world, kind, axis, parent, true));
  }
  for (let f = 0; f < 4; f++) frame(world, chars, H);
  const stepped = new Map(chars.filter((c) => c.kind === 'hanging').map((c) => [c, measure(world, c)] as const));
  for (const c of chars) if (c.kind === 'raised') setRaised(world, c);
  frame(world, chars, H / 2); // no step: the write shows the set rotations at α = ½
  return { world, chars, stepped };
}
let runs: { wa: Run } | null = null;
const both = (): { wa: Run } => (runs ??= { wa: run() });

type Measure = ReturnType<typeof measure>;
/** What the checks need from one character after a write. */
function measure(world: BitrigWorld, c: Char) {
  const pose = world.pose, B = world.components.BendState, C = world.components.TailChain;
  const eid = c.b.tails[0]!.eid;
  const k0 = tailLinkIndex(world, eid, 0);
  const [s0, s1, s2, s3] = [0, 1, 2, 3].map((i) => c.b.slotOf[i]!) as [number, number, number, number];
  // the documented fallback axis: x × u, or y × u when that is ~0
  const u = colL(B.restDirLs, k0);
  let a = vec3.fromValues(0, -u[2]!, u[1]!);
  if (a[1]! * a[1]! + a[2]! * a[2]! < 1e-12) a = vec3.fromValues(u[2]!, 0, -u[0]!);
  vec3.normalize(a, a);
  // swing = local · restR⁻¹ must be (±a, 0)
  const rel = quat.multiply(quat.create(), quatAt(pose.localR, s1 * 4), quat.conjugate(quat.create(), quatL(B.restR, k0)));
  const sg = rel[0]! * a[0]! + rel[1]! * a[1]! + rel[2]! * a[2]! < 0 ? -1 : 1;
  const swingErr = Math.max(Math.abs(rel[3]!), ...[0, 1, 2].map((j) => Math.abs(sg * rel[j]! - a[j]!)));
  const j1 = at(world, s1), j2 = at(world, s2), j3 = at(world, s3);
  const d01 = vec3.sub(vec3.create(), j2, j1), d12 = vec3.sub(vec3.create(), j3, j2);
  const w = restWorld(world, c);
  const dir = vec3.scale(vec3.create(), d01, 1 / vec3.length(d01));
  const dirErr = Math.max(...[0, 1, 2].map((j) => Math.abs(dir[j]! + w[j]!)));
  // written world matrices against parent world · compose(written local)
  let hierErr = 0;
  for (const [p, ch] of [[s0, s1], [s1, s2]] as const) {
    const loc = mat4.fromRotationTranslationScale(mat4.create(), quatAt(pose.localR, ch * 4), col(pose.localT, ch * 3), col(pose.localS, ch * 3));
    const want = mat4.multiply(mat4.create(), pose.worldM.subarray(p * 16, p * 16 + 16) as unknown as mat4, loc);
    for (let j = 0; j < 16; j++) hierErr = Math.max(hierErr, Math.abs(want[j]! - pose.worldM[ch * 16 + j]!));
  }
  const unitErr = Math.max(...[s1, s2].map((s) => Math.abs(Math.hypot(...quatAt(pose.localR, s * 4)) - 1)));
  const finite = [s1, s2].every((s) => [0, 1, 2, 3].every((j) => Number.isFinite(pose.localR[s * 4 + j]!)))
    && [s0, s1, s2, s3].every((s) => [...Array(16).keys()].every((j) => Number.isFinite(pose.worldM[s * 16 + j]!)));
  const len = c.parent.scale * SEG;
  return {
    finite, unitErr, swingErr, dirErr, hierErr, dir,
    lenErr: Math.max(Math.abs(vec3.length(d01) - len), Math.abs(vec3.length(d12) - len)),
    failed: C.writeFailed[eid]!, initialised: C.initialised[eid]!,
    headY: j1[1]!, tipY: j2[1]!, len, floor: C.floorY[eid]!, restDotDir: vec3.dot(dir, w),
  };
}

/** Soft assertions (every failing chain is listed). */
function expectWritten(m: Measure, c: Char, what: string): void {
  const t = `${what}: ${tag(c)}`;
  expect.soft(m.finite, `${t}: finite`).toBe(true);
  expect.soft(m.failed, `${t}: write not failed`).toBe(0);
  expect.soft(m.initialised, `${t}: still initialised`).toBe(1);
  expect.soft(m.unitErr, `${t}: unit rotations`).toBeLessThan(1e-12);
  expect.soft(m.lenErr, `${t}: bone lengths`).toBeLessThan(TOL);
  expect.soft(m.hierErr, `${t}: world matrices match the locals`).toBeLessThan(TOL);
  if (c.kind === 'raised') expect.soft(Math.abs(m.tipY - c.floor), `${t}: tip on the floor`).toBeLessThan(TOL);
  if (c.control) {
    if (c.kind === 'hanging') expect.soft(Math.abs(m.dir[1]! - 1), `${t}: straight up`).toBeLessThan(TOL);
    return;
  }
  expect.soft(m.swingErr, `${t}: 180° about the fallback axis`).toBeLessThan(TOL);
  expect.soft(m.dirErr, `${t}: bone opposite its rest direction`).toBeLessThan(TOL);
}

describe('floor re-aim exactly opposite the rest direction (the write\'s fallback axes)', () => {
  test('validity: the fixtures sit where the branch runs (rest direction in the hips frame and the world, links under the floor, a frame without steps at α = ½, controls not opposite)', () => {
    const { wa } = both();
    for (const { world, chars } of [wa]) {
      expect(world.tailClock.steps).toBe(0);
      expect(world.tailClock.alpha).toBeCloseTo(0.5, 9);
      for (const c of chars) {
        const k0 = tailLinkIndex(world, c.b.tails[0]!.eid, 0);
        const u = colL(world.components.BendState.restDirLs, k0);
        expect(vec3.distance(u, c.axis.u), `${tag(c)}: restDirLs`).toBeLessThan(1e-7); // (float32)
        // degenerate fixtures really take the second axis (|x × u|² < 1e-12), primary ones do not
        expect(u[1]! * u[1]! + u[2]! * u[2]! < 1e-12, `${tag(c)}: degenerate`).toBe(c.axis.name !== 'primary');
        const want = vec3.transformQuat(vec3.create(), restDirWorld(c.kind), quat.setAxisAngle(quat.create(), [0, 1, 0], c.parent.yaw));
        if (c.control && c.kind === 'hanging') vec3.rotateX(want, want, [0, 0, 0], 0.5);
        expect(vec3.distance(restWorld(world, c), want), `${tag(c)}: world rest direction`).toBeLessThan(1e-7); // (float32)
        const m = measure(world, c);
        if (c.kind === 'hanging') expect(m.headY + m.len, `${tag(c)}: link under the floor`).toBeLessThan(m.floor - 1);
        else expect(m.floor).toBe(c.floor);
        if (c.control) expect(m.restDotDir, `${tag(c)}: control not opposite`).toBeGreaterThan(-0.999); // (the branch needs < −1 + 1e-6)
      }
    }
  });

  test('no NaN, lengths kept, link 0 turned 180° about the fallback axis, opposite its rest direction, world matrices = parent · local, raised tips on the floor (each 1e-7)', () => {
    const { wa } = both();
    for (const [name, { world, chars, stepped }] of [['wasm', wa]] as const) {
      for (const c of chars) expectWritten(measure(world, c), c, name);
      // the hanging tails were already in the branch on the stepped frames (α = 0)
      for (const [c, m] of stepped) expectWritten(m, c, `${name} stepped frame`);
    }
  });

  test('the write repeated on the same state gives the same bytes (tail state, localR, worldM)', () => {
    const { wa } = both();
    const w = wa.world;
    const before = worldSnapshot(w, 'tail');
    tailWrite(w);
    expectSameBytes(before, worldSnapshot(w, 'tail'), 'write repeated');
  });
});
