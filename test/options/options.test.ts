/**
 * Setup-time option validation (newcomer review): unknown keys are typos, not no-ops (with the
 * nearest known key); angle options have ranges and say when a value reads as degrees; a string
 * where a number, boolean or array is expected prints quoted and named. An option given as
 * undefined keeps its default. Every case here fails on the code before this change (typos and
 * degrees were accepted silently; strings printed bare: `got auto`, `got 30`, `unknown clip "W"`).
 */
import { describe, expect, test } from 'vitest';
import {
  checkAngle, checkOptionKeys, describeValue, editDistance, mergeTailOptions, nearestKey, TAIL_DEFAULTS, withDefaults, withDefaultsStrict,
} from '../../core/defaults';
import { BITRIG_WORLD_DEFAULTS, type BitrigWorldOptions } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { addSceneIK, mergeSceneIKOptions, SCENE_IK_DEFAULTS, type SceneIKOptions } from '../../core/sceneIK';
import { setTailOptions, getTailOptions } from '../../core/tailSetup';
import { bakeTails, captureBakeCalibration, detectClipMode, mergeBakeOptions, simulateTailCycle, type BakeOptions } from '../../rig/bake';
import { makeCritter } from '../bake/fixtures';
import { makeTailRig } from '../tail/rig';
import { createAnimator as createThreeAnimator, characterToThree } from '../../adapters/three';
import { createAnimator as createBabylonAnimator } from '../../adapters/babylon';
import { buildCodeCharacter, createTestScene } from '../babylon/helpers';
import { createBuiltinCharacter } from '../../core/character';
import { makeBiped } from '../scene/rig';

/** `f` throws an Error whose message is exactly `msg`. */
function throwsExactly(f: () => unknown, msg: string): void {
  let err: unknown = null;
  try { f(); } catch (e) { err = e; }
  expect(err, `expected a throw: ${msg}`).toBeInstanceOf(Error);
  expect((err as Error).message).toBe(msg);
}

const WORLD_KEYS = 'entities, chains, bones, characters, fixedStep, maxStepsPerFrame';

describe('helpers', () => {
  test('editDistance: insert, delete, substitute, swap and a case change each count 1', () => {
    expect(editDistance('fixedstep', 'fixedStep')).toBe(1);
    expect(editDistance('frequncy', 'frequency')).toBe(1);
    expect(editDistance('frequnecy', 'frequency')).toBe(1); // swapped neighbours
    expect(editDistance('thread', 'threads')).toBe(1);
    expect(editDistance('clip', 'clips')).toBe(1);
    expect(editDistance('carry', 'clips')).toBe(4);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
  });

  test('nearestKey: within 2 edits, letter case always near, else null', () => {
    expect(nearestKey('fixedstep', Object.keys(BITRIG_WORLD_DEFAULTS))).toBe('fixedStep');
    expect(nearestKey('FIXEDSTEP', Object.keys(BITRIG_WORLD_DEFAULTS))).toBe('fixedStep'); // 5 edits, but only case
    expect(nearestKey('maxstep', Object.keys(BITRIG_WORLD_DEFAULTS))).toBeNull();
    expect(nearestKey('bendlimt', Object.keys(TAIL_DEFAULTS))).toBe('bendLimit');
    expect(nearestKey('xyz', ['abc'])).toBeNull();
    expect(nearestKey('b', ['a'])).toBeNull(); // 1 edit of a 1-letter name is no resemblance
    expect(nearestKey('sid', ['kind', 'mid', 'side'])).toBe('side'); // 'mid' is 1 edit too: the same first letter wins
    expect(nearestKey('fp', ['fps'])).toBe('fps');
  });

  test('describeValue: strings quoted and named, arrays and objects named, numbers as they are', () => {
    expect(describeValue('30')).toBe('"30" (a string)');
    expect(describeValue('false')).toBe('"false" (a string)');
    expect(describeValue(30)).toBe('30');
    expect(describeValue(false)).toBe('false');
    expect(describeValue(NaN)).toBe('NaN');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(['Walk'])).toBe('["Walk"] (an array)');
    expect(describeValue({ a: 1 })).toBe('an object');
    expect(describeValue(() => 1)).toBe('a function');
    const long = describeValue(Array.from({ length: 40 }, (_, i) => i));
    expect(long.endsWith('… (an array)')).toBe(true);
    expect(long.length).toBeLessThan(75);
  });

  test('checkOptionKeys: not an object, typo with a suggestion, a key that belongs under a sub-object, a spread string', () => {
    throwsExactly(() => checkOptionKeys('yes', ['a'], 'm'), 'm: options must be an object, got "yes" (a string)');
    throwsExactly(() => checkOptionKeys(['a'], ['a'], 'm'), 'm: options must be an object, got ["a"] (an array)');
    throwsExactly(() => checkOptionKeys({ alpah: 1 }, ['alpha', 'beta'], 'm'), 'm: unknown option "alpah" (did you mean "alpha"?); options: alpha, beta');
    throwsExactly(() => checkOptionKeys({ carry: 1 }, ['clips'], 'm', { tail: ['carry'] }), 'm: unknown option "carry" ("carry" belongs under tail: pass { tail: { carry: … } }); options: clips');
    throwsExactly(() => checkOptionKeys({ ...('yes' as unknown as object) }, ['arms'], 'm'),
      'm: unknown option "0" (a string or an array spread into the options? pass an object of named options); options: arms');
    throwsExactly(() => checkOptionKeys({ toString: 1 }, ['a'], 'm'), 'm: unknown option "toString"; options: a'); // not taken from the prototype
    expect(() => checkOptionKeys({ a: undefined }, ['a'], 'm')).not.toThrow();
  });

  test('withDefaultsStrict refuses unknown keys; withDefaults stays lenient (animatorBase passes keys its defaults lack)', () => {
    expect(withDefaults({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 });
    expect(withDefaultsStrict({ a: 1, b: 2 }, { a: undefined, b: 3 }, 'm')).toEqual({ a: 1, b: 3 });
    throwsExactly(() => withDefaultsStrict({ a: 1 }, { b: 2 }, 'm'), 'm: unknown option "b"; options: a');
    expect(withDefaultsStrict({ a: 1 }, { b: 2 }, 'm', ['a', 'b'])).toEqual({ a: 1, b: 2 });
  });

  test('checkAngle: bounds inclusive (open low end on request), degrees hint only when the value fits as degrees', () => {
    expect(() => checkAngle('m', 'x', Math.PI, -Math.PI, Math.PI, '-π', 'π')).not.toThrow();
    expect(() => checkAngle('m', 'x', -Math.PI, -Math.PI, Math.PI, '-π', 'π')).not.toThrow();
    throwsExactly(() => checkAngle('m', 'x', 0, 0, Math.PI, '0', 'π', true), 'm: option x must be an angle in radians in (0, π], got 0');
    throwsExactly(() => checkAngle('m', 'x', 200, 0, Math.PI, '0', 'π', true), 'm: option x must be an angle in radians in (0, π], got 200'); // 200° > π too
    throwsExactly(() => checkAngle('m', 'x', 90, 0, Math.PI, '0', 'π', true), 'm: option x must be an angle in radians in (0, π], got 90 (degrees? use 90 * Math.PI / 180)');
    throwsExactly(() => checkAngle('m', 'x', '0.5', 0, Math.PI, '0', 'π'), 'm: option x must be an angle in radians in [0, π], got "0.5" (a string)');
    throwsExactly(() => checkAngle('m', 'x', Infinity, 0, Math.PI, '0', 'π'), 'm: option x must be an angle in radians in [0, π], got Infinity');
  });
});

describe('bitrig/world options', () => {
  test('an unknown key throws with the nearest known key (was ignored: the world ran at 1/60 s)', () => {
    throwsExactly(() => createBitrigWorld({ fixedstep: 1 / 30 } as BitrigWorldOptions),
      `bitrig/world: unknown option "fixedstep" (did you mean "fixedStep"?); options: ${WORLD_KEYS}`);
    throwsExactly(() => createBitrigWorld({ chain: 8 } as BitrigWorldOptions),
      `bitrig/world: unknown option "chain" (did you mean "chains"?); options: ${WORLD_KEYS}`);
    // the JavaScript step is gone: the option that chose it is refused, not ignored
    expect(() => createBitrigWorld({ wasm: false } as BitrigWorldOptions)).toThrow(/^bitrig\/world: unknown option "wasm"/);
    throwsExactly(() => createBitrigWorld({ capacity: 10 } as BitrigWorldOptions), `bitrig/world: unknown option "capacity"; options: ${WORLD_KEYS}`);
    // a typo is a typo even when its value is undefined
    expect(() => createBitrigWorld({ fixedstep: undefined } as BitrigWorldOptions)).toThrow(/^bitrig\/world: unknown option "fixedstep"/);
  });

  test('an option given as undefined is its default; the right key still works', () => {
    const w = createBitrigWorld({ fixedStep: undefined, chains: undefined, entities: undefined });
    expect(w.tailClock.fixedStep).toBe(1 / 60);
    expect(createBitrigWorld({ fixedStep: 1 / 30 }).tailClock.fixedStep).toBe(1 / 30);
  });

  test('strings print quoted: entities "10", maxStepsPerFrame "8"; a string fixedStep is refused (it was accepted)', () => {
    throwsExactly(() => createBitrigWorld({ entities: '10' as never }), 'bitrig/world: entities must be an integer in [0, 16777216], got "10" (a string)');
    throwsExactly(() => createBitrigWorld({ maxStepsPerFrame: '8' as never }), 'bitrig/world: maxStepsPerFrame must be an integer in [1, 64], got "8" (a string)');
    // '0.016' > 0 and '0.016' <= 0.1 coerce to true: the string used to reach the tail clock
    throwsExactly(() => createBitrigWorld({ fixedStep: '0.016' as never }), 'bitrig/world: fixedStep must be a number of seconds in (0, 0.1], got "0.016" (a string)');
    throwsExactly(() => createBitrigWorld({ fixedStep: 60 }), 'bitrig/world: fixedStep must be a number of seconds in (0, 0.1], got 60 (a rate in Hz? use 1 / 60)');
    throwsExactly(() => createBitrigWorld({ fixedStep: 0.5 }), 'bitrig/world: fixedStep must be a number of seconds in (0, 0.1], got 0.5');
    throwsExactly(() => createBitrigWorld('fast' as never), 'bitrig/world: options must be an object, got "fast" (a string)');
    throwsExactly(() => createBitrigWorld(null as never), 'bitrig/world: options must be an object, got null');
  });
});

describe('bitrig/tail options', () => {
  test('carry in radians in [-π, π]: 50 (degrees) is refused with the conversion (it bent the tail by 50 rad)', () => {
    throwsExactly(() => mergeTailOptions({ carry: 50 }), 'bitrig/tail: option carry must be an angle in radians in [-π, π], got 50 (degrees? use 50 * Math.PI / 180)');
    throwsExactly(() => mergeTailOptions({ carry: -30 }), 'bitrig/tail: option carry must be an angle in radians in [-π, π], got -30 (degrees? use -30 * Math.PI / 180)');
    throwsExactly(() => mergeTailOptions({ carry: 400 }), 'bitrig/tail: option carry must be an angle in radians in [-π, π], got 400');
    throwsExactly(() => mergeTailOptions({ carry: '0.5' as never }), 'bitrig/tail: option carry must be an angle in radians in [-π, π], got "0.5" (a string)');
    for (const ok of [0, Math.PI, -Math.PI, TAIL_DEFAULTS.carry]) expect(mergeTailOptions({ carry: ok }).carry).toBe(ok);
    expect(TAIL_DEFAULTS.carry).toBeCloseTo(0.8727, 4); // 50°
    // through the chain setup and a later change, too
    expect(() => makeTailRig({ tail: { carry: 50 } })).toThrow(/^bitrig\/tail: option carry must be an angle in radians in \[-π, π\], got 50 \(degrees\?/);
    const rig = makeTailRig({ links: 4 });
    expect(() => setTailOptions(rig.world, rig.eid, { carry: 50 })).toThrow(/^bitrig\/tail: option carry/);
    expect(getTailOptions(rig.world, rig.eid).carry).toBe(TAIL_DEFAULTS.carry); // the refused change left nothing behind
  });

  test('bendLimit in radians in (0, 2π] (π or more: no limit; rounded π accepted): 30 (degrees) is refused with the conversion', () => {
    throwsExactly(() => mergeTailOptions({ bendLimit: 30 }), 'bitrig/tail: option bendLimit must be an angle in radians in (0, 2π], got 30 (degrees? use 30 * Math.PI / 180)');
    throwsExactly(() => mergeTailOptions({ bendLimit: 0 }), 'bitrig/tail: option bendLimit must be an angle in radians in (0, 2π], got 0');
    throwsExactly(() => mergeTailOptions({ bendLimit: -0.1 }), 'bitrig/tail: option bendLimit must be an angle in radians in (0, 2π], got -0.1');
    for (const ok of [1e-6, Math.PI / 6, Math.PI, 3.1416, Math.fround(Math.PI), 2 * Math.PI]) expect(mergeTailOptions({ bendLimit: ok }).bendLimit).toBe(ok);
    expect(mergeTailOptions({ carry: 3.1416 }).carry).toBe(3.1416); // a rounded π is π
  });

  test('unknown keys suggest the nearest; restSource prints its string quoted', () => {
    expect(() => mergeTailOptions({ frequncy: 2 } as never)).toThrow(/^bitrig\/tail: unknown option "frequncy" \(did you mean "frequency"\?\); options: frequency, tipRatio,/);
    expect(() => mergeTailOptions({ bendlimit: 0.3 } as never)).toThrow(/^bitrig\/tail: unknown option "bendlimit" \(did you mean "bendLimit"\?\)/);
    expect(() => mergeTailOptions({ toString: 1 } as never)).toThrow(/^bitrig\/tail: unknown option "toString"; options:/); // `in` used to find it on the prototype
    throwsExactly(() => mergeTailOptions({ restSource: 'physics' as never }), 'bitrig/tail: option restSource must be \'bind\', \'animation\' or \'auto\', got "physics" (a string)');
    throwsExactly(() => mergeTailOptions(['carry'] as never), 'bitrig/tail: options must be an object, got ["carry"] (an array)');
    expect(mergeTailOptions({ carry: undefined, bendLimit: undefined })).toEqual({ ...TAIL_DEFAULTS });
  });

  test('a per-chain problem names the chain (it said only "options must be an object, got 5"), through bindSkeleton and both adapters; null or undefined for a chain is no override', () => {
    throwsExactly(() => makeTailRig({ bind: { tails: { Tail_1: 5 as never } } }), 'bitrig/tail: tails["Tail_1"] must be an object of tail options, got 5');
    throwsExactly(() => makeTailRig({ bind: { tails: { Tail_1: { frequency: 'x' as never } } } }), 'bitrig/tail: tails["Tail_1"]: option frequency must be a number in (0, 30] Hz, got "x" (a string)');
    const c = characterToThree(createBuiltinCharacter());
    throwsExactly(() => createThreeAnimator(c.root, { tails: { Tail_1: { frequncy: 2 } as never } }),
      'bitrig/three: options.tails["Tail_1"]: unknown option "frequncy" (did you mean "frequency"?); options: frequency, tipRatio, damping, gravity, carry, restCurve, bendLimit, couplingRate, floorHeight, floorEnabled, floorClearance, contactDamping, restSource, unitScale, colliderGroups, teleportDistance');
    throwsExactly(() => createThreeAnimator(c.root, { tails: { Tail_1: [] as never } }), 'bitrig/three: options.tails["Tail_1"] must be an object of tail options, got [] (an array)');
    for (const none of [null, undefined]) {
      const a = createThreeAnimator(c.root, { tails: { Tail_1: none as never }, tail: { frequency: 1.3 } });
      expect(getTailOptions(a.world, a.bindings[0]!.tails[0]!.eid).frequency).toBe(1.3); // the animator's, not overridden
      a.dispose();
    }
    expect(makeTailRig({ bind: { tails: { Tail_1: null as never } } }).binding.tails.length).toBe(1);
  });

  test('an animator\'s tail options that are not an object are refused as setTailOptions refuses them (5, null, true, [], a string), in both adapters', () => {
    const c = characterToThree(createBuiltinCharacter());
    const { world, binding } = makeTailRig();
    const { scene } = createTestScene();
    const bc = buildCodeCharacter(scene, 'linked');
    const createBabylonAnimatorFor = (tail: unknown): unknown => createBabylonAnimator(bc.skeleton, { tail: tail as never });
    throwsExactly(() => setTailOptions(world, binding.tails[0]!.eid, 5 as never), 'bitrig/tail: options must be an object, got 5');
    for (const [bad, shown] of [[5, '5'], [null, 'null'], [true, 'true'], [[], '[] (an array)'], ['x', '"x" (a string)']] as const) {
      throwsExactly(() => createThreeAnimator(c.root, { tail: bad as never }), `bitrig/three: options.tail must be an object of tail options, got ${shown}`);
      throwsExactly(() => createBabylonAnimatorFor(bad), `bitrig/babylon: options.tail must be an object of tail options, got ${shown}`);
    }
  });
});

describe('bitrig/sceneIK options', () => {
  const SCENE_KEYS = Object.keys(SCENE_IK_DEFAULTS).join(', ');

  test('an unknown key throws with the nearest known key (was ignored), through addSceneIK too', () => {
    throwsExactly(() => mergeSceneIKOptions({ maxtilt: 0.3 } as Partial<SceneIKOptions>),
      `bitrig/sceneIK: unknown option "maxtilt" (did you mean "maxTilt"?); options: ${SCENE_KEYS}`);
    throwsExactly(() => mergeSceneIKOptions({ pelvisRat: 3 } as Partial<SceneIKOptions>),
      `bitrig/sceneIK: unknown option "pelvisRat" (did you mean "pelvisRate"?); options: ${SCENE_KEYS}`);
    expect(() => makeBiped({ ik: { pelvisrate: 3 } as Partial<SceneIKOptions> })).toThrow(/^bitrig\/sceneIK: unknown option "pelvisrate" \(did you mean "pelvisRate"\?\)/);
    expect(mergeSceneIKOptions({ maxTilt: undefined, arms: undefined, limbs: undefined })).toEqual({ ...SCENE_IK_DEFAULTS });
  });

  test('a string for the options object: refused, or (spread, as `sceneIK: \'yes\'` is) named as a spread string', () => {
    throwsExactly(() => mergeSceneIKOptions('yes' as never), 'bitrig/sceneIK: options must be an object, got "yes" (a string)');
    // the animator spreads `sceneIK` into { unitScale, skin, ...sceneIK }: 'yes' became keys 0, 1, 2
    expect(() => mergeSceneIKOptions({ unitScale: 1, skin: null, ...('yes' as unknown as object) })).toThrow(
      /^bitrig\/sceneIK: unknown option "0" \(a string or an array spread into the options\? pass an object of named options\)/);
  });

  test('maxTilt in radians in [0, π/2], with the degrees hint; other numbers print strings quoted', () => {
    throwsExactly(() => mergeSceneIKOptions({ maxTilt: 30 }), 'bitrig/sceneIK: option maxTilt must be an angle in radians in [0, π/2], got 30 (degrees? use 30 * Math.PI / 180)');
    throwsExactly(() => mergeSceneIKOptions({ maxTilt: 2 }), 'bitrig/sceneIK: option maxTilt must be an angle in radians in [0, π/2], got 2'); // (2 can be radians: no degrees hint below a full turn)
    expect(mergeSceneIKOptions({ maxTilt: 1.5708 }).maxTilt).toBe(1.5708);
    throwsExactly(() => mergeSceneIKOptions({ maxTilt: 120 }), 'bitrig/sceneIK: option maxTilt must be an angle in radians in [0, π/2], got 120');
    expect(mergeSceneIKOptions({ maxTilt: Math.PI / 2 }).maxTilt).toBe(Math.PI / 2);
    throwsExactly(() => mergeSceneIKOptions({ soften: '0.1' as never }), 'bitrig/sceneIK: option soften must be a number in [0, 0.5], got "0.1" (a string)');
  });

  test('arms must be a boolean (the string "false" turned arms on), skin and limbs are checked', () => {
    throwsExactly(() => mergeSceneIKOptions({ arms: 'false' as never }), 'bitrig/sceneIK: option arms must be true or false, got "false" (a string)');
    expect(mergeSceneIKOptions({ arms: false }).arms).toBe(false);
    expect(() => mergeSceneIKOptions({ skin: 'mesh' as never })).toThrow(/^bitrig\/sceneIK: option skin must be null or \{ positions, joints, weights \}.*got "mesh" \(a string\)$/);
    expect(() => mergeSceneIKOptions({ skin: { positions: [], joints: [], weights: 'x' } as never })).toThrow(/^bitrig\/sceneIK: option skin\.weights must be an array or typed array of numbers, got "x" \(a string\)$/);
    expect(() => mergeSceneIKOptions({ limbs: 'LeftLeg' as never })).toThrow(/^bitrig\/sceneIK: option limbs must be null or an array .*got "LeftLeg" \(a string\)$/);
    throwsExactly(() => mergeSceneIKOptions({ limbs: [{ kind: 'leg', root: 'A', mid: 'B', end: 'C', sid: 'left' }] as never }),
      'bitrig/sceneIK: unknown key in limbs[0] "sid" (did you mean "side"?); limbs[0] keys: kind, root, mid, end, side, front');
    throwsExactly(() => mergeSceneIKOptions({ limbs: [{ kind: 'foot', root: 'A', mid: 'B', end: 'C' }] as never }),
      'bitrig/sceneIK: option limbs[0].kind must be \'leg\' or \'arm\', got "foot" (a string)');
    throwsExactly(() => mergeSceneIKOptions({ limbs: [{ kind: 'leg', root: 'A', mid: 2, end: 'C' }] as never }),
      'bitrig/sceneIK: option limbs[0].mid must be a bone name (a string), got 2');
    expect(mergeSceneIKOptions({ limbs: [{ kind: 'leg', root: 'A', mid: 'B', end: 'C', side: 'left', front: false }] }).limbs).toHaveLength(1);
  });

  test('a valid scene IK still sets up (addSceneIK with every option a known key)', () => {
    const rig = makeBiped({ ik: { maxTilt: 0.4, soften: 0.01, arms: false } });
    expect(rig.ik.legs.length).toBe(2);
    expect(() => addSceneIK(rig.world, rig.binding, {})).toThrow(/still alive/); // (one per skeleton: unrelated, unchanged)
  });
});

describe('bitrig/bake options', () => {
  const critter = (): ReturnType<typeof makeCritter> => makeCritter({ variant: 'chain' });

  test('a tail option at the top level is named and pointed under tail (was ignored: the bake ran with the default carry)', () => {
    expect(() => bakeTails(critter().doc, { carry: 50 } as Partial<BakeOptions>)).toThrow(
      /^bitrig\/bake: unknown option "carry" \("carry" belongs under tail: pass \{ tail: \{ carry: … \} \}\); options: tail, loopTolerance,/);
    expect(() => bakeTails(critter().doc, { clip: ['walk'] } as Partial<BakeOptions>)).toThrow(/^bitrig\/bake: unknown option "clip" \(did you mean "clips"\?\)/);
    expect(() => bakeTails(critter().doc, { tail: { carry: 50 } })).toThrow(/^bitrig\/tail: option carry must be an angle in radians in \[-π, π\], got 50 \(degrees\? use 50 \* Math\.PI \/ 180\)$/);
    expect(() => mergeBakeOptions({ tail: 'carry' as never })).toThrow(/^bitrig\/bake: tail must be an object of tail options .*got "carry" \(a string\)$/);
  });

  test('fps "30" prints quoted; clips "Walk" is named as a string, not read letter by letter ("unknown clip \\"W\\"")', () => {
    throwsExactly(() => bakeTails(critter().doc, { fps: '30' as never }), 'bitrig/bake: fps must be a number of keys per second in (0, 1000], got "30" (a string)');
    throwsExactly(() => bakeTails(critter().doc, { clips: 'walk' as never }),
      'bitrig/bake: clips must be an array of clip names or null (every clip), got "walk" (a string); for one clip pass ["walk"]');
    throwsExactly(() => mergeBakeOptions({ clips: [3] as never }), 'bitrig/bake: clips[0] must be a clip name (a string), got 3');
    throwsExactly(() => mergeBakeOptions({ clips: ['walk', 'walk'] }), 'bitrig/bake: clips names "walk" twice; list each clip once');
    throwsExactly(() => mergeBakeOptions({ clips: { walk: true } as never }), 'bitrig/bake: clips must be an array of clip names or null (every clip), got an object');
  });

  test('the other bake options name strings and types', () => {
    throwsExactly(() => mergeBakeOptions({ loopTolerance: '0.1' as never }), 'bitrig/bake: loopTolerance must be a positive number of degrees, got "0.1" (a string)');
    throwsExactly(() => mergeBakeOptions({ maxWarmupSeconds: '60' as never }), 'bitrig/bake: maxWarmupSeconds must be a number of seconds ≥ 0, got "60" (a string)');
    throwsExactly(() => mergeBakeOptions({ minWarmupCycles: '1' as never }), 'bitrig/bake: minWarmupCycles must be an integer ≥ 0, got "1" (a string)');
    throwsExactly(() => mergeBakeOptions({ onWarning: 'log' as never }), 'bitrig/bake: onWarning must be a function (message) => void or null, got "log" (a string)');
    throwsExactly(() => mergeBakeOptions({ onProgress: true as never }), 'bitrig/bake: onProgress must be a function (stage, fraction) => void or null, got true');
    throwsExactly(() => mergeBakeOptions({ calibration: 'auto' as never }), 'bitrig/bake: calibration must be null or captureBakeCalibration(doc)\'s result, got "auto" (a string)');
    throwsExactly(() => mergeBakeOptions({ endPoseRotationTolerance: '10' as never }), 'bitrig/bake: endPoseRotationTolerance must be a number of degrees ≥ 0, got "10" (a string)');
    throwsExactly(() => mergeBakeOptions('fast' as never), 'bitrig/bake: options must be an object, got "fast" (a string)');
  });

  test('undefined keeps the default; detectClipMode and simulateTailCycle refuse unknown keys', () => {
    const o = mergeBakeOptions({ fps: undefined, clips: undefined, tail: undefined, clipMode: undefined });
    expect(o.fps).toBe(30);
    expect(o.clips).toBeNull();
    const c = critter();
    const calib = captureBakeCalibration(c.doc);
    expect(() => detectClipMode(calib, 'walk', { endPoseRotationTol: 5 } as never)).toThrow(
      /^bitrig\/bake: unknown option "endPoseRotationTol"; options: endPoseRotationTolerance, endPoseTranslationTolerance, endPoseScaleTolerance$/);
    expect(detectClipMode(calib, 'walk', { endPoseRotationTolerance: undefined }).mode).toBe('loop');
    // a simulation takes its own keys only (measureTail passes just those)
    expect(() => simulateTailCycle(calib, 'walk', 8, { samples: 8, maxWarmupSeconds: 2 } as never)).toThrow(/^bitrig\/bake: unknown option "samples"/);
    const cyc = simulateTailCycle(calib, 'walk', 8, { maxWarmupSeconds: 2 });
    expect(cyc.rotations.length).toBe(9 * cyc.bones.length * 4);
    expect(() => simulateTailCycle(calib, 'walk', 8, 'x' as never)).toThrow(/^bitrig\/bake: options must be an object, got "x" \(a string\)$/);
  });

  test('a valid bake with every option a known key still runs', () => {
    const r = bakeTails(critter().doc, { clips: ['walk'], fps: 10, tail: { carry: 0.5 }, maxWarmupSeconds: 4, clipMode: 'loop' });
    expect(r.clips.map((x) => x.clip)).toEqual(['walk']);
  });
});

describe('bake and measure name a wrong first argument', () => {
  test('GLB bytes or a path instead of a Document: bitrig/bake and bitrig/measure say what to do', async () => {
    const { bakeTails, captureBakeCalibration } = await import('../../rig/bake');
    const { measureTail } = await import('../../rig/measure');
    const bytes = new Uint8Array(16);
    expect(() => bakeTails(bytes as never)).toThrow(/^bitrig\/bake: expected a glTF-Transform Document .*read the bytes into one first/);
    expect(() => captureBakeCalibration('fox.glb' as never)).toThrow(/^bitrig\/bake: expected a glTF-Transform Document .*read the file into one first/);
    expect(() => measureTail(null as never, 'Walk')).toThrow(/^bitrig\/measure: expected a glTF-Transform Document/);
  });
});

describe('measure options and the --carry flag', () => {
  test('measureTail refuses unknown keys (a tail option at the top level, a typo) like bakeTails; --carry outside [-180, 180] degrees is refused by the CLI in degrees', async () => {
    const { mergeMeasureOptions } = await import('../../rig/measure');
    expect(() => mergeMeasureOptions({ carry: 0.5 } as never)).toThrow(/^bitrig\/measure: unknown option "carry"/);
    expect(() => mergeMeasureOptions({ sampels: 12 } as never)).toThrow(/^bitrig\/measure: unknown option "sampels" \(did you mean "samples"\?\)/);
    expect(mergeMeasureOptions({ samples: 12, tail: { carry: 0.5 } }).samples).toBe(12);
    const { tailFlags } = await import('../../cli/measure');
    expect(() => tailFlags({ '--carry': '200' })).toThrow(/^--carry must be a number of degrees in \[-180, 180\], got 200$/);
    expect(tailFlags({ '--carry': '30' }).carry).toBeCloseTo(Math.PI / 6, 12);
  });
});
