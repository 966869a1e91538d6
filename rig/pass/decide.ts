/**
 * Decide phase of the rig pass: the policy for one piece ({@link decide}: tail, spine piece,
 * worn, body, short, head, limb or speck, and what to do with it), and the grouping of tails:
 * candidates whose re-weighting domains touch are one tail (one chain).
 */
import type { Piece } from '../detect';
import type { RigOptions } from '../options';
import { RIG_DEFAULTS } from '../options';
import type { SkinSkeleton } from '../skeleton';
import { REGION_HEAD, REGION_LIMB, REGION_PELVIS, REGION_SPINE } from '../skeleton';
import { pointGrid } from '../weld';
import { excessOf } from './distance';
import { domainOf, touches } from './domain';
import { fmt, GREW, rigidSuffix } from './report';
import type { Decided, Decision, Pieces } from './types';

/** Group the tails of a skin by touching domains, largest group first. */
export function decidePhase(p: Pieces): Decided {
  const { graph, o, far, H } = p;
  const tails = p.found.filter((f) => f.decision.tail);
  const gap = o.floatGapFraction * far;
  const grid = pointGrid(graph.positions, Math.max(gap, 1e-9 * H));
  const excess = (v: number): number => excessOf(p, v);
  const domains = tails.map((f) => domainOf(graph, f.piece, excess, p.margin, null, grid, gap));
  const group = new Int32Array(tails.length);
  for (let i = 0; i < tails.length; i++) group[i] = i;
  const root = (i: number): number => (group[i] === i ? i : (group[i] = root(group[i]!)));
  for (let i = 0; i < tails.length; i++) {
    for (let j = i + 1; j < tails.length; j++) {
      if (touches(graph, domains[i]!, domains[j]!, 0.5 * far)) group[root(i)] = root(j);
    }
  }
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < tails.length; i++) {
    const r = root(i);
    if (!byRoot.has(r)) byRoot.set(r, []);
    byRoot.get(r)!.push(i);
  }
  const sizeOf = (g: number[]): number => {
    let n = 0;
    for (const i of g) n += tails[i]!.piece.vertices.length;
    return n;
  };
  const groups = [...byRoot.values()].sort((a, b) => sizeOf(b) - sizeOf(a));
  for (const g of groups) g.sort((a, b) => tails[b]!.piece.vertices.length - tails[a]!.piece.vertices.length);
  return { ...p, tails, domains, groups, grid, gap };
}

/**
 * [ours] A body is not a thin sheet: the far skin of a body is a shell around bones, whose
 * third principal extent is a good part of its second (sqrt(λ3/λ2) 0.35…0.90 on the far body
 * pieces of khronos-fox, quaternius-fox and quaternius-shiba-inu, de-tailed or not), while a
 * cape is a sheet (0.10…0.24 on the capes of test/rig/wornFixtures.ts on threejs-xbot and
 * threejs-soldier, whatever their size). Below this a piece is never the body.
 *
 * @example
 * report.appendages.filter((a) => a.kind === 'body').every((a) => a.thickness >= BODY_MIN_THICKNESS); // true
 */
export const BODY_MIN_THICKNESS = RIG_DEFAULTS.bodyMinThickness;

/**
 * [ours] Why a long torso piece that is no appendage is the body itself rather than something
 * worn on it, or null when it is worn. A body is a volume (thickness sqrt(λ3/λ2) ≥
 * {@link BODY_MIN_THICKNESS}; a cape, a thin sheet, never is) that lies along the body
 * (elongated along a direction more than `hangAngleDeg` from up) or holds at least
 * `bodyAreaShare` of the surface area of every skin of its skeleton (skins sharing joint nodes:
 * a cape or skirt in its own skin is not "most of its skin"). `areaShare` is that share.
 */
function bodyReason(piece: Piece, up: ArrayLike<number>, areaShare: number, o: RigOptions): string | null {
  if (piece.thickness < o.bodyMinThickness) return null;
  const ax = piece.axis;
  const cosUp = Math.min(1, Math.abs(ax[0]! * up[0]! + ax[1]! * up[1]! + ax[2]! * up[2]!));
  const fromUp = (Math.acos(cosUp) * 180) / Math.PI;
  const volume = `a volume, thickness ${fmt(piece.thickness)} ≥ ${o.bodyMinThickness}`;
  if (piece.elongation >= o.minElongation && fromUp > o.hangAngleDeg) {
    return `it lies along the body: elongation ${fmt(piece.elongation)} along a direction ${fromUp.toFixed(0)}° from up, where a cape or strap hangs within ${o.hangAngleDeg}° of up; ${volume}`;
  }
  if (areaShare >= o.bodyAreaShare) return `it holds ${Math.round(100 * areaShare)} % of the surface area of its skeleton's skins; ${volume}`;
  return null;
}

/**
 * [ours] A short piece hanging from the pelvis or the lower back (a spine joint whose parent is
 * the pelvis) is repaired whatever its length when at least this fraction of it is driven
 * from far away (the rigger handed a stub tail to a leg); correctly weighted short pieces are
 * left alone.
 */
export const STUB_MISWEIGHTED = 0.5;

/**
 * The repair of a misweighted short piece: a short chain (two or three links, settled by the
 * grow phase against the mesh) when it is tail-shaped, else rigid on the pelvis (also in rigid
 * mode). `notTail` says why it is not tail-shaped, or null when it is.
 */
function stubDecision(skel: SkinSkeleton, o: RigOptions, where: string, misweighted: number, notTail: string | null, kind: 'short' | 'tail'): Decision {
  const pelvisName = skel.names[skel.pelvis]!;
  const what = `${kind === 'short' ? 'short piece' : 'piece'} hanging from the pelvis or lower back (${where}), ${Math.round(100 * misweighted)} % of it driven from far away: a misweighted stub`;
  const base = { kind, tail: true, worn: false, bone: skel.pelvis, stub: true } as const;
  if (o.mode === 'rigid') return { ...base, verdict: 'rigid', reason: `${what}${rigidSuffix(pelvisName)}` };
  if (notTail) return { ...base, verdict: 'rigid', reason: `${what}, not tail-shaped (${notTail}): rigid on ${pelvisName}` };
  return { ...base, verdict: 'chain', reason: `${what}, tail-shaped${GREW} of ${STUB_MIN_LINKS}–${STUB_MAX_LINKS} links` };
}

/** The pelvis, a joint of its region, or a spine joint whose parent is the pelvis (the lower back). */
function lowBack(skel: SkinSkeleton, region: number, a: number): boolean {
  return skel.pelvis >= 0 && (region === REGION_PELVIS || (region === REGION_SPINE && skel.parents[a] === skel.pelvis));
}

/**
 * [ours] A misweighted piece at the pelvis or lower back that points outward and reaches at
 * least this × `minReach` is a tail, given a tail's chain, even when it is wide for its length
 * (elongation under `minElongation`: a bushy tail cut short is a cone). Shorter ones are stubs.
 */
export const STUB_CHAIN_REACH = 2.5;

/** [ours] A rigid stub's weight moves onto the pelvis over this fraction of its length from the ring. */
export const STUB_BLEND = 0.1;

/** [ours] Links of a stub's chain: at least this many (else it is made rigid on the pelvis)… */
export const STUB_MIN_LINKS = 2;
/** …and at most this many. */
export const STUB_MAX_LINKS = 3;

/** The policy for pieces. `areaShare` gives a piece's share of the skin's surface area. */
export function decide(piece: Piece, skel: SkinSkeleton, regions: Uint8Array, o: RigOptions, height: number, areaShare: (p: Piece) => number, misweighted: number): Decision {
  const a = piece.attachment;
  const name = a >= 0 ? skel.names[a]! : '?';
  const nWelded = piece.vertices.length;
  const region = a >= 0 ? regions[a]! : 0;
  // A few vertices at the pelvis driven from far away are a stub's tip (a low-poly bob tail),
  // not a speck: its domain takes the misweighted skin around it.
  const misweightedStub = lowBack(skel, region, a) && misweighted >= STUB_MISWEIGHTED;
  if (nWelded < o.minPieceVertices && !misweightedStub) {
    return { kind: 'speck', verdict: 'left-alone', reason: `a speck of ${nWelded} vertices (fewer than ${o.minPieceVertices}): ignored`, tail: false, worn: false, bone: -1 };
  }
  const outward = piece.centroidRatio >= o.minCentroidRatio;
  const elongated = piece.elongation >= o.minElongation;
  const long = piece.reach >= o.minReach * height;
  const appendage = outward && elongated;
  const shape = `reach ${fmt(piece.reach / height)} H, elongation ${fmt(piece.elongation)}, centroid at ${fmt(piece.centroidRatio)} of its reach`;
  const whyNot = !outward
    ? `its centroid lies on the body (${fmt(piece.centroidRatio)} of its reach < ${o.minCentroidRatio})`
    : `it is wide, not long (elongation ${fmt(piece.elongation)} < ${o.minElongation})`;
  const none = { tail: false, worn: false, bone: -1 } as const;
  if (region === REGION_HEAD) return { kind: 'head', verdict: 'left-alone', reason: `hangs from the head (${name}): ears and hair are left alone (${shape})`, ...none };
  if (region === REGION_LIMB || region === 0) {
    return { kind: 'limb', verdict: 'left-alone', reason: `hangs from a limb (${name}): sleeves, hands and feet are left alone (${shape})`, ...none };
  }
  if (!long) {
    if (lowBack(skel, region, a) && misweighted >= STUB_MISWEIGHTED) return stubDecision(skel, o, `${name}; ${shape}`, misweighted, appendage ? null : whyNot, 'short');
    return { kind: 'short', verdict: 'left-alone', reason: `short piece near ${name} (reach ${fmt(piece.reach / height)} H < ${o.minReach} H): left alone`, ...none };
  }
  const pelvisName = skel.pelvis >= 0 ? skel.names[skel.pelvis]! : '?';
  if (region === REGION_PELVIS && appendage) {
    if (o.mode === 'rigid') {
      return { kind: 'tail', verdict: 'rigid', reason: `long piece hanging from the pelvis (${shape})${rigidSuffix(pelvisName)}`, tail: true, worn: false, bone: skel.pelvis };
    }
    return { kind: 'tail', verdict: 'chain', reason: `long piece hanging from the pelvis (${shape})${GREW}`, tail: true, worn: false, bone: skel.pelvis };
  }
  if (region === REGION_SPINE && appendage) {
    if (o.include.includes('spine')) {
      return { kind: 'spine', verdict: 'rigid', reason: `long piece hanging from the spine (${name}; ${shape}): rigid on ${name} as asked (include spine)`, tail: false, worn: false, bone: a };
    }
    return { kind: 'spine', verdict: 'left-alone', reason: `long piece hanging from the spine (${name}; ${shape}): left as it is (include "spine" makes it rigid on ${name})`, ...none };
  }
  // Pelvis or spine, long but not an appendage: the body's own far skin, or a worn piece on
  // the torso (cape, skirt). Both are searched for a tail hidden in them; only a worn one may
  // be made rigid (making the body rigid on one bone would freeze legs and tail with it).
  const body = bodyReason(piece, skel.up, areaShare(piece), o);
  if (body) {
    return {
      kind: 'body',
      verdict: 'left-alone',
      reason: `the body's own far skin, not a worn piece (${body}; ${whyNot}): left as it is, never made rigid (include "torso" is for capes and skirts)`,
      tail: false,
      worn: true,
      bone: -1,
    };
  }
  // A misweighted piece at the pelvis or lower back that is no tail-shaped appendage (a short
  // tail with the rump it was handed over with) is a stub too, whatever its reach.
  if (lowBack(skel, region, a) && misweighted >= STUB_MISWEIGHTED) {
    // Outward and reaching far, it bends like a tail though wide for its length (a bushy tail
    // cut short): a tail's chain, not a stub's.
    if (outward && piece.reach >= STUB_CHAIN_REACH * o.minReach * height && o.mode !== 'rigid') {
      const why = `long piece hanging from the pelvis or lower back (${name}; ${shape}), ${Math.round(100 * misweighted)} % of it driven from far away, outward and reaching ${STUB_CHAIN_REACH} × ${o.minReach} H or more though ${whyNot.replace(/^it is /, '')}: a short tail`;
      return { kind: 'tail', verdict: 'chain', reason: `${why}${GREW}`, tail: true, worn: false, bone: skel.pelvis };
    }
    return stubDecision(skel, o, `${name}; ${shape}`, misweighted, appendage ? null : whyNot, 'tail');
  }
  const bone = region === REGION_PELVIS ? skel.pelvis : a;
  const boneName = skel.names[bone]!;
  if (o.include.includes('torso')) {
    return { kind: 'worn', verdict: 'rigid', reason: `worn piece on the torso (${whyNot}): rigid on ${boneName} as asked (include torso)`, tail: false, worn: true, bone };
  }
  return { kind: 'worn', verdict: 'left-alone', reason: `worn piece on the torso (${whyNot}): left as it is (include "torso" makes it rigid on ${boneName})`, tail: false, worn: true, bone: -1 };
}

