/**
 * Worn pieces built in code on a humanoid (for the body-or-worn classification of the rig
 * pass): a cape hanging from the shoulders behind the back, skinned the way an auto-rigger
 * would (upper spine at the top, hips, then the thighs at the hem), as its own primitive.
 */
import type { Document, Primitive, Skin } from '@gltf-transform/core';
import { parseBoneName } from '../../core/boneMap';
import { readSkinMesh } from '../../rig/meshData';
import { readSkinSkeleton } from '../../rig/skeleton';

/** Shape of {@link addCape}; lengths are fractions of the model height H. */
export interface CapeOptions {
  /** Width at the shoulders (0.3). */
  topWidth?: number;
  /** Width at the hem (0.42). */
  bottomWidth?: number;
  /** Height of the hem above the lowest skin (0.12: a long cape). */
  hemHeight?: number;
  /** Distance behind the spine at the shoulders (0.06: its top edge touches the back). */
  topBack?: number;
  /** Distance behind the spine at the hem (0.16). */
  hemBack?: number;
  /** Rows and columns of the sheet (24 × 16). */
  rows?: number;
  /** Columns of the sheet. */
  columns?: number;
}

/** What {@link addCape} made. */
export interface CapeTruth {
  /** The skin the cape is skinned to. */
  skin: Skin;
  /** Global (readSkinMesh order) vertex indices of the cape. */
  vertices: Int32Array;
  /** Bones the cape is weighted to, top to bottom. */
  bones: string[];
}

/**
 * Add a cape to the first skin of a humanoid (Mixamo-like names: Hips, Spine*, Neck,
 * Left/RightUpLeg). Works in place.
 *
 * @example
 * const doc = await loadAsset('threejs-xbot');
 * const cape = addCape(doc, { bottomWidth: 0.5 });
 */
export function addCape(doc: Document, opts: CapeOptions = {}): CapeTruth {
  const skin = doc.getRoot().listSkins()[0]!;
  const skel = readSkinSkeleton(skin, null);
  const mesh = readSkinMesh(doc, skin);
  const up = [skel.up[0]!, skel.up[1]!, skel.up[2]!];
  let lo = Infinity, hi = -Infinity;
  for (let v = 0; v < mesh.count; v++) {
    const h = mesh.positions[3 * v]! * up[0]! + mesh.positions[3 * v + 1]! * up[1]! + mesh.positions[3 * v + 2]! * up[2]!;
    lo = Math.min(lo, h);
    hi = Math.max(hi, h);
  }
  const H = hi - lo;
  const J = skel.positions;
  const find = (base: RegExp, side: 'left' | 'right' | 'center'): number =>
    skel.names.findIndex((n) => base.test(parseBoneName(n).base) && parseBoneName(n).side === side);
  const neck = find(/^neck$/, 'center');
  // The chest: the neck's parent (Spine2 on Mixamo).
  const chest = neck >= 0 ? skel.parents[neck]! : -1;
  const thighL = find(/^(up(per)?leg|thigh)$/, 'left');
  const thighR = find(/^(up(per)?leg|thigh)$/, 'right');
  const pelvis = skel.pelvis;
  if (neck < 0 || chest < 0 || thighL < 0 || thighR < 0 || pelvis < 0) throw new Error('addCape: a Mixamo-like humanoid is needed');
  const at = (j: number): number[] => [J[3 * j]!, J[3 * j + 1]!, J[3 * j + 2]!];
  const dot = (a: number[], b: number[]): number => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  // Left = from the right thigh to the left one, made horizontal; back = left × up.
  const lr = at(thighL).map((x, k) => x - at(thighR)[k]!);
  const lh = dot(lr, up);
  const left0 = lr.map((x, k) => x - lh * up[k]!);
  const ll = Math.hypot(left0[0]!, left0[1]!, left0[2]!);
  const left = left0.map((x) => x / ll);
  const back = [left[1]! * up[2]! - left[2]! * up[1]!, left[2]! * up[0]! - left[0]! * up[2]!, left[0]! * up[1]! - left[1]! * up[0]!];
  // (flip "back" so that it points away from the toes: the feet point forward)
  const foot = find(/^foot$/, 'left');
  const toe = find(/^toe(base)?$/, 'left');
  if (foot >= 0 && toe >= 0 && dot(at(toe).map((x, k) => x - at(foot)[k]!), back) > 0) for (let k = 0; k < 3; k++) back[k] = -back[k]!;
  const top = at(neck);
  const topH = dot(top, up) - 0.03 * H;
  const hemH = lo + (opts.hemHeight ?? 0.12) * H;
  const rows = opts.rows ?? 24;
  const cols = opts.columns ?? 16;
  const wTop = (opts.topWidth ?? 0.3) * H;
  const wBot = (opts.bottomWidth ?? 0.42) * H;
  const bTop = (opts.topBack ?? 0.06) * H;
  const bBot = (opts.hemBack ?? 0.16) * H;
  const chestH = dot(at(chest), up);
  const pelvisH = dot(at(pelvis), up);
  const positions: number[] = [];
  const normals: number[] = [];
  const joints: number[] = [];
  const weights: number[] = [];
  const c0 = [top[0]! - dot(top, up) * up[0]!, top[1]! - dot(top, up) * up[1]!, top[2]! - dot(top, up) * up[2]!];
  for (let r = 0; r <= rows; r++) {
    const u = r / rows;
    const h = topH + (hemH - topH) * u;
    const w = wTop + (wBot - wTop) * u;
    const b = bTop + (bBot - bTop) * u;
    for (let c = 0; c <= cols; c++) {
      const s = c / cols - 0.5;
      // (a gentle curve around the back: the sides come forward a little)
      const curve = -0.4 * b * (2 * s) ** 2;
      for (let k = 0; k < 3; k++) {
        positions.push(c0[k]! + up[k]! * h + left[k]! * s * w + back[k]! * (b + curve));
        normals.push(back[k]!);
      }
      // An auto-rigger's weights: chest at the top, hips at the waist, the thighs below.
      const side = s > 0 ? thighL : thighR;
      if (h >= chestH) joints.push(chest, 0, 0, 0), weights.push(1, 0, 0, 0);
      else if (h >= pelvisH) {
        const t = (chestH - h) / Math.max(1e-9, chestH - pelvisH);
        joints.push(chest, pelvis, 0, 0);
        weights.push(1 - t, t, 0, 0);
      } else {
        const t = Math.min(1, (pelvisH - h) / (0.25 * H));
        joints.push(pelvis, side, 0, 0);
        weights.push(1 - t, t, 0, 0);
      }
    }
  }
  const indices: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const a = r * (cols + 1) + c, b2 = a + 1, d = a + cols + 1, e = d + 1;
      indices.push(a, d, b2, b2, d, e);
    }
  }
  // Zero-weight slots carry joint 0 (valid: weight 0); a slot with weight 1e-9 would not be.
  for (let i = 0; i < weights.length; i += 4) {
    if (weights[i + 1] === 0) joints[i + 1] = 0;
    if (weights[i]! <= 0) {
      weights[i] = weights[i + 1]!;
      joints[i] = joints[i + 1]!;
      weights[i + 1] = 0;
      joints[i + 1] = 0;
    }
  }
  const base = doc.getRoot().listNodes().find((n) => n.getSkin() === skin && n.getMesh())!;
  const prim0 = base.getMesh()!.listPrimitives().find((p) => p.getAttribute('JOINTS_0'))!;
  const jType = prim0.getAttribute('JOINTS_0')!.getComponentType();
  const buffer = doc.getRoot().listBuffers()[0]!;
  const n = positions.length / 3;
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', doc.createAccessor('cape_position').setType('VEC3').setArray(Float32Array.from(positions)).setBuffer(buffer))
    .setAttribute('NORMAL', doc.createAccessor('cape_normal').setType('VEC3').setArray(Float32Array.from(normals)).setBuffer(buffer))
    .setAttribute('JOINTS_0', doc.createAccessor('cape_joints').setType('VEC4').setArray(jType === 5121 ? Uint8Array.from(joints) : Uint16Array.from(joints)).setBuffer(buffer))
    .setAttribute('WEIGHTS_0', doc.createAccessor('cape_weights').setType('VEC4').setArray(Float32Array.from(weights)).setBuffer(buffer))
    .setIndices(doc.createAccessor('cape_indices').setType('SCALAR').setArray(Uint32Array.from(indices)).setBuffer(buffer))
    .setMaterial(doc.createMaterial('Cape').setBaseColorFactor([0.6, 0.1, 0.1, 1]));
  base.getMesh()!.addPrimitive(prim);
  const after = readSkinMesh(doc, skin);
  const src = after.sources.find((s) => s.prims.includes(prim))!;
  const vertices = new Int32Array(n);
  for (let i = 0; i < n; i++) vertices[i] = src.base + i;
  return { skin, vertices, bones: [skel.names[chest]!, skel.names[pelvis]!, skel.names[thighL]!, skel.names[thighR]!] };
}

/**
 * Move the primitive whose material is named `material` out of `skin`'s mesh into a mesh,
 * node and skin of its own over the same joint nodes (inverse bind matrices copied): what
 * FBX2glTF and three's GLTFExporter write, one skin per skinned mesh. Returns the new skin.
 *
 * @example
 * const cape = addCape(doc);
 * const capeSkin = moveToOwnSkin(doc, 'Cape', cape.skin, 'CapeSkin');
 */
export function moveToOwnSkin(doc: Document, material: string, skin: Skin, name: string): Skin {
  const prim: Primitive | undefined = doc.getRoot().listMeshes().flatMap((m) => m.listPrimitives()).find((p) => p.getMaterial()?.getName() === material);
  if (!prim) throw new Error(`moveToOwnSkin: no primitive with material ${material}`);
  const base = doc.getRoot().listNodes().find((n) => n.getSkin() === skin && n.getMesh()?.listPrimitives().includes(prim));
  if (!base) throw new Error(`moveToOwnSkin: the ${material} primitive is not on a node using the skin`);
  base.getMesh()!.removePrimitive(prim);
  const own = doc.createSkin(name);
  for (const j of skin.listJoints()) own.addJoint(j);
  const ibm = skin.getInverseBindMatrices();
  if (ibm) own.setInverseBindMatrices(doc.createAccessor(`${name}_ibm`).setType('MAT4').setArray(ibm.getArray()!.slice()).setBuffer(ibm.getBuffer()));
  const skeleton = skin.getSkeleton();
  if (skeleton) own.setSkeleton(skeleton);
  const node = doc.createNode(name).setMesh(doc.createMesh(name).addPrimitive(prim)).setSkin(own);
  const parent = base.getParentNode();
  if (parent) parent.addChild(node);
  else doc.getRoot().listScenes()[0]!.addChild(node);
  return own;
}
