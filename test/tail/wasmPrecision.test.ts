/**
 * The float32 WebAssembly step where float32 is weakest (review 48), against the f64
 * JavaScript step, one frame from the same state (`copyTailState`), tolerances as the other
 * wasm tests: positions within 1e-5 × the tail's length, rotations within 0.01°.
 * - A link a hair from pointing opposite its rest direction (bend limit π, so nothing clamps
 *   it): `1 + r·d` cancels in float32; the step takes it as |r + d|²/2 there. Before: 0.69 × L
 *   and 81° off (the swing took the fixed fallback axis). The f64 step is well-conditioned here
 *   (a control moves the particle by the float32 quantum and changes it < 1e-6 × L).
 * - Bend limits below ~5e-4 rad: cos(θ/2) rounds to 1 in float32, so the limit needs the sine
 *   test too. Before: 5.3e-4 × L and 0.054° off at bendLimit 1e-4.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { markTailChainChanged, tailLinkIndex } from '../../core/tailSetup';
import type { PartialOptions, TailOptions } from '../../core/defaults';
import { compareTail, copyTailState, maxDiff, type TailDiff } from '../helpers/tailCompare';
import { loadRest, sourceFromWorlds } from '../helpers/skeleton';
glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

type Char = { b: CharacterBinding; rest: { t: number[]; r: number[]; s: number[] }[] };

describe('float32 WebAssembly step: near anti-parallel links and tiny bend limits', () => {
  /** Two 2-link chains hanging straight down (coupling off / on), bend limit π, no gravity or carry. */
  function straight(world: BitrigWorld, couplingRate: number): Char {
    const names = ['Hips', 'Tail_1', 'Tail_2', 'Tail_End'], parents = [-1, 0, 1, 2];
    const worlds = [1, 0.9, 0.6, 0.3].map((y) => mat4.fromTranslation(mat4.create(), [0, y, 0]));
    const src = sourceFromWorlds(names, parents, worlds);
    const b = bindSkeleton(world, src, { tail: { bendLimit: Math.PI, couplingRate, gravity: 0, carry: 0, floorEnabled: false } });
    return { b, rest: src.rest };
  }
  function frame(world: BitrigWorld, chars: Char[]): void {
    for (const c of chars) { loadRest(c.b, c.rest); beginCharacterFrame(c.b); }
    update(world, 1 / 60);
  }
  /** One frame after Tail_1's particle was put `epsDeg` from straight up (opposite its rest, down), azimuth `az`. */
  function flipped(wasm: boolean, epsDeg: number, az: number): { world: BitrigWorld; chars: Char[] } {
    const world = createBitrigWorld({ entities: 8, bones: 32, wasm });
    const chars = [straight(world, 0), straight(world, 12)];
    frame(world, chars);
    const P = world.components.TailParticle;
    for (const c of chars) {
      const eid = c.b.tails[0]!.eid, h = c.b.slotOf[1]! * 16, k = tailLinkIndex(world, eid, 0) * 3;
      const hx = world.pose.worldM[h + 12]!, hy = world.pose.worldM[h + 13]!, hz = world.pose.worldM[h + 14]!;
      const L = 0.3, e = (epsDeg * Math.PI) / 180;
      P.pos[k] = hx + L * Math.sin(e) * Math.cos(az); P.pos[k + 1] = hy + L * Math.cos(e); P.pos[k + 2] = hz + L * Math.sin(e) * Math.sin(az);
      for (let j = 0; j < 3; j++) P.vel[k + j] = 0;
      markTailChainChanged(world, eid);
    }
    frame(world, chars);
    return { world, chars };
  }
  const only = (c: Char) => (e: number): boolean => e === c.b.tails[0]!.eid;

  test('a link 0.001–0.2° from opposite its rest direction (bend limit π), coupling off and on: within 1e-5 × L and 0.01° of the f64 step', () => {
    for (const eps of [0.001, 0.03, 0.06, 0.2]) for (const az of [0.3, 2.0]) {
      const J = flipped(false, eps, az), W = flipped(true, eps, az);
      J.chars.forEach((c, i) => {
        const d = compareTail(J.world, W.world, only(c));
        expect(d.exact, `eps ${eps}° az ${az} chain ${i}`).toBe('');
        expect(d.pos, `eps ${eps}° az ${az} chain ${i}: positions / L`).toBeLessThan(1e-5);
        expect(d.rot, `eps ${eps}° az ${az} chain ${i}: rotations (°)`).toBeLessThan(0.01);
      });
    }
  });

  test('control: the f64 step there is well-conditioned (the particle moved by ~3e-8 m changes it < 1e-5 × L, < 0.01°)', () => {
    for (const eps of [0.03, 0.06, 0.2]) {
      const A = flipped(false, eps, 0.3), B = flipped(false, eps * (1 + 2e-4), 0.3 + 2e-4);
      A.chars.forEach((c) => {
        const d = compareTail(A.world, B.world, only(c));
        expect(d.pos).toBeLessThan(1e-5);
        expect(d.rot).toBeLessThan(0.01);
      });
    }
  });

  /** Chains of 3–8 links swinging with a spinning, bobbing hips. */
  function swinging(wasm: boolean, tail: PartialOptions<TailOptions>): { world: BitrigWorld; drive(f: number): void } {
    const world = createBitrigWorld({ wasm });
    const chars: (Char & { phase: number })[] = [];
    for (let c = 0; c < 8; c++) {
      const n = 3 + (c % 6);
      const names = ['Hips'], parents = [-1];
      const worlds: mat4[] = [mat4.fromTranslation(mat4.create(), [0, 0.9, 0])];
      const dir = vec3.normalize(vec3.create(), [0, -0.6, -1]);
      for (let i = 0; i < n; i++) {
        names.push(`Tail_${i + 1}`); parents.push(i);
        const p = vec3.scaleAndAdd(vec3.create(), [0, 0.85, -0.1], dir, (0.8 / n) * i);
        worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 * (i + 1)), p));
      }
      names.push('Tail_End'); parents.push(n);
      worlds.push(mat4.fromTranslation(mat4.create(), vec3.scaleAndAdd(vec3.create(), [0, 0.85, -0.1], dir, 0.8)));
      const src = sourceFromWorlds(names, parents, worlds);
      chars.push({ b: bindSkeleton(world, src, { tail }), rest: src.rest, phase: c * 0.37 });
    }
    return {
      world,
      drive(f: number): void {
        for (const c of chars) {
          const pose = world.pose, h = c.b.slotOf[0]!, t = f / 60 + c.phase;
          loadRest(c.b, c.rest);
          pose.localT[h * 3] = 0.5 * Math.sin(t * 4.7); pose.localT[h * 3 + 1] = 0.9 + 0.15 * Math.sin(t * 2.1); pose.localT[h * 3 + 2] = 0.3 * Math.cos(t * 3.3);
          const q = quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, 0.1]), 2 * Math.sin(t * 1.7));
          for (let j = 0; j < 4; j++) pose.localR[h * 4 + j] = q[j]!;
          beginCharacterFrame(c.b);
        }
      },
    };
  }

  test.each([1e-4, 0.01])('bend limit %s rad, 300 frames of swinging hips, each frame from the same state: within 1e-5 × L and 0.01° of the f64 step', (bendLimit) => {
    const J = swinging(false, { bendLimit }), W = swinging(true, { bendLimit });
    let worst: TailDiff = { pos: 0, vel: 0, rot: 0, bend: 0, worldT: 0, worldR: 0, contact: 0, exact: '' };
    for (let f = 0; f < 300; f++) {
      J.drive(f); W.drive(f);
      copyTailState(J.world, W.world);
      update(J.world, 1 / 60); update(W.world, 1 / 60);
      worst = maxDiff(worst, compareTail(J.world, W.world));
    }
    expect(worst.exact).toBe('');
    expect(worst.pos).toBeLessThan(1e-5);
    expect(worst.rot).toBeLessThan(0.01);
  });
});
