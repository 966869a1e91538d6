/**
 * A game that advances its own AnimationMixer and then calls `animator.update(dt)` (no `mixer`
 * option, or `updateMixer: false`): bitrig must read this frame's clip pose. It used to put
 * last frame's animated pose back on the driven bones before reading (a guard against three's
 * mixer skipping held keys), which, after the game's own mixer update, froze every driven bone
 * at the first frame's pose (review 22). Compared with a mixer-only twin.
 */
import { describe, expect, test } from 'vitest';
import { AnimationClip, AnimationMixer, Quaternion, QuaternionKeyframeTrack, Vector3, type Bone } from 'three';
import { createAnimator, characterToThree } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { linkEl, linkIndex } from '../../core/components/tail';
import { assetPath } from '../fixtures/assets';
import { loadGlbFileThree } from '../helpers/loadThree';

const DT = 1 / 60;
const MODES = ['wrapped mixer', 'updateMixer: false', 'no mixer option'] as const;

function builtin() {
  const t = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
  const mixer = new AnimationMixer(t.root);
  mixer.clipAction(t.clips.find((c) => c.name === 'walk')!).play();
  return { ...t, mixer };
}

describe('the game advances its own mixer', () => {
  for (const mode of MODES) {
    test(`${mode}: with scene IK at stance 0 and not grounded, the legs and hips equal the clip every frame (1e-6 rad: the resolution of three's angleTo; 1e-9 m); the bones bitrig drives are not frozen`, () => {
      const a = builtin(), ref = builtin();
      const an = createAnimator(a.root, { sceneIK: true, ...(mode === 'wrapped mixer' ? { mixer: a.mixer } : mode === 'updateMixer: false' ? { mixer: a.mixer, updateMixer: false } : {}) });
      const names = ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightUpLeg', 'RightLeg', 'RightFoot'];
      const bone = (bones: Bone[], n: string): Bone => bones.find((b) => b.name === n)!;
      let worst = 0, worstT = 0, moved = 0;
      const first = bone(a.bones, 'LeftUpLeg').quaternion.clone();
      for (let f = 0; f < 120; f++) {
        ref.mixer.update(DT);
        if (mode !== 'wrapped mixer') a.mixer.update(DT);
        an.update(DT, { feet: [0, 0], grounded: false });
        for (const n of names) {
          const b = bone(a.bones, n), r = bone(ref.bones, n);
          worst = Math.max(worst, b.quaternion.angleTo(r.quaternion));
          worstT = Math.max(worstT, b.position.distanceTo(r.position));
        }
        moved = Math.max(moved, bone(a.bones, 'LeftUpLeg').quaternion.angleTo(first));
      }
      expect(moved, 'the walk moves the thigh').toBeGreaterThan(0.1);
      expect(worst).toBeLessThan(1e-6);
      expect(worstT).toBeLessThan(1e-9);
    });
  }
});

describe('the game advances its own mixer: a clip that keys the tail (quaternius-fox.glb Gallop)', () => {
  for (const mode of MODES) {
    test(`${mode}: the tail rides this frame's clip pose (rest within 0.05° of the mixer-only twin's tail from frame 10 on), rest source 'animation'`, async () => {
      const g = await loadGlbFileThree(assetPath('quaternius-fox'));
      const ref = await loadGlbFileThree(assetPath('quaternius-fox'));
      const mixer = new AnimationMixer(g.scene), mref = new AnimationMixer(ref.scene);
      mixer.clipAction(g.animations.find((c) => c.name === 'Gallop')!).play();
      mref.clipAction(ref.animations.find((c) => c.name === 'Gallop')!).play();
      const an = createAnimator(g.scene, mode === 'wrapped mixer' ? { mixer } : mode === 'updateMixer: false' ? { mixer, updateMixer: false } : {});
      const C = an.world.components.TailChain, B = an.world.components.BendState;
      const eid = an.bindings[0]!.tails[0]!.eid;
      const refTail = ['Tail1', 'Tail2', 'Tail3', 'Tail4'].map((n) => ref.scene.getObjectByName(n)!);
      let worst = 0;
      for (let f = 0; f < 120; f++) {
        mref.update(DT);
        if (mode !== 'wrapped mixer') mixer.update(DT);
        an.update(DT);
        if (f < 10) continue;
        for (let i = 0; i < 4; i++) {
          const k = linkIndex(C.row[eid]!, i);
          const q = new Quaternion(B.restR[linkEl(k, 4, 0)]!, B.restR[linkEl(k, 4, 1)]!, B.restR[linkEl(k, 4, 2)]!, B.restR[linkEl(k, 4, 3)]!).normalize();
          worst = Math.max(worst, q.angleTo(refTail[i]!.quaternion) * 180 / Math.PI);
        }
      }
      expect(an.diagnostics().tails[0]!.restSource).toBe('animation');
      expect(worst).toBeLessThan(0.05);
    });
  }
});

describe('the first frame: a game mixer whose clip keys the tail (no flags to ask)', () => {
  /** The built-in character playing a walk that also swings Tail_1 (±0.4 rad about x) away from its loaded pose. */
  function wagging() {
    const t = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
    const walk = t.clips.find((c) => c.name === 'walk')!.clone();
    const rest1 = t.bones.find((b) => b.name === 'Tail_1')!.quaternion.clone();
    const key = (a: number): number[] => new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), a).multiply(rest1).toArray();
    walk.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', [0, walk.duration / 2, walk.duration], [...key(-0.4), ...key(0.4), ...key(-0.4)]));
    const mixer = new AnimationMixer(t.root);
    mixer.clipAction(walk).play();
    return { ...t, mixer };
  }
  for (const mode of ['updateMixer: false', 'no mixer option'] as const) {
    test(`${mode}: 'animation' from frame 0, and the tail equals the wrapped-mixer run's every frame (1e-9 per component; with no mixer option it showed the carried bind rest on frame 0 before)`, () => {
      const a = wagging(), ref = wagging();
      const an = createAnimator(a.root, mode === 'updateMixer: false' ? { mixer: a.mixer, updateMixer: false } : {});
      const anRef = createAnimator(ref.root, { mixer: ref.mixer });
      const tails = (bones: Bone[]): Bone[] => bones.filter((b) => /^Tail_\d$/.test(b.name));
      const [ta, tr] = [tails(a.bones), tails(ref.bones)];
      for (let f = 0; f < 90; f++) {
        a.mixer.update(DT);
        an.update(DT);
        anRef.update(DT);
        if (f === 0) expect(an.diagnostics().tails[0]!.restSource).toBe('animation');
        for (let i = 0; i < ta.length; i++) {
          const p = ta[i]!.quaternion.toArray(), q = tr[i]!.quaternion.toArray();
          for (let j = 0; j < 4; j++) expect(Math.abs(p[j]! - q[j]!), `frame ${f} ${ta[i]!.name}`).toBeLessThan(1e-9);
        }
      }
      an.dispose(); anRef.dispose();
    });
  }
  test('a loaded tail rotation a little off unit length (valid glTF: 0.99999, 0.995; three keeps it as stored) and no clip keying it: stays on the bind rest', () => {
    for (const f of [0.99999, 0.995, 1.00001]) {
      const t = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
      for (const b of t.bones) if (/^Tail_\d$/.test(b.name)) b.quaternion.set(b.quaternion.x * f, b.quaternion.y * f, b.quaternion.z * f, b.quaternion.w * f);
      const mixer = new AnimationMixer(t.root);
      mixer.clipAction(t.clips.find((c) => c.name === 'walk')!).play();
      const an = createAnimator(t.root);
      for (let k = 0; k < 10; k++) { mixer.update(DT); an.update(DT); }
      expect(an.diagnostics().tails[0]!.restSource, `length ${f}`).toBe('bind');
      an.dispose();
    }
  });
  test('a loaded pose with a bent tail and no clip keying it stays on the bind rest (the loaded pose is not taken for animation)', () => {
    const t = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
    const last = t.bones.find((b) => b.name === 'Tail_6')!;
    last.quaternion.multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), (28 * Math.PI) / 180)); // the mouse's 28°
    const mixer = new AnimationMixer(t.root);
    mixer.clipAction(t.clips.find((c) => c.name === 'walk')!).play();
    const an = createAnimator(t.root);
    for (let f = 0; f < 10; f++) { mixer.update(DT); an.update(DT); }
    expect(an.diagnostics().tails[0]!.restSource).toBe('bind');
    an.dispose();
  });
});

describe("'auto' rest source and three's action list", () => {
  test('a clip that keys the tail, cross-faded out but not stopped (three keeps it in its active list at weight 0): the chain goes back to its bind rest, the rest equal to a twin that never played it (1e-12 per component)', () => {
    const wagging = builtin(), plain = builtin();
    const walkOf = (r: ReturnType<typeof builtin>) => r.clips.find((c) => c.name === 'walk')!;
    const tailBones = wagging.bones.filter((b) => /^Tail_\d$/.test(b.name));
    const wagTracks = tailBones.map((b) => {
      const vals: number[] = [];
      for (const ang of [0.3, -0.3, 0.3]) vals.push(...b.quaternion.clone().multiply(new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), ang)).toArray());
      return new QuaternionKeyframeTrack(`${b.name}.quaternion`, [0, 0.5, 1], vals);
    });
    const wag = new AnimationClip('wag', 1, [...walkOf(wagging).tracks.filter((t) => !t.name.startsWith('Tail')), ...wagTracks]);
    const walkW = wagging.mixer.existingAction(walkOf(wagging))!, wagA = wagging.mixer.clipAction(wag);
    const aw = createAnimator(wagging.root, { mixer: wagging.mixer }), ap = createAnimator(plain.root, { mixer: plain.mixer });
    const step = (n: number): void => { for (let i = 0; i < n; i++) { aw.update(DT); ap.update(DT); } };
    step(37);
    wagA.reset().play(); walkW.crossFadeTo(wagA, 0.3, false);
    step(90);
    expect(aw.diagnostics().tails[0]!.restSource).toBe('animation');
    wagA.crossFadeTo(walkW.reset().play(), 0.3, false);
    step(120);
    const internals = wagging.mixer as unknown as { _actions: unknown[]; _nActiveActions: number };
    expect(internals._actions.indexOf(wagA), 'three still lists the faded-out action as active').toBeLessThan(internals._nActiveActions);
    expect(wagA.getEffectiveWeight()).toBe(0);
    expect(aw.diagnostics().tails[0]!.restSource).toBe('bind');
    const Bw = aw.world.components.BendState, Bp = ap.world.components.BendState;
    const rw = aw.world.components.TailChain.row[aw.bindings[0]!.tails[0]!.eid]!, rp = ap.world.components.TailChain.row[ap.bindings[0]!.tails[0]!.eid]!;
    for (let i = 0; i < 6; i++) for (let c = 0; c < 4; c++) expect(Math.abs(Bw.restR[linkEl(linkIndex(rw, i), 4, c)]! - Bp.restR[linkEl(linkIndex(rp, i), 4, c)]!)).toBeLessThan(1e-12);
  });
});
