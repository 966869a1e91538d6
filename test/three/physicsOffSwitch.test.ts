/**
 * Tail physics off shows the rest pose (README), also across an `'auto'` rest-source switch.
 * A switch seats the chain along the shown pose and eases the shown twist out through the rest
 * rotations (systems/tailClock.ts): with physics off that twist must never reach the bones
 * (review 47: they showed up to 59° off the bind rest for about 1.4 s).
 */
import { linkEl } from '../../core/components/tail';
import { describe, expect, test } from 'vitest';
import { AnimationMixer, Euler, Quaternion, QuaternionKeyframeTrack, type AnimationClip, type Bone } from 'three';
import { createAnimator, characterToThree } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { tailLinkIndex } from '../../core/tailSetup';
import { writeTailRest } from '../../core/binding';

function mk() {
  const t = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
  return { ...t, mixer: new AnimationMixer(t.root) };
}
/** The walk, and the walk with Tail_1 held at a turned pose (a clip that keys the tail). */
function clips(c: ReturnType<typeof mk>): { walk: AnimationClip; keyed: AnimationClip } {
  const walk = c.clips.find((k) => k.name === 'walk')!;
  const keyed = walk.clone();
  const q = new Quaternion().setFromEuler(new Euler(0.8, 0.3, 0.2));
  keyed.tracks.push(new QuaternionKeyframeTrack('Tail_1.quaternion', [0, keyed.duration], [...q.toArray(), ...q.toArray()]));
  return { walk, keyed };
}
const tailBones = (c: ReturnType<typeof mk>): Bone[] => c.bones.filter((b) => /^Tail_\d$/.test(b.name));
/** Largest angle (degrees) between corresponding bones. */
const worstAngle = (a: Bone[], b: Bone[]): number => Math.max(...a.map((t, i) => (t.quaternion.angleTo(b[i]!.quaternion) * 180) / Math.PI));

describe('tail physics off across a rest-source switch', () => {
  test('animation → bind: every tail bone shows the bind rest (a twin that only walked) within 0.01° on each of the 40 frames after', () => {
    const a = mk(), twin = mk();
    const ca = clips(a);
    const action = a.mixer.clipAction(ca.keyed);
    action.play();
    twin.mixer.clipAction(clips(twin).walk).play();
    const an = createAnimator(a.root, { mixer: a.mixer, tailPhysics: false });
    const tw = createAnimator(twin.root, { mixer: twin.mixer, tailPhysics: false });
    for (let f = 0; f < 30; f++) { an.update(1 / 60); tw.update(1 / 60); }
    expect(an.diagnostics().tails[0]!.restSource).toBe('animation');
    action.stop();
    a.mixer.clipAction(ca.walk).play();
    let worst = 0;
    for (let f = 0; f < 40; f++) {
      an.update(1 / 60); tw.update(1 / 60);
      worst = Math.max(worst, worstAngle(tailBones(a), tailBones(twin)));
    }
    expect(an.diagnostics().tails[0]!.restSource).toBe('bind');
    expect(worst).toBeLessThan(0.01); // (measured 59.3° before the fix, 0.000° after)
    an.dispose(); tw.dispose();
  });

  test('bind → animation: every tail bone shows the clip pose (the mixer alone on a twin) within 0.01° on each of the 40 frames after', () => {
    const a = mk(), ref = mk();
    const ca = clips(a), cr = clips(ref);
    const wa = a.mixer.clipAction(ca.walk); wa.play();
    const wr = ref.mixer.clipAction(cr.walk); wr.play();
    const an = createAnimator(a.root, { mixer: a.mixer, tailPhysics: false });
    for (let f = 0; f < 30; f++) { an.update(1 / 60); ref.mixer.update(1 / 60); }
    expect(an.diagnostics().tails[0]!.restSource).toBe('bind');
    wa.stop(); a.mixer.clipAction(ca.keyed).play();
    wr.stop(); ref.mixer.clipAction(cr.keyed).play();
    let worst = 0;
    for (let f = 0; f < 40; f++) {
      an.update(1 / 60); ref.mixer.update(1 / 60);
      worst = Math.max(worst, worstAngle(tailBones(a), tailBones(ref)));
    }
    expect(an.diagnostics().tails[0]!.restSource).toBe('animation');
    expect(worst).toBeLessThan(0.01); // (float32 keys: measured 0.006°)
    an.dispose();
  });

  test('writeTailRest (core API) while a seat twist eases out writes the rest itself, not the twisted rest rotations (1e-7: float32 rest data)', () => {
    const a = mk(), twin = mk();
    const ca = clips(a);
    const action = a.mixer.clipAction(ca.keyed);
    action.play();
    twin.mixer.clipAction(clips(twin).walk).play();
    const an = createAnimator(a.root, { mixer: a.mixer });
    const tw = createAnimator(twin.root, { mixer: twin.mixer });
    for (let f = 0; f < 30; f++) { an.update(1 / 60); tw.update(1 / 60); }
    action.stop();
    a.mixer.clipAction(ca.walk).play();
    for (let f = 0; f < 3; f++) { an.update(1 / 60); tw.update(1 / 60); }
    const b = an.bindings[0]!, eid = b.tails[0]!.eid;
    const C = an.world.components.TailChain, B = an.world.components.BendState;
    const TB = tw.world.components.BendState, teid = tw.bindings[0]!.tails[0]!.eid;
    expect(C.seatEase[eid]!).toBeGreaterThan(0.5); // the twist is easing out (0.15 s)
    const n = C.links[eid]!;
    let twisted = 0;
    for (let i = 0; i < n; i++) twisted = Math.max(twisted, Math.abs(B.restR[linkEl(tailLinkIndex(an.world, eid, i), 4, 0)]! - TB.restR[linkEl(tailLinkIndex(tw.world, teid, i), 4, 0)]!));
    expect(twisted).toBeGreaterThan(1e-3); // restR carries a twist now (the test means something)
    writeTailRest(b);
    for (let i = 0; i < n; i++) {
      const k = tailLinkIndex(an.world, eid, i), tk = tailLinkIndex(tw.world, teid, i), s = C.slot[k]!;
      for (let j = 0; j < 4; j++) expect(Math.abs(an.world.pose.localR[s * 4 + j]! - TB.restR[linkEl(tk, 4, j)]!)).toBeLessThan(1e-7); // (float32 rest data, written normalised)
    }
    an.dispose(); tw.dispose();
  });
});
