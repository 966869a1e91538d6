/**
 * The unit guess of the offline side (bake, measure): world units per metre from the rest
 * height. Above 20 units: centimetres (100), as the runtime guesses. Below 2 cm: a rig scaled
 * down by a power of ten (a 1.26 mm creature is a 1.26 m one exported at 1/1000): the power of
 * ten that brings it to 0.2…2 m, with a note saying so and how to set it. Else metres (1).
 */
import { autoUnitScale } from '../core/units';

/** Rest heights below this (world units) are taken as scaled down: no game creature is this small. */
export const TINY_HEIGHT = 0.02;

/**
 * World units per metre for a rest height (world units); see the module header.
 *
 * @example
 * guessUnitScale(0.00126); // 0.001 (simulated as a 1.26 m creature)
 * guessUnitScale(77);      // 100
 * guessUnitScale(1.8);     // 1
 */
export function guessUnitScale(height: number): number {
  if (Number.isFinite(height) && height > 0 && height < TINY_HEIGHT) return 10 ** Math.floor(Math.log10(height / 0.2));
  return autoUnitScale(height);
}

/**
 * A note for a guessed scale that is not metres or centimetres (a tiny rig), naming the
 * height, the size it was simulated at and how to set the scale; null otherwise.
 *
 * @example
 * unitScaleNote(0.00126, 0.001); // 'the model is 0.00126 units tall: …'
 */
export function unitScaleNote(height: number, unitScale: number): string | null {
  if (!(height > 0 && height < TINY_HEIGHT) || unitScale >= 1) return null;
  return `the model is only ${height.toPrecision(3)} units tall, so its units were taken as ${unitScale} m `
    + `(simulated as a ${(height / unitScale).toPrecision(3)} m creature); if it is really that small, set the scale with --unit-scale 1 (tail.unitScale in the API)`;
}
