/**
 * Attaching bitrig to a world: the data (core/world.ts) and the WebAssembly kernels
 * (runtime/kernels.ts), laid out again whenever a setup call grows a capacity.
 */
import { createWorld } from 'bitecs';
import { attachBitrigData, detachBitrigData, type BitrigWorld, type BitrigWorldOptions } from '../core/world';
import { kernelUnavailableReason, layoutTailArena } from './kernels';

/**
 * Attach bitrig to a bitECS 0.4 world the game made (`createWorld()` from bitecs), once: its
 * components (plain objects of typed arrays, in `world.components`), the pose store
 * (`world.pose`), all in the WebAssembly kernels' memory. The game's own components and
 * entities stay as they are. Returns the same world, typed. Throws `bitrig/world: …` for a bad
 * option, a world already attached, a property bitrig would overwrite, or a runtime that
 * cannot compile the kernels (no WebAssembly SIMD, or a Content-Security-Policy without
 * `'wasm-unsafe-eval'`: the message names the fix). Setup-time.
 *
 * @example
 * import { createWorld, query } from 'bitecs';
 * const world = attachBitrig(createWorld(), { characters: 64 });
 * const tails = query(world, [world.components.TailChain]);
 */
export function attachBitrig<W extends object>(world: W, options: BitrigWorldOptions = {}): W & BitrigWorld {
  const w = attachBitrigData(world, options);
  if (!layoutTailArena(w)) {
    detachBitrigData(w);
    const why = kernelUnavailableReason() ?? 'bitrig: the WebAssembly memory for this world could not be had (over 4 GB?)';
    throw new Error(`bitrig/world: cannot attach: ${why.replace(/^bitrig: /, '')}`);
  }
  w.relayout = relayoutOrThrow;
  // (the pose store's arrays live in the kernels' memory)
  w.pose.onGrow = () => { if (w.tailAccel !== null) relayoutOrThrow(w); };
  return w;
}

/** Lay the kernels' memory out again after a setup call grew a capacity; throws when it cannot be had. */
function relayoutOrThrow(world: BitrigWorld): void {
  if (!layoutTailArena(world)) {
    throw new Error('bitrig/world: the WebAssembly memory for this many characters, bones and chains cannot be had (over 4 GB); use more worlds');
  }
}

/**
 * Make a bitECS world and attach bitrig to it: the shortcut for `attachBitrig(createWorld(),
 * options)`. An option given as undefined keeps its default; an unknown key (a typo:
 * `fixedstep`) or a bad value throws `bitrig/world: …` naming it, with the nearest known key.
 *
 * @example
 * const world = createBitrigWorld();
 * // bind characters with an adapter, then every frame: update(world, dt)
 */
export function createBitrigWorld(options: BitrigWorldOptions = {}): BitrigWorld {
  return attachBitrig(createWorld(), options);
}
