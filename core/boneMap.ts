/**
 * Bone-name map: finds the pelvis and tail chains in skeletons from any rigger
 * (Mixamo `mixamorig:Hips`, plain `Hips`, Blender `.L/.R`, Khronos `b_Hip_01`,
 * Quaternius `Back`). Setup-time only; allocates freely.
 *
 * A skeleton is described engine-free as names plus parent indices (-1 for a root),
 * in any order.
 */

/** A skeleton as names and parent indices (-1 = root). */
export interface SkeletonTopology {
  /** Bone names, one per bone. */
  names: readonly string[];
  /** Parent index of every bone, -1 for a root. */
  parents: ArrayLike<number>;
}

/** Which side of the body a bone is on, from its name. */
export type BoneSide = 'left' | 'right' | 'center';

/** A bone name reduced to its role: prefix, side marker and numeric suffix removed. */
export interface ParsedBoneName {
  /** Lower-case role with separators removed, e.g. `upleg`, `tail`, `hip`. */
  base: string;
  /** Index in a numbered chain (`Tail3` → 3, `b_Tail02_013` → 2), or -1. */
  index: number;
  /** Side from `Left`/`Right`, `.L/.R`, `_L/_R`, `L_`/`R_`. */
  side: BoneSide;
}

// (three.js's GLTFLoader drops ':' from node names: `mixamorig:LeftHand` arrives as
// `mixamorigLeftHand`; both forms are read. limbMap reads `FootL`-style sides, as the loader
// leaves `Foot.L`, by pairs.)
const PREFIX_RE = /^(?:mixamorig\d*[:_|.\s-]*|(?:armature|rig|def|bip\d*|character\d*)[:_|.\s-]+)/i;
const NAMESPACE_RE = /^[^:]*:/;

/**
 * Reduce a bone name to its role, side and chain index.
 *
 * @example
 * parseBoneName('mixamorig:LeftUpLeg') // { base: 'upleg', index: -1, side: 'left' }
 * parseBoneName('b_Tail02_013')        // { base: 'tail', index: 2, side: 'center' }
 * parseBoneName('Tail_3')              // { base: 'tail', index: 3, side: 'center' }
 * parseBoneName('mixamorigLeftHand')   // { base: 'hand', index: -1, side: 'left' } (as three.js loads it)
 */
export function parseBoneName(name: string): ParsedBoneName {
  let s = name.trim();
  s = s.replace(NAMESPACE_RE, '');
  s = s.replace(PREFIX_RE, '');
  let side: BoneSide = 'center';
  // Khronos style b_Name_NN: drop the b_ prefix and the trailing node number.
  let khronos = false;
  if (/^b_/i.test(s)) {
    s = s.slice(2);
    khronos = true;
  }
  if (khronos) s = s.replace(/_\d+$/, '');
  // Side suffixes .L / _L / -L / .left, prefixes L_ / l. / Left / Right.
  const sfx = /[._\-\s](l|r|left|right)$/i.exec(s);
  if (sfx) {
    side = sfx[1]!.toLowerCase().startsWith('l') ? 'left' : 'right';
    s = s.slice(0, sfx.index);
  } else {
    const pfx = /^(l|r)[._\-\s]/i.exec(s);
    if (pfx) {
      side = pfx[1]!.toLowerCase() === 'l' ? 'left' : 'right';
      s = s.slice(pfx[0].length);
    } else if (/^left/i.test(s)) {
      side = 'left';
      s = s.slice(4);
    } else if (/^right/i.test(s)) {
      side = 'right';
      s = s.slice(5);
    } else if (/left/i.test(s)) {
      side = 'left';
      s = s.replace(/left/i, '');
    } else if (/right/i.test(s)) {
      side = 'right';
      s = s.replace(/right/i, '');
    }
  }
  let index = -1;
  const num = /[._\-\s]?(\d+)$/.exec(s);
  if (num) {
    index = parseInt(num[1]!, 10);
    s = s.slice(0, num.index);
  }
  const base = s.toLowerCase().replace(/[^a-z0-9]/g, '');
  return { base, index, side };
}

function childrenOf(topo: SkeletonTopology): number[][] {
  const n = topo.names.length;
  const ch: number[][] = [];
  for (let i = 0; i < n; i++) ch.push([]);
  for (let i = 0; i < n; i++) {
    const p = topo.parents[i]!;
    if (p >= 0 && p < n) ch[p]!.push(i);
  }
  return ch;
}

function depthOf(topo: SkeletonTopology, i: number): number {
  let d = 0;
  let p = topo.parents[i]!;
  while (p >= 0 && d < 10_000) {
    d++;
    p = topo.parents[p]!;
  }
  return d;
}

function isAncestor(topo: SkeletonTopology, a: number, b: number): boolean {
  let p = topo.parents[b]!;
  let guard = 0;
  while (p >= 0 && guard++ < 10_000) {
    if (p === a) return true;
    p = topo.parents[p]!;
  }
  return false;
}

function lowestCommonAncestor(topo: SkeletonTopology, a: number, b: number): number {
  const seen = new Set<number>();
  let p = a;
  let guard = 0;
  while (p >= 0 && guard++ < 10_000) {
    seen.add(p);
    p = topo.parents[p]!;
  }
  p = b;
  guard = 0;
  while (p >= 0 && guard++ < 10_000) {
    if (seen.has(p)) return p;
    p = topo.parents[p]!;
  }
  return -1;
}

const PELVIS_NAMES = new Set(['hips', 'hip', 'pelvis', 'root_hips', 'hipsroot']);
const LEG_ROOT_RE = /^(up(per)?leg|thigh|leg|leg01|hindleg|backleg|backupperleg|upperleg|femur|hipjoint)$/;
const SPINE_RE = /^(spine|spine\d*|torso|chest|abdomen|belly|back|body|waist)/;

/** Is this parsed name a tail bone (`tail`, `tail1`, `tail_end`, `tailbase`; a second tail `Tail2_1` as the rig pass names it)? */
export function isTailName(name: string): boolean {
  const p = parseBoneName(name);
  return /^tail\d*(end|tip|base|root|bone|seg(ment)?)?$/.test(p.base);
}

function isTailEndName(name: string): boolean {
  const p = parseBoneName(name);
  return /^tail\d*(end|tip)$/.test(p.base) || (/^tail\d*$/.test(p.base) && /end$/i.test(name));
}

/**
 * Find the pelvis bone: by name first (`Hips`, `mixamorig:Hips`, `b_Hip_01`, `Pelvis`),
 * then by structure (the lowest common ancestor of the left and right leg roots — the
 * joint where legs and spine branch; Quaternius animals call it `Back`), then the parent
 * of a tail chain. Returns -1 when nothing fits.
 *
 * @example
 * findPelvis({ names: ['Root', 'Hips', 'LeftUpLeg'], parents: [-1, 0, 1] }) // 1
 */
export function findPelvis(topo: SkeletonTopology): number {
  const n = topo.names.length;
  // 1. By name; prefer the shallowest match.
  let best = -1;
  let bestDepth = Infinity;
  for (let i = 0; i < n; i++) {
    const p = parseBoneName(topo.names[i]!);
    if (p.side === 'center' && PELVIS_NAMES.has(p.base)) {
      const d = depthOf(topo, i);
      if (d < bestDepth) {
        best = i;
        bestDepth = d;
      }
    }
  }
  if (best >= 0) return best;
  // 2. By structure: LCA of a left and a right leg root. Hind legs win over front legs:
  //    pick the pair whose LCA is deepest among pairs that are not front legs.
  const lefts: number[] = [];
  const rights: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = parseBoneName(topo.names[i]!);
    if (p.side === 'center') continue;
    const isLeg = LEG_ROOT_RE.test(p.base) || /leg/.test(p.base) || /thigh/.test(p.base);
    if (!isLeg) continue;
    if (/front|fore|arm|ik|pole|ff/.test(p.base)) continue;
    // Only the top-most leg bone of its chain.
    const par = topo.parents[i]!;
    if (par >= 0) {
      const pp = parseBoneName(topo.names[par]!);
      if (pp.side === p.side && (/leg|thigh/.test(pp.base))) continue;
    }
    (p.side === 'left' ? lefts : rights).push(i);
  }
  let lca = -1;
  let lcaDepth = -1;
  for (const l of lefts) {
    for (const r of rights) {
      const a = lowestCommonAncestor(topo, l, r);
      if (a < 0) continue;
      const d = depthOf(topo, a);
      if (d > lcaDepth) {
        lca = a;
        lcaDepth = d;
      }
    }
  }
  if (lca >= 0) return lca;
  // 3. The parent of the first tail chain.
  const chains = findTailChains(topo);
  if (chains.length > 0) {
    const p = topo.parents[chains[0]!.bones[0]!]!;
    if (p >= 0) return p;
  }
  // 4. The shallowest bone with three or more children (legs + spine branch).
  const ch = childrenOf(topo);
  best = -1;
  bestDepth = Infinity;
  for (let i = 0; i < n; i++) {
    if (ch[i]!.length >= 3) {
      const d = depthOf(topo, i);
      if (d < bestDepth) {
        best = i;
        bestDepth = d;
      }
    }
  }
  return best;
}

/** A tail chain found by name: bones from the root outward, and an optional end helper. */
export interface TailChainBones {
  /** Bone indices from the tail root to the last weighted bone. */
  bones: number[];
  /** Index of a `Tail_End`-style helper bone past the last bone, or -1. */
  end: number;
  /** Parent of the first bone (the hips, usually), or -1. */
  parent: number;
}

/**
 * Find tail chains by name: `Tail_1…`, `Tail1…`, `b_Tail01_012…`, `tail.001`, any case,
 * with `.L/.R` and `mixamorig:` styles. A chain is a run of tail bones each the child of
 * the previous; a trailing `Tail_End` is reported as `end`. Chains are sorted by root depth.
 *
 * @example
 * findTailChains({ names: ['Hips', 'Tail_1', 'Tail_2', 'Tail_End'], parents: [-1, 0, 1, 2] })
 * // [{ bones: [1, 2], end: 3, parent: 0 }]
 */
export function findTailChains(topo: SkeletonTopology): TailChainBones[] {
  const n = topo.names.length;
  const tail: boolean[] = [];
  for (let i = 0; i < n; i++) tail.push(isTailName(topo.names[i]!));
  const ch = childrenOf(topo);
  const out: TailChainBones[] = [];
  for (let i = 0; i < n; i++) {
    if (!tail[i]) continue;
    const p = topo.parents[i]!;
    if (p >= 0 && tail[p]) continue; // not a chain root
    if (isTailEndName(topo.names[i]!)) continue;
    const bones: number[] = [i];
    let end = -1;
    let cur = i;
    for (;;) {
      const next = ch[cur]!.filter((c) => tail[c]);
      if (next.length === 0) break;
      // Prefer a numbered continuation; a helper end is reported separately.
      const body = next.filter((c) => !isTailEndName(topo.names[c]!));
      if (body.length > 0) {
        cur = body[0]!;
        bones.push(cur);
      } else {
        end = next[0]!;
        break;
      }
    }
    out.push({ bones, end, parent: p });
  }
  out.sort((a, b) => depthOf(topo, a.bones[0]!) - depthOf(topo, b.bones[0]!));
  return out;
}

/** True when `a` is an ancestor of `b` in the skeleton. */
export function boneIsAncestor(topo: SkeletonTopology, a: number, b: number): boolean {
  return isAncestor(topo, a, b);
}

/** Exposed for the limb finder and the rig pass: does this name look like spine/torso? */
export function isSpineName(name: string): boolean {
  return SPINE_RE.test(parseBoneName(name).base);
}
