/**
 * The WebAssembly SIMD tail step (wasm/tailStep.ts, core/wasm/tailAccel.ts) against the
 * JavaScript step (systems/tailStep.ts, f64, the reference). The WebAssembly step computes in
 * float32, four chains per group, on its own copy of the chains' data, and writes the particle
 * state back after every step; so the two agree within stated tolerances (every frame: tip
 * positions within 1e-5 × the chain's length, local rotations and bends within 0.01°,
 * velocities within 1e-3 × length per second, the same floor contacts; measured values next to
 * each check), and everything the step does not compute stays bit-identical. The WebAssembly
 * step run twice agrees with itself bit for bit.
 * The fixture mixes what the kernel groups and branches on: link counts 1–8 with groups left
 * short (padding lanes), coupling on next to coupling off, a tight bend limit, a tail lying on
 * the floor, a zero-length link, a mirrored anchor, a non-uniformly scaled anchor (exact world
 * matrices), a non-finite rotation (rest fallback), a tail hanging under another tail, a
 * teleport, an animated 'animation' rest source, mixed frame lengths (0 to 3 steps per frame),
 * entities added past the capacity (the arena is laid out again mid-run), a removal whose row
 * is reused, and every JavaScript writer of a chain's data mid-run (re-seat at rest and along a
 * shown pose, option and rest-source changes, a direct write marked with
 * `markTailChainChanged`) — with a control showing that a writer that does not mark its chain
 * leaves the WebAssembly step far off.
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton, unbindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { tailBackend, tailWasmModule } from '../../runtime/kernels';
import { TAIL_STEP_WASM_BASE64 } from '../../runtime/wasm/tailStepWasm';
import type { TailOptions } from '../../core/defaults';
import { addTailChain, markTailChainChanged, removeTailChain, setTailRestSource, tailLinkIndex } from '../../core/tailSetup';
import { reseatTails, reseatTailsAtPose, setBindingTailOptions } from '../../adapters/animatorCore';
import { compareTail, maxDiff, type TailDiff } from '../helpers/tailCompare';
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
 * `unmarked`: a control — the frames' direct writes of chain data are made without telling the
 * WebAssembly step.
 */
function fixture(wasm: boolean, unmarked = false): { world: BitrigWorld; frame: (f: number) => void } {
  const world = createBitrigWorld({ entities: 4, bones: 16, wasm });
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
      if (unmarked) world.components.TailChain.mirrorStale[c.binding.tails[0]!.eid] = 0; // (as if setup forgot to mark it)
    }
    if (f === 112) setTailRestSource(world, chars[6]!.binding.tails[0]!.eid, 'animation');
    if (f === 116) {
      // a kick written straight into the particles, marked as the API asks
      const e = chars[0]!.binding.tails[0]!.eid;
      for (let i = 0; i < C.links[e]!; i++) world.components.TailParticle.vel[tailLinkIndex(world, e, i) * 3] += 3 * (i + 1);
      if (!unmarked) markTailChainChanged(world, e);
    }
    for (const c of chars) driveChar(c, f);
    if (f === 48) { // (a 1/60 s frame: one step moves it to localPrev) a non-finite rotation: the write falls back to the rest pose and re-initialises the chain
      const eid = chars[0]!.binding.tails[0]!.eid;
      world.components.BendState.localCur[tailLinkIndex(world, eid, 2) * 4] = NaN;
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

/** Run the fixture on `wasm` for `frames`; `check` after every frame. */
function run(wasm: boolean, frames: number, check: (w: BitrigWorld, f: number) => void): BitrigWorld {
  const x = fixture(wasm);
  for (let f = 0; f < frames; f++) { x.frame(f); check(x.world, f); }
  return x.world;
}

/** Both backends in lockstep; `check(js, wasm, f)` after every frame. */
function lockstep(frames: number, check: (js: BitrigWorld, wa: BitrigWorld, f: number) => void, unmarked = false): void {
  const j = fixture(false, unmarked), w = fixture(true, unmarked);
  for (let f = 0; f < frames; f++) { j.frame(f); w.frame(f); check(j.world, w.world, f); }
}

const NONE: TailDiff = { pos: 0, vel: 0, rot: 0, bend: 0, worldT: 0, worldR: 0, contact: 0, exact: '' };
describe('WebAssembly SIMD tail step', () => {
  test('Node 20 runs the WebAssembly step; wasm: false keeps the JavaScript one', () => {
    expect(tailWasmModule()).not.toBeNull();
    expect(tailBackend(createBitrigWorld())).toBe('wasm-simd');
    expect(tailBackend(createBitrigWorld({ wasm: false }))).toBe('js');
    // the components are plain typed arrays either way, the wasm ones over the module's memory
    const w = createBitrigWorld();
    expect(w.components.TailParticle.pos).toBeInstanceOf(Float64Array);
    expect(w.components.TailParticle.pos.buffer).toBe(w.tailAccel!.memory.buffer);
  });

  test('within the stated tolerances of the JavaScript step on every frame (mixed chains and groups, floor, limit, mirror, teleport, animated rest, writers mid-run, growth, row reuse)', () => {
    const frames = 160;
    let worst = NONE, contacts = 0, limited = 0, composed = 0, exact = 0, capAtStart = 0, padded = 0, wasmWorld: BitrigWorld | null = null;
    lockstep(frames, (js, wa, f) => {
      expect(tailBackend(wa)).toBe('wasm-simd');
      if (f === 0) capAtStart = wa.tailAccel!.capacity;
      wasmWorld = wa;
      const d = compareTail(js, wa);
      if (d.exact !== '') throw new Error(`frame ${f}: ${d.exact} differs between the JavaScript and the WebAssembly world (not a step output)`);
      worst = maxDiff(worst, d);
      // fixture validity, on the reference
      const P = js.components.TailParticle, B = js.components.BendState, C = js.components.TailChain;
      const count = new Map<number, number>();
      for (const e of js.queries.tails.dense) { if (C.exactWorld[e] === 1) exact++; else composed++; count.set(C.links[e]!, (count.get(C.links[e]!) ?? 0) + 1); }
      for (const n of count.values()) if (n % 4 !== 0) padded++;
      contacts += P.contact.reduce((s, v) => s + v, 0);
      // a bend held exactly at the 10° limit: |w| = cos(5°) (1e-12)
      for (let k = 0; k < B.bendOld.length; k += 4) if (Math.abs(Math.abs(B.bendOld[k + 3]!) - Math.cos(5 * Math.PI / 180)) < 1e-12) limited++;
    });
    // the fixture really exercises the floor, the limit, both write paths, short groups and a re-layout
    expect(contacts).toBeGreaterThan(50);
    expect(limited).toBeGreaterThan(20);
    expect(composed).toBeGreaterThan(frames * 8);
    expect(exact).toBeGreaterThanOrEqual(frames);
    expect(padded).toBeGreaterThan(frames);
    expect(wasmWorld!.tailAccel!.capacity).toBeGreaterThan(capAtStart); // the arena was laid out again mid-run
    // measured (160 frames): positions 3.2e-6 × L, velocities 8.4e-5 L/s, rotations and bends
    // 5.6e-4°, world matrices 3.0e-6 × L (translation) and 1.0e-5 (rotation entries)
    expect(worst.pos, 'tip positions / chain length').toBeLessThan(1e-5);
    expect(worst.vel, 'velocities / chain length (1/s)').toBeLessThan(1e-3);
    expect(worst.rot, 'local rotations (°)').toBeLessThan(0.01);
    expect(worst.bend, 'bends (°)').toBeLessThan(0.01);
    expect(worst.worldT, 'world translations / chain length').toBeLessThan(1e-4);
    expect(worst.worldR, 'world rotation entries').toBeLessThan(2e-4);
    expect(worst.contact, 'floor contact flags').toBe(0);
  });

  test('a JavaScript write of chain data the WebAssembly step is not told about leaves it far off (the control that makes the test above able to fail)', () => {
    let worst = NONE;
    lockstep(130, (js, wa, f) => { if (f >= 108) worst = maxDiff(worst, compareTail(js, wa)); }, true);
    // (measured: 60° and 0.9 × L — the stale rest rotations and the lost kick)
    expect(worst.rot).toBeGreaterThan(1);
    expect(worst.pos).toBeGreaterThan(1e-3);
  });

  test('600 frames of the benchmark\'s motion (64 six-link chains swaying side to side, 4 one-link chains): within 1e-5 × length and 0.01° all along', () => {
    const make = (wasm: boolean) => {
      const world = createBitrigWorld({ entities: 80, bones: 700, chains: 80, characters: 80, wasm });
      const chars = Array.from({ length: 68 }, (_, i) => bindChar(world, { links: i < 64 ? 6 : 1 }, i * 0.1));
      return { world, chars };
    };
    const J = make(false), W = make(true);
    let worst = NONE;
    for (let f = 0; f < 600; f++) {
      for (const X of [J, W]) {
        for (let i = 0; i < X.chars.length; i++) {
          const c = X.chars[i]!;
          loadRest(c.binding, c.rest);
          const h = c.binding.slotOf[0]!;
          X.world.pose.localT[h * 3] = (i % 8) * 2 + 0.25 * Math.sin(f * 0.15 + i); // (bench/tail.ts's hips motion)
          X.world.pose.localT[h * 3 + 2] = Math.floor(i / 8) * 2;
          beginCharacterFrame(c.binding);
        }
        update(X.world, 1 / 60);
      }
      const d = compareTail(J.world, W.world);
      expect(d.exact, `frame ${f}`).toBe('');
      worst = maxDiff(worst, d);
    }
    // (measured: positions 9.7e-7 × L, rotations and bends 2.4e-4°)
    expect(worst.pos, 'tip positions / chain length').toBeLessThan(1e-5);
    expect(worst.rot, 'local rotations (°)').toBeLessThan(0.01);
    expect(worst.bend, 'bends (°)').toBeLessThan(0.01);
  });

  test('the WebAssembly step run twice is bit-identical to itself (float32 is deterministic)', () => {
    const a: Map<string, Buffer>[] = [];
    run(true, 130, (w) => { a.push(worldSnapshot(w, 'tail')); });
    run(true, 130, (w, f) => { expectSameBytes(a[f]!, worldSnapshot(w, 'tail'), `frame ${f}`); });
  });

  test('chains of one character find each other through world.tailsByChar (adding a chain looks at its own character only): both orders of adding mark the Tail_End helper as written by the other chain; removal and id reuse keep the index exact', () => {
    const world = createBitrigWorld({ entities: 8, wasm: false });
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

  test('a chain whose only link is another chain\'s Tail_End helper (addTailChain): the helper is written by that chain, within tolerance of the JavaScript step (review 5)', () => {
    const make = (wasm: boolean) => {
      const world = createBitrigWorld({ entities: 8, wasm });
      const a = bindChar(world, { links: 1 }, 0); // Hips, Tail_1, Tail_End
      const c = bindChar(world, { links: 1 }, 0.4); // groups with a (one link each)
      const endA = a.binding.slotOf[2]!;
      const eB = addTailChain(world, { char: a.binding.charId, linkSlots: [endA], endSlot: -1, anchorSlot: a.binding.slotOf[1]! });
      const C = world.components.TailChain;
      expect(C.endSlot[a.binding.tails[0]!.eid]).toBe(endA);
      expect(C.endLeaf[a.binding.tails[0]!.eid]).toBe(0); // (B drives it: not placed by A's write)
      expect(C.links[eB]).toBe(1);
      return { world, a, c };
    };
    const J = make(false), W = make(true);
    let worst = NONE;
    for (let f = 0; f < 60; f++) {
      for (const X of [J, W]) { driveChar(X.a, f); driveChar(X.c, f); update(X.world, 1 / 60); }
      const d = compareTail(J.world, W.world);
      expect(d.exact, `frame ${f}`).toBe('');
      worst = maxDiff(worst, d);
    }
    expect(worst.pos).toBeLessThan(1e-5);
    expect(worst.rot).toBeLessThan(0.01);
    expect(worst.worldT).toBeLessThan(1e-4);
  });

  test('a world whose WebAssembly memory cannot be had (at creation or when it grows) goes on, bit-identical, on the JavaScript step', () => {
    const js = run(false, 40, () => {});
    // The first memory (creation) is granted, every later one (growth) fails.
    const realMemory = WebAssembly.Memory;
    let allow = 1;
    (WebAssembly as { Memory: unknown }).Memory = function (d: WebAssembly.MemoryDescriptor) {
      if (allow-- <= 0) throw new RangeError('no memory');
      return new realMemory(d);
    } as unknown as typeof WebAssembly.Memory;
    try {
      const grown = run(true, 40, () => {});
      expect(tailBackend(grown)).toBe('js'); // fell back when the arena had to grow
      const a = worldSnapshot(js, 'tail'), b = worldSnapshot(grown, 'tail');
      for (const [key, buf] of a) expect(buf.equals(b.get(key)!), key).toBe(true);
      allow = 0;
      expect(tailBackend(createBitrigWorld())).toBe('js');
    } finally {
      (WebAssembly as { Memory: unknown }).Memory = realMemory;
    }
  });

  test('the committed module is the compile of wasm/tailStep.ts (npm run build:wasm)', async () => {
    const build = await import('../../scripts/build-wasm.mjs' as string) as {
      compileTailKernel(): Promise<{ base64: string; sourceSha256: string; bytes: number }>;
    };
    const fresh = await build.compileTailKernel();
    expect(fresh.base64 === TAIL_STEP_WASM_BASE64, 'runtime/wasm/tailStepWasm.ts is stale: run npm run build:wasm').toBe(true);
  });
});
