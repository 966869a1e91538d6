/**
 * Baking tails into keyframes (rig/bake.ts): loop closure after warm-up, real tracks for every
 * Tail_* link, a private world from a stable calibration (moving the live hips changes
 * nothing), validator-clean output that plays in three.js with the tail moving.
 */
import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { AnimationMixer, type Object3D } from 'three';
import type { Document } from '@gltf-transform/core';
import { bakeTails, captureBakeCalibration, simulateTailCycle, type BakeReport } from '../../rig/bake';
import { listClipNames } from '../../rig/sample';
import { writeGlbBytes } from '../../rig/glb';
import { rigAppendages } from '../../rig/pass';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToDocument } from '../../rig/characterDocument';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton, beginCharacterFrame } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { makeCritter } from './fixtures';
import { loadGlbThree } from '../helpers/loadThree';
import { createAnimator } from '../../adapters/three';
import { loadAsset } from '../fixtures/assets';
import { ANIMAL_PRESETS, detailAnimal } from '../fixtures/detail';

interface ValidatorReport { issues: { numErrors: number; numWarnings: number; messages: { code: string; message: string; severity: number; pointer?: string }[] } }
const validator = createRequire(import.meta.url)('gltf-validator') as { validateBytes(b: Uint8Array, o?: object): Promise<ValidatorReport> };

async function validate(doc: Document): Promise<ValidatorReport['issues']> {
  const bytes = await writeGlbBytes(doc);
  const r = await validator.validateBytes(bytes, { maxIssues: 100 });
  return r.issues;
}

/** The baked rotation tracks of a clip, by bone name. */
function tailTracks(doc: Document, clip: string): Map<string, { times: number[]; values: number[] }> {
  const anim = doc.getRoot().listAnimations().find((a) => a.getName() === clip)!;
  const out = new Map<string, { times: number[]; values: number[] }>();
  for (const ch of anim.listChannels()) {
    const name = ch.getTargetNode()!.getName();
    if (!/^Tail_\d+$/.test(name) || ch.getTargetPath() !== 'rotation') continue;
    const s = ch.getSampler()!;
    out.set(name, { times: Array.from(s.getInput()!.getArray()!), values: Array.from(s.getOutput()!.getArray()!) });
  }
  return out;
}

function nodeTRS(doc: Document): number[][] {
  return doc.getRoot().listNodes().map((n) => [...n.getTranslation(), ...n.getRotation(), ...n.getScale()]);
}

describe('bake: loop closure and tracks (built-in fixture creature)', () => {
  it('walk: warm-up closes the loop — every joint jumps < 0.5° at the seam; F + 1 keys from 0 to the duration', () => {
    const c = makeCritter({ variant: 'chain' });
    const report = bakeTails(c.doc, { clips: ['walk'], fps: 30 });
    const r = report.clips[0]!;
    expect(r.converged).toBe(true);
    expect(r.warmupCycles).toBeGreaterThanOrEqual(1);
    expect(r.bones).toEqual(['Tail_1', 'Tail_2', 'Tail_3', 'Tail_4']);
    for (const s of r.seamJumpDeg) expect(s).toBeLessThan(0.5);
    expect(report.warnings).toEqual([]);
    const tracks = tailTracks(c.doc, 'walk');
    expect([...tracks.keys()].sort()).toEqual(['Tail_1', 'Tail_2', 'Tail_3', 'Tail_4']);
    for (const tr of tracks.values()) {
      expect(tr.times.length).toBe(31);
      expect(tr.times[0]).toBe(0);
      expect(tr.times[30]).toBeCloseTo(1, 6);
      for (let k = 1; k < 31; k++) {
        expect(tr.times[k]!).toBeGreaterThan(tr.times[k - 1]!);
        const d = tr.values[4 * k]! * tr.values[4 * k - 4]! + tr.values[4 * k + 1]! * tr.values[4 * k - 3]! + tr.values[4 * k + 2]! * tr.values[4 * k - 2]! + tr.values[4 * k + 3]! * tr.values[4 * k - 1]!;
        expect(d).toBeGreaterThan(0); // one hemisphere: no flips between keys
      }
    }
    expect(r.rootSwingDeg).toBeGreaterThan(1); // the tail moves
  });

  it('a cold start does not close the loop: without warm-up the seam jumps and the bake warns', () => {
    const cold = bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['walk'], maxWarmupSeconds: 0, minWarmupCycles: 0 });
    const warm = bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['walk'] });
    const coldSeam = Math.max(...cold.clips[0]!.seamJumpDeg);
    const warmSeam = Math.max(...warm.clips[0]!.seamJumpDeg);
    expect(cold.clips[0]!.converged).toBe(false);
    expect(cold.warnings.length).toBe(1);
    expect(cold.warnings[0]).toMatch(/did not close its loop/);
    expect(coldSeam).toBeGreaterThan(0.5);
    expect(warmSeam).toBeLessThan(coldSeam / 10);
  });

  it('a tolerance it cannot reach warns and records the last cycle', () => {
    const warnings: string[] = [];
    const r = bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['crouch'], loopTolerance: 1e-12, maxWarmupSeconds: 3, onWarning: (m) => warnings.push(m) });
    expect(r.clips[0]!.converged).toBe(false);
    expect(r.clips[0]!.warmupCycles).toBe(3);
    expect(warnings).toHaveLength(1);
  });

  it('progress runs 0 → 1 without going back, one stage per warm-up cycle', () => {
    const seen: [string, number][] = [];
    bakeTails(makeCritter({ variant: 'chain' }).doc, { onProgress: (s, f) => seen.push([s, f]) });
    expect(seen.length).toBeGreaterThan(4);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![1]).toBeGreaterThanOrEqual(seen[i - 1]![1] - 1e-12);
    expect(seen[seen.length - 1]![1]).toBeCloseTo(1, 12);
    expect(seen.some(([s]) => /crouch: warm-up cycle/.test(s))).toBe(true);
  });

  it('two animations with the same name: refused, naming it (bake chooses clips by name; it wrote the first twice and left the second; review 24)', () => {
    const c = makeCritter({ variant: 'chain' });
    const walk = c.doc.getRoot().listAnimations().find((a) => a.getName() === 'walk')!;
    c.doc.getRoot().listAnimations().find((a) => a.getName() === 'crouch')!.setName('walk');
    void walk;
    expect(() => bakeTails(c.doc)).toThrow('bitrig/bake: two animations are named "walk"; rename one (clips are chosen by name)');
  });

  it('no Tail_* chain: refused, naming the rig pass', () => {
    expect(() => bakeTails(makeCritter({ variant: 'shin' }).doc)).toThrow(/bitrig\/bake: the skeleton has no Tail_\* chain.*rig pass/);
    expect(() => bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['Run'] })).toThrow('bitrig/bake: unknown clip "Run"; clips: walk, crouch');
  });
});

describe('bake: private world from a stable calibration', () => {
  const moveHips = (doc: Document): void => {
    const hips = doc.getRoot().listNodes().find((n) => n.getName() === 'Hips')!;
    hips.setTranslation([0.4, 1.3, -0.7]).setRotation([0.3, 0.5, -0.1, 0.806]);
  };
  const sameTracks = (a: Document, b: Document, clip: string): void => {
    const ta = tailTracks(a, clip);
    const tb = tailTracks(b, clip);
    expect([...ta.keys()]).toEqual([...tb.keys()]);
    for (const [k, v] of ta) expect(v.values).toEqual(tb.get(k)!.values); // bit-identical
  };

  it('moving and rotating the live hips after calibration leaves every track identical (crouch keys no hips rotation)', () => {
    const clean = makeCritter({ variant: 'chain' }).doc;
    bakeTails(clean);
    const live = makeCritter({ variant: 'chain' }).doc;
    const calib = captureBakeCalibration(live);
    moveHips(live); // the viewer/game moves the live pose between calibration and bake
    bakeTails(live, { calibration: calib });
    sameTracks(clean, live, 'walk');
    sameTracks(clean, live, 'crouch');
    // Without the stable calibration the moved hips would have leaked into crouch (its hips rotation is not keyed):
    const leaky = makeCritter({ variant: 'chain' }).doc;
    moveHips(leaky);
    bakeTails(leaky);
    expect(tailTracks(leaky, 'crouch').get('Tail_1')!.values).not.toEqual(tailTracks(clean, 'crouch').get('Tail_1')!.values);
  });

  it('the bake never touches the live pose: node TRS and a running game world are unchanged', () => {
    const c = makeCritter({ variant: 'chain' });
    // A "game" world with the same skeleton, mid-play.
    const world = createBitrigWorld();
    const skin = c.doc.getRoot().listSkins()[0]!;
    const joints = skin.listJoints();
    const ibm = skin.getInverseBindMatrices()!;
    const binding = bindSkeleton(world, {
      names: joints.map((j) => j.getName()),
      parents: joints.map((j) => joints.indexOf(j.getParentNode()!)),
      inverseBind: joints.map((_, i) => ibm.getElement(i, [])),
      rest: joints.map((j) => ({ t: j.getTranslation(), r: j.getRotation(), s: j.getScale() })),
    });
    for (let f = 0; f < 30; f++) {
      world.pose.localT[3 * binding.slotOf[0]! + 0] = 0.01 * f;
      beginCharacterFrame(binding);
      update(world, 1 / 60);
    }
    const poseBefore = [world.pose.localR.slice(), world.pose.worldM.slice(), world.components.TailParticle.pos.slice()];
    const trsBefore = nodeTRS(c.doc);
    bakeTails(c.doc);
    expect(nodeTRS(c.doc)).toEqual(trsBefore);
    expect(world.pose.localR).toEqual(poseBefore[0]);
    expect(world.pose.worldM).toEqual(poseBefore[1]);
    expect(world.components.TailParticle.pos).toEqual(poseBefore[2]);
  });

  it('baking twice from one calibration gives identical cycles (deterministic)', () => {
    const c = makeCritter({ variant: 'chain' });
    const calib = captureBakeCalibration(c.doc);
    const a = simulateTailCycle(calib, 'walk', 30);
    const b = simulateTailCycle(calib, 'walk', 30);
    expect(Array.from(a.rotations)).toEqual(Array.from(b.rotations));
  });
});

describe('bake output: validator clean, plays in three.js with the tail moving', () => {
  let report: BakeReport;
  let doc: Document;
  it('built-in character (chain): every clip baked, validator reports no errors', async () => {
    doc = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const warningsBefore = (await validate(doc)).numWarnings;
    report = bakeTails(doc, { fps: 30 });
    expect(report.clips.map((c) => c.clip)).toEqual(listClipNames(doc));
    for (const c of report.clips) {
      expect(c.bones.length).toBe(6);
      for (const s of c.seamJumpDeg) expect(s).toBeLessThan(0.5);
    }
    const issues = await validate(doc);
    expect(issues.messages.filter((m) => m.severity === 0)).toEqual([]);
    expect(issues.numWarnings).toBeLessThanOrEqual(warningsBefore);
  });

  it('a clip that lasts 0 s (one key: a pose) is left as it is with a warning, and the file stays validator clean (keys at [0, 0] would not increase)', async () => {
    const d = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const walk = d.getRoot().listAnimations().find((a) => a.getName() === 'walk')!;
    const pose = d.createAnimation('pose');
    for (const ch of walk.listChannels().slice(0, 3)) {
      const src = ch.getSampler()!.getOutput()!;
      const size = src.getElementSize();
      const s = d.createAnimationSampler().setInterpolation('LINEAR')
        .setInput(d.createAccessor('', src.getBuffer()).setType('SCALAR').setArray(new Float32Array([0])))
        .setOutput(d.createAccessor('', src.getBuffer()).setType(src.getType()).setArray((src.getArray() as Float32Array).slice(0, size)));
      pose.addSampler(s).addChannel(d.createAnimationChannel().setSampler(s).setTargetNode(ch.getTargetNode()!).setTargetPath(ch.getTargetPath()!));
    }
    const r = bakeTails(d, { fps: 30 });
    expect(r.clips.map((c) => c.clip)).not.toContain('pose');
    expect(r.clips.map((c) => c.clip)).toContain('walk');
    expect(r.warnings.some((w) => /clip "pose": it lasts 0 s/.test(w))).toBe(true);
    expect(pose.listChannels().length).toBe(3);
    const issues = await validate(d);
    expect(issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  });

  it('a baked clip is marked (extras.bitrigBaked) and a second bake leaves it as it is with a warning (it added follow-through to the baked follow-through; review 24)', () => {
    const d = characterToDocument(createBuiltinCharacter({ variant: 'chain' }));
    const first = bakeTails(d, { fps: 30, clips: ['walk'] });
    expect(first.clips.map((c) => c.clip)).toEqual(['walk']);
    const walk = d.getRoot().listAnimations().find((a) => a.getName() === 'walk')!;
    expect(walk.getExtras()).toMatchObject({ bitrigBaked: true });
    const before = JSON.stringify([...tailTracks(d, 'walk').entries()]);
    const again = bakeTails(d, { fps: 30, clips: ['walk', 'crouch'] });
    expect(again.clips.map((c) => c.clip)).toEqual(['crouch']);
    expect(again.warnings).toContainEqual(expect.stringMatching(/clip "walk": already baked by bitrig/));
    expect(JSON.stringify([...tailTracks(d, 'walk').entries()])).toBe(before);
  });

  it('three.js AnimationMixer plays the baked walk: Tail_1 follows the keys and swings', async () => {
    const gltf = await loadGlbThree(await writeGlbBytes(doc));
    const clip = gltf.animations.find((a) => a.name === 'walk')!;
    const mixer = new AnimationMixer(gltf.scene);
    mixer.clipAction(clip).play();
    let tail1: Object3D | undefined;
    gltf.scene.traverse((o) => { if (o.name === 'Tail_1') tail1 = o; });
    const track = tailTracks(doc, 'walk').get('Tail_1')!;
    let minDot = 1;
    const q0 = tail1!.quaternion.clone();
    for (let k = 0; k < track.times.length - 1; k += 3) {
      mixer.setTime(track.times[k]!);
      const q = tail1!.quaternion;
      const d = Math.abs(q.x * track.values[4 * k]! + q.y * track.values[4 * k + 1]! + q.z * track.values[4 * k + 2]! + q.w * track.values[4 * k + 3]!);
      expect(d).toBeGreaterThan(1 - 1e-6); // the mixer plays exactly the baked keys
      if (k === 0) q0.copy(q);
      minDot = Math.min(minDot, Math.abs(q.dot(q0)));
    }
    const swingDeg = (2 * Math.acos(minDot) * 180) / Math.PI;
    expect(swingDeg).toBeGreaterThan(2); // the tail moves through the clip
  });

  it('createAnimator on the baked file: while a baked clip plays the tail shows its keys as they are (no simulation on top: equal to a mixer-only twin, 1e-7); a clip bitrig did not bake is simulated again (from the pose the baked clip showed last)', async () => {
    const bytes = await writeGlbBytes(doc);
    const [a, twin] = [await loadGlbThree(bytes), await loadGlbThree(bytes)];
    expect(a.animations.find((c) => c.name === 'walk')!.userData.bitrigBaked).toBe(true);
    const mixer = new AnimationMixer(a.scene), mixerTwin = new AnimationMixer(twin.scene);
    const an = createAnimator(a.scene, { mixer });
    const tailOf = (g: typeof a): Object3D => { let t: Object3D | undefined; g.scene.traverse((o) => { if (o.name === 'Tail_1') t = o; }); return t!; };
    const [t1, tt] = [tailOf(a), tailOf(twin)];
    mixer.clipAction(a.animations.find((c) => c.name === 'walk')!).play();
    mixerTwin.clipAction(twin.animations.find((c) => c.name === 'walk')!).play();
    for (let f = 0; f < 60; f++) {
      an.update(1 / 60); mixerTwin.update(1 / 60);
      expect(1 - Math.abs(t1.quaternion.dot(tt.quaternion)), `frame ${f}`).toBeLessThan(1e-7);
    }
    // a clip the bake did not write (the same walk, unmarked): the tail is simulated again
    const plain = a.animations.find((c) => c.name === 'walk')!.clone();
    plain.userData = {};
    mixer.stopAllAction(); mixerTwin.stopAllAction();
    mixer.clipAction(plain).play();
    mixerTwin.clipAction(twin.animations.find((c) => c.name === 'walk')!).play();
    let apart = 0;
    for (let f = 0; f < 60; f++) { an.update(1 / 60); mixerTwin.update(1 / 60); apart = Math.max(apart, 1 - Math.abs(t1.quaternion.dot(tt.quaternion))); }
    expect(apart).toBeGreaterThan(1e-5);
    an.dispose();
  });
  it('a baked clip faded to weight 0 beside an unbaked clip at weight 1 does not turn the simulation off (three.js; it did)', async () => {
    const bytes = await writeGlbBytes(doc);
    const [a, twin] = [await loadGlbThree(bytes), await loadGlbThree(bytes)];
    const mixer = new AnimationMixer(a.scene), mixerTwin = new AnimationMixer(twin.scene);
    const an = createAnimator(a.scene, { mixer });
    const tailOf = (g: typeof a): Object3D => { let t: Object3D | undefined; g.scene.traverse((o) => { if (o.name === 'Tail_2') t = o; }); return t!; };
    const [t1, tt] = [tailOf(a), tailOf(twin)];
    for (const [m, g] of [[mixer, a], [mixerTwin, twin]] as const) {
      const plain = g.animations.find((c) => c.name === 'sprint')!.clone();
      plain.userData = {};
      m.clipAction(g.animations.find((c) => c.name === 'walk')!).setEffectiveWeight(0).play();
      m.clipAction(plain).play();
    }
    let apart = 0;
    for (let f = 0; f < 60; f++) { an.update(1 / 60); mixerTwin.update(1 / 60); apart = Math.max(apart, 1 - Math.abs(t1.quaternion.dot(tt.quaternion))); }
    expect(apart).toBeGreaterThan(1e-5); // simulated on top of the sprint (the twin has no bitrig)
    an.dispose();
  });

  it('reset() after a baked clip re-seats at rest as documented (every bend snapshot identity), not along the baked pose shown last', async () => {
    const bytes = await writeGlbBytes(doc);
    const a = await loadGlbThree(bytes);
    const mixer = new AnimationMixer(a.scene);
    const an = createAnimator(a.scene, { mixer });
    mixer.clipAction(a.animations.find((c) => c.name === 'walk')!).play();
    for (let f = 0; f < 45; f++) an.update(1 / 60);
    an.restoreAnimatedPose();
    mixer.stopAllAction();
    an.reset();
    const plain = a.animations.find((c) => c.name === 'sprint')!.clone();
    plain.userData = {}; // a clip bitrig did not bake (this document's clips are all baked)
    mixer.clipAction(plain).play();
    an.update(1 / 60);
    const t = an.diagnostics().tails[0]!;
    expect(t.reset).toBe(true);
    // the first step from rest barely bends (the seat along the baked pose started 10–30° bent)
    for (const b of t.bendAngles) expect(b).toBeLessThan(0.02);
    an.dispose();
  });
});

describe('bake on real assets', () => {
  it('Quaternius fox (tail keyed by its clips): tail tracks replaced, not duplicated; validator adds no errors', async () => {
    const doc = await loadAsset('quaternius-fox');
    const before = doc.getRoot().listAnimations().map((a) => [a.listChannels().length, a.listSamplers().length]);
    const errorsBefore = (await validate(doc)).numErrors;
    const r = bakeTails(doc, { clips: ['Walk', 'Gallop'] });
    for (const c of r.clips) {
      expect(c.restSources).toEqual(['animation']);
      for (const s of c.seamJumpDeg) expect(s).toBeLessThan(0.5);
    }
    const after = doc.getRoot().listAnimations().map((a) => [a.listChannels().length, a.listSamplers().length]);
    expect(after).toEqual(before);
    expect((await validate(doc)).numErrors).toBe(errorsBefore);
  });

  // 7 links: the chain starts where the tail leaves the body, and its links stay longer than
  // the low-poly tail's edges along it.
  it('de-tailed Quaternius fox after the rig pass: Walk bakes 7 links, loop seam < 0.5°, validator clean', async () => {
    const doc = await loadAsset('quaternius-fox');
    detailAnimal(doc, ANIMAL_PRESETS['quaternius-fox']);
    rigAppendages(doc, { mode: 'chain' });
    const r = bakeTails(doc, { clips: ['Walk'] });
    const c = r.clips[0]!;
    expect(c.bones.length).toBe(7);
    expect(c.converged).toBe(true);
    for (const s of c.seamJumpDeg) expect(s).toBeLessThan(0.5);
    const issues = await validate(doc);
    expect(issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  });
});
