/**
 * Measure tails: edge stretch and weighted bone distance.
 *
 * - **Edge stretch**: for every mesh edge, skinned length / bind length at `samples` (24)
 *   evenly spaced times t_i = i·D/24 through a clip. Tail edges have both vertices on the
 *   tail; body edges have neither (the baseline). Ratios are in bind units (world lengths are
 *   divided by the skin's bind-to-world scale), so 1 = undeformed. Torn: > 1.5 or < 0.67.
 *   Each row reports p95, p99 (nearest rank), max and torn (a fraction).
 * - **Weighted bone distance** on the tail: mean over tail vertices of Σ_j w_j·dist(v, bone j)
 *   in bind space (the rig pass's definition), before and after the pass.
 * - **The four rows in one run** for an input whose tail has no bones: the rig as it came
 *   (`original`), the rig pass's `rigid` result, its `chain` result with the runtime swinging
 *   the grown chain (warmed up to loop closure first, on a private world), and the `body`
 *   baseline. The tail is the rig pass's piece (the vertices it gave to `Tail_*` bones). For
 *   an input that already has a tail chain, the rows it can measure: `original` (the clip's
 *   own tail), `chain` (the runtime on top of the clip), `body`; `rigid` is null.
 *
 * Setup-time code (allocates, throws `bitrig/measure: …`).
 */
import { checkOptionKeys, describeValue, TAIL_OPTION_KEYS, type PartialOptions } from '../core/defaults';
import type { Document } from '@gltf-transform/core';
import { copyDocument } from './copyDocument';
import { mat4 } from 'gl-matrix';
import {
  computeWorldMatrices, createClipSampler, createLocalPose, findClip, readSceneGraph, sampleClip,
  type ClipSampler, type SceneGraph,
} from './sample';
import { jointMatrices, readSkins, skinVertices, type SkinData } from './skinning';
import { detectClipMode, hasTailBones, simulateTailCycle, TAIL_SIM_DEFAULTS, type TailCycle, type TailSimOptions } from './bake';
import { compareHipsLiftOn, HIPS_LIFT_DEFAULTS, tailDominatedVertices, tailJointMask, type HipsLiftComparison } from './grounding';
import { jointBones, weightedBoneDistance } from './distance';
import { assertDocument, rigAppendages } from './pass';
import { INPUT_LIMITS, validateDocument } from './validate/index';
import { unitScaleNote } from './units';

/** One row of the seed's table. */
export interface StretchRow {
  /** 95th percentile of the ratio. */
  p95: number;
  /** 99th percentile. */
  p99: number;
  /** Largest ratio. */
  max: number;
  /** Fraction of samples torn (ratio > tornAbove or < tornBelow), 0…1. */
  torn: number;
}

/** The rig pass as the measure calls it (mode `'rigid'` or `'chain'`, in place). */
export type RigFunction = (doc: Document, mode: 'rigid' | 'chain') => void;

/** Options of {@link measureTail}. */
export interface MeasureOptions extends TailSimOptions {
  /** Evenly spaced sample times through the clip. */
  samples: number;
  /** A ratio above this is torn. */
  tornAbove: number;
  /** A ratio below this is torn. */
  tornBelow: number;
  /** The rig pass used for inputs whose tail has no bones (default: {@link rigAppendages}). */
  rig: RigFunction | null;
  /** Tail vertices per skin (overrides the rig pass's piece / the tail-bone-dominated skin). */
  tailVertex: readonly (Uint8Array | null)[] | null;
  /** Also run the grounding comparison (Δy of the hips with the tail counted vs excluded). */
  grounding: boolean;
}

/** Defaults of {@link MeasureOptions}. */
export const MEASURE_DEFAULTS: Readonly<MeasureOptions> = Object.freeze({
  ...TAIL_SIM_DEFAULTS,
  samples: 24,
  tornAbove: 1.5,
  tornBelow: 0.67,
  rig: null,
  tailVertex: null,
  grounding: false,
});

/** Result of {@link measureTail}. */
export interface MeasureReport {
  /** Clip name. */
  clip: string;
  /** Sample times through the clip. */
  samples: number;
  /** Tail edges × samples. */
  tailEdgeSamples: number;
  /** The seed's four rows (null where the input cannot give one). */
  rows: { original: StretchRow | null; rigid: StretchRow | null; chain: StretchRow | null; body: StretchRow | null };
  /** Weighted bone distance on the tail (bind units): as it came, and after the rig pass. */
  boneDistance: { before: number | null; after: number | null };
  /** Body edges × samples. */
  bodyEdgeSamples: number;
  /** Tail vertices measured. */
  tailVertices: number;
  /** Whether the input already had tail bones. */
  hadTailBones: boolean;
  /** Largest angle (degrees) of the chain's root link away from its rest over the samples (the tail is not frozen). */
  chainRootSwingDeg: number | null;
  /**
   * Warm-up of the chain row: for a loop, cycles until the tail closes its loop; for a
   * one-shot (`mode: 'once'`, detected as the bake does), settle windows on the first pose and
   * no loop seam (`maxSeamJumpDeg` 0).
   */
  warmup: { mode: 'loop' | 'once'; cycles: number; converged: boolean; cycleDeltaDeg: number; maxSeamJumpDeg: number } | null;
  /** Model height (world units) and the unit scale the runtime used. */
  units: { height: number; unitScale: number };
  /** Grounding comparison (when asked). */
  grounding: HipsLiftComparison | null;
  /** What the input's validation tolerated and how (skin weights a little off 1…), and a suspicious scale. */
  notes: string[];
}

/**
 * Merge measure options over {@link MEASURE_DEFAULTS}. Throws `bitrig/measure: …`.
 *
 * @example
 * const o = mergeMeasureOptions({ samples: 48 });
 */
export function mergeMeasureOptions(options: PartialOptions<MeasureOptions> = {}): MeasureOptions {
  checkOptionKeys(options, Object.keys(MEASURE_DEFAULTS), 'bitrig/measure', { tail: TAIL_OPTION_KEYS });
  const o: MeasureOptions = { ...MEASURE_DEFAULTS };
  for (const k of Object.keys(options) as (keyof MeasureOptions)[]) {
    if (options[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = options[k];
  }
  if (!(Number.isInteger(o.samples) && o.samples >= 1 && o.samples <= INPUT_LIMITS.maxMeasureSamples)) {
    throw new Error(`bitrig/measure: samples must be an integer in 1…${INPUT_LIMITS.maxMeasureSamples}, got ${describeValue(o.samples)}`);
  }
  if (!(o.tornAbove > 1 && o.tornBelow < 1 && o.tornBelow > 0)) throw new Error('bitrig/measure: need 0 < tornBelow < 1 < tornAbove');
  return o;
}

/**
 * Unique undirected edges of a triangle list, 2 per edge (smaller index first).
 *
 * @example
 * meshEdges(new Uint32Array([0, 1, 2])); // [0,1, 1,2, 0,2] in some order
 */
export function meshEdges(triangles: ArrayLike<number>): Uint32Array {
  const seen = new Set<number>();
  const out: number[] = [];
  let maxV = 0;
  for (let i = 0; i < triangles.length; i++) maxV = Math.max(maxV, triangles[i]!);
  const N = maxV + 1;
  for (let t = 0; t + 2 < triangles.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      let a = triangles[t + e]!, b = triangles[t + ((e + 1) % 3)]!;
      if (a === b) continue;
      if (a > b) { const c = a; a = b; b = c; }
      const key = a * N + b;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(a, b);
    }
  }
  return Uint32Array.from(out);
}

/**
 * p95, p99 (nearest rank), max and torn fraction of a set of ratios. Sorts `values` in place.
 * An empty set gives NaN statistics and torn 0.
 *
 * @example
 * stretchStats(Float64Array.from([1, 1.2, 2]), 1.5, 0.67); // { p95: 2, p99: 2, max: 2, torn: 1/3 }
 */
export function stretchStats(values: Float64Array, tornAbove = 1.5, tornBelow = 0.67): StretchRow {
  const n = values.length;
  if (n === 0) return { p95: NaN, p99: NaN, max: NaN, torn: 0 };
  values.sort();
  let torn = 0;
  for (let i = 0; i < n; i++) if (values[i]! > tornAbove || values[i]! < tornBelow) torn++;
  const rank = (p: number): number => values[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
  return { p95: rank(0.95), p99: rank(0.99), max: values[n - 1]!, torn: torn / n };
}

/** Tail and body edges of every skin, with their bind lengths (world units at bind scale). */
interface EdgeSets {
  tail: Uint32Array[];
  body: Uint32Array[];
  tailBind: Float64Array[];
  bodyBind: Float64Array[];
}

function edgeSets(skins: readonly SkinData[], tailMask: readonly Uint8Array[]): EdgeSets {
  const out: EdgeSets = { tail: [], body: [], tailBind: [], bodyBind: [] };
  skins.forEach((skin, si) => {
    const edges = meshEdges(skin.mesh.triangles);
    const m = tailMask[si]!;
    const P = skin.mesh.positions;
    const t: number[] = [], b: number[] = [], tl: number[] = [], bl: number[] = [];
    for (let e = 0; e < edges.length; e += 2) {
      const a = edges[e]!, c = edges[e + 1]!;
      const len = Math.hypot(P[3 * a]! - P[3 * c]!, P[3 * a + 1]! - P[3 * c + 1]!, P[3 * a + 2]! - P[3 * c + 2]!);
      if (!(len > 1e-9)) continue; // degenerate edge: no ratio
      if (m[a] && m[c]) { t.push(a, c); tl.push(len); }
      else if (!m[a] && !m[c]) { b.push(a, c); bl.push(len); }
    }
    out.tail.push(Uint32Array.from(t));
    out.body.push(Uint32Array.from(b));
    out.tailBind.push(Float64Array.from(tl));
    out.bodyBind.push(Float64Array.from(bl));
  });
  return out;
}

/** Per-sample rotation overrides of tail nodes (the runtime's output). */
interface TailOverride {
  cycle: TailCycle;
}

/**
 * Skin a document at the sample times and collect ratios of the given edge sets.
 * `override` replaces the tail nodes' rotations with a simulated cycle's keys.
 */
function collectRatios(
  graph: SceneGraph, skins: readonly SkinData[], sampler: ClipSampler, samples: number,
  sets: { edges: Uint32Array[]; bind: Float64Array[] }[], override: TailOverride | null,
): Float64Array[] {
  const pose = createLocalPose(graph);
  const world = new Float64Array(16 * graph.nodes.length);
  const jm = skins.map((s) => new Float64Array(16 * s.names.length));
  const pos = skins.map((s) => new Float64Array(3 * s.mesh.count));
  const outs = sets.map((set) => new Float64Array(samples * set.edges.reduce((a, e) => a + e.length / 2, 0)));
  const fill = sets.map(() => 0);
  for (let k = 0; k < samples; k++) {
    const t = (k * sampler.duration) / samples;
    sampleClip(sampler, graph, t, pose);
    if (override) {
      const c = override.cycle;
      const L = c.bones.length;
      for (let i = 0; i < L; i++) {
        const nd = c.nodes[i]!;
        for (let j = 0; j < 4; j++) pose.r[4 * nd + j] = c.rotations[4 * (k * L + i) + j]!;
      }
    }
    computeWorldMatrices(graph, pose, world);
    skins.forEach((skin, si) => {
      jointMatrices(skin, world, jm[si]!);
      skinVertices(skin, jm[si]!, pos[si]!);
      const P = pos[si]!;
      const inv = 1 / skin.bindToWorldScale;
      sets.forEach((set, q) => {
        const E = set.edges[si]!;
        const BL = set.bind[si]!;
        const out = outs[q]!;
        for (let e = 0, i = 0; e < E.length; e += 2, i++) {
          const a = E[e]!, b = E[e + 1]!;
          const len = Math.hypot(P[3 * a]! - P[3 * b]!, P[3 * a + 1]! - P[3 * b + 1]!, P[3 * a + 2]! - P[3 * b + 2]!);
          out[fill[q]!++] = (len * inv) / BL[i]!;
        }
      });
    });
  }
  return outs;
}

function boneDistanceOf(skins: readonly SkinData[], tailMask: readonly Uint8Array[]): number | null {
  let sum = 0, n = 0;
  skins.forEach((skin, si) => {
    const verts: number[] = [];
    const m = tailMask[si]!;
    for (let v = 0; v < m.length; v++) if (m[v]) verts.push(v);
    if (verts.length === 0) return;
    const J = skin.names.length;
    const positions = new Float64Array(3 * J);
    const w = mat4.create();
    for (let j = 0; j < J; j++) {
      const ibm = mat4.clone(skin.inverseBind.subarray(16 * j, 16 * j + 16) as unknown as mat4);
      if (!mat4.invert(w, ibm)) mat4.identity(w);
      positions[3 * j] = w[12]!; positions[3 * j + 1] = w[13]!; positions[3 * j + 2] = w[14]!;
    }
    const bones = jointBones({ positions, parents: skin.parents }, 0.5);
    const d = weightedBoneDistance(bones, skin.mesh.positions, skin.mesh.joints, skin.mesh.weights, skin.mesh.slots, verts);
    sum += d * verts.length;
    n += verts.length;
  });
  return n > 0 ? sum / n : null;
}

function tailWeighted(skin: SkinData): Uint8Array {
  const tj = tailJointMask(skin);
  const mesh = skin.mesh;
  const out = new Uint8Array(mesh.count);
  for (let v = 0; v < mesh.count; v++) {
    for (let k = 0; k < mesh.slots; k++) {
      const j = mesh.joints[mesh.slots * v + k]!;
      if (mesh.weights[mesh.slots * v + k]! > 0 && j < tj.length && tj[j]) { out[v] = 1; break; }
    }
  }
  return out;
}

/** Result of {@link measureEdgeStretch}. */
export interface EdgeStretch {
  /** Tail edges (both vertices on the tail). */
  tail: StretchRow;
  /** Body edges (neither vertex on the tail). */
  body: StretchRow;
  /** Tail edges × samples. */
  tailEdgeSamples: number;
  /** Body edges × samples. */
  bodyEdgeSamples: number;
}

/**
 * Edge stretch of a document's clip as it is (no rig pass, no runtime): tail edges by the
 * given mask (default: skin dominated by tail bones) and body edges.
 *
 * @example
 * const { tail, body } = measureEdgeStretch(doc, 'walk', { tailVertex: [mask] });
 */
export function measureEdgeStretch(doc: Document, clip: string, options: PartialOptions<Pick<MeasureOptions, 'samples' | 'tornAbove' | 'tornBelow' | 'tailVertex'>> = {}): EdgeStretch {
  const o = mergeMeasureOptions(options);
  const graph = readSceneGraph(doc);
  const skins = readSkins(doc, graph);
  const sampler = createClipSampler(graph, findClip(doc, clip, 'bitrig/measure'));
  const mask = skins.map((sk, si) => o.tailVertex?.[si] ?? tailDominatedVertices(sk));
  const sets = edgeSets(skins, mask);
  const [t, b] = collectRatios(graph, skins, sampler, o.samples,
    [{ edges: sets.tail, bind: sets.tailBind }, { edges: sets.body, bind: sets.bodyBind }], null);
  return {
    tail: stretchStats(t!, o.tornAbove, o.tornBelow), body: stretchStats(b!, o.tornAbove, o.tornBelow),
    tailEdgeSamples: t!.length, bodyEdgeSamples: b!.length,
  };
}

const defaultRig: RigFunction = (doc, mode) => { rigAppendages(doc, { mode }); };

/**
 * Measure a clip: the four rows in one run (see the module header).
 * Never modifies `doc` (the rig pass runs on clones). Throws `bitrig/measure: …` (no tail
 * found, no animations, unknown clip) or `bitrig/skinning: …` (no skin).
 *
 * @example
 * const r = measureTail(doc, 'Walk');
 * console.log(r.rows.original?.torn, r.rows.chain?.p99, r.rows.body?.p99); // rows are null where the input cannot give one
 */
export function measureTail(doc: Document, clip: string, options: PartialOptions<MeasureOptions> = {}): MeasureReport {
  assertDocument(doc, 'bitrig/measure');
  const o = mergeMeasureOptions(options);
  const notes = validateDocument(doc, 'bitrig/measure');
  const graph = readSceneGraph(doc);
  const skins = readSkins(doc, graph);
  const sampler = createClipSampler(graph, findClip(doc, clip, 'bitrig/measure'));
  const calib = { doc, graph, skins };
  const hadTailBones = hasTailBones(calib);
  const progress = (stage: string, f: number): void => { o.onProgress?.(stage, f); };

  let tailMask: Uint8Array[];
  let rigidDoc: Document | null = null;
  let chainDoc: Document;
  if (hadTailBones) {
    chainDoc = doc;
    tailMask = skins.map((s, si) => o.tailVertex?.[si] ?? tailDominatedVertices(s));
  } else {
    const rig = o.rig ?? defaultRig;
    progress('rig pass (rigid)', 0.05);
    rigidDoc = copyDocument(doc);
    rig(rigidDoc, 'rigid');
    progress('rig pass (chain)', 0.1);
    chainDoc = copyDocument(doc);
    rig(chainDoc, 'chain');
    const cg = readSceneGraph(chainDoc);
    const cs = readSkins(chainDoc, cg);
    if (!hasTailBones({ doc: chainDoc, graph: cg, skins: cs }) && !o.tailVertex) {
      throw new Error('bitrig/measure: no tail found: the input has no tail bones and the rig pass grew no chain');
    }
    if (cs.length !== skins.length || cs.some((s, i) => s.mesh.count !== skins[i]!.mesh.count)) {
      throw new Error('bitrig/measure: the rig pass changed the vertex layout; cannot compare rows');
    }
    tailMask = cs.map((s, si) => o.tailVertex?.[si] ?? tailWeighted(s));
  }
  for (let si = 0; si < skins.length; si++) {
    if (tailMask[si]!.length !== skins[si]!.mesh.count) throw new Error(`bitrig/measure: tail mask of skin ${si} has the wrong length`);
  }
  let tailVertices = 0;
  for (const m of tailMask) for (let v = 0; v < m.length; v++) tailVertices += m[v]!;
  if (tailVertices === 0) throw new Error('bitrig/measure: no tail vertices to measure');

  const sets = edgeSets(skins, tailMask);
  const n = o.samples;
  const tailEdges = sets.tail.reduce((a, e) => a + e.length / 2, 0);
  const bodyEdges = sets.body.reduce((a, e) => a + e.length / 2, 0);

  // Original and body: the input as it came, with its clip.
  progress('original', 0.15);
  const [origTail, body] = collectRatios(graph, skins, sampler, n,
    [{ edges: sets.tail, bind: sets.tailBind }, { edges: sets.body, bind: sets.bodyBind }], null);
  const rows: MeasureReport['rows'] = {
    original: stretchStats(origTail!, o.tornAbove, o.tornBelow),
    rigid: null,
    chain: null,
    body: stretchStats(body!, o.tornAbove, o.tornBelow),
  };

  // Rigid: the rig pass's rigid result, same edges.
  if (rigidDoc) {
    progress('rigid', 0.25);
    const rg = readSceneGraph(rigidDoc);
    const rs = readSkins(rigidDoc, rg);
    const [r] = collectRatios(rg, rs, createClipSampler(rg, findClip(rigidDoc, clip)), n, [{ edges: sets.tail, bind: sets.tailBind }], null);
    rows.rigid = stretchStats(r!, o.tornAbove, o.tornBelow);
  }

  // Chain: the grown (or existing) chain swung by the runtime, warmed up first.
  progress('chain: warm-up', 0.35);
  const cg = chainDoc === doc ? graph : readSceneGraph(chainDoc);
  const cs = chainDoc === doc ? skins : readSkins(chainDoc, cg);
  const ccal = chainDoc === doc ? calib : { doc: chainDoc, graph: cg, skins: cs };
  // a one-shot clip (its last pose differs from its first) settles on its first pose, as the bake does
  const mode = detectClipMode(ccal, clip).mode;
  const cyc = simulateTailCycle(ccal, clip, n, {
    tail: o.tail, loopTolerance: o.loopTolerance, maxWarmupSeconds: o.maxWarmupSeconds, minWarmupCycles: o.minWarmupCycles,
    onProgress: o.onProgress ? (s, f) => o.onProgress!(`chain: ${s}`, 0.35 + 0.45 * f) : null,
  }, mode);
  const [ch] = collectRatios(cg, cs, createClipSampler(cg, findClip(chainDoc, clip)), n, [{ edges: sets.tail, bind: sets.tailBind }], { cycle: cyc });
  rows.chain = stretchStats(ch!, o.tornAbove, o.tornBelow);
  let swing = 0;
  const L = cyc.bones.length;
  for (const r of cyc.chainRoots) {
    for (let k = 0; k < n; k++) {
      const a = 4 * (k * L + r);
      const d = Math.abs(cyc.rotations[a]! * cyc.restRotations[a]! + cyc.rotations[a + 1]! * cyc.restRotations[a + 1]!
        + cyc.rotations[a + 2]! * cyc.restRotations[a + 2]! + cyc.rotations[a + 3]! * cyc.restRotations[a + 3]!);
      swing = Math.max(swing, (2 * Math.acos(Math.min(1, d)) * 180) / Math.PI);
    }
  }

  progress('bone distance', 0.85);
  const before = boneDistanceOf(skins, tailMask);
  const after = chainDoc === doc ? before : boneDistanceOf(cs, tailMask);

  let grounding: HipsLiftComparison | null = null;
  if (o.grounding) {
    progress('grounding', 0.9);
    // Tail skin: the chain's (bone-dominated) or the piece (a tail without bones).
    grounding = compareHipsLiftOn(graph, skins, sampler, {
      ...HIPS_LIFT_DEFAULTS, samples: n, tailVertex: hadTailBones ? null : tailMask,
    });
  }
  progress('done', 1);
  return {
    clip: sampler.name, samples: n, tailEdgeSamples: tailEdges * n, rows,
    boneDistance: { before, after }, bodyEdgeSamples: bodyEdges * n, tailVertices, hadTailBones,
    chainRootSwingDeg: swing,
    warmup: { mode, cycles: cyc.cycles, converged: cyc.converged, cycleDeltaDeg: cyc.cycleDeltaDeg, maxSeamJumpDeg: Math.max(0, ...cyc.seamJumpDeg) },
    units: { height: cyc.units.height, unitScale: cyc.units.unitScale },
    grounding,
    notes,
  };
}

/**
 * The seed's table as text.
 *
 * @example
 * console.log(formatMeasureTable(measureTail(doc, 'Walk')));
 */
export function formatMeasureTable(r: MeasureReport): string {
  const f = (v: number | undefined): string => (v === undefined || Number.isNaN(v) ? '—' : v.toFixed(2));
  const pct = (v: number): string => `${(100 * v).toFixed(1)} %`;
  const lines: string[] = [];
  lines.push(`${r.clip} clip, ${r.tailEdgeSamples.toLocaleString('en-US')} tail edge samples (${r.samples} times)`);
  const head = ['', 'p95', 'p99', 'max', 'torn'];
  const body: string[][] = [];
  const add = (label: string, row: StretchRow | null, showTorn: boolean): void => {
    if (!row) return;
    body.push([label, f(row.p95), f(row.p99), f(row.max), showTorn ? pct(row.torn) : '—']);
  };
  add('original rig', r.rows.original, true);
  add('rigid to Hips', r.rows.rigid, true);
  add('tail chain', r.rows.chain, true);
  add('body baseline', r.rows.body, false);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const fmt = (row: string[]): string => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(head));
  for (const row of body) lines.push(fmt(row));
  if (r.boneDistance.before !== null) {
    lines.push(`weighted bone distance on the tail: ${r.boneDistance.before.toFixed(3)} → ${(r.boneDistance.after ?? r.boneDistance.before).toFixed(3)} (model units)`);
  }
  if (r.warmup) {
    if (r.warmup.mode === 'once') {
      // A one-shot: settle windows on the first pose, recorded once (no loop seam).
      lines.push(`chain: one-shot, first pose held ${r.warmup.cycles - 1} settle window(s)${r.warmup.converged ? '' : ' (did not settle)'}, recorded once (no loop seam), root link swings ${(r.chainRootSwingDeg ?? 0).toFixed(1)}° off rest`);
    } else {
      lines.push(`chain: warm-up ${r.warmup.cycles - 1} cycle(s)${r.warmup.converged ? '' : ' (did not converge)'}, seam jump ≤ ${r.warmup.maxSeamJumpDeg.toFixed(3)}°, root link swings ${(r.chainRootSwingDeg ?? 0).toFixed(1)}° off rest`);
    }
  }
  if (r.grounding) {
    const g = r.grounding;
    lines.push('');
    lines.push(`grounding (${g.pelvis}, ${g.supportSamples} support samples, ${g.tailSamples} on the tail): Δy hips, tail counted − excluded`);
    lines.push(`${'t (s)'.padStart(7)}  ${'counted'.padStart(9)}  ${'excluded'.padStart(9)}  ${'Δy'.padStart(9)}`);
    for (const row of g.rows) {
      lines.push(`${row.t.toFixed(3).padStart(7)}  ${row.hipsCounted.toFixed(4).padStart(9)}  ${row.hipsExcluded.toFixed(4).padStart(9)}  ${row.dy.toFixed(4).padStart(9)}`);
    }
    lines.push(`largest extra lift from the tail: ${g.maxDy.toFixed(4)} (world units)`);
  }
  const scaleNote = r.units ? unitScaleNote(r.units.height, r.units.unitScale) : null;
  for (const n of [...(r.notes ?? []), ...(scaleNote ? [scaleNote] : [])]) lines.push(`note: ${n}`);
  return lines.join('\n');
}

/**
 * The CLI's `--json` shape: `{ clip, samples, tailEdgeSamples, rows: { original, rigid,
 * chain, body }, boneDistance: { before, after } }`, rows `{ p95, p99, max, torn }`.
 *
 * @example
 * JSON.stringify(measureJson(report));
 */
export function measureJson(r: MeasureReport): {
  clip: string; samples: number; tailEdgeSamples: number;
  rows: MeasureReport['rows']; boneDistance: MeasureReport['boneDistance'];
  grounding?: { maxDy: number; rows: { t: number; hipsCounted: number; hipsExcluded: number; dy: number }[] };
} {
  const row = (x: StretchRow | null): StretchRow | null => (x ? { p95: x.p95, p99: x.p99, max: x.max, torn: x.torn } : null);
  const out: ReturnType<typeof measureJson> = {
    clip: r.clip, samples: r.samples, tailEdgeSamples: r.tailEdgeSamples,
    rows: { original: row(r.rows.original), rigid: row(r.rows.rigid), chain: row(r.rows.chain), body: row(r.rows.body) },
    boneDistance: { before: r.boneDistance.before, after: r.boneDistance.after },
  };
  if (r.grounding) out.grounding = { maxDy: r.grounding.maxDy, rows: r.grounding.rows.map((x) => ({ ...x })) };
  return out;
}
