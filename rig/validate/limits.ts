/**
 * The stated limits of the offline side: every loop bounded by the input is bounded by one of
 * these. A file beyond a limit is refused with a reason naming the limit; none of them is
 * near what a game character needs.
 */

/** Limits the offline commands and functions enforce (bytes, seconds, counts). */
export interface InputLimits {
  /** Largest GLB read (bytes): 512 MiB. A larger file (or `/dev/zero`) is refused while reading. */
  maxGlbBytes: number;
  /** Deepest nesting of arrays and objects in the JSON chunk (glTF itself needs about 8). */
  maxJsonDepth: number;
  /** Longest clip (seconds): a key time beyond it is refused. */
  maxClipSeconds: number;
  /** Most keys a bake writes per clip and per bone (duration × fps + 1). */
  maxBakeKeys: number;
  /** Most sample times `measure` takes through a clip. */
  maxMeasureSamples: number;
  /** Most nodes a document may have. */
  maxNodes: number;
}

/** The limits used everywhere (one table). */
export const INPUT_LIMITS: Readonly<InputLimits> = Object.freeze({
  maxGlbBytes: 512 * 1024 * 1024,
  maxJsonDepth: 64,
  maxClipSeconds: 3600,
  maxBakeKeys: 200_000,
  maxMeasureSamples: 10_000,
  maxNodes: 100_000,
});
