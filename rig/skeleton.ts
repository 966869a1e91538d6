/**
 * A skin's skeleton in bind space: joint names, parents (nearest ancestor that is a joint of
 * the same skin), bind world matrices `W = IBM⁻¹`, joint positions, the pelvis, and the
 * up axis of the bind space (bind space need not be Y-up: Mixamo FBX exports bind in Z-up
 * centimetres). Setup-time code: allocates freely, throws `bitrig/rig: …` on bad input.
 * Browser-safe (no Node imports).
 */
import type { Node, Skin } from '@gltf-transform/core';
import { mat4 } from 'gl-matrix';
import { findPelvis, parseBoneName } from '../core/boneMap';

/** A skin's joints in bind space. */
export interface SkinSkeleton {
  /** The glTF skin. */
  skin: Skin;
  /** Joint nodes in skin order. */
  nodes: Node[];
  /** Joint names (node names; `joint<i>` when unnamed). */
  names: string[];
  /** Parent joint index, -1 for a root (nearest ancestor node that is a joint of this skin). */
  parents: Int32Array;
  /** Bind world matrix per joint (column-major, 16 each): inverse of the inverse bind matrix. */
  bindWorld: Float64Array;
  /** Bind-space joint positions, 3 per joint. */
  positions: Float64Array;
  /** Pelvis joint index, or -1 when the skin has none (e.g. a 2-joint visor skin). */
  pelvis: number;
  /** Unit up direction in bind space (world +Y mapped back through the pelvis's rest-to-bind map). */
  up: Float64Array;
  /** 1 for joints that carry weight on at least one vertex of the skin (filled by the caller). */
  weighted: Uint8Array;
  /**
   * False when the skin has no inverse bind matrices: glTF 2.0 then means identity matrices
   * ("pre-applied"), so every joint's bind world matrix is the identity and every joint sits
   * at the bind-space origin.
   */
  hasInverseBind: boolean;
}

const _m = mat4.create();
const _w = mat4.create();

/**
 * Read a skin's skeleton in bind space. A skin without inverse bind matrices gets identity
 * matrices, as glTF 2.0 defines (`skin.inverseBindMatrices`: "When undefined, each matrix is
 * a 4x4 identity matrix"). Throws when there are fewer matrices than joints, or one is not
 * invertible.
 *
 * @example
 * const skel = readSkinSkeleton(doc.getRoot().listSkins()[0]!, null);
 * console.log(skel.names[skel.pelvis]);
 */
export function readSkinSkeleton(skin: Skin, pelvisName: string | null): SkinSkeleton {
  const nodes = skin.listJoints();
  const n = nodes.length;
  const label = skin.getName() ? `skin "${skin.getName()}"` : 'a skin';
  if (n === 0) throw new Error(`bitrig/rig: ${label} has no joints`);
  const ibm = skin.getInverseBindMatrices();
  if (ibm && (ibm.getType() !== 'MAT4' || ibm.getCount() < n)) {
    throw new Error(`bitrig/rig: ${label} has ${ibm.getCount()} inverse bind matrices for ${n} joints`);
  }
  const names = nodes.map((j, i) => j.getName() || `joint${i}`);
  const index = new Map<Node, number>();
  nodes.forEach((j, i) => index.set(j, i));
  const parents = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    let p = nodes[i]!.getParentNode();
    while (p && !index.has(p)) p = p.getParentNode();
    parents[i] = p ? index.get(p)! : -1;
  }
  const bindWorld = new Float64Array(16 * n);
  const positions = new Float64Array(3 * n);
  const el: number[] = new Array(16).fill(0);
  for (let i = 0; i < n; i++) {
    if (ibm) ibm.getElement(i, el);
    else identityElements(el);
    for (let k = 0; k < 16; k++) _m[k] = el[k]!;
    let finite = true;
    for (let k = 0; k < 16; k++) if (!Number.isFinite(_m[k]!)) finite = false;
    if (!finite || !mat4.invert(_w, _m)) {
      throw new Error(`bitrig/rig: inverse bind matrix of joint "${names[i]}" in ${label} is not invertible`);
    }
    for (let k = 0; k < 16; k++) bindWorld[16 * i + k] = _w[k]!;
    positions[3 * i] = _w[12]!;
    positions[3 * i + 1] = _w[13]!;
    positions[3 * i + 2] = _w[14]!;
  }
  let pelvis = -1;
  if (pelvisName) {
    pelvis = names.indexOf(pelvisName);
    if (pelvis < 0) throw new Error(`bitrig/rig: pelvis "${pelvisName}" is not a joint of ${label}`);
  } else {
    pelvis = findPelvis({ names, parents });
  }
  const ref = pelvis >= 0 ? pelvis : 0;
  if (ibm) ibm.getElement(ref, el);
  else identityElements(el);
  const up = bindUpAxis(nodes[ref]!, el);
  return { skin, nodes, names, parents, bindWorld, positions, pelvis, up, weighted: new Uint8Array(n), hasInverseBind: !!ibm };
}

/** Column-major 4×4 identity into `el` (16 numbers). */
function identityElements(el: number[]): void {
  for (let k = 0; k < 16; k++) el[k] = k % 5 === 0 ? 1 : 0;
}

/**
 * Up axis of bind space: `M = W_rest(j) · IBM(j)` maps bind space to the scene's world, so
 * up ∝ M⁻¹·(0,1,0). Snapped to the nearest bind axis within 20° (a rest pose slightly off
 * the bind pose must not tilt the height). Falls back to +Y.
 */
function bindUpAxis(joint: Node, ibmEl: ArrayLike<number>): Float64Array {
  const out = new Float64Array([0, 1, 0]);
  const wm = joint.getWorldMatrix();
  for (let k = 0; k < 16; k++) _m[k] = ibmEl[k]!;
  const M = mat4.multiply(mat4.create(), wm as unknown as mat4, _m);
  if (!mat4.invert(_w, M)) return out;
  let x = _w[4]!, y = _w[5]!, z = _w[6]!;
  const len = Math.hypot(x, y, z);
  if (!(len > 0) || !Number.isFinite(len)) return out;
  x /= len; y /= len; z /= len;
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  const m = Math.max(ax, ay, az);
  if (m > Math.cos((20 * Math.PI) / 180)) {
    out[0] = 0; out[1] = 0; out[2] = 0;
    if (ay === m) out[1] = Math.sign(y);
    else if (az === m) out[2] = Math.sign(z);
    else out[0] = Math.sign(x);
  } else {
    out[0] = x; out[1] = y; out[2] = z;
  }
  return out;
}

/** Body regions of joints, used by the attachment policy. */
export const REGION_OTHER = 0;
/** The pelvis and the thigh heads (children of the pelvis with a side). */
export const REGION_PELVIS = 1;
/** Joints between the pelvis and the head (spine, chest, neck). */
export const REGION_SPINE = 2;
/** The head and everything under it (ears, jaw, eyes, hair bones). */
export const REGION_HEAD = 3;
/** Arms, legs, hands, feet, fingers, helpers. */
export const REGION_LIMB = 4;

/**
 * Classify every joint into a body region (pelvis, spine, head, limb, other) from the
 * skeleton's structure and names.
 *
 * @example
 * const regions = jointRegions(skel); // regions[skel.pelvis] === REGION_PELVIS
 */
export function jointRegions(skel: SkinSkeleton): Uint8Array {
  const n = skel.names.length;
  const region = new Uint8Array(n).fill(REGION_LIMB);
  const p = skel.pelvis;
  if (p < 0) return region;
  const parsed = skel.names.map((nm) => parseBoneName(nm));
  const isDesc = (a: number, b: number): boolean => {
    let q = skel.parents[b]!;
    let guard = 0;
    while (q >= 0 && guard++ < 10_000) {
      if (q === a) return true;
      q = skel.parents[q]!;
    }
    return false;
  };
  // Ancestors of the pelvis: "other" (roots, armature helpers).
  let q = skel.parents[p]!;
  while (q >= 0) {
    region[q] = REGION_OTHER;
    q = skel.parents[q]!;
  }
  region[p] = REGION_PELVIS;
  for (let i = 0; i < n; i++) {
    if (skel.parents[i] === p && parsed[i]!.side !== 'center') region[i] = REGION_PELVIS;
  }
  // The head: shallowest centre joint named head under the pelvis.
  let head = -1;
  let headDepth = Infinity;
  for (let i = 0; i < n; i++) {
    const b = parsed[i]!.base;
    if (parsed[i]!.side === 'center' && (b === 'head' || b === 'headjoint') && isDesc(p, i)) {
      let d = 0;
      let r = skel.parents[i]!;
      while (r >= 0) {
        d++;
        r = skel.parents[r]!;
      }
      if (d < headDepth) {
        head = i;
        headDepth = d;
      }
    }
  }
  if (head >= 0) {
    for (let i = 0; i < n; i++) if (i === head || isDesc(head, i)) region[i] = REGION_HEAD;
    let r = skel.parents[head]!;
    while (r >= 0 && r !== p) {
      region[r] = REGION_SPINE;
      r = skel.parents[r]!;
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (i !== p && parsed[i]!.side === 'center' && isDesc(p, i) && /^(spine|chest|torso|neck|abdomen|belly|waist|upperchest)/.test(parsed[i]!.base)) region[i] = REGION_SPINE;
    }
  }
  return region;
}

/**
 * Human name of a region.
 *
 * @example
 * regionName(REGION_PELVIS) // 'pelvis'
 */
export function regionName(r: number): string {
  return r === REGION_PELVIS ? 'pelvis' : r === REGION_SPINE ? 'spine' : r === REGION_HEAD ? 'head' : r === REGION_LIMB ? 'limb' : 'other';
}
