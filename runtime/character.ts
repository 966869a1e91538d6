/**
 * `bitrig/character` — the built-in critter: a procedural character (skeleton, skin, clips)
 * for demos, tests and a first run without a model of your own.
 *
 * @example
 * import { createBuiltinCharacter } from 'bitrig/character';
 * const critter = createBuiltinCharacter({ variant: 'shin' });
 */
export * from '../core/character/index';
