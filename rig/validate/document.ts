/**
 * The values of a glTF-Transform Document, checked before any pass reads them: every float
 * accessor finite (positions, normals, weights, inverse bind matrices, key times and values,
 * morph targets), indices below their primitive's vertex count, joint indices below their
 * skin's joint count, skin weights non-negative and not all 0 (the passes normalise each vertex's sum), key times increasing from
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

function checkPrimitives(doc: Document, uses: Map<Accessor, string>, module: string): void {
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
        if (sem.startsWith('JOINTS_') && nJoints !== undefined) checkJoints(doc, a, uses, nJoints, module);
      }
      checkWeights(doc, p.listSemantics().filter((s) => s.startsWith('WEIGHTS_')).map((s) => p.getAttribute(s)!), uses, module);
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

function checkWeights(doc: Document, sets: Accessor[], uses: Map<Accessor, string>, module: string): void {
  if (sets.length === 0) return;
  const count = sets[0]!.getCount();
  const el: number[] = [];
  for (let v = 0; v < count; v++) {
    let sum = 0;
    for (const a of sets) {
      a.getElement(v, el);
      for (const w of el) {
        if (w < 0) throw new Error(`${module}: ${accessorLabel(doc, a, uses)} has a negative weight (${w}) at vertex ${v}`);
        sum += w;
      }
    }
    if (!(sum >= MIN_WEIGHT_SUM)) {
      throw new Error(`${module}: ${accessorLabel(doc, sets[0]!, uses)}: the skin weights of vertex ${v} are all 0 (it follows no joint)`);
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
    if (trs.some((x) => !Number.isFinite(x))) throw new Error(`${module}: ${name(n)} has a transform that is not finite`);
    let p = n.getParentNode();
    for (let steps = 0; p; steps++) {
      if (steps > nodes.length) throw new Error(`${module}: ${name(n)} is part of a node cycle (a node is its own ancestor)`);
      p = p.getParentNode();
    }
  }
}

/**
 * Check a Document's values before a pass reads it (see the module header). Throws
 * `<module>: …` (e.g. `bitrig/measure: accessor 4 (POSITION of mesh "Body" primitive 0) has
 * NaN at element 31; every number must be finite`).
 *
 * @example
 * validateDocument(doc, 'bitrig/bake');
 */
export function validateDocument(doc: Document, module: string): void {
  const uses = accessorUses(doc);
  checkNodes(doc, module);
  checkFinite(doc, uses, module);
  checkPrimitives(doc, uses, module);
  checkClips(doc, uses, module);
}
