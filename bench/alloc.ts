/**
 * Exact per-frame allocation (the bench and test/alloc): the bytes V8's young generation (new
 * space and new large objects) gains while a loop of frames runs. Ordinary JavaScript
 * allocation starts there (objects from sites V8 pretenures go straight to the old generation
 * and are not seen), so a window that ends where it began allocated nothing. This is not a
 * timing: the numbers do not depend on the machine's speed, only on when V8 has finished
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
  /** Frames per window (as given). */
  framesPerWindow: number;
  /** Frames run before the first of the quiet windows (null: never quiet). */
  warmFrames: number | null;
}

/**
 * Young-generation bytes gained over `n` frames, the statistics reads included (NaN when a
 * collection ran). One function for the window and for its empty twin (n = 0), so that both
 * read the statistics through the same compiled code: two separate read sites allocate
 * differently once V8 optimises one and not the other (off by up to ±1.7 KB a window).
 */
function windowBytes(frame: () => void, n: number): number {
  const a = youngUsed();
  for (let f = 0; f < n; f++) frame();
  const b = youngUsed();
  return b >= a ? b - a : NaN;
}

/**
 * Run `frame` in windows of `framesPerWindow` frames until `quiet` windows in a row allocate
 * at most `toleranceBytes` each (the statistics reads are calibrated out by an empty window
 * measured the same way), or `maxWindows` windows ran.
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
    const full = windowBytes(frame, framesPerWindow);
    const empty = windowBytes(frame, 0);
    const bytes = full - empty;
    windows.push(bytes);
    run = bytes <= toleranceBytes ? run + 1 : 0;
    if (run === quiet) return { windows, framesPerWindow, warmFrames: (w + 1 - quiet) * framesPerWindow };
  }
  return { windows, framesPerWindow, warmFrames: null };
}

/**
 * Bytes per frame of the last window (NaN when a collection ran in it; slightly negative when
 * the calibration is off by a few bytes).
 *
 * @example
 * allocPerFrame(steadyAllocation(frame, { framesPerWindow: 100 }));
 */
export function allocPerFrame(r: SteadyAllocation): number {
  const last = r.windows[r.windows.length - 1];
  return last === undefined ? NaN : last / r.framesPerWindow;
}
