/**
 * The tail kernel (wasm/tailStep.ts) on a world that mixes what it groups and branches on: link
 * counts 1–8 with groups left short (empty lanes), coupling on next to coupling off, a tight
 * bend limit, a tail lying on the floor, a zero-length link, a mirrored anchor, a non-uniformly
 * scaled anchor (exact world matrices), a non-finite rotation (rest fallback), a tail hanging
 * under another tail, a teleport, an animated 'animation' rest source, mixed frame lengths (0
 * to 3 steps per frame), entities added past the capacity (the memory is laid out again
 * mid-run), a removal whose row is reused, and JavaScript writers of chain data mid-run (re-seat
 * at rest and along a shown pose, option and rest-source changes, a direct write into the
 * components). Checked: every bone finite every frame, each link's drawn length its rest
 * length, the run bit-identical to itself, the direct write taking effect (the committed
 * module is the compile of the source: test/build/kernelsCurrent.test.ts).
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import type { TailOptions } from '../../core/defaults';
import { addTailChain, removeTailChain, setTailRestSource, tailLinkIndex } from '../../core/tailSetup';
import { linkEl } from '../../core/components/tail';
import { reseatTails, reseatTailsAtPose, setBindingTailOptions } from '../../adapters/animatorCore';
import { expectSameBytes, worldSnapshot } from '../helpers/worldBytes';
import { loadRest, sourceFromWorlds } from '../helpers/skeleton';

// f64 bind matrices: float32 ones make bind scales non-uniform at 1e-8, and every chain would
// then keep exact world matrices (the composed-matrix write would go untested).
glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

interface CharSpec {
  links: number;
  tail?: Partial<TailOptions>;
  /** Hips height (m). */
  hipsY?: number;
  /** Make this link zero-length. */
  zeroLinkAt?: number;
  /** Hips scale x = −1 (a mirrored anchor). */
  mirrored?: boolean;
  /** Frame at which the hips jump 100 m. */
  teleportAt?: number;
  /** Hips scale y = 1.2 (non-uniform: the chain keeps exact world matrices). */
  squash?: boolean;
  /** A second tail (TailSeg_1, TailSeg_2) hanging from a Charm bone under Tail_End. */
  nested?: boolean;
  /** The clip turns the tail bones (with the 'animation' rest source: a moving rest pose). */
  animate?: boolean;
}

interface Char { spec: CharSpec; binding: CharacterBinding; rest: { t: number[]; r: number[]; s: number[] }[]; phase: number }

function bindChar(world: BitrigWorld, spec: CharSpec, phase: number): Char {
  const n = spec.links;
  const hipsH = spec.hipsY ?? 0.9;
  const names = ['Hips'];
  const parents = [-1];
  const worlds: mat4[] = [mat4.fromTranslation(mat4.create(), [0, hipsH, 0])];
  const dir = vec3.normalize(vec3.create(), [0, -0.6, -1]);
  const seg = 0.8 / n;
  for (let i = 0; i < n; i++) {
    names.push(`Tail_${i + 1}`);
    parents.push(i);
    const along = spec.zeroLinkAt !== undefined && i > spec.zeroLinkAt ? i - 1 : i;
    const p = vec3.scaleAndAdd(vec3.create(), [0, hipsH - 0.05, -0.1], dir, seg * along);
    worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], 0.3 * (i + 1)), p));
  }
  names.push('Tail_End');
  parents.push(n);
  const along = spec.zeroLinkAt !== undefined ? n - 1 : n;
  worlds.push(mat4.fromTranslation(mat4.create(), vec3.scaleAndAdd(vec3.create(), [0, hipsH - 0.05, -0.1], dir, seg * along)));
  if (spec.nested) {
    // (TailSeg_2 is terminal: the ribbon composes its world matrices like any chain)
    for (const [name, k] of [['Charm', 1], ['TailSeg_1', 2], ['TailSeg_2', 3]] as const) {
      names.push(name);
      parents.push(names.length - 2);
      const p = vec3.scaleAndAdd(vec3.create(), [0, hipsH - 0.05, -0.1], dir, seg * (along + 0.5 * k));
      worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.2 * k), p));
    }
  }
  const src = sourceFromWorlds(names, parents, worlds);
  const rest = src.rest;
  const binding = bindSkeleton(world, src, { tail: { ...spec.tail } });
  if (spec.nested && (binding.tails.length !== 2 || world.components.TailChain.exactWorldSetup[binding.tails[1]!.eid] !== 0)) {
    throw new Error('nested fixture: expected a second, composed chain');
  }
  return { spec, binding, rest, phase };
}

function driveChar(c: Char, f: number): void {
  const pose = c.binding.world.pose;
  loadRest(c.binding, c.rest);
  const h = c.binding.slotOf[0]!;
  const t = f / 60 + c.phase;
  const jump = c.spec.teleportAt !== undefined && f >= c.spec.teleportAt ? 100 : 0;
  pose.localT[h * 3] = 0.5 * Math.sin(t * 4.7) + jump;
  pose.localT[h * 3 + 1] = (c.spec.hipsY ?? 0.9) + 0.15 * Math.sin(t * 2.1);
  pose.localT[h * 3 + 2] = 0.3 * Math.cos(t * 3.3);
  const q = quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, 0.1]), 1.2 * Math.sin(t * 1.7));
  for (let j = 0; j < 4; j++) pose.localR[h * 4 + j] = q[j]!;
  if (c.spec.mirrored) pose.localS[h * 3] = -1;
  if (c.spec.squash) pose.localS[h * 3 + 1] = 1.2;
  if (c.spec.animate) {
    for (let i = 1; i <= c.spec.links; i++) {
      const s = c.binding.slotOf[i]!;
      const r = quat.fromValues(pose.localR[s * 4]!, pose.localR[s * 4 + 1]!, pose.localR[s * 4 + 2]!, pose.localR[s * 4 + 3]!);
      quat.multiply(r, r, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.3 * Math.sin(t * 2.3 + i)));
      for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = r[j]!;
    }
  }
  beginCharacterFrame(c.binding);
}

const SPECS: CharSpec[] = [
  { links: 6 }, { links: 6, tail: { couplingRate: 0 } }, { links: 6, tail: { bendLimit: 10 * Math.PI / 180 } },
  { links: 3 }, { links: 3, hipsY: 0.3 }, { links: 1 }, { links: 8, zeroLinkAt: 3 }, { links: 5, mirrored: true },
  { links: 2, teleportAt: 90 }, { links: 8, hipsY: 0.35, tail: { couplingRate: 30 } }, { links: 4, squash: true },
  { links: 3, nested: true }, { links: 5, animate: true, tail: { restSource: 'animation' } }, { links: 7, hipsY: 0.5 },
];
const DTS = [1 / 60, 1 / 144, 1 / 30, 0.05, 1 / 60, 0, 1 / 120, 1 / 60];

/**
 * The fixture: a world and its frame function (frame f's setup changes, drive, update).
 */
function fixture(): { world: BitrigWorld; frame: (f: number) => void } {
  const world = createBitrigWorld({ entities: 4, bones: 16 });
  const chars = SPECS.map((s, i) => bindChar(world, s, i * 0.37));
  const names = (c: Char): string[] => ['Hips', ...Array.from({ length: c.spec.links }, (_, i) => `Tail_${i + 1}`), 'Tail_End'];
  const frame = (f: number): void => {
    const C = world.components.TailChain;
    if (f === 70) { unbindSkeleton(chars[3]!.binding); chars.splice(3, 1); } // row released …
    if (f === 75) chars.push(bindChar(world, { links: 4, hipsY: 0.4 }, 0.9)); // … and reused
    if (f === 80) for (let k = 0; k < 5; k++) chars.push(bindChar(world, { links: 1 + (k % 3) * 3 }, k * 0.2)); // grows the arena
    // JavaScript writers of chain data, mid-run
    if (f === 100) reseatTails(chars[1]!.binding); // at rest, next frame
    if (f === 104) reseatTailsAtPose(chars[2]!.binding, shown(world, chars[2]!)); // along the shown pose
    if (f === 108) {
      const c = chars[4]!;
      setBindingTailOptions(c.binding, names(c), { carry: 0.9, restCurve: 0.2 }); // new rest rotations
    }
    if (f === 112) setTailRestSource(world, chars[6]!.binding.tails[0]!.eid, 'animation');
    if (f === 116) {
      // a kick written straight into the particles (the components are the step's own data)
      const e = chars[0]!.binding.tails[0]!.eid;
      for (let i = 0; i < C.links[e]!; i++) world.components.TailParticle.vel[linkEl(tailLinkIndex(world, e, i), 3, 0)] += 3 * (i + 1);
    }
    for (const c of chars) driveChar(c, f);
    if (f === 48) { // (a 1/60 s frame: one step moves it to localPrev) a non-finite rotation: the write falls back to the rest pose and re-initialises the chain
      const eid = chars[0]!.binding.tails[0]!.eid;
      world.components.BendState.localCur[linkEl(tailLinkIndex(world, eid, 2), 4, 0)] = NaN;
    }
    update(world, DTS[f % DTS.length]!);
    if (f === 48 && world.components.TailChain.initialised[chars[0]!.binding.tails[0]!.eid] !== 0) throw new Error('the NaN was not caught');
  };
  return { world, frame };
}

/** A character's shown rotations by bone index (as an animator passes them to reseatTailsAtPose). */
function shown(world: BitrigWorld, c: Char): number[] {
  const out = new Array<number>(c.rest.length * 4).fill(0);
  for (let i = 0; i < c.rest.length; i++) { const s = c.binding.slotOf[i]!; for (let j = 0; j < 4; j++) out[i * 4 + j] = world.pose.localR[s * 4 + j]!; }
  return out;
}

/** Run the fixture for `frames`; `check` after every frame. */
function run(frames: number, check: (w: BitrigWorld, f: number) => void): BitrigWorld {
  const x = fixture();
  for (let f = 0; f < frames; f++) { x.frame(f); check(x.world, f); }
  return x.world;
}

describe('the tail kernel', () => {
  test('every frame: every world matrix finite, each drawn link its rest length (1e-5 × length); the kick written into the components moves the tail', () => {
    let kicked = 0;
    run(130, (w, f) => {
      const m = w.pose.worldM;
      for (let j = 0; j < m.length; j++) if (!Number.isFinite(m[j]!)) throw new Error(`frame ${f}: worldM[${j}] is not finite`);
      const C = w.components.TailChain, B = w.components.BendState;
      for (const eid of w.queries.tails.dense) {
        if (C.initialised[eid] !== 1 || C.exactWorld[eid] === 1) continue;
        const n = C.links[eid]!, s = C.anchorCur[eid * 8 + 7]!;
        for (let i = 0; i + 1 < n; i++) {
          const a = C.slot[tailLinkIndex(w, eid, i)]! * 16, b = C.slot[tailLinkIndex(w, eid, i + 1)]! * 16;
          const d = Math.hypot(m[b + 12]! - m[a + 12]!, m[b + 13]! - m[a + 13]!, m[b + 14]! - m[a + 14]!);
          // (the next head sits at headLs of the next link: its length from the parent's head)
          const q = tailLinkIndex(w, eid, i + 1);
          const want = s * B.scaleRel[tailLinkIndex(w, eid, i)]! * Math.hypot(B.headLs[linkEl(q, 3, 0)]!, B.headLs[linkEl(q, 3, 1)]!, B.headLs[linkEl(q, 3, 2)]!);
          if (Math.abs(d - want) > 1e-5 * Math.max(want, 1e-3)) throw new Error(`frame ${f}, chain ${eid}, link ${i}: drawn ${d}, rest ${want}`);
        }
      }
      if (f === 117) kicked = w.components.TailParticle.vel[linkEl(tailLinkIndex(w, w.queries.tails.dense[0]!, 0), 3, 0)]!;
    });
    expect(Number.isFinite(kicked)).toBe(true);
  });

  test('the kernel run twice is bit-identical to itself (float32 is deterministic)', () => {
    const a: Map<string, Buffer>[] = [];
    run(130, (w) => { a.push(worldSnapshot(w, 'tail')); });
    run(130, (w, f) => { expectSameBytes(a[f]!, worldSnapshot(w, 'tail'), `frame ${f}`); });
  });

  test('chains of one character find each other through world.tailsByChar (adding a chain looks at its own character only): both orders of adding mark the Tail_End helper as written by the other chain; removal and id reuse keep the index exact', () => {
    const world = createBitrigWorld({ entities: 8 });
    const C = world.components.TailChain;
    const a = bindChar(world, { links: 2 }, 0); // Hips, Tail_1, Tail_2, Tail_End
    const other = bindChar(world, { links: 2 }, 0.3);
    const eA = a.binding.tails[0]!.eid, endA = a.binding.slotOf[3]!;
    expect(C.endLeaf[eA]).toBe(1);
    // a chain driving A's helper, added after A
    const eB = addTailChain(world, { char: a.binding.charId, linkSlots: [endA], endSlot: -1, anchorSlot: a.binding.slotOf[2]! });
    expect(C.endLeaf[eA]).toBe(0);
    expect(world.tailsByChar.get(a.binding.charId)).toEqual([eA, eB]);
    expect(world.tailsByChar.get(other.binding.charId)).toEqual([other.binding.tails[0]!.eid]);
    // the other order: the helper's driver first, then a chain ending on it
    const eD = addTailChain(world, { char: other.binding.charId, linkSlots: [other.binding.slotOf[3]!], endSlot: -1, anchorSlot: other.binding.slotOf[2]! });
    const eE = addTailChain(world, { char: other.binding.charId, linkSlots: [other.binding.slotOf[1]!], endSlot: other.binding.slotOf[3]!, anchorSlot: other.binding.slotOf[0]! });
    expect(C.endLeaf[eE]).toBe(0);
    expect(world.tailsByChar.get(other.binding.charId)).toEqual([other.binding.tails[0]!.eid, eD, eE]);
    // removal: gone from its character's list; a character's last chain removed drops the entry
    removeTailChain(world, eB);
    expect(world.tailsByChar.get(a.binding.charId)).toEqual([eA]);
    unbindSkeleton(a.binding);
    expect(world.tailsByChar.has(a.binding.charId)).toBe(false);
    // an id reused by a new character's chain lands in that character's list only
    const f = bindChar(world, { links: 2 }, 0.6);
    const eF = f.binding.tails[0]!.eid;
    expect(world.tailsByChar.get(f.binding.charId)).toEqual([eF]);
    for (const [ch, list] of world.tailsByChar) for (const e of list) expect(C.char[e], `chain ${e} listed under character ${ch}`).toBe(ch);
    expect([...world.tailsByChar.values()].flat().sort((x, y) => x - y)).toEqual([...world.queries.tails.dense].sort((x, y) => x - y));
  });
});
