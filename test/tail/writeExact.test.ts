/**
 * The WebAssembly write (wasm/tailStep.ts `writePair`, with its per-chain finish: the anchor
 * copy and a `Tail_End` helper's world matrix, as a pair or per chain) against the JavaScript
 * write (systems/tailWrite.ts, core/tailFinish.ts) on the same state: bit-identical pose and
 * tail arrays, frame after frame, on chains of several link counts (a chain left without a
 * partner is paired with itself) and end helpers the clip turns, moves and scales, anchors turned, moved, mirrored and non-uniformly scaled
 * (exact world matrices: the JavaScript finish), and frames of 0–2 steps (display blends).
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailWrite } from '../../systems/tailWrite';
import { tailBackend } from '../../runtime/kernels';
import { expectSameBytes, worldSnapshot } from '../helpers/worldBytes';
import { chainSource } from '../helpers/chainSource';

// f64 matrices: float32 ones make the anchor's scale non-uniform at 1e-8 (exact world matrices everywhere)
glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

describe('WebAssembly write against the JavaScript write', () => {
  test('bit-identical pose and tail arrays on the same state over 120 frames (pairs, self-paired chains, Tail_End helpers, mirrored and squashed anchors, 0–2 steps a frame)', () => {
    const world = createBitrigWorld({ wasm: true });
    expect(tailBackend(world)).toBe('wasm-simd');
    const links = [6, 6, 6, 3, 3, 1, 6, 4];
    const bindings = links.map((n) => bindSkeleton(world, chainSource(n)));
    for (const b of bindings) beginCharacterFrame(b);
    const m = mat4.create(), q = quat.create();
    for (let f = 0; f < 120; f++) {
      bindings.forEach((b, i) => {
        const ax = Math.hypot(0.3, 1, 0.2 * i);
        quat.setAxisAngle(q, [0.3 / ax, 1 / ax, 0.2 * i / ax], 0.4 * Math.sin(0.1 * f + i));
        const sx = i === 2 || i === 5 ? -1.2 : 1.2, sy = i === 6 ? 1.5 : 1.2; // mirrored; squashed
        mat4.fromRotationTranslationScale(m, q, [i * 2 + 0.3 * Math.sin(0.2 * f), 1, 0.2 * Math.cos(0.13 * f)], [sx, sy, 1.2]);
        world.pose.worldM.set(m, b.slotOf[0]! * 16);
        // the clip turns, moves and scales the end helper (its world matrix: parent · its local T, R, S)
        const end = b.slotOf[b.boneCount - 1]!, c = Math.cos(0.05 * f + i), sn = Math.sin(0.05 * f + i);
        const r = [0.1 * c, 0.2 * sn, -0.3, 0];
        r[3] = Math.sqrt(1 - r[0]! * r[0]! - r[1]! * r[1]! - r[2]! * r[2]!);
        world.pose.localR.set(r, end * 4);
        world.pose.localT.set([0.01 * sn, -0.07, -0.12 + 0.01 * c], end * 3);
        world.pose.localS.set([1, 1.1 + 0.05 * c, 0.9], end * 3);
      });
      update(world, f % 7 === 3 ? 1 / 144 : f % 11 === 5 ? 1 / 30 : 1 / 60);
      const before = worldSnapshot(world, 'tail');
      tailWrite(world); // the WebAssembly write again: the same state gives the same bytes
      expectSameBytes(before, worldSnapshot(world, 'tail'), `frame ${f}: WebAssembly write repeated`);
      const accel = world.tailAccel;
      world.tailAccel = null; // the JavaScript write on the same arrays
      try { tailWrite(world); } finally { world.tailAccel = accel; }
      expectSameBytes(before, worldSnapshot(world, 'tail'), `frame ${f}: JavaScript write vs WebAssembly write`);
    }
    // (most chains composed their own world matrices and a leaf Tail_End: the write's pair finish)
    const C = world.components.TailChain;
    expect(bindings.filter((b) => C.endLeaf[b.tails[0]!.eid] === 1 && C.exactWorld[b.tails[0]!.eid] === 0).length).toBeGreaterThan(4);
  });

  test('a Tail_End helper whose pose slot was released (owner −1) is left alone by both writes, in a pair and alone', () => {
    const world = createBitrigWorld({ wasm: true });
    expect(tailBackend(world)).toBe('wasm-simd');
    const links = [6, 6, 3];
    const bindings = links.map((n) => bindSkeleton(world, chainSource(n)));
    for (const b of bindings) beginCharacterFrame(b);
    const C = world.components.TailChain;
    const endOf = (i: number): number => bindings[i]!.slotOf[bindings[i]!.boneCount - 1]!;
    const m = mat4.create(), q = quat.create();
    const released = [0, 2]; // one chain of a pair of six-link chains, and the three-link chain alone
    let frozen: Float64Array[] = [], kept = new Float64Array(16);
    for (let f = 0; f < 40; f++) {
      bindings.forEach((b, i) => {
        quat.setAxisAngle(q, [0, 1, 0], 0.4 * Math.sin(0.1 * f + i));
        mat4.fromRotationTranslationScale(m, q, [i * 2 + 0.3 * Math.sin(0.2 * f), 1, 0], [1, 1, 1]);
        world.pose.worldM.set(m, b.slotOf[0]! * 16);
      });
      if (f === 10) {
        // (validity first: the helpers are leaves the write finishes itself)
        for (const i of released) expect(C.endLeaf[bindings[i]!.tails[0]!.eid]).toBe(1);
        for (const i of released) world.pose.owner[endOf(i)] = -1;
        frozen = released.map((i) => world.pose.worldM.slice(endOf(i) * 16, endOf(i) * 16 + 16));
        kept = world.pose.worldM.slice(endOf(1) * 16, endOf(1) * 16 + 16);
      }
      update(world, 1 / 60);
      const before = worldSnapshot(world, 'tail');
      const accel = world.tailAccel;
      world.tailAccel = null; // the JavaScript write on the same arrays
      try { tailWrite(world); } finally { world.tailAccel = accel; }
      expectSameBytes(before, worldSnapshot(world, 'tail'), `frame ${f}: JavaScript write vs WebAssembly write`);
      if (f >= 10) {
        released.forEach((i, k) => expect(Array.from(world.pose.worldM.subarray(endOf(i) * 16, endOf(i) * 16 + 16)), `frame ${f}, chain ${i}`).toEqual(Array.from(frozen[k]!)));
      }
    }
    // the partner's helper, still owned, kept following its tail (moved more than 1 mm since frame 10)
    const e1 = endOf(1) * 16;
    expect(Math.hypot(world.pose.worldM[e1 + 12]! - kept[12]!, world.pose.worldM[e1 + 13]! - kept[13]!, world.pose.worldM[e1 + 14]! - kept[14]!)).toBeGreaterThan(1e-3);
  });
});
