/**
 * The float32 tail kernel on randomised worlds (seeded, reproducible) and on degenerate
 * directions that reach rare branches (the step's anti-parallel bend, the floor circle's
 * fallbacks in step and write): whatever the data, no bone is ever non-finite and links keep
 * their length. Not reached here: the aim's anti-parallel swing (a 180° turn inside the parent
 * frame, which the bend limit prevents) and the write's anti-parallel floor re-aim.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailLinkIndex } from '../../core/tailSetup';
import { linkEl } from '../../core/components/tail';
import type { TailOptions } from '../../core/defaults';
import { loadRest, sourceFromWorlds } from '../helpers/skeleton';
glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

let seed = 1;
function rnd() { seed |= 0; seed = (seed + 0x6D2B79F5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }

interface Spec { links: number; tail: Partial<TailOptions>; hipsY: number; mirrored: boolean; zeroAt: number; amp: number; dirY: number; squash: boolean }
function bindChar(world: BitrigWorld, spec: Spec) {
  const n = spec.links;
  const names = ['Hips']; const parents = [-1];
  const worlds: mat4[] = [mat4.fromTranslation(mat4.create(), [0, spec.hipsY, 0])];
  const dir = vec3.normalize(vec3.create(), [0, spec.dirY, -1]);
  const seg = 0.8 / n;
  for (let i = 0; i < n; i++) {
    names.push(`Tail_${i + 1}`); parents.push(i);
    const along = spec.zeroAt >= 0 && i > spec.zeroAt ? i - 1 : i;
    const p = vec3.scaleAndAdd(vec3.create(), [0, spec.hipsY - 0.05, -0.1], dir, seg * along);
    worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 * (i + 1)), p));
  }
  names.push('Tail_End'); parents.push(n);
  const along = spec.zeroAt >= 0 ? n - 1 : n;
  worlds.push(mat4.fromTranslation(mat4.create(), vec3.scaleAndAdd(vec3.create(), [0, spec.hipsY - 0.05, -0.1], dir, seg * along)));
  const src = sourceFromWorlds(names, parents, worlds);
  const rest = src.rest;
  // The option extremes beyond what setup accepts (gravity 100, springs too stiff for the step)
  // are written straight into the chain's components, as a game could: the step must still
  // never throw nor write a NaN, whatever the data.
  const { frequency, damping, tipRatio, gravity, ...accepted } = spec.tail;
  const binding = bindSkeleton(world, src, { tail: accepted });
  const C = world.components.TailChain, eid = binding.tails[0]!.eid;
  if (frequency !== undefined) C.frequency[eid] = frequency;
  if (damping !== undefined) C.damping[eid] = damping;
  if (tipRatio !== undefined) C.tipRatio[eid] = tipRatio;
  if (gravity !== undefined) C.gravity[eid] = gravity;
  C.stepCache.fill(0, eid * 5, eid * 5 + 5);
  return { spec, binding, rest };
}
function drive(c: ReturnType<typeof bindChar>, f: number, ph: number) {
  const pose = c.binding.world.pose;
  loadRest(c.binding, c.rest);
  const h = c.binding.slotOf[0]!;
  const t = f / 60 + ph;
  const A = c.spec.amp;
  pose.localT[h * 3] = A * Math.sin(t * 4.7);
  pose.localT[h * 3 + 1] = c.spec.hipsY + A * 0.6 * Math.sin(t * 2.1);
  pose.localT[h * 3 + 2] = A * Math.cos(t * 3.3);
  const q = quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, 0.1]), 3 * A * Math.sin(t * 1.7));
  for (let j = 0; j < 4; j++) pose.localR[h * 4 + j] = q[j]!;
  if (c.spec.mirrored) pose.localS[h * 3] = -1;
  if (c.spec.squash) pose.localS[h * 3 + 1] = 1.3;
  beginCharacterFrame(c.binding);
}
function mkSpecs(): Spec[] {
  const out: Spec[] = [];
  const N = 3 + Math.floor(rnd() * 10);
  for (let i = 0; i < N; i++) {
    const tail: Partial<TailOptions> & Record<string, unknown> = {};
    if (rnd() < 0.5) tail.couplingRate = [0, 0.5, 5, 30, 500][Math.floor(rnd() * 5)];
    if (rnd() < 0.5) tail.bendLimit = [1e-6, 0.01, 0.2, 1, 3.1][Math.floor(rnd() * 5)];
    if (rnd() < 0.4) tail.frequency = [0.1, 1, 5, 20][Math.floor(rnd() * 4)];
    if (rnd() < 0.4) tail.damping = [0, 0.1, 1, 3][Math.floor(rnd() * 4)];
    if (rnd() < 0.4) tail.gravity = [0, 9.81, 100][Math.floor(rnd() * 3)];
    if (rnd() < 0.4) tail.tipRatio = [0.1, 1, 3][Math.floor(rnd() * 3)];
    if (rnd() < 0.3) tail.floorEnabled = rnd() < 0.5;
    if (rnd() < 0.5) tail.floorHeight = [0, 0.3, 0.8, 2][Math.floor(rnd() * 4)];
    if (rnd() < 0.3) tail.floorClearance = [0, 0.05, 0.5][Math.floor(rnd() * 3)];
    if (rnd() < 0.3) tail.contactDamping = [0, 5, 100][Math.floor(rnd() * 3)];
    out.push({ links: 1 + Math.floor(rnd() * 8), tail, hipsY: [0.1, 0.3, 0.9, 2][Math.floor(rnd() * 4)], mirrored: rnd() < 0.2,
      zeroAt: rnd() < 0.2 ? Math.floor(rnd() * 3) : -1, amp: [0.05, 0.5, 3][Math.floor(rnd() * 3)], dirY: [-0.6, -5, 0.5, 0][Math.floor(rnd() * 4)], squash: rnd() < 0.1 });
  }
  return out;
}
const DTS = [1 / 60, 1 / 144, 1 / 30, 0.05, 1 / 60, 0, 1 / 120, 1 / 60, 0.2];
/** One seeded random world, 200 frames with binds, unbinds and pose growth mid-run: the first frame where a world matrix is not finite, or ''. */
function runSeed(s: number): string {
  seed = s;
  const specs = mkSpecs();
  const ww = createBitrigWorld({ entities: 2, bones: 8 });
  const cw = specs.map((sp) => bindChar(ww, sp));
  for (let f = 0; f < 200; f++) {
    const dt = DTS[Math.floor(rnd() * DTS.length)]!;
    if (f === 50) { // pose slots grow mid-run (a 300-bone character with no tail)
      const n = 300; const names = Array.from({ length: n }, (_, i) => 'B' + i); const parents = names.map((_, i) => i - 1);
      bindSkeleton(ww, { names, parents, rest: names.map(() => ({ t: [0, 0.01, 0], r: [0, 0, 0, 1], s: [1, 1, 1] })) });
    }
    if (f === 60 && cw.length > 2) { unbindSkeleton(cw[1]!.binding); cw.splice(1, 1); }
    if (f === 65) for (const x of mkSpecs()) cw.push(bindChar(ww, x));
    cw.forEach((c, i) => drive(c, f, i * 0.37));
    update(ww, dt);
    const m = ww.pose.worldM;
    for (let j = 0; j < m.length; j++) if (!Number.isFinite(m[j]!)) return `seed ${s} frame ${f}: worldM[${j}]`;
  }
  return '';
}

function mkDegenerate() {
  const world = createBitrigWorld();
  const bs = [];
  for (let c = 0; c < 3; c++) {
    const names = ['Hips', 'Tail_1', 'Tail_2', 'Tail_3', 'Tail_End'], parents = [-1, 0, 1, 2, 3];
    const rest = names.map((_, i) => ({ t: i === 0 ? [c * 2, 0.5, 0] : [0, -0.1, 0], r: [0, 0, 0, 1], s: [1, 1, 1] }));
    const inverseBind = names.map((_, i) => { const m = new Array(16).fill(0); m[0] = m[5] = m[10] = m[15] = 1; m[12] = -c * 2; m[13] = -(0.5 - 0.1 * Math.max(0, i)); return m; });
    const b = bindSkeleton(world, { names, parents, inverseBind, rest }, { tail: { carry: 0, restCurve: 0, floorHeight: c === 2 ? 0.32 : 0, floorClearance: 0, couplingRate: c === 1 ? 0 : 12, frequency: c === 0 ? 1e-6 : 0.9, damping: 0 } });
    bs.push({ b, rest });
  }
  return { world, bs };
}

/**
 * Tails hanging straight down and flipped straight up (anti-parallel swings), floors above the
 * tip, zero frequency, 60 frames: the largest deviation of a link's drawn length from its rest
 * length (metres; NaN when a bone went non-finite).
 */
function runDegenerate(): number {
  let worst = 0;
  const W = mkDegenerate();
  for (let f = 0; f < 60; f++) {
    const pose = W.world.pose;
    for (const { b, rest } of W.bs) {
      for (let i = 0; i < rest.length; i++) { const s = b.slotOf[i]!; for (let j = 0; j < 3; j++) pose.localT[s * 3 + j] = rest[i]!.t[j]!; for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = rest[i]!.r[j]!; }
      beginCharacterFrame(b);
    }
    if (f === 5 || f === 30) for (const { b } of W.bs) {
      // flip link 1's particle straight above its head (exactly anti-parallel to rest), at rest
      const eid = b.tails[0]!.eid; const k = tailLinkIndex(W.world, eid, 1);
      const P = W.world.components.TailParticle; const k0 = tailLinkIndex(W.world, eid, 0);
      const hy = P.pos[linkEl(k0, 3, 1)]!; // (link 1's head: link 0's tip; positions share the chain's origin)
      P.pos[linkEl(k, 3, 0)] = P.pos[linkEl(k0, 3, 0)]!; P.pos[linkEl(k, 3, 2)] = P.pos[linkEl(k0, 3, 2)]!;
      P.pos[linkEl(k, 3, 1)] = hy + 0.1;
      for (let c = 0; c < 3; c++) P.vel[linkEl(k, 3, c)] = 0;
    }
    update(W.world, 1 / 60);
    for (const { b } of W.bs) {
      for (let i = 1; i < 4; i++) {
        const a = b.slotOf[i]! * 16, c = b.slotOf[i + 1]! * 16, m = pose.worldM;
        const d = Math.hypot(m[c + 12]! - m[a + 12]!, m[c + 13]! - m[a + 13]!, m[c + 14]! - m[a + 14]!);
        worst = Math.max(worst, Number.isFinite(d) ? Math.abs(d - 0.1) : NaN);
      }
    }
  }
  return worst;
}

describe('the tail kernel on randomised and degenerate worlds', () => {
  test('12 seeded random worlds: 1-8 links, option extremes (unstable springs included, written straight into the components), floors, mirrored and squashed anchors, zero-length links, 0-0.2 s frames, binds, unbinds and pose growth mid-run: no bone ever non-finite', () => {
    for (let s = 1; s <= 12; s++) expect(runSeed(s)).toBe('');
  });
  test('degenerate directions: particles flipped exactly opposite their rest direction, a floor above the tip, zero frequency: bones finite, links keep their length (1e-6 m of 0.1 m)', () => {
    const worst = runDegenerate();
    expect(worst).toBeLessThan(1e-6);
  });
});
