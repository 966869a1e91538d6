/**
 * Review 43 (a newcomer on 'bitrig/rig'): the README promises that an unknown option key is an
 * error naming the nearest known one, yet `rigAppendages(doc, { mdoe: 'rigid' })` and
 * `placeOnGround(doc, { aply: true })` ran with the defaults; `rigGlb(bytes, { include: 'torso' })`
 * iterated the string's letters (`include accepts "spine" and "torso", got "t"`): one name is one
 * entry now; `measureTail(doc, 'Walk')` said `bitrig/sample: …` (an internal module) instead of
 * naming the function's own.
 */
import { Document } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';
import { rigGlb } from '../../rig/glb';
import { compareHipsLift, mergeGroundingOptions, mergeHipsLiftOptions, placeOnGround } from '../../rig/grounding';
import { measureTail } from '../../rig/measure';
import { mergeRigOptions, RIG_DEFAULTS } from '../../rig/options';
import { rigAppendages } from '../../rig/pass';
import { makeCritter } from '../bake/fixtures';

describe('rig options: unknown keys and a single include name', () => {
  it('rigAppendages / mergeRigOptions refuse an unknown key with the nearest known one (the document is left untouched)', () => {
    const c = makeCritter({ variant: 'shin' });
    const nodes = c.doc.getRoot().listNodes().length;
    expect(() => rigAppendages(c.doc, { mdoe: 'rigid' } as never)).toThrow(/^bitrig\/rig: unknown option "mdoe" \(did you mean "mode"\?\); options: mode, include, /);
    expect(c.doc.getRoot().listNodes().length).toBe(nodes);
    expect(() => mergeRigOptions({ farfraction: 0.1 } as never)).toThrow(/did you mean "farFraction"/);
    expect(() => mergeRigOptions('rigid' as never)).toThrow(/^bitrig\/rig: options must be an object, got "rigid" \(a string\)/);
    expect(() => mergeRigOptions({ include: 7 } as never)).toThrow(/^bitrig\/rig: include must be a list of "spine" and "torso" \(or one of them\), got 7/);
    expect(() => mergeRigOptions({ include: 'arms' } as never)).toThrow(/^bitrig\/rig: include accepts "spine" and "torso", got "arms"/);
    // every documented key is known, and undefined keeps the default
    expect(mergeRigOptions({ ...RIG_DEFAULTS })).toEqual({ ...RIG_DEFAULTS });
    expect(mergeRigOptions({ mode: undefined, include: undefined }).mode).toBe('chain');
  });

  it('include: "torso" is include: ["torso"] (mergeRigOptions and rigGlb give the same result as the list)', async () => {
    expect(mergeRigOptions({ include: 'torso' }).include).toEqual(['torso']);
    expect(mergeRigOptions({ include: 'spine' }).include).toEqual(['spine']);
    const bytes = await characterToGlb(createBuiltinCharacter({ variant: 'shin' }));
    const one = await rigGlb(bytes, { include: 'torso' } as never);
    const list = await rigGlb(bytes, { include: ['torso'] });
    expect({ ...one.report, ms: 0 }).toEqual({ ...list.report, ms: 0 }); // (ms: the run's time)
    expect(one.glb).toEqual(list.glb);
  });
});

describe('grounding options: unknown keys', () => {
  it('placeOnGround(doc, { aply: true }) throws (it reported without moving anything); with apply it moves', () => {
    const c = makeCritter({ variant: 'chain', armature: { t: [0, 0.3, 0] } });
    expect(() => placeOnGround(c.doc, { aply: true } as never)).toThrow(/^bitrig\/grounding: unknown option "aply" \(did you mean "apply"\?\); options: floorY, apply, tailVertex$/);
    expect(() => placeOnGround(c.doc, { floorY: '0' as never })).toThrow(/^bitrig\/grounding: floorY must be a finite number, got "0" \(a string\)/);
    expect(() => placeOnGround(c.doc, { apply: 'yes' as never })).toThrow(/^bitrig\/grounding: apply must be true or false/);
    expect(() => placeOnGround(c.doc, null as never)).toThrow(/^bitrig\/grounding: options must be an object, got null/);
    const moved = placeOnGround(c.doc, { apply: true, floorY: undefined });
    expect(moved.offsetY).toBeCloseTo(-0.3, 5);
    expect(placeOnGround(c.doc).offsetY).toBeCloseTo(0, 5);
  });

  it('compareHipsLift and the grounding merges refuse unknown keys too', () => {
    const c = makeCritter({ variant: 'chain' });
    expect(() => compareHipsLift(c.doc, 'crouch', { sample: 12 } as never)).toThrow(/^bitrig\/grounding: unknown option "sample" \(did you mean "samples"\?\)/);
    expect(() => mergeHipsLiftOptions({ calibraton: 'rest' } as never)).toThrow(/did you mean "calibration"/);
    expect(() => mergeGroundingOptions({ excludetail: false } as never)).toThrow(/did you mean "excludeTail"/);
    expect(mergeHipsLiftOptions({ samples: 12, excludeTail: false }).samples).toBe(12);
  });
});

describe('measureTail names its own module', () => {
  it('an unknown clip or a file without animations: bitrig/measure: … (was bitrig/sample: …), listing the clips', () => {
    const c = makeCritter({ variant: 'chain' });
    expect(() => measureTail(c.doc, 'Walk')).toThrow(/^bitrig\/measure: unknown clip "Walk"; clips: walk, crouch$/);
    const empty = makeCritter({ variant: 'chain' }).doc;
    for (const a of empty.getRoot().listAnimations()) a.dispose();
    expect(() => measureTail(empty, 'walk')).toThrow(/^bitrig\/measure: the file has no animations$/);
    expect(() => compareHipsLift(c.doc, 'Crouch')).toThrow(/^bitrig\/grounding: unknown clip "Crouch"; clips: walk, crouch$/);
    expect(() => measureTail(new Document(), 'walk')).toThrow(/^bitrig\/(measure|skinning): /);
  });
});
