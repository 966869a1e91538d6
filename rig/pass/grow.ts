/**
 * Grow phase of the rig pass: per tail group, its domain goes onto an existing chain, onto a
 * new chain grown along its geodesic coordinate (bones added under the pelvis), or rigid on
 * the pelvis in rigid mode; then worn pieces made rigid on request. Influences are listed
 * here and written by the re-weight phase.
 */
import type { Document } from '@gltf-transform/core';
import { addChainBones, chainBoneNames } from '../bones';
import { bridgeShells, CHAIN_BLEND, chainJoints, chainWeights, geodesic, percentileOf, segmentCount } from '../chain';
import { weightedBoneDistance } from '../distance';
import type { WeldGraph } from '../weld';
import { BASE_LINK_SPAN, tailBase } from './base';
import { FORK_MIN_REACH, splitBranches } from './fork';
import { STUB_BLEND, STUB_MAX_LINKS, STUB_MIN_LINKS } from './decide';
import { excessOf } from './distance';
import { domainOf, membersOf } from './domain';
import { atExistingChain, onExistingChains } from './existing';
import { fmt, GREW, reportOf } from './report';
import type { VertexInfluence } from '../meshData';
import type { AppendageReport, Decided, Found, Grown } from './types';

/**
 * [ours] Skin before a chain's base, and over this fraction of its length beyond, is rump: where
 * the re-weight phase keeps the body's own weights (reweight.ts `keepBodyWeights`). A stub
 * (rigid or a short chain) whose domain spilled past its far pieces, and a rigid stub with a
 * base, are rump all over: a stub is short, all of it lies at its root, and the body skin the
 * rigger handed over with it may lie anywhere along it (a low-poly stub's coordinate does not
 * order tail and thigh skin). Its own skin, driven from far away, still goes onto the stub
 * whole; skin mostly driven from near keeps the body's weights.
 */
export const RUMP_REACH = 0.05;

/** Grow chains on the tails of a skin and make requested pieces rigid. */
export function growPhase(d: Decided): Grown {
  const g: Grown = { ...d, reports: [], influences: [], pending: [], taken: new Uint8Array(d.graph.count), chains: 0, rump: new Uint8Array(d.graph.count) };
  // 1. Tails, one group at a time (candidates whose domains touch are one tail).
  for (const group of d.groups) growTail(g, group);
  // 2. Worn pieces made rigid on request, then 3. everything left alone.
  for (const f of d.found) if (!f.decision.tail) rigidOrAlone(g, f);
  return g;
}

/** One tail group: union of its pieces, then an existing chain, rigid, or a new chain. */
function growTail(g: Grown, group: number[]): void {
  const { tails, domains, graph, taken } = g;
  const lead = tails[group[0]!]!;
  let report = reportOf(g, lead);
  // Union of the group's pieces, collars and domains.
  const pieceVerts = new Set<number>();
  const collar = new Set<number>();
  const domainSet = new Set<number>();
  let minFar = Infinity;
  for (const i of group) {
    // A stub beside a long tail is the rump it was handed over with: the tail's own domain
    // decides that skin, not the stub's.
    if (tails[i]!.decision.stub && !lead.decision.stub) continue;
    // A misweighted speck (a bob tail's few vertices) beside a larger piece adds nothing to it
    // but the skin its domain took along.
    if (i !== group[0] && tails[i]!.piece.vertices.length < g.o.minPieceVertices) continue;
    for (const v of tails[i]!.piece.vertices) pieceVerts.add(v);
    for (const v of tails[i]!.piece.collar) collar.add(v);
    for (const v of domains[i]!) domainSet.add(v);
    minFar = Math.min(minFar, tails[i]!.piece.far);
  }
  if (group.length > 1) {
    report.vertexCount = membersOf(graph, Int32Array.from(pieceVerts)).length;
    report.merged = group.reduce((s, i) => s + tails[i]!.piece.merged, 0);
    report.reason += `; joined with ${group.length - 1} more far piece${group.length > 2 ? 's' : ''} on the same skin`;
  }
  let domain = [...domainSet].filter((v) => !taken[v]);
  if (domain.length === 0) {
    report.reason += '; its skin was already taken by a larger piece, left alone';
    g.reports.push(report);
    return;
  }
  // [ours] A tail chain is already there (an artist's, or one an earlier run grew): never a
  // second chain beside it. Skin lying along it but weighted to a body bone goes onto it.
  const at = g.existing.length > 0 ? atExistingChain(g, domain) : null;
  if (at) {
    const beyond = onExistingChains(g, at, lead, report, domain);
    if (!beyond) return;
    domain = beyond.domain;
    report = beyond.report;
  }
  // Twins never told apart: only where no existing chain took one of them.
  const twins = group.length > 1 && !at ? sideBySideTails(g, group.map((i) => tails[i]!)) : 1;
  const spilled = domain.some((v) => !pieceVerts.has(v));
  growOnDomain(g, lead, report, { domain, collar: Int32Array.from(collar), minFar, beyondChains: at !== null, twins, spilled });
}

/** What a tail group re-weights, and how. */
interface TailSkin {
  /** Welded ids of the domain (not yet taken). */
  domain: number[];
  /** Collar of the group's pieces (welded ids). */
  collar: Int32Array;
  /** Smallest far threshold of the group's pieces (model units). */
  minFar: number;
  /** The domain is what lies beyond the skin's existing chains. */
  beyondChains: boolean;
  /** Tails lying side by side in the group (1: none). */
  twins: number;
  /** The domain reaches past the group's far pieces: body skin near the root was handed over with the tail. */
  spilled: boolean;
}

/**
 * [ours] How many of a group's tail pieces lie side by side (twin tails, not shells of one
 * tail): long tail pieces, not stubs, whose centroids are farther apart than either's RMS
 * radius about its own long axis (a shell around another, fur over skin, is not a twin).
 * Largest first, greedily, as the fork's cross-sections are chosen.
 */
function sideBySideTails(g: Grown, pieces: readonly Found[]): number {
  const P = g.graph.positions;
  const tubes = pieces.filter((f) => f.decision.kind === 'tail' && !f.decision.stub).map((f) => {
    const { centroid: c, axis: a } = f.piece;
    let r = 0;
    for (const v of f.piece.vertices) {
      const dx = P[3 * v]! - c[0]!, dy = P[3 * v + 1]! - c[1]!, dz = P[3 * v + 2]! - c[2]!;
      const t = dx * a[0]! + dy * a[1]! + dz * a[2]!;
      r += dx * dx + dy * dy + dz * dz - t * t;
    }
    return { c, r: Math.sqrt(Math.max(0, r) / Math.max(1, f.piece.vertices.length)), n: f.piece.vertices.length };
  }).sort((x, y) => y.n - x.n);
  const chosen: typeof tubes = [];
  for (const x of tubes) {
    if (chosen.every((y) => Math.hypot(x.c[0]! - y.c[0]!, x.c[1]! - y.c[1]!, x.c[2]! - y.c[2]!) > Math.max(x.r, y.r))) chosen.push(x);
  }
  return Math.max(1, chosen.length);
}

/** Rigid on the pelvis (rigid mode) or new chains along the domain (one per branch of a fork). */
function growOnDomain(g: Grown, lead: Found, report: AppendageReport, t: TailSkin): void {
  const { graph, taken, influences, o, H } = g;
  const { domain, collar, minFar, beyondChains, twins } = t;
  const { skel, mesh } = g.work;
  const changed = membersOf(graph, Int32Array.from(domain));
  report.boneDistanceBefore = weightedBoneDistance(g.bonesBefore, mesh.positions, g.originalJoints, g.originalWeights, mesh.slots, changed);
  report.changedVertexCount = changed.length;
  const stub = lead.decision.stub === true;
  if (lead.decision.verdict === 'rigid' && (!stub || o.mode === 'rigid')) {
    for (const v of domain) taken[v] = 1;
    for (const v of changed) influences.push({ vertex: v, joints: [skel.pelvis], weights: [1] });
    report.verdict = 'rigid';
    report.rigidBone = skel.names[skel.pelvis]!;
    g.pending.push({ report, changed });
    return;
  }
  const grown = growChain(g, domain, collar, minFar, stub);
  if (grown && stub && (lead.decision.verdict === 'rigid' || grown.chains[0]!.K < STUB_MIN_LINKS)) {
    const c = grown.chains[0]!;
    if (lead.decision.verdict !== 'rigid') {
      report.reason = `${report.reason.replace(GREW, '').replace(/ of \d–\d links$/, '')}; too short for ${STUB_MIN_LINKS} links (length ${fmt(c.L / H)} H, its edges reach ${fmt(c.span / H)} H along it): rigid on ${skel.names[skel.pelvis]}`;
    }
    report.reason += ` (blended from its old weights over the first ${Math.round(100 * STUB_BLEND)} % of its length)`;
    for (const v of domain) taken[v] = 1;
    rigidBlend(g, c, domain, t.spilled);
    report.verdict = 'rigid';
    report.rigidBone = skel.names[skel.pelvis]!;
    g.pending.push({ report, changed });
    return;
  }
  if (!grown) {
    report.reason = report.reason.replace(GREW, '') + '; but no geodesic length could be measured, left alone';
    report.changedVertexCount = 0;
    g.reports.push(report);
    return;
  }
  const longest = Math.max(...grown.chains.map((c) => c.L));
  if (beyondChains && longest < o.minReach * H) {
    report.reason = `${report.reason.replace(GREW, '')}, but it is short (${fmt(longest / H)} H < ${o.minReach} H): left alone`;
    report.changedVertexCount = 0;
    g.reports.push(report);
    return;
  }
  for (const v of domain) taken[v] = 1;
  if (twins > grown.chains.length) report.twins = untoldTwins(twins, grown.chains.length);
  const branches = grown.chains.length;
  const reason = report.reason;
  grown.chains.forEach((c, k) => {
    const r = k === 0 ? report : { ...report };
    let rChanged = changed;
    if (branches > 1) {
      rChanged = membersOf(graph, Int32Array.from(c.ids));
      r.boneDistanceBefore = weightedBoneDistance(g.bonesBefore, mesh.positions, g.originalJoints, g.originalWeights, mesh.slots, rChanged);
      r.changedVertexCount = rChanged.length;
      r.vertexCount = rChanged.length;
      r.reason = `${reason}; one of ${branches} tails from one root (its skin splits into ${branches} branches ${fmt(grown.cut / H)} H along it): a chain each, this one ${k + 1} of ${branches}`;
    }
    addChain(g, c, r, stub && t.spilled);
    g.pending.push({ report: r, changed: rChanged });
  });
}

/** The report's `twins` line: `n` tails lying side by side that got only `chains` chains. */
function untoldTwins(n: number, chains: number): string {
  const took = chains === 1 ? `one chain takes ${n === 2 ? 'both' : `all ${n}`}` : `${chains} chains take the ${n}`;
  return `${n} tails side by side from one root could not be told apart (their skins never separate along their length): ${took}`;
}

/**
 * [ours] A stub made rigid on the pelvis, softly: weight on the pelvis rises linearly from 0 at
 * the ring of kept skin to 1 at {@link STUB_BLEND} of the stub's length, the rest keeping the
 * vertex's old weights (scaled down), so the seam to the body's own skin does not tear.
 */
function rigidBlend(g: Grown, c: ChainGeometry, domain: readonly number[], spilled: boolean): void {
  const { graph, influences } = g;
  const { skel } = g.work;
  const span = STUB_BLEND * (c.L + c.ramp);
  for (const wv of domain) {
    const t = span > 0 ? Math.min(1, Math.max(0, (c.coord[wv]! + c.ramp) / span)) : 1;
    // A rigid stub whose domain spilled over the rump (past its far pieces, or a base found
    // beyond a wide ring) is mostly that rump: all of it is.
    if (c.ramp > 0 || spilled) g.rump[wv] = 1;
    for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) influences.push(blendOld(g, graph.members[e]!, [skel.pelvis], [1], t));
  }
}

/** Influences of original vertex `v`: `t` × the new (joints, weights) plus (1 − t) × its old weights, the 4 largest, summing to 1. */
function blendOld(g: Grown, v: number, joints: readonly number[], weights: readonly number[], t: number): VertexInfluence {
  const { originalJoints, originalWeights } = g;
  const { mesh } = g.work;
  const acc = new Map<number, number>();
  joints.forEach((j, k) => acc.set(j, (acc.get(j) ?? 0) + t * weights[k]!));
  let sum = 0;
  for (let k = 0; k < mesh.slots; k++) sum += Math.max(0, originalWeights[mesh.slots * v + k]!);
  for (let k = 0; k < mesh.slots && sum > 0 && t < 1; k++) {
    const w = Math.max(0, originalWeights[mesh.slots * v + k]!) / sum;
    const j = originalJoints[mesh.slots * v + k]!;
    if (w > 0) acc.set(j, (acc.get(j) ?? 0) + (1 - t) * w);
  }
  const top = [...acc.entries()].filter((x) => x[1] > 0).sort((a, b) => b[1] - a[1]).slice(0, 4);
  const total = top.reduce((a, x) => a + x[1], 0);
  return { vertex: v, joints: top.map((x) => x[0]), weights: top.map((x) => x[1] / total) };
}

/** Add a grown chain's bones under the pelvis and list its skin's influences; `rumpAll` marks all of its skin rump (a spilled stub's, {@link RUMP_REACH}). */
function addChain(g: Grown, c: ChainGeometry, report: AppendageReport, rumpAll: boolean): void {
  const { graph, influences, o } = g;
  const { skel } = g.work;
  const prefix = freePrefix(g.doc, o.boneName, g.chainsBefore + g.chains);
  const names = chainBoneNames(prefix, c.K);
  const first = addChainBones(g.doc, skel, c.joints, names);
  g.chains++;
  const out = [0, 0, 0, 0];
  for (const wv of c.ids) {
    const rump = c.ramp > 0 && c.coord[wv]! < 0;
    if (rumpAll || (c.ramp > 0 && c.coord[wv]! < RUMP_REACH * c.L)) g.rump[wv] = 1;
    const n = rump ? rampWeights(c.coord[wv]!, c.ramp, out) : chainWeights(c.coord[wv]!, c.K, c.L, out, c.blend);
    const joints: number[] = [];
    const weights: number[] = [];
    for (let k = 0; k < n; k++) {
      const bn = out[2 * k]!;
      joints.push(bn === 0 ? skel.pelvis : first + bn - 1);
      weights.push(out[2 * k + 1]!);
    }
    for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) influences.push({ vertex: graph.members[e]!, joints, weights });
  }
  report.verdict = 'chain';
  report.length = c.L;
  report.segments = c.K;
  report.joints = names;
}

/** A piece that is no tail: rigid on its bone when the policy says so (and its skin is free), else left alone. */
function rigidOrAlone(g: Grown, f: Found): void {
  const { graph, taken } = g;
  const { skel, mesh } = g.work;
  const report = reportOf(g, f);
  if (f.decision.verdict !== 'rigid') {
    g.reports.push(report);
    return;
  }
  const domain = domainOf(graph, f.piece, (v) => excessOf(g, v), g.margin, taken, g.grid, g.gap);
  if (domain.length === 0) {
    report.reason += '; its skin was already taken by a tail, left alone';
    report.verdict = 'left-alone';
    g.reports.push(report);
    return;
  }
  for (const v of domain) taken[v] = 1;
  const changed = membersOf(graph, Int32Array.from(domain));
  report.boneDistanceBefore = weightedBoneDistance(g.bonesBefore, mesh.positions, g.originalJoints, g.originalWeights, mesh.slots, changed);
  report.changedVertexCount = changed.length;
  for (const v of changed) g.influences.push({ vertex: v, joints: [f.decision.bone], weights: [1] });
  report.verdict = 'rigid';
  report.rigidBone = skel.names[f.decision.bone]!;
  g.pending.push({ report, changed });
}

/**
 * [ours] Weights of rump skin before a tail's base (coordinate `g` < 0, `ramp` the base's
 * distance from the ring): Tail_1 falls linearly from 0.5 at the base to 0 at the ring, the rest
 * on the pelvis, so the bend at the root spreads over the skin the rigger handed to the legs
 * instead of folding at the base. Writes [b0, w0, b1, w1] (bone 0 the pelvis); returns the count.
 */
function rampWeights(g: number, ramp: number, out: number[]): number {
  const w1 = Math.min(0.5, Math.max(0, 0.5 * (1 + g / ramp)));
  out[0] = 0;
  out[1] = 1 - w1;
  if (w1 <= 0) return 1;
  out[2] = 1;
  out[3] = w1;
  return 2;
}

/** One chain to grow: its skin (welded ids), their coordinate along it, length, segment count and joints J0…JK. */
interface ChainGeometry {
  ids: readonly number[];
  coord: Float64Array;
  /** How far the mesh's edges reach along the chain (90th percentile; 0 when not measured). */
  span: number;
  /** Coordinate span of the rump skin before the base ({@link rampWeights}), 0 when the chain starts at the ring. */
  ramp: number;
  L: number;
  K: number;
  joints: Float64Array;
  /** Blend half-width per joint 0…K (fractions of a link: {@link jointBlend}). */
  blend: Float64Array;
}

/**
 * Geodesic coordinate, length and joints of the chains over `domain` (welded ids). The root is
 * the ring of kept skin around the domain; a shell with no such ring (its own shell, all of
 * it re-weighted) starts at the piece's `collar` instead, and its skin on the body side of
 * the collar (skeleton distance ≤ `pieceFar`) gets a negative coordinate. When the domain
 * spilled over the body, the chain starts where the tail leaves it ({@link tailBase}); when
 * the skin splits into branches (twin tails from one root, a fork: {@link splitBranches}),
 * each branch gets a chain from the same root. `cut` is the coordinate of the split (0 for one chain).
 */
function growChain(g: Grown, domain: readonly number[], collar: Int32Array, pieceFar: number, stub: boolean): { chains: ChainGeometry[]; cut: number } | null {
  const { graph, dist, o, H } = g;
  const inDomain = new Uint8Array(graph.count);
  for (const v of domain) inDomain[v] = 1;
  const outer = ringAround(graph, inDomain, domain);
  const shell = outer.length < 3;
  const sources = shell ? collar : outer;
  if (sources.length === 0) return null;
  const allowed = Uint8Array.from(inDomain);
  for (const c of sources) allowed[c] = 1;
  const geo = geodesic(graph, sources, allowed);
  bridgeShells(graph, domain, geo);
  const coord = new Float64Array(graph.count);
  const ahead: number[] = [];
  for (const v of domain) {
    const gv = Number.isFinite(geo[v]!) ? geo[v]! : 0;
    const isAhead = !shell || dist[v]! > pieceFar;
    coord[v] = isAhead ? gv : -gv;
    if (isAhead) ahead.push(v);
  }
  let L = percentileOf(coord, ahead, o.lengthPercentile);
  if (!(L > 0)) return null;
  let root = centroidOf(graph.positions, sources);
  // The chain starts where the tail leaves the body; skin before that point goes on the
  // pelvis ramp (negative coordinate), as a shell's body-side skin does.
  const base = shell ? null : tailBase(graph.positions, ahead, coord, L, sources);
  if (base) {
    for (const v of domain) coord[v]! -= base.s;
    L -= base.s;
    root = base.at;
  }
  const branches = stub ? null : splitBranches(graph, domain, ahead, coord, L, g.grid, g.gap, FORK_MIN_REACH * o.minReach * H, o.minPieceVertices);
  const geometry = (ids: readonly number[], idsAhead: readonly number[], length: number): ChainGeometry => {
    const span = base || stub ? edgeSpan(graph, idsAhead, coord) : 0;
    // Links stay longer than the mesh's edges along the chain (a coarse tip whose edges span a
    // whole link folds when the link bends): for a chain re-based onto the tube, and a stub's
    // (whose K may then fall below STUB_MIN_LINKS: made rigid instead).
    const fit = Math.floor(length / (BASE_LINK_SPAN * span));
    let K = stub
      ? Math.min(STUB_MAX_LINKS, Math.max(STUB_MIN_LINKS, Math.round(length / (o.segmentFraction * H))), fit)
      : segmentCount(length, H, o.segmentFraction, o.minSegments, o.maxSegments);
    if (base && !stub) K = Math.max(o.minSegments, Math.min(K, fit));
    return {
      ids, coord, span, ramp: base ? base.s : 0, L: length, K,
      joints: chainJoints(graph.positions, idsAhead, coord, length, K, root, o.smoothingPasses),
      blend: jointBlend(graph, ids, coord, length, K),
    };
  };
  if (!branches) return { chains: [geometry(domain, ahead, L)], cut: 0 };
  const chains: ChainGeometry[] = [];
  for (let b = 0; b < branches.count; b++) {
    const ids = domain.filter((v) => branches.branchOf[v] === b);
    const idsAhead = ahead.filter((v) => branches.branchOf[v] === b);
    const length = percentileOf(coord, idsAhead, o.lengthPercentile);
    if (length > 0) chains.push(geometry(ids, idsAhead, length));
  }
  return chains.length > 0 ? { chains, cut: branches.cut } : null;
}

/** Welded vertices outside the domain adjacent to it (the kept skin around it). */
function ringAround(graph: WeldGraph, inDomain: Uint8Array, domain: readonly number[]): Int32Array {
  const seen = new Uint8Array(graph.count);
  const out: number[] = [];
  for (const a of domain) {
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (!inDomain[b] && !seen[b]) {
        seen[b] = 1;
        out.push(b);
      }
    }
  }
  return Int32Array.from(out);
}

function centroidOf(P: Float64Array, ids: ArrayLike<number>): Float64Array {
  const c = new Float64Array(3);
  for (let i = 0; i < ids.length; i++) {
    const v = ids[i]!;
    c[0]! += P[3 * v]!;
    c[1]! += P[3 * v + 1]!;
    c[2]! += P[3 * v + 2]!;
  }
  const n = Math.max(1, ids.length);
  c[0]! /= n;
  c[1]! /= n;
  c[2]! /= n;
  return c;
}

/** `Tail`, then `Tail2`, `Tail3`…: the first prefix whose `_1` and `_End` names no node has yet. */
function freePrefix(doc: Document, base: string, start: number): string {
  const names = new Set(doc.getRoot().listNodes().map((n) => n.getName()));
  for (let n = start; ; n++) {
    const p = n === 0 ? base : `${base}${n + 1}`;
    if (!names.has(`${p}_1`) && !names.has(`${p}_End`)) return p;
  }
}


/** 90th percentile of |Δ coordinate| over the edges between `ids` (how far one edge reaches along the chain). */
function edgeSpan(graph: WeldGraph, ids: readonly number[], coord: Float64Array): number {
  const inIds = new Uint8Array(graph.count);
  for (const v of ids) inIds[v] = 1;
  const spans = new Float64Array(graph.adj.length);
  let n = 0;
  for (const a of ids) {
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (b > a && inIds[b]) spans[n++] = Math.abs(coord[a]! - coord[b]!);
    }
  }
  return n > 0 ? percentileOf(spans, Int32Array.from({ length: n }, (_, i) => i), 0.9) : 0;
}

/** [ours] A joint's blend reaches this × the farthest end of an edge across it (so that end keeps a quarter on the other bone). */
const JOINT_BLEND_REACH = 2;

/**
 * [ours] Blend half-width per joint 0…K, fractions of a link: {@link CHAIN_BLEND}, widened at
 * a joint that an edge of the chain's skin crosses with an end far from it (to
 * {@link JOINT_BLEND_REACH} × that end's distance, at most half a link), so that both ends
 * of every edge across a joint share its two bones. A coarse tip's long edges otherwise sit
 * one end on each bone and tear when the joint bends.
 */
function jointBlend(graph: WeldGraph, ids: readonly number[], coord: Float64Array, L: number, K: number): Float64Array {
  const blend = new Float64Array(K + 1).fill(CHAIN_BLEND);
  const link = L / K;
  if (!(link > 0)) return blend;
  const inIds = new Uint8Array(graph.count);
  for (const v of ids) inIds[v] = 1;
  for (const a of ids) {
    for (let e = graph.adjStart[a]!; e < graph.adjStart[a + 1]!; e++) {
      const b = graph.adj[e]!;
      if (b <= a || !inIds[b]) continue;
      const lo = Math.min(coord[a]!, coord[b]!) / link, hi = Math.max(coord[a]!, coord[b]!) / link;
      for (let j = Math.max(1, Math.ceil(lo)); j <= Math.min(K - 1, Math.floor(hi)); j++) {
        blend[j] = Math.min(0.5, Math.max(blend[j]!, JOINT_BLEND_REACH * (j - lo), JOINT_BLEND_REACH * (hi - j)));
      }
    }
  }
  return blend;
}
