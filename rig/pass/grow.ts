/**
 * Grow phase of the rig pass: per tail group, its domain goes onto an existing chain, onto a
 * new chain grown along its geodesic coordinate (bones added under the pelvis), or rigid on
 * the pelvis in rigid mode; then worn pieces made rigid on request. Influences are listed
 * here and written by the re-weight phase.
 */
import type { Document } from '@gltf-transform/core';
import { addChainBones, chainBoneNames } from '../bones';
import { bridgeShells, chainJoints, chainWeights, geodesic, percentileOf, segmentCount } from '../chain';
import { weightedBoneDistance } from '../distance';
import type { RigOptions } from '../options';
import type { WeldGraph } from '../weld';
import { excessOf } from './distance';
import { domainOf, membersOf } from './domain';
import { atExistingChain, onExistingChains } from './existing';
import { fmt, GREW, reportOf } from './report';
import type { AppendageReport, Decided, Found, Grown } from './types';

/** Grow chains on the tails of a skin and make requested pieces rigid. */
export function growPhase(d: Decided): Grown {
  const g: Grown = { ...d, reports: [], influences: [], pending: [], taken: new Uint8Array(d.graph.count), chains: 0 };
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
  growOnDomain(g, lead, report, domain, Int32Array.from(collar), minFar, at !== null);
}

/** Rigid on the pelvis (rigid mode) or a new chain along the domain. */
function growOnDomain(g: Grown, lead: Found, report: AppendageReport, domain: number[], collar: Int32Array, minFar: number, beyondChains: boolean): void {
  const { graph, taken, influences, o, H } = g;
  const { skel, mesh } = g.work;
  const changed = membersOf(graph, Int32Array.from(domain));
  report.boneDistanceBefore = weightedBoneDistance(g.bonesBefore, mesh.positions, g.originalJoints, g.originalWeights, mesh.slots, changed);
  report.changedVertexCount = changed.length;
  if (lead.decision.verdict === 'rigid') {
    for (const v of domain) taken[v] = 1;
    for (const v of changed) influences.push({ vertex: v, joints: [skel.pelvis], weights: [1] });
    report.verdict = 'rigid';
    report.rigidBone = skel.names[skel.pelvis]!;
    g.pending.push({ report, changed });
    return;
  }
  const grown = growChain(graph, g.dist, domain, collar, minFar, H, o);
  if (!grown) {
    report.reason = report.reason.replace(GREW, '') + '; but no geodesic length could be measured, left alone';
    report.changedVertexCount = 0;
    g.reports.push(report);
    return;
  }
  if (beyondChains && grown.L < o.minReach * H) {
    report.reason = `${report.reason.replace(GREW, '')}, but it is short (${fmt(grown.L / H)} H < ${o.minReach} H): left alone`;
    report.changedVertexCount = 0;
    g.reports.push(report);
    return;
  }
  for (const v of domain) taken[v] = 1;
  const prefix = freePrefix(g.doc, o.boneName, g.chainsBefore + g.chains);
  const names = chainBoneNames(prefix, grown.K);
  const first = addChainBones(g.doc, skel, grown.joints, names);
  g.chains++;
  const out = [0, 0, 0, 0];
  for (const wv of domain) {
    const c = chainWeights(grown.coord[wv]!, grown.K, grown.L, out);
    const joints: number[] = [];
    const weights: number[] = [];
    for (let k = 0; k < c; k++) {
      const bn = out[2 * k]!;
      joints.push(bn === 0 ? skel.pelvis : first + bn - 1);
      weights.push(out[2 * k + 1]!);
    }
    for (let e = graph.membersStart[wv]!; e < graph.membersStart[wv + 1]!; e++) influences.push({ vertex: graph.members[e]!, joints, weights });
  }
  report.verdict = 'chain';
  report.length = grown.L;
  report.segments = grown.K;
  report.joints = names;
  g.pending.push({ report, changed });
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
 * Geodesic coordinate, length and joints of a chain over `domain` (welded ids). The root is
 * the ring of kept skin around the domain; a shell with no such ring (its own shell, all of
 * it re-weighted) starts at the piece's `collar` instead, and its skin on the body side of
 * the collar (skeleton distance ≤ `pieceFar`) gets a negative coordinate.
 */
function growChain(
  graph: WeldGraph,
  dist: Float64Array,
  domain: readonly number[],
  collar: Int32Array,
  pieceFar: number,
  H: number,
  o: RigOptions,
): { coord: Float64Array; L: number; K: number; joints: Float64Array } | null {
  const inDomain = new Uint8Array(graph.count);
  for (const v of domain) inDomain[v] = 1;
  const outer = ringAround(graph, inDomain, domain);
  const shell = outer.length < 3;
  const sources = shell ? collar : outer;
  if (sources.length === 0) return null;
  const allowed = Uint8Array.from(inDomain);
  for (const c of sources) allowed[c] = 1;
  const g = geodesic(graph, sources, allowed);
  bridgeShells(graph, domain, g);
  const coord = new Float64Array(graph.count);
  const ahead: number[] = [];
  for (const v of domain) {
    const gv = Number.isFinite(g[v]!) ? g[v]! : 0;
    const isAhead = !shell || dist[v]! > pieceFar;
    coord[v] = isAhead ? gv : -gv;
    if (isAhead) ahead.push(v);
  }
  const L = percentileOf(coord, ahead, o.lengthPercentile);
  if (!(L > 0)) return null;
  const K = segmentCount(L, H, o.segmentFraction, o.minSegments, o.maxSegments);
  const joints = chainJoints(graph.positions, ahead, coord, L, K, centroidOf(graph.positions, sources), o.smoothingPasses);
  return { coord, L, K, joints };
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

