/**
 * The tail clock's per-step anchors in the WebAssembly kernel (wasm/tailStep.ts `anchorSteps`,
 * the common case of systems/tailClock.ts `tailClockStep`) against the JavaScript clock: the
 * same operations, so `anchorStep` is bit-identical after every internal step — for anchors
 * turning slowly (the kernel's normalised lerp) and fast (the full slerp, left to JavaScript),
 * at fractional step times (two steps in a frame, frames shorter than a step) and after a
 * rotation sign flip (the shorter arc).
 */
import { describe, expect, test } from 'vitest';
import { mat4, quat } from 'gl-matrix';
import { makeTailRig } from './rig';
import { tailClockBegin, tailClockStep } from '../../systems/tailClock';
import { tailStep } from '../../systems/tailStep';
import { tailWrite } from '../../systems/tailWrite';
import { tailBackend } from '../../runtime/kernels';
import { bytesOf } from '../helpers/worldBytes';

describe('tail clock anchors per step in the WebAssembly kernel', () => {
  test('anchorStep bit-identical to the JavaScript clock after every step, lerp and slerp cases, fractional times', () => {
    const wa = makeTailRig({ links: 3, withEnd: true, world: { wasm: true } });
    const js = makeTailRig({ links: 3, withEnd: true, world: { wasm: false } });
    expect(tailBackend(wa.world)).toBe('wasm-simd');
    expect(tailBackend(js.world)).toBe('js');
    const m = mat4.create(), q = quat.create();
    let lerpSteps = 0, slerpSteps = 0, fractional = 0;
    for (let f = 0; f < 300; f++) {
      // slow turns (within the lerp threshold) most frames, a fast one every 7th
      const angle = f % 7 === 3 ? 0.9 * Math.sin(f) : 0.2 * Math.sin(f * 0.05);
      quat.setAxisAngle(q, [0.3, 1, -0.2], angle);
      quat.normalize(q, q);
      const pos: [number, number, number] = [0.3 * Math.sin(f * 0.1), 1 + 0.05 * Math.cos(f * 0.3), 0.2 * Math.cos(f * 0.07)];
      const s = 1 + 0.1 * Math.sin(f * 0.2);
      mat4.fromRotationTranslationScale(m, q, pos, [s, s, s]);
      const dt = f % 5 === 1 ? 0.04 : f % 5 === 2 ? 0.007 : 1 / 60;
      for (const r of [wa, js]) r.world.pose.worldM.set(m, r.binding.slotOf[0]! * 16);
      const steps = [wa, js].map((r) => tailClockBegin(r.world, dt));
      expect(steps[0]).toBe(steps[1]);
      for (let st = 0; st < steps[0]!; st++) {
        for (const r of [wa, js]) tailClockStep(r.world, st);
        const Cw = wa.world.components.TailChain, Cj = js.world.components.TailChain;
        const a = bytesOf(Cw.anchorStep.subarray(wa.eid * 8, wa.eid * 8 + 8)), b = bytesOf(Cj.anchorStep.subarray(js.eid * 8, js.eid * 8 + 8));
        expect(a.equals(b), `frame ${f}, step ${st}: anchorStep`).toBe(true);
        if (Cw.stepsLastFrame[wa.eid]! > 0) {
          const P = Cw.anchorPrev, C = Cw.anchorCur, o = wa.eid * 8 + 3;
          const cos = Math.abs(P[o]! * C[o]! + P[o + 1]! * C[o + 1]! + P[o + 2]! * C[o + 2]! + P[o + 3]! * C[o + 3]!);
          if (cos > 0.9995) lerpSteps++; else slerpSteps++;
          if (Cw.anchorStep[wa.eid * 8]! !== Cw.anchorCur[wa.eid * 8]!) fractional++;
        }
        for (const r of [wa, js]) tailStep(r.world);
      }
      for (const r of [wa, js]) tailWrite(r.world);
    }
    expect(lerpSteps).toBeGreaterThan(100);
    expect(slerpSteps).toBeGreaterThan(20);
    expect(fractional).toBeGreaterThan(20);
  });
});
