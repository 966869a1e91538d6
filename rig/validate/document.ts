/**
 * The values of a glTF-Transform Document, checked before any pass reads them: every float
 * accessor finite (positions, normals, weights, inverse bind matrices, key times and values,
 * morph targets), indices below their primitive's vertex count, joint indices below their
 * skin's joint count, skin weights non-negative with a sum above 0 and at most 10 for each vertex (the passes normalise each vertex; sums off 1 by more than 0.01 are noted), inverse bind matrices affine, key times increasing from
 * 0 and within the stated clip length, rotation keys unit quaternions, no node its own
 * ancestor. Never modifies the document; throws `<module>: …` naming the accessor and what
 * uses it (mesh, skin, clip).
 */
import type { Accessor, Document, Node } from '@gltf-transform/core';
import { INPUT_LIMITS } from './limits';

/** How far a weight sum or a quaternion length may be from 1 (the Khronos validator's rotation tolerance). */
const UNIT_TOLERANCE = 0.00769;
/** Smallest skin-weight sum of a vertex: below it the vertex follows no joint (the passes normalise larger sums per vertex). */
const MIN_WEIGHT_SUM = 1e-6;

/** What each accessor is used for, for messages: `POSITION of mesh "Body" primitive 0`. */
function accessorUses(doc: Document): Map<Accessor, string> {
  const uses = new Map<Accessor, string>();
  const add = (a: Accessor | null, use: string): void => { if (a && !uses.has(a)) uses.set(a, use); };
  for (const mesh of doc.getRoot().listMeshes()) {
    mesh.listPrimitives().forEach((p, pi) => {
      const where = `mesh "${mesh.getName()}" primitive ${pi}`;
      for (const sem of p.listSemantics()) add(p.getAttribute(sem), `${sem} of ${where}`);
      add(p.getIndices(), `indices of ${where}`);
    });
  }
  for (const skin of doc.getRoot().listSkins()) add(skin.getInverseBindMatrices(), `inverse bind matrices of skin "${skin.getName()}"`);
  for (const anim of doc.getRoot().listAnimations()) {
    for (const s of anim.listSamplers()) {
      add(s.getInput(), `key times of clip "${anim.getName()}"`);
      add(s.getOutput(), `key values of clip "${anim.getName()}"`);
    }
  }
  return uses;
}

function accessorLabel(doc: Document, a: Accessor, uses: Map<Accessor, string>): string {
  const i = doc.getRoot().listAccessors().indexOf(a);
  const name = a.getName() ? ` "${a.getName()}"` : '';
  const use = uses.get(a);
  return `accessor ${i}${name}${use ? ` (${use})` : ''}`;
}

function checkFinite(doc: Document, uses: Map<Accessor, string>, module: string): void {
  for (const a of doc.getRoot().listAccessors()) {
    const arr = a.getArray();
    if (!arr || !(arr instanceof Float32Array || arr instanceof Float64Array)) continue;
    for (let i = 0; i < arr.length; i++) {
      if (!Number.isFinite(arr[i]!)) {
        const size = a.getElementSize();
        throw new Error(`${module}: ${accessorLabel(doc, a, uses)} has ${arr[i]} at element ${Math.floor(i / size)}; every number must be finite`);
      }
    }
  }
}

/** Joint count of the skin each mesh is used with (the smallest when several). */
function jointCounts(doc: Document): Map<object, number> {
  const out = new Map<object, number>();
  for (const node of doc.getRoot().listNodes()) {
    const mesh = node.getMesh();
    const skin = node.getSkin();
    if (!mesh || !skin) continue;
    const n = skin.listJoints().length;
    out.set(mesh, Math.min(out.get(mesh) ?? n, n));
  }
  return out;
}

function checkPrimitives(doc: Document, uses: Map<Accessor, string>, module: string, notes: string[]): void {
  const joints = jointCounts(doc);
  for (const mesh of doc.getRoot().listMeshes()) {
    const nJoints = joints.get(mesh);
    for (const p of mesh.listPrimitives()) {
      const pos = p.getAttribute('POSITION');
      const count = pos ? pos.getCount() : 0;
      const idx = p.getIndices();
      const ia = idx?.getArray();
      if (idx && ia) {
        for (let i = 0; i < ia.length; i++) {
          if (ia[i]! >= count) throw new Error(`${module}: ${accessorLabel(doc, idx, uses)} has index ${ia[i]} at element ${i}, but the primitive has ${count} vertices`);
        }
      }
      for (const sem of p.listSemantics()) {
        const a = p.getAttribute(sem)!;
        if (a.getCount() !== count) throw new Error(`${module}: ${accessorLabel(doc, a, uses)} has ${a.getCount()} elements for the primitive's ${count} vertices`);
        if (/^(JOINTS|WEIGHTS)_/.test(sem) && a.getElementSize() !== 4) throw new Error(`${module}: ${accessorLabel(doc, a, uses)} must be VEC4, is ${a.getType()}`);
        if (sem.startsWith('JOINTS_') && nJoints !== undefined) checkJoints(doc, a, uses, nJoints, module);
      }
      const wsets = p.listSemantics().filter((s) => s.startsWith('WEIGHTS_')).sort();
      checkWeights(doc, wsets.map((s) => p.getAttribute(s)!), wsets.map((s) => p.getAttribute(s.replace('WEIGHTS_', 'JOINTS_'))), uses, module, notes);
    }
  }
}

function checkJoints(doc: Document, a: Accessor, uses: Map<Accessor, string>, nJoints: number, module: string): void {
  const arr = a.getArray();
  if (!arr) return;
  for (let i = 0; i < arr.length; i++) {
    if (arr[i]! >= nJoints) throw new Error(`${module}: ${accessorLabel(doc, a, uses)} names joint ${arr[i]} at vertex ${Math.floor(i / 4)}, but its skin has ${nJoints} joints`);
  }
}

/** Weight sums further than this from 1 are noted (the passes normalise them per vertex). */
const WEIGHT_SUM_NOTE = 0.01;
/** Weight sums above this are refused: not weights but broken data (real files reach about 1.6, and are normalised). */
const WEIGHT_SUM_MAX = 10;

/** Scale of a stored weight (normalised integers are stored as fractions of their maximum). */
function weightScale(a: Accessor): number {
  if (!a.getNormalized()) return 1;
  const ct = a.getComponentType();
  return ct === 5121 ? 1 / 255 : ct === 5123 ? 1 / 65535 : 1;
}

/** Joints of the vertex being checked with non-zero weight (a vertex has at most a few sets of four). */
const vertexJoints: number[] = [];

function checkWeights(doc: Document, sets: Accessor[], joints: (Accessor | null)[], uses: Map<Accessor, string>, module: string, notes: string[]): void {
  if (sets.length === 0) return;
  const count = sets[0]!.getCount();
  const arrays = sets.map((a) => a.getArray()!);
  const jointArrays = joints.map((a) => a?.getArray() ?? null);
  const scales = sets.map(weightScale);
  let off = 0, worst = 1, worstV = -1, twice = 0;
  for (let v = 0; v < count; v++) {
    let sum = 0;
    let dup = false;
    vertexJoints.length = 0;
    for (let si = 0; si < sets.length; si++) {
      const w4 = arrays[si]!;
      const j4 = jointArrays[si];
      for (let k = 4 * v; k < 4 * v + 4; k++) {
        const w = w4[k]! * scales[si]!;
        if (w < 0) throw new Error(`${module}: ${accessorLabel(doc, sets[si]!, uses)} has a negative weight (${w}) at vertex ${v}`);
        sum += w;
        if (w > 0 && j4) { if (vertexJoints.includes(j4[k]!)) dup = true; vertexJoints.push(j4[k]!); }
      }
    }
    if (!(sum >= MIN_WEIGHT_SUM)) throw new Error(`${module}: ${accessorLabel(doc, sets[0]!, uses)}: the skin weights of vertex ${v} are all 0 (it follows no joint)`);
    if (!(sum <= WEIGHT_SUM_MAX)) throw new Error(`${module}: ${accessorLabel(doc, sets[0]!, uses)}: the skin weights of vertex ${v} sum to ${sum.toPrecision(4)}, more than ${WEIGHT_SUM_MAX}: these are not skin weights`);
    if (Math.abs(sum - 1) > WEIGHT_SUM_NOTE) { off++; if (Math.abs(sum - 1) > Math.abs(worst - 1)) { worst = sum; worstV = v; } }
    if (dup) twice++;
  }
  const label = accessorLabel(doc, sets[0]!, uses);
  if (off) notes.push(`${label}: the skin weights of ${off} vertex(es) do not sum to 1 (vertex ${worstV}: ${worst.toPrecision(4)}); bitrig normalises them where it reads them, and vertices it does not re-weight keep them`);
  if (twice) notes.push(`${label}: ${twice} vertex(es) give weight to the same joint twice; bitrig adds them up where it reads them, and vertices it does not re-weight keep them`);
}

/** Inverse bind matrices: affine (last row 0, 0, 0, 1), as glTF requires. */
function checkInverseBinds(doc: Document, uses: Map<Accessor, string>, module: string): void {
  for (const skin of doc.getRoot().listSkins()) {
    const ibm = skin.getInverseBindMatrices();
    const arr = ibm?.getArray();
    if (!ibm || !arr) continue;
    for (let j = 0; j + 15 < arr.length; j += 16) {
      const row = [arr[j + 3]!, arr[j + 7]!, arr[j + 11]!, arr[j + 15]!];
      if (row[0] !== 0 || row[1] !== 0 || row[2] !== 0 || row[3] !== 1) { // (exactly, as the Khronos validator asks)
        throw new Error(`${module}: ${accessorLabel(doc, ibm, uses)}: inverse bind matrix ${j / 16} is not affine (its last row is ${row.map((x) => x.toPrecision(3)).join(', ')}, not 0, 0, 0, 1)`);
      }
    }
  }
}

function checkClips(doc: Document, uses: Map<Accessor, string>, module: string): void {
  for (const anim of doc.getRoot().listAnimations()) {
    const clip = `clip "${anim.getName()}"`;
    for (const s of anim.listSamplers()) {
      const input = s.getInput();
      const times = input?.getArray();
      if (!input || !times) continue;
      let prev = -Infinity;
      for (let k = 0; k < times.length; k++) {
        const t = times[k]!;
        if (t < 0) throw new Error(`${module}: ${clip} has a negative key time (${t} s) in ${accessorLabel(doc, input, uses)}`);
        if (t <= prev) throw new Error(`${module}: ${clip}: key times must increase, but key ${k} (${t} s) follows ${prev} s in ${accessorLabel(doc, input, uses)}`);
        if (t > INPUT_LIMITS.maxClipSeconds) throw new Error(`${module}: ${clip} has a key at ${t} s, longer than the ${INPUT_LIMITS.maxClipSeconds} s bitrig accepts for a clip`);
        prev = t;
      }
    }
    for (const ch of anim.listChannels()) {
      const out = ch.getSampler()?.getOutput();
      if (ch.getTargetPath() !== 'rotation' || !out || out.getComponentType() !== 5126) continue;
      const arr = out.getArray()!;
      for (let i = 0; i + 3 < arr.length; i += 4) {
        const len = Math.hypot(arr[i]!, arr[i + 1]!, arr[i + 2]!, arr[i + 3]!);
        if (Math.abs(len - 1) > UNIT_TOLERANCE && ch.getSampler()!.getInterpolation() !== 'CUBICSPLINE') {
          throw new Error(`${module}: ${clip}: rotation key ${i / 4} of ${accessorLabel(doc, out, uses)} is not a unit quaternion (length ${len.toPrecision(4)})`);
        }
      }
    }
  }
}

function checkNodes(doc: Document, module: string): void {
  const nodes = doc.getRoot().listNodes();
  if (nodes.length > INPUT_LIMITS.maxNodes) throw new Error(`${module}: the file has ${nodes.length} nodes, more than the ${INPUT_LIMITS.maxNodes} bitrig reads`);
  const name = (n: Node): string => `node "${n.getName() || nodes.indexOf(n)}"`;
  for (const n of nodes) {
    const trs = [...n.getTranslation(), ...n.getRotation(), ...n.getScale()];
    if (trs.some((x) => !Number.isFinite(x))) throw new Error(`${module}: ${name(n)} has a translation, rotation or scale that is not a finite number`);
    let p = n.getParentNode();
    for (let steps = 0; p; steps++) {
      if (steps > nodes.length) throw new Error(`${module}: ${name(n)} is part of a node cycle (a node is its own ancestor)`);
      p = p.getParentNode();
    }
  }
}

/**
 * Check a Document's values before a pass reads it (see the module header). Returns notes
 * on what bitrig tolerates and how (skin weights a little off 1, a joint weighted twice in a
 * vertex), for the caller's report. Throws
 * `<module>: …` (e.g. `bitrig/measure: accessor 4 (POSITION of mesh "Body" primitive 0) has
 * NaN at element 31; every number must be finite`).
 *
 * @example
 * validateDocument(doc, 'bitrig/bake');
 */
export function validateDocument(doc: Document, module: string): string[] {
  const uses = accessorUses(doc);
  const notes: string[] = [];
  checkNodes(doc, module);
  checkFinite(doc, uses, module);
  checkPrimitives(doc, uses, module, notes);
  checkInverseBinds(doc, uses, module);
  checkClips(doc, uses, module);
  return notes;
}
