/**
 * Two tails on the tiny model (test/rig/tiny.ts), for the rig pass's existing-chain rules:
 * the tail tube copied, tail A shifted +d/2 in x and turned +yaw about the tail root, tail B
 * shifted −d/2 and turned −yaw (d = 0 with a yaw: a fork from one root). Both skinned to the
 * left shin, as the tiny tail is. An artist chain can be added along either centre line.
 */
import type { Document, Node } from '@gltf-transform/core';
import { mat4 } from 'gl-matrix';
import { makeTinyDoc } from './tiny';

/** What {@link twoTailDoc} made: vertex ranges of both tails (readSkinMesh order). */
export interface TwoTails {
  doc: Document;
  /** [first, end) of tail A (+x, +yaw). */
  a: [number, number];
  /** [first, end) of tail B (−x, −yaw). */
  b: [number, number];
  /** Centre line of tail `side` (+1 A, −1 B) at t ∈ [0, 1]. */
  centre: (side: 1 | -1) => (t: number) => [number, number, number];
}

/**
 * @example
 * const { doc, a, b } = twoTailDoc(0.4, 0);
 */
export function twoTailDoc(d: number, yaw: number): TwoTails {
  const { doc, truth } = makeTinyDoc({ tail: true });
  const prim = doc.getRoot().listMeshes()[0]!.listPrimitives()[0]!;
  const P = prim.getAttribute('POSITION')!, J = prim.getAttribute('JOINTS_0')!, W = prim.getAttribute('WEIGHTS_0')!, I = prim.getIndices()!;
  const [t0, t1] = truth.tailRange;
  const n0 = P.getCount();
  const nt = t1 - t0;
  const pos = new Float32Array((n0 + nt) * 3);
  pos.set(P.getArray() as Float32Array);
  const jj = new Uint8Array((n0 + nt) * 4);
  jj.set(J.getArray() as Uint8Array);
  const ww = new Float32Array((n0 + nt) * 4);
  ww.set(W.getArray() as Float32Array);
  const place = (x: number, y: number, z: number, side: number): [number, number, number] => {
    // Turn about the tail root (0, 1, −0.1) by side·yaw about y, then shift side·d/2 in x.
    const zr = z + 0.1;
    const c = Math.cos(side * yaw), s = Math.sin(side * yaw);
    return [c * x + s * zr + (side * d) / 2, y, -s * x + c * zr - 0.1];
  };
  for (let i = 0; i < nt; i++) {
    const src = t0 + i, dst = n0 + i;
    const x = pos[3 * src]!, y = pos[3 * src + 1]!, z = pos[3 * src + 2]!;
    pos.set(place(x, y, z, 1), 3 * src);
    pos.set(place(x, y, z, -1), 3 * dst);
    for (let k = 0; k < 4; k++) {
      jj[4 * dst + k] = jj[4 * src + k]!;
      ww[4 * dst + k] = ww[4 * src + k]!;
    }
  }
  const idx = Array.from(I.getArray()! as ArrayLike<number>);
  const extra: number[] = [];
  for (let k = 0; k < idx.length; k += 3) {
    if (idx[k]! >= t0 && idx[k]! < t1) extra.push(idx[k]! - t0 + n0, idx[k + 1]! - t0 + n0, idx[k + 2]! - t0 + n0);
  }
  P.setArray(pos);
  J.setArray(jj);
  W.setArray(ww);
  I.setArray(Uint16Array.from([...idx, ...extra]));
  const centre = (side: 1 | -1) => (t: number): [number, number, number] => place(0, 1.0 - 0.35 * t * t, -0.1 - 0.7 * t, side);
  return { doc, a: [t0, t1], b: [n0, n0 + nt], centre };
}

/**
 * Add an artist tail chain (bones `names`, evenly spaced along `f` from t = 0.02 to 1, the
 * last name at the tip) under Hips to the first skin, and recompute every inverse bind
 * matrix from the joints' world matrices.
 *
 * @example
 * addArtistChain(doc, ['Tail1', 'Tail2', 'Tail3', 'Tail4'], centre(1));
 */
export function addArtistChain(doc: Document, names: string[], f: (t: number) => [number, number, number]): Node[] {
  const skin = doc.getRoot().listSkins()[0]!;
  const hips = doc.getRoot().listNodes().find((n) => n.getName() === 'Hips')!;
  let prevNode = hips;
  let prev = mat4.getTranslation([0, 0, 0], hips.getWorldMatrix() as unknown as mat4) as number[];
  const nodes = names.map((nm, i) => {
    const p = f(0.02 + (0.98 * i) / (names.length - 1));
    const node = doc.createNode(nm).setTranslation([p[0] - prev[0]!, p[1] - prev[1]!, p[2] - prev[2]!]);
    prevNode.addChild(node);
    prevNode = node;
    prev = p;
    return node;
  });
  for (const n of nodes) skin.addJoint(n);
  const js = skin.listJoints();
  const ibm = new Float32Array(16 * js.length);
  js.forEach((j, i) => ibm.set(mat4.invert(mat4.create(), j.getWorldMatrix() as unknown as mat4)!, 16 * i));
  skin.getInverseBindMatrices()!.setArray(ibm);
  return nodes;
}
