/**
 * The WebAssembly SIMD tail step against the JavaScript step on randomised worlds (seeded,
 * reproducible) and on degenerate directions that reach rare branches (the step's
 * anti-parallel bend — a flipped axis there fails this test —, the floor circle's fallbacks in
 * step and write): every f64 of the tail state and the written pose must be bit-identical on
 * every frame (tolerance: none). Adapted from the review's fuzz scripts. Not reached here: the
 * aim's anti-parallel swing (a 180° turn inside the parent frame, which the bend limit
 * prevents) and the write's anti-parallel floor re-aim.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { createBitrigWorld, type BitrigWorld } from '../../core/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailLinkIndex } from '../../core/tailSetup';
import { tailBackend } from '../../core/wasm/tailAccel';
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
  const binding = bindSkeleton(world, src, { tail: { ...spec.tail } });
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
function snap(w: BitrigWorld) {
  const out = new Map<string, Buffer>();
  for (const c of ['TailChain', 'TailParticle', 'BendState'] as const) {
    const comp = w.components[c] as unknown as Record<string, unknown>;
    for (const key of Object.keys(comp)) { const v = comp[key]; if (ArrayBuffer.isView(v)) out.set(c + '.' + key, Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength))); }
  }
  out.set('pose.localR', Buffer.from(new Uint8Array(w.pose.localR.buffer, w.pose.localR.byteOffset, w.pose.localR.byteLength)));
  out.set('pose.worldM', Buffer.from(new Uint8Array(w.pose.worldM.buffer, w.pose.worldM.byteOffset, w.pose.worldM.byteLength)));
  return out;
}
function firstDiff(a: Buffer, b: Buffer) { for (let i = 0; i < a.length; i += 8) if (!a.subarray(i, i + 8).equals(b.subarray(i, i + 8))) return i / 8; return -1; }
/** One seeded random world pair; returns '' or the first difference. */
function runSeed(s: number): string {
  seed = s;
  const specs = mkSpecs();
  const wj = createBitrigWorld({ entities: 2, bones: 8, wasm: false });
  const ww = createBitrigWorld({ entities: 2, bones: 8, wasm: true });
  const cj = specs.map((sp) => bindChar(wj, sp)), cw = specs.map((sp) => bindChar(ww, sp));
  for (let f = 0; f < 200; f++) {
    const dt = DTS[Math.floor(rnd() * DTS.length)]!;
    if (f === 50) { // pose slots grow mid-run (a 300-bone character with no tail)
      for (const w of [wj, ww]) {
        const n = 300; const names = Array.from({ length: n }, (_, i) => 'B' + i); const parents = names.map((_, i) => i - 1);
        bindSkeleton(w, { names, parents, rest: names.map(() => ({ t: [0, 0.01, 0], r: [0, 0, 0, 1], s: [1, 1, 1] })) });
      }
    }
    if (f === 60 && cj.length > 2) { unbindSkeleton(cj[1]!.binding); unbindSkeleton(cw[1]!.binding); cj.splice(1, 1); cw.splice(1, 1); }
    if (f === 65) { const sp = mkSpecs(); for (const x of sp) { cj.push(bindChar(wj, x)); cw.push(bindChar(ww, x)); } }
    cj.forEach((c, i) => drive(c, f, i * 0.37)); cw.forEach((c, i) => drive(c, f, i * 0.37));
    update(wj, dt); update(ww, dt);
    if (tailBackend(ww) !== 'wasm-simd') return 'the wasm world fell back to JavaScript';
    const a = snap(wj), b = snap(ww);
    for (const [k, v] of a) { const d = firstDiff(v, b.get(k)!); if (d >= 0) return `seed ${s} frame ${f}: ${k}[${d}] differs`; }
  }
  return '';
}

function mkDegenerate(wasm: boolean) {
  const world = createBitrigWorld({ wasm });
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
/** Tails hanging straight down and flipped straight up (anti-parallel swings), floors above the tip, zero frequency. */
function runDegenerate(): string {
  const J = mkDegenerate(false), W = mkDegenerate(true);
  for (let f = 0; f < 60; f++) {
    for (const X of [J, W]) {
      const pose = X.world.pose;
      for (const { b, rest } of X.bs) {
        for (let i = 0; i < rest.length; i++) { const s = b.slotOf[i]!; for (let j = 0; j < 3; j++) pose.localT[s * 3 + j] = rest[i]!.t[j]!; for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = rest[i]!.r[j]!; }
        beginCharacterFrame(b);
      }
      if (f === 5 || f === 30) for (const { b } of X.bs) {
        // flip link 1's particle straight above its head (exactly anti-parallel to rest), at rest
        const eid = b.tails[0]!.eid; const k = tailLinkIndex(X.world, eid, 1);
        const P = X.world.components.TailParticle; const k0 = tailLinkIndex(X.world, eid, 0);
        const hy = P.pos[k0 * 3 + 1]!;
        P.pos[k * 3 + 1] = hy + 0.1; P.vel[k * 3] = 0; P.vel[k * 3 + 1] = 0; P.vel[k * 3 + 2] = 0;
      }
      update(X.world, 1 / 60);
    }
    const a = snap(J.world), b = snap(W.world);
    for (const [k, v] of a) if (!v.equals(b.get(k)!)) return `frame ${f}: ${k} differs`;
  }
  return '';
}

describe('WebAssembly tail step: randomised and degenerate worlds (bit-identical to the JavaScript step)', () => {
  test('12 seeded random worlds: 1-8 links, option extremes, floors, mirrored and squashed anchors, zero-length links, 0-0.2 s frames, binds, unbinds and pose growth mid-run', () => {
    for (let s = 1; s <= 12; s++) expect(runSeed(s)).toBe('');
  });
  test('degenerate directions: particles flipped exactly opposite their rest direction, a floor above the tip, zero frequency', () => {
    expect(runDegenerate()).toBe('');
  });
});
