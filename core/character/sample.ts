/**
 * Engine-free clip sampling for the built-in character: fills local TRS arrays (one
 * entry per bone of {@link CharacterData.bones}) the way three.js's AnimationMixer does
 * for a single clip at weight 1 (LINEAR: lerp for vectors, shortest-path slerp for
 * quaternions; STEP: the previous key). Setup allocates; {@link sampleCharacterClip}
 * never allocates or throws.
 */
import type { CharacterClip, CharacterData } from './types';

/** A clip resolved against a skeleton: bone index and component count per track. */
export interface CharacterClipSampler {
  /** The clip sampled. */
  clip: CharacterClip;
  /** Bone index per track. */
  bone: Int32Array;
  /** 0 translation, 1 rotation, 2 scale per track. */
  path: Uint8Array;
}

/**
 * Resolve a clip (by name or object) against the character's bones.
 * Throws `bitrig/character: …` for an unknown clip or bone.
 *
 * @example
 * const s = createCharacterClipSampler(data, 'walk');
 * sampleCharacterClip(s, 0.25, t, r, sc);
 */
export function createCharacterClipSampler(data: CharacterData, clip: string | CharacterClip): CharacterClipSampler {
  const c = typeof clip === 'string' ? data.clips.find((k) => k.name === clip) : clip;
  if (!c) throw new Error(`bitrig/character: no clip named ${String(clip)} (have ${data.clips.map((k) => k.name).join(', ')})`);
  const bone = new Int32Array(c.tracks.length);
  const path = new Uint8Array(c.tracks.length);
  c.tracks.forEach((tr, i) => {
    const b = data.bones.findIndex((x) => x.name === tr.bone);
    if (b < 0) throw new Error(`bitrig/character: clip ${c.name} keys unknown bone ${tr.bone}`);
    bone[i] = b;
    path[i] = tr.path === 'translation' ? 0 : tr.path === 'rotation' ? 1 : 2;
  });
  return { clip: c, bone, path };
}

/**
 * Write the bind local TRS of every bone (3 / 4 / 3 numbers per bone).
 *
 * @example
 * const n = data.bones.length;
 * const t = new Float64Array(n * 3), r = new Float64Array(n * 4), s = new Float64Array(n * 3);
 * characterBindPose(data, t, r, s);
 */
export function characterBindPose(data: CharacterData, outT: Float64Array | Float32Array, outR: Float64Array | Float32Array, outS: Float64Array | Float32Array): void {
  const bones = data.bones;
  for (let i = 0; i < bones.length; i++) {
    const b = bones[i]!;
    outT[i * 3] = b.t[0]; outT[i * 3 + 1] = b.t[1]; outT[i * 3 + 2] = b.t[2];
    outR[i * 4] = b.r[0]; outR[i * 4 + 1] = b.r[1]; outR[i * 4 + 2] = b.r[2]; outR[i * 4 + 3] = b.r[3];
    outS[i * 3] = b.s[0]; outS[i * 3 + 1] = b.s[1]; outS[i * 3 + 2] = b.s[2];
  }
}

/**
 * Sample the clip at `time` seconds (clamped to [0, duration]; NaN reads as 0) into the
 * keyed channels of the output arrays; unkeyed bones keep what the arrays hold.
 *
 * @example
 * characterBindPose(data, t, r, s);
 * sampleCharacterClip(sampler, (elapsed % 1), t, r, s);
 */
export function sampleCharacterClip(
  s: CharacterClipSampler, time: number,
  outT: Float64Array | Float32Array, outR: Float64Array | Float32Array, outS: Float64Array | Float32Array,
): void {
  const tracks = s.clip.tracks;
  const dur = s.clip.duration;
  const t = time > 0 ? (time < dur ? time : dur) : 0;
  for (let k = 0; k < tracks.length; k++) {
    const tr = tracks[k]!;
    const times = tr.times, vals = tr.values;
    const n = times.length;
    // last key index with times[i] <= t
    let lo = 0, hi = n - 1;
    if (t >= times[hi]!) lo = hi;
    else {
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (times[mid]! <= t) lo = mid;
        else hi = mid;
      }
    }
    const i1 = lo < n - 1 ? lo + 1 : lo;
    const span = times[i1]! - times[lo]!;
    const f = tr.interpolation === 'STEP' || span <= 0 ? 0 : (t - times[lo]!) / span;
    const b = s.bone[k]!;
    const p = s.path[k]!;
    if (p === 1) {
      slerpInto(outR, b * 4, vals, lo * 4, i1 * 4, f);
    } else {
      const out = p === 0 ? outT : outS;
      for (let c = 0; c < 3; c++) {
        const a = vals[lo * 3 + c]!, bb = vals[i1 * 3 + c]!;
        out[b * 3 + c] = a + (bb - a) * f;
      }
    }
  }
}

function slerpInto(out: Float64Array | Float32Array, o: number, v: Float32Array, a: number, b: number, t: number): void {
  const x0 = v[a]!, y0 = v[a + 1]!, z0 = v[a + 2]!, w0 = v[a + 3]!;
  let x1 = v[b]!, y1 = v[b + 1]!, z1 = v[b + 2]!, w1 = v[b + 3]!;
  let cos = x0 * x1 + y0 * y1 + z0 * z1 + w0 * w1;
  if (cos < 0) { x1 = -x1; y1 = -y1; z1 = -z1; w1 = -w1; cos = -cos; }
  let s0 = 1 - t, s1 = t;
  if (cos < 0.9995) {
    const ang = Math.acos(cos > 1 ? 1 : cos);
    const sin = Math.sin(ang);
    s0 = Math.sin(s0 * ang) / sin;
    s1 = Math.sin(s1 * ang) / sin;
  }
  let x = s0 * x0 + s1 * x1, y = s0 * y0 + s1 * y1, z = s0 * z0 + s1 * z1, w = s0 * w0 + s1 * w1;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 0) { x /= l; y /= l; z /= l; w /= l; } else { x = 0; y = 0; z = 0; w = 1; }
  out[o] = x; out[o + 1] = y; out[o + 2] = z; out[o + 3] = w;
}
