/**
 * Exact per-frame allocation (the bench and test/alloc): the bytes V8's young generation (new space and new
 * large objects) gains while a loop of frames runs. Every JavaScript allocation starts there
 * (pretenured sites aside), so a window that ends where it began allocated nothing. This is
 * not a timing: the numbers do not depend on the machine's speed, only on when V8 has finished
 * optimising the code (which is why it runs windows until the allocation stops).
 */
import v8 from 'node:v8';

function youngUsed(): number {
  let u = 0;
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name === 'new_space' || s.space_name === 'new_large_object_space') u += s.space_used_size;
  return u;
}

/** What {@link steadyAllocation} measured. */
export interface SteadyAllocation {
  /** Bytes allocated per window, in order (NaN: a collection ran in it, so it allocated a lot). */
  windows: number[];
  /** Frames run before the first of the quiet windows (null: never quiet). */
  warmFrames: number | null;
}

/**
 * Run `frame` in windows of `framesPerWindow` frames until `quiet` windows in a row allocate
 * at most `toleranceBytes` each (the statistics read itself is calibrated out), or
 * `maxWindows` windows ran.
 *
 * @example
 * const r = steadyAllocation(() => animator.update(1 / 60));
 * expect(r.warmFrames).not.toBeNull();
 */
export function steadyAllocation(
  frame: () => void,
  { framesPerWindow = 1000, maxWindows = 40, quiet = 3, toleranceBytes = 256 } = {},
): SteadyAllocation {
  const windows: number[] = [];
  let run = 0;
  for (let w = 0; w < maxWindows; w++) {
    const a = youngUsed();
    for (let f = 0; f < framesPerWindow; f++) frame();
    const b = youngUsed();
    const c = youngUsed();
    const d = youngUsed();
    const bytes = b >= a && d >= c ? (b - a) - (d - c) : NaN;
    windows.push(bytes);
    run = bytes <= toleranceBytes ? run + 1 : 0;
    if (run === quiet) return { windows, warmFrames: (w + 1 - quiet) * framesPerWindow };
  }
  return { windows, warmFrames: null };
}

/**
 * Bytes per frame of the last window (0 once quiet; NaN when a collection ran in it).
 *
 * @example
 * allocPerFrame(steadyAllocation(frame, { framesPerWindow: 100 }), 100);
 */
export function allocPerFrame(r: SteadyAllocation, framesPerWindow = 100): number {
  const last = r.windows[r.windows.length - 1];
  return last === undefined ? NaN : Math.max(0, last) / framesPerWindow;
}
