/**
 * The automatic colliders on a real animal (the Quaternius fox, `demo/models`) and the built-in
 * character, through the three.js adapter: every clip, tail gravity 9.8 m/s² at 0.3 Hz, every
 * frame of a pass through the clip sampled: no tail link segment inside a leg or
 * body capsule by more than 2 % of its radius (a link whose head lies inside a capsule — the
 * tail's root in the hips — is left to the links beyond: the stage's contract), link lengths
 * kept (1e-4), no NaN. The fox's tail does meet its legs (contacts counted; with the chain
 * naming no collider group the same clip puts it inside them), so the test can fail; the
 * built-in character's forward plane keeps its tail behind its legs in every clip.
 */
import { describe, expect, test } from 'vitest';
import { AnimationMixer, type AnimationClip, type Object3D } from 'three';
import { vec3 } from 'gl-matrix';
import { createAnimator, characterToThree, type Animator } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { SHAPE_STRIDE } from '../../core/components/collider';
import { tailLinkIndex } from '../../core/tailSetup';
import { linkEl } from '../../core/components/tail';
import { loadGlbThree } from '../helpers/loadThree';
import { assetBytes } from '../fixtures/assets';
import { deepestPenetration } from './fixture';

const HANGING = { gravity: 9.8, frequency: 0.3 };
const FPS = 60;

/** The tail joints of every chain (world; head of link 0 … tip of the last link). */
function chainJoints(a: Animator): vec3[][] {
  const w = a.world, pose = w.pose, { TailChain: C, BendState: B } = w.components;
  return a.bindings.flatMap((b) => b.tails.map((t) => {
    const n = C.links[t.eid]!, out: vec3[] = [];
    for (let i = 0; i < n; i++) { const s = C.slot[tailLinkIndex(w, t.eid, i)]! * 16; out.push(vec3.fromValues(pose.worldM[s + 12]!, pose.worldM[s + 13]!, pose.worldM[s + 14]!)); }
    const k = tailLinkIndex(w, t.eid, n - 1), m = C.slot[k]! * 16, W = pose.worldM;
    const tx = B.tipLs[linkEl(k, 3, 0)]!, ty = B.tipLs[linkEl(k, 3, 1)]!, tz = B.tipLs[linkEl(k, 3, 2)]!;
    out.push(vec3.fromValues(W[m]! * tx + W[m + 4]! * ty + W[m + 8]! * tz + W[m + 12]!, W[m + 1]! * tx + W[m + 5]! * ty + W[m + 9]! * tz + W[m + 13]!, W[m + 2]! * tx + W[m + 6]! * ty + W[m + 10]! * tz + W[m + 14]!));
    return out;
  }));
}

/** The animator's colliders now (world), from the frame's shapes (`shapeCur`). */
function capsules(a: Animator): { a: vec3; b: vec3; r: number }[] {
  const K = a.world.components.TailCollider;
  return a.colliders.map((c) => {
    const o = c * SHAPE_STRIDE, s = K.shapeCur;
    return { a: vec3.fromValues(s[o]!, s[o + 1]!, s[o + 2]!), b: vec3.fromValues(s[o + 3]!, s[o + 4]!, s[o + 5]!), r: s[o + 6]! };
  });
}

function runClips(root: Object3D, clips: AnimationClip[], colliderGroups = 3): { clip: string; worst: number; contacts: number; lenErr: number; finite: boolean }[] {
  const out = [];
  for (const clip of clips) {
    const mixer = new AnimationMixer(root);
    mixer.clipAction(clip).play();
    const a = createAnimator(root, { mixer, tail: { ...HANGING, colliderGroups } });
    const rest = chainJoints(a).map((j) => j.slice(1).map((p, i) => vec3.distance(p, j[i]!)));
    let worst = 0, contacts = 0, lenErr = 0, finite = true;
    const frames = Math.max(60, Math.ceil(clip.duration * FPS));
    for (let f = 0; f < frames; f++) {
      a.update(1 / FPS);
      const caps = capsules(a), joints = chainJoints(a);
      for (const t of a.bindings.flatMap((b) => b.tails)) contacts += a.world.components.TailChain.colliderContacts[t.eid]!;
      joints.forEach((j, c) => {
        finite &&= j.every((p) => Array.from(p).every(Number.isFinite));
        worst = Math.max(worst, deepestPenetration(j, caps));
        j.slice(1).forEach((p, i) => { lenErr = Math.max(lenErr, Math.abs(vec3.distance(p, j[i]!) / rest[c]![i]! - 1)); });
      });
    }
    a.dispose();
    mixer.stopAllAction();
    out.push({ clip: clip.name, worst, contacts, lenErr, finite });
  }
  return out;
}

function expectClean(results: ReturnType<typeof runClips>): void {
  for (const r of results) {
    expect(r.finite, r.clip).toBe(true);
    expect(r.worst, `${r.clip}: deepest penetration / radius`).toBeLessThanOrEqual(0.02);
    expect(r.lenErr, r.clip).toBeLessThan(1e-4);
  }
}

describe('automatic colliders keep the tail out of legs and body (gravity 9.8, 0.3 Hz, every frame)', () => {
  test('the Quaternius fox, every clip (and without the colliders its tail goes into its legs)', async () => {
    const g = await loadGlbThree(assetBytes('quaternius-fox'));
    const r = runClips(g.scene, g.animations);
    expectClean(r);
    expect(r.reduce((s, x) => s + x.contacts, 0)).toBeGreaterThan(10); // (Death, Eating: about 18 link steps)
    const off = runClips(g.scene, g.animations.filter((c) => c.name === 'Eating'), 0);
    expect(off[0]!.contacts).toBe(0);
    expect(off[0]!.worst).toBeGreaterThan(0.3); // (about 0.9 of a radius deep)
  });
  test('the built-in character, every clip', () => {
    const c = characterToThree(createBuiltinCharacter());
    const r = runClips(c.root, c.clips);
    expectClean(r);
  });
});
