/**
 * The tail clock's per-chain preparation in the WebAssembly kernel (`prepareChains`, plus
 * `tailPrepareChain` for the chains it leaves) against `tailPrepareChain` for every chain, on
 * the same state every frame: the whole WebAssembly memory compared byte for byte (but `ents`,
 * which the kernel reorders). Cases: first frame, resets, teleports (one exactly at the
 * threshold), NaN and infinite anchors, mirrored anchors and mirror flips, non-uniform, nearly
 * uniform, zero and negative scales, 'animation' and 'bind' rest sources, seats easing out,
 * 1-link chains and chains without `Tail_End`, dt 0, 1/500 and 1/5, unbind/rebind and capacity
 * growth. Tolerance: none (bytes). Review 7's differential; every mutant of the kernel's guards
 * it was tried on fails it.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat } from 'gl-matrix';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailPrepareChain } from '../../systems/tailClock';
import { tailBackend } from '../../runtime/kernels';
import { reseatTailsAtPose } from '../../adapters/animatorCore';
import { chainSource } from '../helpers/chainSource';
import { createRng as rng } from '../helpers/rng';

glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);


describe('tail clock preparation: kernel = JavaScript on the same state', () => {
  test('whole wasm memory identical after the preparation, many cases', () => {
    const world = createBitrigWorld({ wasm: true, chains: 8, entities: 16 });
    expect(tailBackend(world)).toBe('wasm-simd');
    const rand = rng(11);
    const links = [6, 1, 3, 6, 2, 4, 6, 1, 5];
    let bindings = links.map((n, i) => bindSkeleton(world, chainSource(n, i % 3 !== 1), { tail: { restSource: i === 3 ? 'animation' : i === 4 ? 'bind' : 'auto', teleportDistance: 0.5 } }));
    for (const b of bindings) beginCharacterFrame(b);
    let frames = 0, kernelDone = 0, mismatches: string[] = [];
    const m = mat4.create(), q = quat.create();
    for (let f = 0; f < 300; f++) {
      // capacity growth and recycling
      if (f === 100) { bindings.push(...[6, 3, 6, 1, 2, 6, 6, 4].map((n) => bindSkeleton(world, chainSource(n)))); for (const b of bindings) beginCharacterFrame(b); }
      if (f === 150) { unbindSkeleton(bindings[2]!); bindings.splice(2, 1); }
      if (f === 160) { const b = bindSkeleton(world, chainSource(5)); beginCharacterFrame(b); bindings.push(b); }
      const accel = world.tailAccel!;
      const realKernel = accel.kernel;
      // the same-state comparison hook
      const wrapped = Object.assign(Object.create(null), realKernel) as typeof realKernel;
      wrapped.prepareChains = (count: number, steps: number): number => {
        const mem = new Uint8Array(accel.memory.buffer);
        const s0 = mem.slice();
        const ids = Array.from(accel.ents.subarray(0, count));
        const left = realKernel.prepareChains(count, steps);
        kernelDone += count - left;
        for (let e = 0; e < left; e++) tailPrepareChain(world, accel.ents[e]!, steps);
        const m1 = mem.slice();
        mem.set(s0);
        for (const id of ids) tailPrepareChain(world, id, steps);
        const m2 = mem.slice();
        const eo = accel.ents.byteOffset, ee = eo + accel.ents.byteLength;
        for (let i = 0; i < m1.length; i++) {
          if (i >= eo && i < ee) continue;
          if (m1[i] !== m2[i]) { mismatches.push(`frame ${f} byte ${i} (kernel ${m1[i]} js ${m2[i]})`); break; }
        }
        mem.set(m1);
        return 0;
      };
      accel.kernel = wrapped;
      bindings.forEach((b, i) => {
        const ax = Math.hypot(0.3, 1, 0.2 * i);
        quat.setAxisAngle(q, [0.3 / ax, 1 / ax, 0.2 * i / ax], (rand() * 2 - 1) * Math.PI);
        const seg = Math.floor(f / 30) % 5;
        let s = 0.5 + rand();
        const sx = (seg === 2 || (i === 5 && f % 13 === 0)) ? -s : s; // mirrors, mirror flips
        const sy = seg === 1 || i === 6 ? s * 1.3 : seg === 3 ? s * (1 + 1e-10) : s; // non-uniform, nearly uniform
        const sz = i === 7 && f % 17 === 3 ? 0 : i === 8 && f % 19 === 4 ? -s : s; // zero, negative
        let pos: number[] = [i * 0.01 * Math.sin(0.2 * f), 1, 0.01 * Math.cos(0.13 * f)];
        if (i === 1 && f % 23 === 7) pos = [0.5, 1, 0]; // (teleport-ish)
        mat4.fromRotationTranslationScale(m, q, pos as [number, number, number], [sx, sy, sz]);
        if (i === 0 && f % 29 === 11) m[13] = NaN;
        if (i === 2 && f % 31 === 12) m[0] = Infinity;
        const C = world.components.TailChain;
        const eid = b.tails[0]?.eid;
        if (eid !== undefined && i === 4 && f % 37 === 5) {
          // exactly at the threshold: anchorPrev x + lim
          const lim = C.teleportDistance[eid]! * C.unitScale[eid]!;
          const pm = C.mirrored[eid] === 1 ? -1 : 1;
          mat4.fromRotationTranslationScale(m, [0, 0, 0, 1], [pm * (C.anchorPrev[eid * 8]! + lim), C.anchorPrev[eid * 8 + 1]!, C.anchorPrev[eid * 8 + 2]!], [pm, 1, 1]);
        }
        world.pose.worldM.set(m, b.slotOf[0]! * 16);
        if (eid !== undefined && i === 3 && f % 41 === 9) C.initialised[eid] = 0;
        if (i === 6 && f % 43 === 10) reseatTailsAtPose(b, world.pose.localR.slice(b.slotOf[0]! * 4, (b.slotOf[0]! + b.boneCount) * 4));
      });
      const dt = f % 7 === 3 ? 1 / 500 : f % 11 === 5 ? 1 / 5 : f % 13 === 6 ? 0 : 1 / 60;
      update(world, dt);
      if (world.tailAccel === accel) accel.kernel = realKernel;
      frames++;
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
    expect(kernelDone).toBeGreaterThan(1000);
  });
});
