/**
 * The three.js adapter on the repository's real files: Quaternius fox (Tail1…Tail8 under `Back`, arbitrary units) and the Khronos fox
 * (b_Tail01…03, centimetres), each with its Walk clip.
 */
import { linkEl } from '../../core/components/tail';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { AnimationMixer, type Bone, type Object3D } from 'three';
import { tailLinkIndex } from '../../core/tailSetup';
import { createAnimator } from '../../adapters/three';
import { loadGlbFileThree } from '../helpers/loadThree';
import { modelsDir } from '../fixtures/assets';

function bonesOf(root: Object3D): Bone[] {
  const out: Bone[] = [];
  root.traverse((o) => { if ((o as Bone).isBone) out.push(o as Bone); });
  return out;
}

const cases = [
  { file: 'quaternius-fox.glb', clip: 'Walk', tails: 8, firstTail: 'Tail1' },
  { file: 'khronos-fox.glb', clip: 'Walk', tails: 3, firstTail: 'b_Tail01_012' },
];

describe('createAnimator on real files', () => {
  for (const c of cases) {
    test(`${c.file} ${c.clip}: the tail swings (root ≥ 5° off its rest), stays within the bend limit, other bones equal the mixer's output`, async () => {
      // Two copies: one driven by the mixer alone (reference), one through the animator.
      const a = await loadGlbFileThree(path.join(modelsDir, c.file));
      const b = await loadGlbFileThree(path.join(modelsDir, c.file));
      const clipA = a.animations.find((x) => x.name === c.clip)!;
      const clipB = b.animations.find((x) => x.name === c.clip)!;
      const mixA = new AnimationMixer(a.scene);
      mixA.clipAction(clipA).play();
      const mixB = new AnimationMixer(b.scene);
      mixB.clipAction(clipB).play();
      const animator = createAnimator(b.scene, { mixer: mixB });
      const diag0 = animator.diagnostics();
      expect(diag0.tails.length).toBe(1);
      expect(diag0.tails[0]!.bones.length).toBe(c.tails);
      expect(diag0.tails[0]!.bones[0]).toBe(c.firstTail);
      if (c.file.startsWith('khronos')) expect(diag0.unitScale).toBe(100);

      const bonesA = bonesOf(a.scene);
      const bonesB = bonesOf(b.scene);
      const tailNames = new Set(diag0.tails[0]!.bones);
      const tailB = bonesB.filter((x) => tailNames.has(x.name));
      let maxRootOff = 0;
      let maxBend = 0;
      const world = animator.world;
      const B = world.components.BendState;
      const eid = animator.bindings[0]!.tails[0]!.eid;
      for (let f = 0; f < 240; f++) {
        mixA.update(1 / 60);
        animator.update(1 / 60);
        // every non-tail bone equals the mixer's output exactly
        for (let i = 0; i < bonesA.length; i++) {
          const x = bonesA[i]!, y = bonesB[i]!;
          if (tailNames.has(y.name)) continue;
          expect(y.quaternion.equals(x.quaternion)).toBe(true);
          expect(y.position.equals(x.position)).toBe(true);
        }
        // root link off its rest rotation (the rest the spring rides on this frame)
        const root = tailB[0]!;
        const q = root.quaternion;
        const r0 = tailLinkIndex(animator.world, eid, 0);
        const r = [0, 1, 2, 3].map((c) => B.restR[linkEl(r0, 4, c)]!);
        const d = Math.min(1, Math.abs(q.x * r[0]! + q.y * r[1]! + q.z * r[2]! + q.w * r[3]!));
        maxRootOff = Math.max(maxRootOff, 2 * Math.acos(d));
        for (const ang of animator.diagnostics().tails[0]!.bendAngles) maxBend = Math.max(maxBend, ang);
        for (const t of tailB) expect(Number.isFinite(t.quaternion.w)).toBe(true);
      }
      expect(maxRootOff).toBeGreaterThanOrEqual(5 * Math.PI / 180);
      // bend limit 30° + 0.5° tolerance (floor contact may take precedence: both foxes stand
      // with the tail well above the floor in Walk)
      expect(maxBend).toBeLessThan(30.5 * Math.PI / 180);
      console.log(`${c.file}: root link max ${(maxRootOff * 180 / Math.PI).toFixed(1)}° off rest, max bend ${(maxBend * 180 / Math.PI).toFixed(1)}°, rest source ${animator.diagnostics().tails[0]!.restSource}`);
      animator.dispose();
    });
  }
});
