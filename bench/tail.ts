/**
 * `tail.link`: the full tail step (clock, spring, bend coupling, floor, readback into the
 * pose store) per link at 60,000 links (10,000 six-link chains in one world), compared with
 * @pixiv/three-vrm-springbone running the same chains in the same process.
 */
import { Bone, Object3D, Vector3 } from 'three';
import { VRMSpringBoneJoint, VRMSpringBoneManager } from '@pixiv/three-vrm-springbone';
import { createBitrigWorld } from '../core/world';
import { bindSkeleton, beginCharacterFrame } from '../core/binding';
import { update } from '../systems/pipeline';
import { timeMedian, type BenchResult } from './common';

const CHAINS = 10_000;
const LINKS = 6;

function chainSource() {
  const names = ['Hips'];
  const parents = [-1];
  const rest = [{ t: [0, 0.9, 0], r: [0, 0, 0, 1], s: [1, 1, 1] }];
  const inverseBind: number[][] = [];
  const seg = 0.8 / LINKS;
  let wy = 0.9, wz = 0;
  inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, 0, 1]);
  for (let i = 0; i < LINKS; i++) {
    names.push(`Tail_${i + 1}`);
    parents.push(i);
    const t = i === 0 ? [0, -0.05, -0.1] : [0, -0.5 * seg, -0.866 * seg];
    rest.push({ t, r: [0, 0, 0, 1], s: [1, 1, 1] });
    wy += t[1]!; wz += t[2]!;
    inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, -wz, 1]);
  }
  names.push('Tail_End');
  parents.push(LINKS);
  rest.push({ t: [0, -0.5 * seg, -0.866 * seg], r: [0, 0, 0, 1], s: [1, 1, 1] });
  wy += -0.5 * seg; wz += -0.866 * seg;
  inverseBind.push([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -wy, -wz, 1]);
  return { names, parents, rest, inverseBind };
}

function hipsX(i: number, f: number): number {
  return (i % 100) * 2 + 0.25 * Math.sin(f * 0.15 + i);
}

/** Run the tail benchmark (ours and three-vrm side by side). */
export async function benchTail(): Promise<BenchResult[]> {
  // ---- bitrig: one world, 10,000 chains.
  const world = createBitrigWorld({ entities: CHAINS + 8, bones: CHAINS * (LINKS + 2) + 8 });
  const src = chainSource();
  const bindings = [];
  for (let i = 0; i < CHAINS; i++) bindings.push(bindSkeleton(world, src));
  const pose = world.pose;
  const hipsSlots = bindings.map((b) => b.slotOf[0]!);
  for (const b of bindings) beginCharacterFrame(b);
  let frame = 0;
  const moveHips = (): void => {
    for (let i = 0; i < CHAINS; i++) {
      const s = hipsSlots[i]!;
      pose.worldM[s * 16 + 12] = hipsX(i, frame);
      pose.worldM[s * 16 + 14] = Math.floor(i / 100) * 2;
    }
    frame++;
  };
  for (let f = 0; f < 60; f++) { moveHips(); update(world, 1 / 60); } // warm-up (JIT, settle)
  const FR = 60;
  const ours = timeMedian(() => {
    for (let f = 0; f < FR; f++) { moveHips(); update(world, 1 / 60); }
  }, 5);
  // moveHips alone, to subtract
  const base = timeMedian(() => { for (let f = 0; f < FR; f++) moveHips(); }, 5);
  const oursNs = ((ours - base) * 1e6) / (FR * CHAINS * LINKS);

  // Heap growth over 1,000 frames after warm-up (no GC in between; 0 = no allocation).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const h0 = process.memoryUsage().heapUsed;
  for (let f = 0; f < 1000; f++) update(world, 1 / 60);
  const h1 = process.memoryUsage().heapUsed;
  const heapGrowth = h1 - h0;

  // Bytes of runtime state per link: component bytes per chain / links, plus pose slots.
  let compBytes = 0;
  for (const c of Object.values(world.components)) {
    for (const a of Object.values(c as unknown as Record<string, unknown>)) {
      if (ArrayBuffer.isView(a)) compBytes += (a as unknown as { byteLength: number }).byteLength / world.capacity;
    }
  }
  const slotBytes = pose.localT.byteLength / pose.capacity * 2 + pose.localR.byteLength / pose.capacity * 2
    + pose.localS.byteLength / pose.capacity * 2 + pose.worldM.byteLength / pose.capacity + 4 + 4 + 1;

  // ---- three-vrm springbone: the same chains as three.js bones.
  const scene = new Object3D();
  const manager = new VRMSpringBoneManager();
  const hips: Bone[] = [];
  const seg = 0.8 / LINKS;
  const gravityDir = new Vector3(0, -1, 0);
  for (let i = 0; i < CHAINS; i++) {
    const h = new Bone();
    h.position.set(hipsX(i, 0), 0.9, Math.floor(i / 100) * 2);
    scene.add(h);
    hips.push(h);
    let parent: Bone = h;
    const bones: Bone[] = [];
    for (let k = 0; k <= LINKS; k++) {
      const b = new Bone();
      if (k === 0) b.position.set(0, -0.05, -0.1); else b.position.set(0, -0.5 * seg, -0.866 * seg);
      parent.add(b);
      bones.push(b);
      parent = b;
    }
    for (let k = 0; k < LINKS; k++) {
      manager.addJoint(new VRMSpringBoneJoint(bones[k]!, bones[k + 1]!, { stiffness: 1, dragForce: 0.4, gravityPower: 0.1, gravityDir, hitRadius: 0.02 }));
    }
  }
  scene.updateMatrixWorld(true);
  manager.setInitState();
  let vf = 0;
  const moveVrm = (): void => {
    for (let i = 0; i < CHAINS; i++) hips[i]!.position.x = hipsX(i, vf);
    vf++;
  };
  for (let f = 0; f < 5; f++) { moveVrm(); scene.updateMatrixWorld(true); manager.update(1 / 60); }
  const VF = 6;
  const vrm = timeMedian(() => {
    for (let f = 0; f < VF; f++) { moveVrm(); manager.update(1 / 60); }
  }, 3);
  const vrmNs = (vrm * 1e6) / (VF * CHAINS * LINKS);

  return [{
    id: 'tail.link',
    nsPerItem: oursNs,
    compare: { id: '@pixiv/three-vrm-springbone', nsPerItem: vrmNs },
    ratio: vrmNs / oursNs,
    extra: {
      links: CHAINS * LINKS,
      msPerFrame: (ours - base) / FR,
      componentBytesPerLink: Math.round(compBytes / LINKS),
      poseBytesPerBone: Math.round(slotBytes),
      heapGrowthBytesOver1000Frames: heapGrowth,
    },
  }];
}
