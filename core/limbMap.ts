/**
 * Limb finding (a bone-name map finds the limbs): legs and arms as two-bone chains
 * in Mixamo (`mixamorig:LeftUpLeg`), plain (`LeftThigh`), Blender `.L/.R` (`UpperLeg.L`) and
 * Khronos `b_Name_NN` (`b_LeftLeg01_015`) skeletons. Setup-time only; allocates freely.
 *
 * - A limb ends at its foot (`Foot`, `Ankle`, `Paw`, `Hoof`) or hand (`Hand`, `Wrist`; `Palm`
 *   as a last resort); its root and mid bones are the two leg (arm) bones directly above.
 * - IK-controller rigs: when the foot is not under the leg (RobotExpressive's `Foot.L` hangs
 *   from the root) or there is no foot at all (Quaternius animals: the paws are skinned to
 *   `IKBackLeg.L`/`FFB.L` outside the `Body` tree), the chain is the deepest two leg bones and
 *   the end is the foot bone or the matching `IK…Leg` controller, placed explicitly by the
 *   solver (`endIsDescendant` false).
 * - Names as three.js sanitises them (`UpperLegL`, `mixamorigLeftUpLeg`) work too: a trailing
 *   L/R is a side when the mirrored name exists.
 * - Quadrupeds have four legs: `Front…`/`Back…` names, or an arm whose hand rests near the
 *   ground in the bind pose (the Khronos fox's front legs are named arms) is a front leg.
 */
import type { SkeletonTopology } from './boneMap';
import { boneIsAncestor, isTailName, parseBoneName } from './boneMap';

/** One limb as bone indices into the skeleton. */
export interface LimbBones {
  /** `'leg'` (gets a foot contact) or `'arm'` (gets a hand target). */
  kind: 'leg' | 'arm';
  /** Body side from the bone names. */
  side: 'left' | 'right';
  /** True for a quadruped's front leg. */
  front: boolean;
  /** Root bone (hip, shoulder joint). */
  root: number;
  /** Mid bone (knee, elbow). */
  mid: number;
  /** End bone (ankle, wrist, or an IK controller carrying the paw). */
  end: number;
  /** True when `end` is a descendant of `mid` (false for IK-controller ends). */
  endIsDescendant: boolean;
  /** `end` and its descendants except tail bones: the skin that makes the foot or hand. */
  endBones: number[];
}

const LEG_RE = /(leg|thigh|shin|calf|knee|femur|tibia)/;
const ARM_RE = /(arm|elbow|humerus)/;
const FOOT_RE = /^(front|back|hind|rear)?(foot|ankle|paw|hoof)$/;
const HAND_RE = /^(hand|wrist)$/;
const PALM_RE = /^palm$/;
const FINGER_RE = /(thumb|index|middle|ring|pinky|little|finger|toe)/;
const CONTROL_RE = /^(ik|pole|ctrl|ctl|mch|target|helper|def)|pole|target/;

interface Parsed { base: string; side: 'left' | 'right' | 'center'; group: '' | 'front' | 'hind'; control: boolean; tail: boolean }

function groupOf(base: string): '' | 'front' | 'hind' {
  const b = base.replace(/^ik/, '');
  if (/^front/.test(b) || /^fore(?!arm)/.test(b)) return 'front';
  if (/^(back|hind|rear)/.test(b)) return 'hind';
  return '';
}

function depthOf(topo: SkeletonTopology, i: number): number {
  let d = 0;
  for (let p = topo.parents[i]!; p >= 0 && d < 10_000; p = topo.parents[p]!) d++;
  return d;
}

/**
 * Find the legs and arms of a skeleton. `bindPositions` (3 per bone, model space, y up) and
 * the pelvis index let a quadruped's named arms be recognised as front legs; without them
 * arms stay arms. Legs come first (hind/biped left, right, then front left, right), then arms
 * (left, right).
 *
 * @example
 * findLimbs({ names: ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot'], parents: [-1, 0, 1, 2] })
 * // [{ kind: 'leg', side: 'left', front: false, root: 1, mid: 2, end: 3, endIsDescendant: true, endBones: [3] }]
 */
export function findLimbs(topo: SkeletonTopology, bindPositions?: ArrayLike<number>, pelvis = -1): LimbBones[] {
  const n = topo.names.length;
  const P: Parsed[] = [];
  const nameSet = new Set(topo.names);
  for (let i = 0; i < n; i++) {
    const name = topo.names[i]!;
    let p = parseBoneName(name);
    let side = p.side;
    if (side === 'center') {
      // three.js strips '.' and ':' from node names ('UpperLeg.L' → 'UpperLegL'): a trailing
      // L/R counts as a side when the mirrored name exists too.
      const m = /^(.*[a-z0-9])([LR])$/.exec(name);
      if (m && nameSet.has(m[1]! + (m[2] === 'L' ? 'R' : 'L'))) {
        p = parseBoneName(m[1]!);
        side = m[2] === 'L' ? 'left' : 'right';
      }
    }
    P.push({ base: p.base, side, group: groupOf(p.base), control: CONTROL_RE.test(p.base), tail: isTailName(name) });
  }
  const children: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) { const p = topo.parents[i]!; if (p >= 0 && p < n) children[p]!.push(i); }
  const sided = (i: number): boolean => P[i]!.side !== 'center' && !P[i]!.control && !P[i]!.tail;
  const isFoot = (i: number): boolean => sided(i) && FOOT_RE.test(P[i]!.base);
  const isHand = (i: number): boolean => sided(i) && HAND_RE.test(P[i]!.base);
  const isPalm = (i: number): boolean => sided(i) && PALM_RE.test(P[i]!.base);
  const isLeg = (i: number): boolean => sided(i) && !FINGER_RE.test(P[i]!.base) && LEG_RE.test(P[i]!.base) && !FOOT_RE.test(P[i]!.base);
  const isArm = (i: number): boolean => sided(i) && !FINGER_RE.test(P[i]!.base) && ARM_RE.test(P[i]!.base) && !LEG_RE.test(P[i]!.base) && !HAND_RE.test(P[i]!.base);

  const subtree = (i: number): number[] => {
    const out: number[] = [];
    const stack = [i];
    while (stack.length) {
      const k = stack.pop()!;
      if (P[k]!.tail) continue;
      out.push(k);
      for (const c of children[k]!) stack.push(c);
    }
    return out;
  };
  const shallowest = (cands: number[]): number[] => cands.filter((i) => !cands.some((j) => j !== i && boneIsAncestor(topo, j, i)));

  const limbs: LimbBones[] = [];
  const usedMid = new Set<number>();

  const chainAbove = (end: number, like: (i: number) => boolean): number[] => {
    const out: number[] = [];
    const side = P[end]!.side;
    for (let p = topo.parents[end]!; p >= 0 && out.length < 8; p = topo.parents[p]!) {
      if (!like(p) || P[p]!.side !== side) break;
      out.push(p);
    }
    return out;
  };
  const deepestOf = (like: (i: number) => boolean, side: string, group: string): number => {
    let best = -1, bd = -1;
    for (let i = 0; i < n; i++) {
      if (!like(i) || P[i]!.side !== side || P[i]!.group !== group || usedMid.has(i)) continue;
      if (children[i]!.some((c) => like(c) && P[c]!.side === side)) continue;
      const d = depthOf(topo, i);
      if (d > bd) { bd = d; best = i; }
    }
    return best;
  };
  const push = (kind: 'leg' | 'arm', end: number, root: number, mid: number, front: boolean): void => {
    usedMid.add(mid);
    limbs.push({
      kind, side: P[end]!.side === 'left' ? 'left' : 'right', front, root, mid, end,
      endIsDescendant: boneIsAncestor(topo, mid, end), endBones: subtree(end),
    });
  };

  const build = (kind: 'leg' | 'arm', ends: number[], like: (i: number) => boolean): void => {
    for (const e of ends) {
      let chain = chainAbove(e, like);
      if (chain.length < 2) {
        // IK-controller layout: the end hangs elsewhere; use the deepest two bones of that side.
        const d = deepestOf(like, P[e]!.side, P[e]!.group);
        if (d < 0) continue;
        const par = topo.parents[d]!;
        if (par < 0 || !like(par) || P[par]!.side !== P[e]!.side) continue;
        chain = [d, par];
      }
      if (usedMid.has(chain[0]!)) continue;
      push(kind, e, chain[1]!, chain[0]!, P[e]!.group === 'front');
    }
  };
  const sides: ('left' | 'right')[] = ['left', 'right'];
  // Legs ending at a foot.
  const feet = shallowest(Array.from({ length: n }, (_, i) => i).filter(isFoot));
  build('leg', feet, isLeg);
  // Legs without a foot: the deepest two leg bones, ended by a matching IK controller.
  for (const side of sides) {
    for (const group of ['', 'hind', 'front'] as const) {
      const d = deepestOf(isLeg, side, group);
      if (d < 0) continue;
      const par = topo.parents[d]!;
      if (par < 0 || !isLeg(par) || P[par]!.side !== side) continue;
      let end = -1;
      for (let i = 0; i < n; i++) {
        const p = P[i]!;
        if (p.side !== side || !/^ik/.test(p.base) || !/(leg|foot|paw)/.test(p.base)) continue;
        if (groupOf(p.base) !== group || boneIsAncestor(topo, i, d)) continue;
        end = i;
        break;
      }
      if (end < 0) {
        const c = children[d]!.filter((k) => !P[k]!.tail && !P[k]!.control);
        if (c.length > 0) end = c[0]!;
      }
      if (end < 0) continue;
      push('leg', end, par, d, group === 'front');
    }
  }
  // Arms.
  let hands = shallowest(Array.from({ length: n }, (_, i) => i).filter(isHand));
  for (const side of sides) {
    if (!hands.some((h) => P[h]!.side === side)) {
      const palm = Array.from({ length: n }, (_, i) => i).find((i) => isPalm(i) && P[i]!.side === side);
      if (palm !== undefined) hands = [...hands, palm];
    }
  }
  build('arm', hands, isArm);

  // Quadrupeds: an arm whose hand rests near the ground in the bind pose is a front leg.
  if (bindPositions && bindPositions.length >= n * 3 && pelvis >= 0) {
    let minY = Infinity;
    for (let i = 0; i < n; i++) minY = Math.min(minY, bindPositions[i * 3 + 1]!);
    const hipH = bindPositions[pelvis * 3 + 1]! - minY;
    for (const l of limbs) {
      if (l.kind !== 'arm' || !(hipH > 0)) continue;
      const endH = bindPositions[l.end * 3 + 1]! - minY;
      if (endH < 0.35 * hipH) { l.kind = 'leg'; l.front = true; }
    }
  }
  const rank = (l: LimbBones): number => (l.kind === 'arm' ? 4 : l.front ? 2 : 0) + (l.side === 'right' ? 1 : 0);
  limbs.sort((a, b) => rank(a) - rank(b));
  return limbs;
}
