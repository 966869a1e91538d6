/**
 * `tail.link`: the full tail step (clock, spring, bend coupling, floor, readback into the
 * pose store) per link at 60,000 links (10,000 six-link chains in one world), compared with
 * @pixiv/three-vrm-springbone running the same chains in the same process. `extra` also has
 * 500 of the chains alone (`links3000Ns`: a
 * world small enough to stay in the caches), timed in the same interleaved rounds, with the
 * machine probes (`memProbeGBs`, `jsProbeNs`: which mode the shared machine was in).
 *
 * `tail.link.colliders`: the same, 2,000 chains, each with two thigh capsules on its hips
 * (bitrig's tail colliders; three-vrm's capsule colliders in one collider group on every
 * joint), placed where the swinging tail meets them.
 */
import { Bone, Object3D, Vector3 } from 'three';
import { VRMSpringBoneCollider, VRMSpringBoneColliderShapeCapsule, VRMSpringBoneJoint, VRMSpringBoneManager, type VRMSpringBoneColliderGroup } from '@pixiv/three-vrm-springbone';
import { addTailCollider } from '../core/colliderSetup';
import { type BitrigWorld } from '../core/world';
import { createBitrigWorld } from '../runtime/world';
import { TAIL_LINK_FIELDS } from '../core/components/tail';
import { bindSkeleton, beginCharacterFrame } from '../core/binding';
import { update } from '../systems/pipeline';
import { machineProbes, median, timeOnce, type BenchResult } from './common';
import { allocPerFrame, steadyAllocation } from './alloc';
import { chainSource } from '../test/helpers/chainSource'; // (the tests' six-link chain: Hips, Tail_1…Tail_6, Tail_End)

const CHAINS = 10_000;
/** Chains of `tail.link.colliders`. */
const COLLIDER_CHAINS = 2_000;
/** Two thigh capsules in the hips' space (m): beside and a little behind the tail's root. */
const THIGHS = [
  { a: [0.1, -0.05, -0.06], b: [0.11, -0.5, -0.05], r: 0.1 },
  { a: [-0.1, -0.05, -0.06], b: [-0.11, -0.5, -0.05], r: 0.1 },
];
const SMALL_CHAINS = 500;
const LINKS = 6;

function hipsX(i: number, f: number): number {
  return (i % 100) * 2 + 0.25 * Math.sin(f * 0.15 + i);
}

/** Run the tail benchmark (ours and three-vrm side by side). */
export async function benchTail(): Promise<BenchResult[]> {
  // ---- bitrig: one world, 10,000 chains.
  const ours = oursWorld();
  // The same chains, 500 of them (3,000 links): what a scene of a few hundred tails costs per
  // link, its state in the processor's caches (the 60,000 links' is not: there half the time is
  // memory traffic). Not the headline.
  const small = oursWorld(SMALL_CHAINS);
  const { world, pose } = ours;
  const FR = 60;
  const oursRun = (): void => ours.run(FR);
  const baseRun = (): void => ours.base(FR);
  const SMALL_FR = FR * 10;
  const smallRun = (): void => small.run(SMALL_FR);
  const smallBaseRun = (): void => small.base(SMALL_FR);

  // Allocation per frame once V8 has optimised the step: the exact bytes the young generation
  // gains over windows of 100 frames, until three in a row allocate nothing (bench/alloc.ts).
  const framesOnly = (n: number): void => ours.framesOnly(n);
  const alloc = steadyAllocation(() => framesOnly(1), { framesPerWindow: 100, maxWindows: 40 });
  // then the window: 1,000 frames
  const alloc1000 = steadyAllocation(() => framesOnly(1), { framesPerWindow: 1000, maxWindows: 1, quiet: 1 }).windows[0]!;

  // Bytes of runtime state per link: the tail components' bytes per chain (per-entity fields
  // by the entity capacity, per-link fields by the row capacity) / links, plus pose slots.
  let compBytes = 0;
  for (const name of ['TailChain', 'TailParticle', 'BendState'] as const) {
    const perLink = TAIL_LINK_FIELDS[name];
    for (const [key, a] of Object.entries(world.components[name] as unknown as Record<string, unknown>)) {
      if (!ArrayBuffer.isView(a)) continue;
      compBytes += (a as unknown as { byteLength: number }).byteLength / (perLink.includes(key) ? world.tailRows.capacity : world.capacity);
    }
  }
  const slotBytes = pose.localT.byteLength / pose.capacity * 2 + pose.localR.byteLength / pose.capacity * 2
    + pose.localS.byteLength / pose.capacity * 2 + pose.worldM.byteLength / pose.capacity + 4 + 4 + 1;

  // ---- three-vrm springbone: the same chains as three.js bones.
  const vrm = vrmWorld(CHAINS, false);
  const VF = 6;
  const vrmRun = (): void => vrm.run(VF);

  // Bare flat-array spring with rotation readback on the same 60,000 links: the issue's
  // calibration point (≈ 50 ns per link on the machine its targets were measured on).
  const bare = bareSpring(CHAINS * LINKS);
  bare.run(); bare.run();

  // Interleaved rounds (ours, its input-only baseline, three-vrm, bare spring), medians: the
  // machine is shared, so the ratio comes from timings taken side by side.
  const tOurs: number[] = [], tBase: number[] = [], tVrm: number[] = [], tBare: number[] = [];
  const tSmall: number[] = [], tSmallBase: number[] = [];
  const probes = machineProbes();
  for (let r = 0; r < 7; r++) {
    tOurs.push(timeOnce(oursRun));
    tSmall.push(timeOnce(smallRun));
    tSmallBase.push(timeOnce(smallBaseRun));
    tBase.push(timeOnce(baseRun));
    tVrm.push(timeOnce(vrmRun));
    tBare.push(timeOnce(bare.run));
    probes.round();
  }
  const oursNs = ((median(tOurs) - median(tBase)) * 1e6) / (FR * CHAINS * LINKS);
  const smallNs = ((median(tSmall) - median(tSmallBase)) * 1e6) / (SMALL_FR * SMALL_CHAINS * LINKS);
  const vrmNs = (median(tVrm) * 1e6) / (VF * CHAINS * LINKS);
  const bareNs = (median(tBare) * 1e6) / (bare.frames * CHAINS * LINKS);

  return [{
    id: 'tail.link',
    nsPerItem: oursNs,
    compare: { id: '@pixiv/three-vrm-springbone', nsPerItem: vrmNs },
    ratio: vrmNs / oursNs,
    extra: {
      links: CHAINS * LINKS,
      links3000Ns: smallNs,
      msPerFrame: (median(tOurs) - median(tBase)) / FR,
      bareSpringNs: bareNs,
      componentBytesPerLink: Math.round(compBytes / LINKS),
      poseBytesPerBone: Math.round(slotBytes),
      allocatedBytesOver1000Frames: alloc1000,
      allocatedBytesPerFrame: allocPerFrame(alloc),
      allocQuietAfterFrames: alloc.warmFrames ?? 'never',
      ...probes.result(),
    },
  }, benchColliders(), benchContacts()];
}

/** `tail.link.colliders`: bitrig and three-vrm, both with two thigh capsules per chain, interleaved rounds. */
function benchColliders(): BenchResult {
  const ours = oursWorld(COLLIDER_CHAINS, true), plain = oursWorld(COLLIDER_CHAINS);
  const vrm = vrmWorld(COLLIDER_CHAINS, true);
  const FR = 120, VF = 20;
  const tOurs: number[] = [], tPlain: number[] = [], tBase: number[] = [], tVrm: number[] = [];
  for (let r = 0; r < 7; r++) {
    tOurs.push(timeOnce(() => ours.run(FR)));
    tPlain.push(timeOnce(() => plain.run(FR)));
    tBase.push(timeOnce(() => ours.base(FR)));
    tVrm.push(timeOnce(() => vrm.run(VF)));
  }
  const links = COLLIDER_CHAINS * LINKS;
  // (untimed: how many link steps touch a capsule per frame)
  let contacts = 0;
  const C = ours.world.components.TailChain, tails = ours.world.queries.tails.dense;
  for (let f = 0; f < 60; f++) { ours.run(1); for (let i = 0; i < tails.length; i++) contacts += C.colliderContacts[tails[i]!]!; }
  const oursNs = ((median(tOurs) - median(tBase)) * 1e6) / (FR * links);
  const plainNs = ((median(tPlain) - median(tBase)) * 1e6) / (FR * links);
  const vrmNs = (median(tVrm) * 1e6) / (VF * links);
  return {
    id: 'tail.link.colliders',
    nsPerItem: oursNs,
    compare: { id: '@pixiv/three-vrm-springbone + 2 capsule colliders', nsPerItem: vrmNs },
    ratio: vrmNs / oursNs,
    extra: { links, withoutCollidersNs: plainNs, contactLinkStepsPerFrame: contacts / 60 },
  };
}

/**
 * The chains as three.js bones driven by @pixiv/three-vrm-springbone, optionally with two
 * thigh capsule colliders (one collider group) on each hips: `run(n)` moves the hips and updates.
 */
function vrmWorld(chains: number, thighs: boolean, capsules = THIGHS): { run(n: number): void } {
  const scene = new Object3D();
  const manager = new VRMSpringBoneManager();
  const hips: Bone[] = [];
  const seg = 0.8 / LINKS;
  const gravityDir = new Vector3(0, -1, 0);
  for (let i = 0; i < chains; i++) {
    const h = new Bone();
    h.position.set(hipsX(i, 0), 0.9, Math.floor(i / 100) * 2);
    scene.add(h);
    hips.push(h);
    const groups: VRMSpringBoneColliderGroup[] = [];
    if (thighs) {
      const colliders = capsules.map((t) => {
        const c = new VRMSpringBoneCollider(new VRMSpringBoneColliderShapeCapsule({ radius: t.r, offset: new Vector3(...t.a), tail: new Vector3(...t.b) }));
        h.add(c);
        return c;
      });
      groups.push({ colliders });
    }
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
      manager.addJoint(new VRMSpringBoneJoint(bones[k]!, bones[k + 1]!, { stiffness: 1, dragForce: 0.4, gravityPower: 0.1, gravityDir, hitRadius: 0.02 }, groups));
    }
  }
  scene.updateMatrixWorld(true);
  manager.setInitState();
  let vf = 0;
  const move = (): void => {
    for (let i = 0; i < chains; i++) hips[i]!.position.x = hipsX(i, vf);
    vf++;
  };
  for (let f = 0; f < 5; f++) { move(); scene.updateMatrixWorld(true); manager.update(1 / 60); }
  return { run: (n) => { for (let f = 0; f < n; f++) { move(); manager.update(1 / 60); } } };
}

/**
 * A world of 10,000 (or `chains`) moving six-link chains, warmed up: `base(n)` moves the
 * hips only (the input), `run(n)` moves them and updates, `framesOnly(n)` updates.
 *
 * @example
 * const o = oursWorld(); o.run(60);
 */
export function oursWorld(chains = CHAINS, thighs = false, capsules = THIGHS): {
  world: BitrigWorld; pose: BitrigWorld['pose']; run(n: number): void; base(n: number): void; framesOnly(n: number): void;
} {
  const world = createBitrigWorld({ entities: chains + 8, chains: chains + 8, bones: chains * (LINKS + 2) + 8, characters: chains + 8 });
  const src = chainSource(LINKS);
  const bindings = [];
  for (let i = 0; i < chains; i++) bindings.push(bindSkeleton(world, src));
  if (thighs) {
    for (const b of bindings) for (const t of capsules) addTailCollider(world, { char: b.charId, slot: b.slotOf[0]!, radius: t.r, a: t.a, b: t.b, groups: 1 });
  }
  const hipsSlots = bindings.map((b) => b.slotOf[0]!);
  for (const b of bindings) beginCharacterFrame(b);
  let frame = 0;
  const moveHips = (): void => {
    const m = world.pose.worldM;
    for (let i = 0; i < chains; i++) {
      const s = hipsSlots[i]!;
      m[s * 16 + 12] = hipsX(i, frame);
      m[s * 16 + 14] = Math.floor(i / 100) * 2;
    }
    frame++;
  };
  const run = (n: number): void => { for (let f = 0; f < n; f++) { moveHips(); update(world, 1 / 60); } };
  run(60); // warm-up (JIT, settle)
  return {
    world, pose: world.pose, run,
    base: (n) => { for (let f = 0; f < n; f++) moveHips(); },
    framesOnly: (n) => { for (let f = 0; f < n; f++) update(world, 1 / 60); },
  };
}

/**
 * The calibration kernel: per link a spring toward a fixed rest target, rope projection and
 * the shortest-arc readback quaternion, on flat Float64Arrays — no chain frames, coupling,
 * limit or floor. It is not bitrig; it says how fast this machine runs the bare minimum.
 */
function bareSpring(links: number): { run: () => void; frames: number } {
  const pos = new Float64Array(links * 3), vel = new Float64Array(links * 3), rot = new Float64Array(links * 4);
  for (let i = 0; i < links; i++) { pos[i * 3 + 1] = -0.1; pos[i * 3 + 2] = -0.1; }
  const frames = 30;
  let t = 0;
  const run = (): void => {
    for (let f = 0; f < frames; f++) {
      t += 1 / 60;
      const hx = 0.1 * Math.sin(t * 3), h = 1 / 60, w2 = (2 * Math.PI * 0.9) ** 2, c = 2 * 0.65 * 2 * Math.PI * 0.9;
      for (let i = 0; i < links; i++) {
        const o = i * 3;
        let vx = vel[o]!, vy = vel[o + 1]!, vz = vel[o + 2]!;
        let px = pos[o]!, py = pos[o + 1]!, pz = pos[o + 2]!;
        vx += (w2 * (hx - px) - c * vx) * h; vy += (w2 * (-0.1 - py) - c * vy - 1) * h; vz += (w2 * (-0.1 - pz) - c * vz) * h;
        px += vx * h; py += vy * h; pz += vz * h;
        const dx = px - hx, dy = py, dz = pz;
        const il = 0.1414 / Math.sqrt(dx * dx + dy * dy + dz * dz);
        px = hx + dx * il; py = dy * il; pz = dz * il;
        const nx = dx * il / 0.1414, ny = dy * il / 0.1414, nz = dz * il / 0.1414;
        const vr = vx * nx + vy * ny + vz * nz;
        vel[o] = vx - vr * nx; vel[o + 1] = vy - vr * ny; vel[o + 2] = vz - vr * nz;
        pos[o] = px; pos[o + 1] = py; pos[o + 2] = pz;
        // swing from the rest direction (0, −0.707, −0.707) onto n
        const rx = 0, ry = -0.7071067811865476, rz = -0.7071067811865476;
        const d = rx * nx + ry * ny + rz * nz;
        const qx = ry * nz - rz * ny, qy = rz * nx - rx * nz, qz = rx * ny - ry * nx, qw = 1 + d;
        const ql = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
        const q = i * 4;
        rot[q] = qx * ql; rot[q + 1] = qy * ql; rot[q + 2] = qz * ql; rot[q + 3] = qw * ql;
      }
    }
  };
  return { run, frames };
}

/** The two wall capsules of `tail.link.contacts` (hips space, m). */
export function contactWalls(): Array<{ a: number[]; b: number[]; r: number }> {
  const r = 1, wall = (p: number[], side: number): number[] => [side * (r + 0.005), p[1]!, p[2]!];
  return [1, -1].map((s) => ({ a: wall([0, -0.05, -0.1], s), b: wall([0, -0.192, -0.622], s), r }));
}

/**
 * `tail.link.contacts`: two capsules per chain as in `tail.link.colliders`, but pressed
 * against the tail: two walls (radius 1 m, hips space) 5 mm either side of the line the
 * swinging tail settles along (its joints' mean positions under the bench's sway and default
 * options: (0, −0.05, −0.1) to (0, −0.192, −0.622)). Every link is within reach of a wall at
 * every step (every link step runs the narrow phase) and the sway presses the tail into one
 * wall or the other (`contactShare`: link steps that turn on contact, per link step; untimed
 * count). bitrig beside three-vrm with the same capsules, interleaved rounds.
 */
function benchContacts(): BenchResult {
  const WALLS = contactWalls();
  const ours = oursWorld(COLLIDER_CHAINS, true, WALLS), vrm = vrmWorld(COLLIDER_CHAINS, true, WALLS);
  const FR = 120, VF = 20;
  const tOurs: number[] = [], tBase: number[] = [], tVrm: number[] = [];
  for (let k = 0; k < 7; k++) {
    tOurs.push(timeOnce(() => ours.run(FR)));
    tBase.push(timeOnce(() => ours.base(FR)));
    tVrm.push(timeOnce(() => vrm.run(VF)));
  }
  const links = COLLIDER_CHAINS * LINKS, C = ours.world.components.TailChain, tails = ours.world.queries.tails.dense;
  let contacts = 0, steps = 0;
  for (let f = 0; f < 60; f++) {
    ours.run(1);
    steps += ours.world.tailClock.steps; // (this frame's internal steps)
    for (let i = 0; i < tails.length; i++) contacts += C.colliderContacts[tails[i]!]!;
  }
  const oursNs = ((median(tOurs) - median(tBase)) * 1e6) / (FR * links), vrmNs = (median(tVrm) * 1e6) / (VF * links);
  return {
    id: 'tail.link.contacts',
    nsPerItem: oursNs,
    compare: { id: '@pixiv/three-vrm-springbone + the same 2 capsules', nsPerItem: vrmNs },
    ratio: vrmNs / oursNs,
    extra: { links, contactLinkStepsPerFrame: contacts / 60, contactShare: contacts / (links * steps) },
  };
}
