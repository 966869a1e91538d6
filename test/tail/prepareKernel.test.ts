/**
 * The tail clock's per-chain preparation in the WebAssembly kernel (wasm/tailStep.ts
 * `prepareChains`, the common case of systems/tailClock.ts `tailPrepareChain`) against the
 * JavaScript preparation: the same operations, so this frame's anchor (`anchorCur`), the step
 * count, the reset and exact-world flags are bit-identical for anchors turned every way (all
 * four branches of the matrix-to-quaternion), uniformly and non-uniformly scaled, mirrored,
 * moving and teleporting — the chains the kernel leaves (a reset, a mirror flip, a teleport)
 * prepared by JavaScript alike.
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { makeTailRig } from './rig';
import { update } from '../../systems/pipeline';
import { tailBackend } from '../../runtime/kernels';
import { bytesOf } from '../helpers/worldBytes';
import { createRng as rng } from '../helpers/rng';


const FIELDS = ['anchorCur', 'anchorPrev', 'anchorStep', 'stepsLastFrame', 'resetLastFrame', 'exactWorld', 'mirrored', 'initialised'] as const;

describe('tail clock preparation in the WebAssembly kernel', () => {
  test('anchors and flags bit-identical to the JavaScript preparation over 400 frames of anchors turned, scaled, mirrored, moved and teleported', () => {
    const wa = makeTailRig({ links: 4, withEnd: true, world: { wasm: true } });
    const js = makeTailRig({ links: 4, withEnd: true, world: { wasm: false } });
    expect(tailBackend(wa.world)).toBe('wasm-simd');
    expect(tailBackend(js.world)).toBe('js');
    const rand = rng(7);
    const m = mat4.create(), q = quat.create();
    let kernelFrames = 0;
    for (let f = 0; f < 400; f++) {
      // segments of 40 frames: uniform, non-uniform, mirrored (x −1), mirrored and squashed
      const seg = Math.floor(f / 40) % 4;
      const s = 0.5 + 1.5 * rand();
      const scale: [number, number, number] = [s * (seg >= 2 ? -1 : 1), s * (seg % 2 === 1 ? 1.3 : 1), s];
      quat.setAxisAngle(q, [rand() - 0.5, rand() - 0.5, rand() - 0.5].map((v) => v + 1e-3) as [number, number, number], (rand() * 2 - 1) * Math.PI);
      quat.normalize(q, q);
      const pos: [number, number, number] = [0.3 * Math.sin(f * 0.1), 1 + 0.1 * rand(), f % 97 === 50 ? 500 : 0.2 * Math.cos(f * 0.07)];
      mat4.fromRotationTranslationScale(m, q, pos, scale);
      for (const r of [wa, js]) {
        const slot = r.binding.slotOf[0]!;
        r.world.pose.worldM.set(m, slot * 16);
        update(r.world, f % 11 === 5 ? 0.04 : 1 / 60);
      }
      const Cw = wa.world.components.TailChain, Cj = js.world.components.TailChain;
      for (const k of FIELDS) {
        const a = bytesOf(Cw[k].subarray(wa.eid * (k.startsWith('anchor') ? 8 : 1), (wa.eid + 1) * (k.startsWith('anchor') ? 8 : 1)));
        const b = bytesOf(Cj[k].subarray(js.eid * (k.startsWith('anchor') ? 8 : 1), (js.eid + 1) * (k.startsWith('anchor') ? 8 : 1)));
        expect(a.equals(b), `frame ${f}: TailChain.${k}`).toBe(true);
      }
      if (Cw.resetLastFrame[wa.eid] === 0 && Cw.stepsLastFrame[wa.eid]! > 0) kernelFrames++;
    }
    expect(kernelFrames).toBeGreaterThan(300); // (most frames took the kernel's path)
  });
});
