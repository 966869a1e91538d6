/**
 * Units: bitrig's physical options are in metres (gravity m/s², clearance m); `unitScale`
 * (world units per metre) converts them for rigs left in other units.
 */

/**
 * Guess world units per metre from a character's height in world units: anything taller
 * than 20 units is taken as centimetres (100), else metres (1). Setup-time.
 *
 * @example
 * autoUnitScale(77) // 100 (the Khronos fox, left in centimetres)
 * autoUnitScale(1.8) // 1
 */
export function autoUnitScale(heightWorldUnits: number): number {
  return Number.isFinite(heightWorldUnits) && heightWorldUnits > 20 ? 100 : 1;
}
