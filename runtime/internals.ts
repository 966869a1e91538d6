/**
 * `bitrig/internals` — everything else: core's surface (components, pose store, maths, setup
 * helpers), the systems, and the kernel loading. No stability
 * promise: these change with the implementation.
 *
 * @example
 * import { tailWasmModule, poseFindSlot } from 'bitrig/internals';
 */
export * from '../core/index';
export * from './systems';
export { kernelUnavailableReason, layoutTailArena, tailWasmModule, twoBoneWasmModule, sceneContactsWasmModule } from './kernels';
export { solveTwoBone, TB } from './twoBone';
