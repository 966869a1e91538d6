/**
 * `bitrig/systems` — each system of the pipeline, for a schedule of your own (a job system
 * that splits a system's range, a worker that owns the whole world). `update` runs them in this
 * order; see systems/pipeline.ts for the numbered steps.
 *
 * @example
 * import { footLock, pelvisHeight, twoBoneIK, tailClockBegin, tailClockStep, tailCollidersBegin, tailStep, tailWrite } from 'bitrig/systems';
 * const n = world.queries.sceneChars.dense.length;
 * footLock(world, dt, 0, n >> 1); footLock(world, dt, n >> 1, n - (n >> 1)); // two jobs
 */
export { update, sceneContacts } from '../systems/pipeline';
export { footLock } from '../systems/footLock';
export { pelvisHeight } from '../systems/pelvisHeight';
export { twoBoneIK } from '../systems/twoBoneIK';
export { tailClockBegin, tailClockStep, resetChainToRest } from '../systems/tailClock';
export { tailCollidersBegin } from '../systems/tailColliders';
export { tailStep } from '../systems/tailStep';
export { tailWrite } from '../systems/tailWrite';
