/**
 * The tail page's three copies of one character, made in the browser from GLB bytes:
 *
 * - `shin`  — the file as it came (for the built-in critter: the tail skinned to the left
 *   shin and both thighs, the auto-rigger failure);
 * - `rigid` — bitrig's rig pass in rigid mode (the tail's skin on the pelvis, one piece);
 * - `chain` — the rig pass in chain mode (Tail_1…Tail_K grown along the tail) with the
 *   runtime swinging the chain (`createAnimator`).
 *
 * Everything runs on in-memory bytes: glTF-Transform's WebIO for the rig pass, three's
 * GLTFLoader to draw the result. Nothing is fetched but the file itself.
 */
import {
  type AnimationAction, type AnimationClip, AnimationMixer, type Bone, Box3, Group, type Object3D, SkeletonHelper,
  type SkinnedMesh, Vector3,
} from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { createAnimator, type Animator } from '../../adapters/three/index';
import type { TailOptions } from '../../core/defaults';
import { isTailName } from '../../core/boneMap';
import { rigAppendages, type RigReport } from '../../rig/pass';
import { readGlbBytes, writeGlbBytes } from '../../rig/glb';
import { createStretchMeter, type MeterInput, type StretchMeter } from './stretch';

/** Which copy. */
export type CopyKind = 'shin' | 'rigid' | 'chain';

/** The three copies, left to right. */
export const COPY_KINDS: readonly CopyKind[] = ['shin', 'rigid', 'chain'];

/** One copy of the character. */
export interface TailCopy {
  /** Which copy. */
  kind: CopyKind;
  /** Wrapper in the scene (scale to metres, feet on y = 0). */
  holder: Group;
  /** The loaded glTF scene. */
  model: Object3D;
  /** Skinned meshes in traversal order. */
  meshes: SkinnedMesh[];
  /** Its mixer. */
  mixer: AnimationMixer;
  /** Clips of the file. */
  clips: AnimationClip[];
  /** The playing action. */
  action: AnimationAction | null;
  /** bitrig's animator (chain copy only). */
  animator: Animator | null;
  /** Bones drawn when "bones" is on. */
  helper: SkeletonHelper;
  /** Live stretch of its tail, or null when no tail was found. */
  meter: StretchMeter | null;
}

/** A loaded set of copies. */
export interface TailSet {
  /** What was loaded (file name or "built-in critter"). */
  label: string;
  /** The copies by kind. */
  copies: Record<CopyKind, TailCopy>;
  /** Rig pass reports (rigid, chain). */
  reports: { rigid: RigReport; chain: RigReport };
  /** Bounding box of the as-rigged copy in the scene (metres). */
  box: Box3;
  /** Tail bones of the chain copy, root first (from the animator), incl. an end bone if any. */
  chainBones: Bone[];
  /** Clip names, shared by the copies. */
  clipNames: string[];
  /** Notes for the status line. */
  notes: string[];
  /** Release GPU objects and bitrig state. */
  dispose(): void;
}

/** Options of {@link loadTailSet}. */
export interface LoadTailSetOptions {
  /** Shown in the status line. */
  label: string;
  /** Tail vertex mask of the (single) mesh, when known (the built-in character's ground truth). */
  tailVertex?: Uint8Array;
  /** Tail options for the chain copy's animator. */
  tail?: Partial<TailOptions>;
  /** Progress text. */
  onProgress?: (text: string) => void;
}

const loader = new GLTFLoader();

/** Parse GLB bytes with three's GLTFLoader. */
export function parseGlb(bytes: Uint8Array): Promise<GLTF> {
  const buf = bytes.slice().buffer;
  return loader.parseAsync(buf, '');
}

function skinnedMeshes(root: Object3D): SkinnedMesh[] {
  const out: SkinnedMesh[] = [];
  root.traverse((o) => { if ((o as SkinnedMesh).isSkinnedMesh) out.push(o as SkinnedMesh); });
  return out;
}

/** Metres per model unit guessed from the height (centimetre rigs are ~100× too tall). */
export function unitToMetres(height: number): number {
  if (!(height > 0)) return 1;
  if (height > 2000) return 0.001;
  if (height > 20) return 0.01;
  if (height < 0.05) return 1 / height;
  return 1;
}

/** Tail mask of a mesh: vertices with at least half their weight on tail bones. */
function tailMaskOf(mesh: SkinnedMesh): Uint8Array | null {
  const geo = mesh.geometry;
  const si = geo.getAttribute('skinIndex'), sw = geo.getAttribute('skinWeight');
  if (!si || !sw) return null;
  const isTail = mesh.skeleton.bones.map((b) => isTailName(b.name));
  if (!isTail.some(Boolean)) return null;
  const mask = new Uint8Array(si.count);
  let any = false;
  for (let v = 0; v < si.count; v++) {
    let w = 0;
    for (let k = 0; k < 4; k++) if (isTail[si.getComponent(v, k)]) w += sw.getComponent(v, k);
    if (w >= 0.5) { mask[v] = 1; any = true; }
  }
  return any ? mask : null;
}

function makeCopy(kind: CopyKind, gltf: GLTF, scale: number, lift: number): TailCopy {
  const holder = new Group();
  holder.name = `copy:${kind}`;
  holder.scale.setScalar(scale);
  holder.position.y = lift;
  holder.add(gltf.scene);
  const meshes = skinnedMeshes(gltf.scene);
  for (const m of meshes) m.frustumCulled = false;
  const helper = new SkeletonHelper(gltf.scene);
  (helper.material as { depthTest: boolean }).depthTest = false;
  helper.renderOrder = 10;
  return {
    kind, holder, model: gltf.scene, meshes, mixer: new AnimationMixer(gltf.scene), clips: gltf.animations,
    action: null, animator: null, helper, meter: null,
  };
}

/**
 * Make the three copies from GLB bytes: parse the file, run the rig pass twice (rigid,
 * chain) in the browser, bind the chain copy to bitrig. Throws `bitrig demo: …` with the rig
 * pass's message when the file cannot be rigged.
 *
 * @example
 * const set = await loadTailSet(await characterToGlb(createBuiltinCharacter({ variant: 'shin' })), { label: 'critter' });
 */
export async function loadTailSet(bytes: Uint8Array, o: LoadTailSetOptions): Promise<TailSet> {
  const say = o.onProgress ?? (() => {});
  say(`${o.label}: reading…`);
  const original = await parseGlb(bytes);
  const notes: string[] = [];
  const rigged = async (mode: 'rigid' | 'chain'): Promise<{ gltf: GLTF; report: RigReport }> => {
    say(`${o.label}: rig pass (${mode})…`);
    await new Promise((r) => setTimeout(r, 0));
    const doc = await readGlbBytes(bytes);
    const report = rigAppendages(doc, { mode });
    const glb = await writeGlbBytes(doc);
    return { gltf: await parseGlb(glb), report };
  };
  const rigid = await rigged('rigid');
  const chain = await rigged('chain');

  // Scale to metres and stand on y = 0, judged on the file as it came.
  original.scene.updateMatrixWorld(true);
  const box0 = new Box3().setFromObject(original.scene);
  const size = box0.getSize(new Vector3());
  const scale = unitToMetres(size.y);
  const lift = -box0.min.y * scale;
  const copies = {
    shin: makeCopy('shin', original, scale, lift),
    rigid: makeCopy('rigid', rigid.gltf, scale, lift),
    chain: makeCopy('chain', chain.gltf, scale, lift),
  } satisfies Record<CopyKind, TailCopy>;
  for (const c of Object.values(copies)) c.holder.updateMatrixWorld(true);
  const box = new Box3().setFromObject(copies.shin.holder);

  // The runtime on the chain copy.
  const chainCopy = copies.chain;
  chainCopy.animator = createAnimator(chainCopy.model, { mixer: chainCopy.mixer, tail: { ...o.tail, floorHeight: 0 } });
  const diag = chainCopy.animator.diagnostics();
  const chainBones: Bone[] = [];
  const byName = new Map<string, Bone>();
  chainCopy.model.traverse((x) => { if ((x as Bone).isBone) byName.set(x.name, x as Bone); });
  for (const t of diag.tails) {
    for (const n of t.bones) { const b = byName.get(n); if (b) chainBones.push(b); }
    const last = byName.get(t.bones[t.bones.length - 1]!);
    const end = last?.children.find((c) => (c as Bone).isBone) as Bone | undefined;
    if (end) chainBones.push(end);
    break; // the side view draws the first chain
  }
  if (diag.tails.length === 0) notes.push('no tail chain found: nothing for the runtime to swing');
  notes.push(...diag.problems);

  // Stretch meters on the same tail vertices of every copy.
  const masks: (Uint8Array | null)[] = chainCopy.meshes.map((m, i) => (i === 0 && o.tailVertex ? o.tailVertex : tailMaskOf(m)));
  for (const c of Object.values(copies)) {
    const inputs: MeterInput[] = [];
    c.meshes.forEach((mesh, i) => {
      const tail = masks[i];
      if (tail && tail.length === mesh.geometry.getAttribute('position').count) inputs.push({ mesh, tail });
    });
    const meter = inputs.length ? createStretchMeter(inputs) : null;
    c.meter = meter && meter.edges > 0 ? meter : null;
  }
  if (!chainCopy.meter) notes.push('no tail skin found to measure');

  const clipNames = chainCopy.clips.map((c) => c.name);
  const describe = (r: RigReport): string => {
    const a = r.appendages.find((x) => x.verdict !== 'left-alone');
    return a ? `${a.verdict} on ${a.attachment} (${a.vertexCount} vertices${a.segments ? `, ${a.segments} bones` : ''})` : 'nothing changed';
  };
  notes.unshift(`rig pass: rigid → ${describe(rigid.report)}; chain → ${describe(chain.report)}`);
  return {
    label: o.label, copies, reports: { rigid: rigid.report, chain: chain.report }, box, chainBones, clipNames, notes,
    dispose() {
      for (const c of Object.values(copies)) {
        c.mixer.stopAllAction();
        c.animator?.dispose();
        c.helper.dispose();
        c.holder.removeFromParent();
        c.helper.removeFromParent();
        c.holder.traverse((x) => {
          const m = x as SkinnedMesh;
          if (m.isMesh) {
            m.geometry.dispose();
            const mats = Array.isArray(m.material) ? m.material : [m.material];
            for (const mat of mats) {
              for (const v of Object.values(mat)) if (v && typeof v === 'object' && 'isTexture' in v) (v as { dispose(): void }).dispose();
              mat.dispose();
            }
          }
        });
      }
    },
  };
}
