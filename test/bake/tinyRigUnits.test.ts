/**
 * A rig a thousand times too small (1.3 mm tall, as a metre model exported at 1/1000): bake
 * and measure take its units as a power of ten that makes it creature-sized, say so with how
 * to set the scale, and its baked tail swings as the full-size one does instead of being
 * pinned by metre-sized gravity and damping.
 */
import { describe, expect, it } from 'vitest';
import { bakeTails } from '../../rig/bake';
import { guessUnitScale, unitScaleNote } from '../../rig/units';
import { makeCritter } from './fixtures';

describe('units of a millimetre-scale rig', () => {
  it('guessUnitScale: a power of ten bringing a tiny rig to 0.2…2 m; metres and centimetres as before', () => {
    expect(guessUnitScale(0.00126)).toBe(0.001);
    expect(guessUnitScale(0.019)).toBe(0.01);
    expect(guessUnitScale(1.8)).toBe(1);
    expect(guessUnitScale(77)).toBe(100);
    expect(guessUnitScale(NaN)).toBe(1);
    expect(unitScaleNote(1.8, 1)).toBeNull();
    expect(unitScaleNote(0.00126, 0.001)).toBe('the model is only 0.00126 units tall, so its units were taken as 0.001 m (simulated as a 1.26 m creature); if it is really that small, set the scale with --unit-scale 1 (tail.unitScale in the API)');
  });

  it('bake: the 1/1000 critter swings its tail as the full-size one (root swing within 2°), with a note', () => {
    const full = bakeTails(makeCritter({ variant: 'chain' }).doc, { clips: ['walk'], fps: 30 });
    const tiny = bakeTails(makeCritter({ variant: 'chain', armature: { s: [0.001, 0.001, 0.001] } }).doc, { clips: ['walk'], fps: 30 });
    expect(tiny.units.unitScale).toBe(0.001);
    expect(tiny.warnings.some((w) => /^the model is only 0\.00\d+ units tall, so its units were taken as 0\.001 m/.test(w))).toBe(true);
    expect(full.warnings.some((w) => /units tall/.test(w))).toBe(false);
    expect(Math.abs(tiny.clips[0]!.rootSwingDeg - full.clips[0]!.rootSwingDeg)).toBeLessThan(2);
    // Set by hand, the scale is the caller's: no guess, no note (a metre-sized spring on a 1.3 mm tail swings it far off).
    const asked = bakeTails(makeCritter({ variant: 'chain', armature: { s: [0.001, 0.001, 0.001] } }).doc, { clips: ['walk'], fps: 30, tail: { unitScale: 1 } });
    expect(asked.units.unitScale).toBe(1);
    expect(asked.warnings.some((w) => /units tall/.test(w))).toBe(false);
    expect(asked.clips[0]!.rootSwingDeg - full.clips[0]!.rootSwingDeg).toBeGreaterThan(20); // (what the guess prevents: metre physics on a 1.3 mm tail)
  });
});
