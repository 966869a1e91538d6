/**
 * Tail chains the skin already has (an artist's `Tail1…`, or `Tail_1…` from an earlier run):
 * found by name, and whether a tail's domain lies at one (then no second chain is grown beside
 * it; skin along it but weighted to a body bone goes onto it).
 */
import { findTailChains } from '../../core/boneMap';
import { chainCoordinate, chainWeights } from '../chain';
import { symEigen3 } from '../detect';
import { skeletonDistance, weightedBoneDistance } from '../distance';
import type { SkinSkeleton } from '../skeleton';
import { excessOf } from './distance';
import { membersOf } from './domain';
import { fmt, GREW, reportOf, rigidSuffix } from './report';
import type { AppendageReport, ExistingChain, Field, Found, Grown } from './types';

/** Where a tail domain lies at existing chains ({@link atExistingChain}). */
export interface AtChains {
  /** The chain holding most of the domain. */
  chain: number;
  /** Fraction of the domain at chains. */
  share: number;
  /** The tail's diameter ({@link atChainBound}). */
  bound: number;
  /** Welded ids at chains. */
  atVerts: number[];
  /** Distance of each domain vertex from the nearest chain's polyline. */
  offChain: Map<number, number>;
  /** Per chain with skin at it: how much, and the skin along it driven from elsewhere with its coordinates in bones. */
  chains: { chain: number; at: number; along: number[]; coords: number[] }[];
}

/** [ours] A tail domain is at existing chains when at least this fraction of it is at them (nearest their bones, within {@link atChainBound}). */
export const EXISTING_SHARE = 0.25;
/** [ours] It is re-weighted onto that chain when at least this fraction of it lies along the chain and is driven from farther away. */
export const EXISTING_ALONG = 0.5;

/**
 * [ours] How far from an existing chain's polyline tail skin may lie and still be at that
 * chain: the tail's diameter, 2 × the RMS distance of its skin (`pts`, xyz triples) from its
 * own principal axis through its centroid (a round tube of radius r gives exactly r; a chain
 * anywhere inside the tube is within 2r of every vertex), and at least the far threshold
 * `far` (skin nearer than that to a bone is not even far from it).
 */
export function atChainBound(pts: Float64Array, far: number): number {
  const n = pts.length / 3;
  if (n === 0) return far;
  let cx = 0, cy = 0, cz = 0;
  for (let i = 0; i < n; i++) {
    cx += pts[3 * i]!;
    cy += pts[3 * i + 1]!;
    cz += pts[3 * i + 2]!;
  }
  cx /= n;
  cy /= n;
  cz /= n;
  let xx = 0, xy = 0, xz = 0, yy = 0, yz = 0, zz = 0;
  for (let i = 0; i < n; i++) {
    const x = pts[3 * i]! - cx, y = pts[3 * i + 1]! - cy, z = pts[3 * i + 2]! - cz;
    xx += x * x;
    xy += x * y;
    xz += x * z;
    yy += y * y;
    yz += y * z;
    zz += z * z;
  }
  const [, l2, l3] = symEigen3(xx / n, xy / n, xz / n, yy / n, yz / n, zz / n);
  const radius = Math.sqrt(Math.max(0, l2) + Math.max(0, l3));
  return Math.max(far, 2 * radius);
}

/**
 * Is a tail domain at an existing chain? A vertex is at a chain when its nearest bone
 * (weighted bones, the pelvis and every existing chain bone) is a bone of that chain or its
 * parent, and it lies within the tail's diameter of the chain's polyline ({@link atChainBound}:
 * twice the domain's RMS distance from its own principal axis, at least the far threshold):
 * the chain runs inside the tail. A vertex goes to the nearest such chain (a forked tail with
 * a chain per branch gives each branch to its own chain). When at least
 * {@link EXISTING_SHARE} of the domain is at chains, the domain is at them; `chain` is the one
 * holding most of it. Per chain, `along` lists the vertices at it whose weighted bone
 * distance exceeds their distance to the chain by more than the absorb margin and whose
 * weight is mostly off the chain (skin along the chain but driven from a body bone), with
 * their coordinates along it in bones. A separate tail farther away than the bound is not at
 * the chain however near the chain is compared with the body's bones: it grows its own.
 */
export function atExistingChain(s: Field, domain: readonly number[]): AtChains | null {
  const { graph, nearSegs, far, existing, o, H, chainOfJoint, dist } = s;
  const n = domain.length;
  if (n === 0) return null;
  const pts = new Float64Array(3 * n);
  const P = graph.positions;
  domain.forEach((v, i) => {
    pts[3 * i] = P[3 * v]!;
    pts[3 * i + 1] = P[3 * v + 1]!;
    pts[3 * i + 2] = P[3 * v + 2]!;
  });
  const dn = new Float64Array(n);
  const near = new Int32Array(n);
  skeletonDistance(nearSegs!, pts, dn, near);
  const bound = atChainBound(pts, far);
  const chains = existing.map((_, c) => ({ chain: c, at: 0, along: [] as number[], coords: [] as number[] }));
  const out = [0, 0];
  const absorb = o.absorbMargin * H;
  const atVerts: number[] = [];
  const offChain = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const j = nearSegs!.joint[near[i]!]!;
    const v = domain[i]!;
    for (const ch of existing) {
      chainCoordinate(ch.points, P[3 * v]!, P[3 * v + 1]!, P[3 * v + 2]!, out);
      offChain.set(v, Math.min(offChain.get(v) ?? Infinity, out[1]!));
    }
    if (chainOfJoint[j]! < 0 && !existing.some((c) => c.parent === j)) continue;
    let best = -1;
    let bestD = Infinity;
    let bestS = 0;
    for (let c = 0; c < existing.length; c++) {
      chainCoordinate(existing[c]!.points, P[3 * v]!, P[3 * v + 1]!, P[3 * v + 2]!, out);
      if (out[1]! < bestD) {
        bestD = out[1]!;
        bestS = out[0]!;
        best = c;
      }
    }
    if (best < 0 || !(bestD <= bound)) continue;
    atVerts.push(v);
    const e = chains[best]!;
    e.at++;
    if (chainShare(s, v, best) >= 0.5) continue; // (already the chain's skin)
    if (excessOf(s, v) + dist[v]! - bestD > absorb) {
      e.along.push(v);
      e.coords.push(bestS);
    }
  }
  if (atVerts.length < EXISTING_SHARE * n) return null;
  let top = 0;
  for (let c = 1; c < chains.length; c++) if (chains[c]!.at > chains[top]!.at) top = c;
  return { chain: top, share: atVerts.length / n, bound, atVerts, offChain, chains: chains.filter((e) => e.at > 0) };
}

/** Mean share of a welded vertex's original weight on chain `c`'s bones and end helper. */
export function chainShare(s: Field, wv: number, c: number): number {
  const { graph, existing, chainOfJoint, originalWeights, originalJoints } = s;
  const { mesh } = s.work;
  const ch = existing[c]!;
  let on = 0;
  let all = 0;
  for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) {
    const v = graph.members[e]!;
    for (let k = 0; k < mesh.slots; k++) {
      const wt = originalWeights[mesh.slots * v + k]!;
      if (!(wt > 0)) continue;
      const j = originalJoints[mesh.slots * v + k]!;
      all += wt;
      if (chainOfJoint[j] === c || j === ch.end) on += wt;
    }
  }
  return all > 0 ? on / all : 0;
}

/** The joints the given original vertices were weighted to most, by summed weight. */
export function dominantNames(s: Field, verts: Int32Array): string {
  const { originalWeights, originalJoints } = s;
  const { skel, mesh } = s.work;
  const sum = new Float64Array(skel.names.length);
  for (const v of verts) {
    for (let k = 0; k < mesh.slots; k++) {
      const wt = originalWeights[mesh.slots * v + k]!;
      if (wt > 0) sum[originalJoints[mesh.slots * v + k]!]! += wt;
    }
  }
  const order = [...sum.keys()].filter((j) => sum[j]! > 0).sort((a, b) => sum[b]! - sum[a]!);
  const total = order.reduce((t, j) => t + sum[j]!, 0);
  const top = order.slice(0, 3).map((j) => `${skel.names[j]} ${Math.round((100 * sum[j]!) / total)} %`);
  return top.join(', ') || 'nothing';
}

/**
 * Tail chains of a skin by name (core/boneMap's `findTailChains`: an artist's `Tail1…`,
 * `b_Tail01_012…`, or `Tail_1…Tail_End` grown by an earlier run). The tip is the end helper,
 * else the last head plus `leafStub` times the last bone's incoming direction.
 */
export function existingTailChains(skel: SkinSkeleton, leafStub: number): ExistingChain[] {
  const J = skel.positions;
  return findTailChains({ names: skel.names, parents: skel.parents }).map((t) => {
    const pts: number[] = [];
    const head = (j: number): void => {
      pts.push(J[3 * j]!, J[3 * j + 1]!, J[3 * j + 2]!);
    };
    head(t.parent >= 0 ? t.parent : t.bones[0]!);
    for (const b of t.bones) head(b);
    const last = t.bones[t.bones.length - 1]!;
    if (t.end >= 0) head(t.end);
    else {
      const prev = t.bones.length > 1 ? t.bones[t.bones.length - 2]! : t.parent >= 0 ? t.parent : last;
      for (let k = 0; k < 3; k++) pts.push(J[3 * last + k]! + leafStub * (J[3 * last + k]! - J[3 * prev + k]!));
    }
    let length = 0;
    for (let i = 6; i < pts.length; i += 3) length += Math.hypot(pts[i]! - pts[i - 3]!, pts[i + 1]! - pts[i - 2]!, pts[i + 2]! - pts[i - 1]!);
    const names = t.bones.map((b) => skel.names[b]!);
    if (t.end >= 0) names.push(skel.names[t.end]!);
    return { bones: t.bones, end: t.end, parent: t.parent, names, points: Float64Array.from(pts), length };
  });
}

/** `Tail_1…Tail_8 + Tail_End` (first and last bone, then the end helper when there is one). */
export function chainLabel(c: ExistingChain): string {
  const K = c.bones.length;
  const bones = K === 1 ? c.names[0]! : `${c.names[0]}…${c.names[K - 1]}`;
  return c.end >= 0 ? `${bones} + ${c.names[K]}` : bones;
}

/** What is left of a tail's domain after the existing chains took theirs: a branch that grows its own chain. */
export interface BeyondChains {
  domain: number[];
  report: AppendageReport;
}

/**
 * A tail domain at existing chains ({@link atExistingChain}): in chain mode, when at least
 * {@link EXISTING_ALONG} of it lies along them driven from elsewhere, that skin is re-weighted
 * onto them (the chain's blend on the chain coordinate, no bones added); otherwise it is left
 * alone and the report names the chains. Returns the part of the domain beyond every chain's
 * bound when it is a tail of its own (a fork's bare branch), else null.
 */
export function onExistingChains(g: Grown, at: AtChains, lead: Found, report: AppendageReport, domain: number[]): BeyondChains | null {
  const { existing, graph, o, H, taken } = g;
  const { skel, mesh } = g.work;
  const c = existing[at.chain]!;
  const used = at.chains.filter((e) => e.along.length > 0 || e.chain === at.chain);
  const label = used.map((e) => chainLabel(existing[e.chain]!)).join(' and ');
  const pct = used.length > 1
    ? `${used.map((e) => `${Math.round((100 * e.at) / domain.length)} %`).join(' and ')} of its skin lies at those chains, each vertex given to the nearest`
    : `${Math.round(100 * at.share)} % of its skin lies at that chain`;
  const alongCount = at.chains.reduce((n, e) => n + e.along.length, 0);
  if (o.mode === 'chain' && alongCount >= EXISTING_ALONG * domain.length) {
    const changed = membersOf(graph, Int32Array.from(at.chains.flatMap((e) => e.along)));
    report.boneDistanceBefore = weightedBoneDistance(g.bonesBefore, mesh.positions, g.originalJoints, g.originalWeights, mesh.slots, changed);
    report.changedVertexCount = changed.length;
    for (const v of at.atVerts) taken[v] = 1;
    for (const e of at.chains) alongChain(g, e);
    report.verdict = 'existing-chain';
    report.reason = `${report.reason.replace(GREW, '')}; lies along the existing tail chain${used.length > 1 ? 's' : ''} ${label} (${pct}) but was weighted to ${dominantNames(g, changed)}: re-weighted onto ${used.length > 1 ? 'those chains' : 'that chain'}, no bones added`;
    report.joints = c.names.slice();
    report.segments = c.bones.length;
    report.length = c.length;
    g.pending.push({ report, changed });
  } else {
    const why = o.mode !== 'chain'
      ? 'rigid mode does not move skin off an existing chain'
      : `only ${Math.round((100 * alongCount) / domain.length)} % of it lies along ${used.length > 1 ? 'those chains' : 'that chain'} while weighted to bones farther away, ${Math.round(100 * EXISTING_ALONG)} % is needed to re-weight it onto ${used.length > 1 ? 'them' : 'the chain'}`;
    report.reason = report.reason.replace(GREW, '').replace(rigidSuffix(skel.names[skel.pelvis] ?? '?'), '') +
      `; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label} (${pct}): no second chain is grown beside an existing one; left alone (${why})`;
    report.verdict = 'left-alone';
    g.reports.push(report);
  }
  // [ours] A branch of the tail beyond every chain's bound (a fork whose other branch has
  // no bones) is a tail of its own: it grows a chain, rooted where it leaves the chain.
  const isAt = new Uint8Array(graph.count);
  for (const v of at.atVerts) isAt[v] = 1;
  const rest = domain.filter((v) => !isAt[v]);
  if (o.mode !== 'chain' || rest.length < o.minPieceVertices) return null;
  // It must stick out from the chain by a tail's length (skin lying beside a chain, like
  // a haunch by a curled tip, does not).
  let out = 0;
  for (const v of rest) out = Math.max(out, at.offChain.get(v) ?? 0);
  const next = reportOf(g, lead);
  next.vertexCount = membersOf(graph, Int32Array.from(rest)).length;
  if (out < o.minReach * H) {
    next.reason = `${next.reason.replace(GREW, '').replace(rigidSuffix(skel.names[skel.pelvis] ?? '?'), '')}; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label}: its skin beyond the tail's diameter (${fmt(at.bound / H)} H) reaches only ${fmt(out / H)} H from the chain (< ${o.minReach} H), not a tail of its own; left alone`;
    g.reports.push(next);
    return null;
  }
  next.reason += `; beside the existing tail chain${used.length > 1 ? 's' : ''} ${label}, ${Math.round((100 * rest.length) / (rest.length + at.atVerts.length))} % of it lies farther than the tail's diameter (${fmt(at.bound / H)} H) from ${used.length > 1 ? 'them' : 'it'}: that branch is a tail of its own`;
  return { domain: rest, report: next };
}

/** Influences of the skin along one existing chain: the chain blend on its coordinate in bones, bone 0 being the chain's parent. */
function alongChain(g: Grown, e: AtChains['chains'][number]): void {
  const { graph, influences } = g;
  const ce = g.existing[e.chain]!;
  const K = ce.bones.length;
  const out = [0, 0, 0, 0];
  e.along.forEach((wv, i) => {
    const n = chainWeights(e.coords[i]!, K, K, out);
    const joints: number[] = [];
    const weights: number[] = [];
    for (let k = 0; k < n; k++) {
      const bn = out[2 * k]!;
      const j = bn === 0 ? (ce.parent >= 0 ? ce.parent : ce.bones[0]!) : ce.bones[bn - 1]!;
      const x = joints.indexOf(j);
      if (x >= 0) weights[x]! += out[2 * k + 1]!;
      else {
        joints.push(j);
        weights.push(out[2 * k + 1]!);
      }
    }
    for (let m = graph.membersStart[wv]!; m < graph.membersStart[wv + 1]!; m++) influences.push({ vertex: graph.members[m]!, joints, weights });
  });
  if (e.along.length > 0) g.existingReports[e.chain]!.changedVertexCount += membersOf(graph, Int32Array.from(e.along)).length;
}
