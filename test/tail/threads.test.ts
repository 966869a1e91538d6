/**
 * Worker threads for the WebAssembly tail step and write and the tail clock's per-chain
 * preparation (core/wasm/tailThreads.ts, sceneJob.ts): a world with
 * `threads: 2` must hold bit-identical tail state and written pose to a one-thread world on
 * every frame (tolerance: none — every f64 compared by its bits), with the workers really
 * taking part (pairs run by workers > 0), through a re-layout mid-run (the workers restart on
 * the new memory), a worker failure and disposal (the calling thread goes on alone). Also:
 * setup errors, and the unshared variant of the module (one byte of the memory import).
 */
import { describe, expect, test } from 'vitest';
import { glMatrix, mat4, quat, vec3 } from 'gl-matrix';
import { createBitrigWorld, type BitrigWorld } from '../../core/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding } from '../../core/binding';
import { update } from '../../systems/pipeline';
import { reseatTailsAtPose } from '../../core/animatorCore';
import { disposeTailThreads, setLayoutWaitLimitMs, tailThreads, tailWasmModule, unsharedTailModuleBytes } from '../../core/wasm/tailAccel';
import { WAIT_LIMIT_MS } from '../../core/wasm/tailThreads';
import { TAIL_STEP_WASM_BASE64 } from '../../core/wasm/tailStepWasm';
import type { TailOptions } from '../../core/defaults';
import { expectSameBytes, until, worldSnapshot } from '../helpers/worldBytes';
import { loadRest, sourceFromWorlds } from '../helpers/skeleton';

glMatrix.setMatrixArrayType(Float64Array as unknown as ArrayConstructor);

interface Char { binding: CharacterBinding; rest: { t: number[]; r: number[] }[]; phase: number; hipsY: number; mirrored: boolean }

/** A chain of `links` links under Hips; options vary with `k` (coupling, limit, floor, mirror). */
function bindChar(world: BitrigWorld, k: number, extra: Partial<TailOptions> = {}): Char {
  const links = 1 + (k % 8);
  const hipsY = k % 5 === 0 ? 0.35 : 0.9;
  const tail: Partial<TailOptions> = { ...(k % 3 === 0 ? { couplingRate: 0 } : k % 7 === 0 ? { bendLimit: 0.2 } : {}), ...extra };
  const names = ['Hips'];
  const parents = [-1];
  const worlds: mat4[] = [mat4.fromTranslation(mat4.create(), [0, hipsY, 0])];
  const dir = vec3.normalize(vec3.create(), [0, -0.6, -1]);
  const seg = 0.8 / links;
  for (let i = 0; i <= links; i++) {
    names.push(i < links ? `Tail_${i + 1}` : 'Tail_End');
    parents.push(i);
    const p = vec3.scaleAndAdd(vec3.create(), [0, hipsY - 0.05, -0.1], dir, seg * i);
    worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [1, 0, 0], 0.2 * (i + 1)), p));
  }
  if (k % 10 === 3) {
    // a second tail (a ribbon on a charm) under Tail_End: a character with two chains, whose
    // write finish runs on one thread, in order
    for (const [name, j] of [['Charm', 1], ['TailSeg_1', 2], ['TailSeg_2', 3]] as const) {
      names.push(name);
      parents.push(names.length - 2);
      const p = vec3.scaleAndAdd(vec3.create(), [0, hipsY - 0.05, -0.1], dir, seg * (links + 0.5 * j));
      worlds.push(mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], 0.2 * j), p));
    }
  }
  const src = sourceFromWorlds(names, parents, worlds);
  const rest = src.rest;
  const binding = bindSkeleton(world, src, { tail });
  if (k % 10 === 3 && binding.tails.length !== 2) throw new Error('fixture: expected two chains');
  return { binding, rest, phase: k * 0.31, hipsY, mirrored: k % 11 === 0 };
}

function drive(c: Char, f: number): void {
  const pose = c.binding.world.pose;
  loadRest(c.binding, c.rest);
  const h = c.binding.slotOf[0]!;
  const t = f / 60 + c.phase;
  pose.localT[h * 3] = 0.5 * Math.sin(t * 4.7);
  pose.localT[h * 3 + 1] = c.hipsY + 0.15 * Math.sin(t * 2.1);
  pose.localT[h * 3 + 2] = 0.3 * Math.cos(t * 3.3);
  const q = quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, 0.1]), 1.2 * Math.sin(t * 1.7));
  for (let j = 0; j < 4; j++) pose.localR[h * 4 + j] = q[j]!;
  if (c.mirrored) pose.localS[h * 3] = -1;
  beginCharacterFrame(c.binding);
}

const DTS = [1 / 60, 1 / 144, 1 / 30, 0.05, 1 / 60, 0, 1 / 120, 1 / 60];

describe('tail worker threads', () => {
  test('threads is checked at setup', () => {
    for (const bad of [-1, 1.5, 16, NaN]) expect(() => createBitrigWorld({ threads: bad })).toThrow(/^bitrig\/world: threads must be an integer in \[0, 15\]/);
    expect(tailThreads(createBitrigWorld())).toBe(0);
    expect(tailThreads(createBitrigWorld({ wasm: false, threads: 2 }))).toBe(0); // the JavaScript step has no workers
  });

  test('the wait limit: 2 s for games; the test setup raises it to 60 s for the layouts made after it; bad limits throw', () => {
    expect(WAIT_LIMIT_MS).toBe(2000);
    const w = createBitrigWorld({ entities: 8, bones: 64 });
    if (w.tailAccel === null) return; // (no WebAssembly SIMD: no workers to wait for)
    expect(w.tailAccel.waitLimitMs).toBe(60_000); // test/setup.ts
    const before = setLayoutWaitLimitMs(WAIT_LIMIT_MS);
    try {
      expect(before).toBe(60_000);
      expect(createBitrigWorld({ entities: 8, bones: 64 }).tailAccel!.waitLimitMs).toBe(2000);
      expect(w.tailAccel.waitLimitMs).toBe(60_000); // (a layout keeps the limit it was made with)
      for (const bad of [-1, NaN, Infinity, 2 ** 31]) expect(() => setLayoutWaitLimitMs(bad)).toThrow(/^bitrig\/wasm: the wait limit must be a number of milliseconds/);
      expect(createBitrigWorld({ entities: 8, bones: 64 }).tailAccel!.waitLimitMs).toBe(2000); // (unchanged by the bad calls)
    } finally {
      setLayoutWaitLimitMs(before);
    }
  });

  test('three threads give bit-identical state to one on every frame, through a re-layout, a worker failure and disposal', async () => {
    const N = 240; // 120+ chain pairs: many 16-pair chunks to share
    const one = createBitrigWorld({ entities: 8, bones: 64 });
    const three = createBitrigWorld({ entities: 8, bones: 64, threads: 2 });
    const a = Array.from({ length: N }, (_, k) => bindChar(one, k));
    const b = Array.from({ length: N }, (_, k) => bindChar(three, k));
    expect(three.tailAccel!.memory.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(one.tailAccel!.memory.buffer).toBeInstanceOf(ArrayBuffer);
    let f = 0;
    const frame = (): void => {
      const dt = DTS[f % DTS.length]!;
      for (const c of a) drive(c, f);
      for (const c of b) drive(c, f);
      update(one, dt);
      update(three, dt);
      expectSameBytes(worldSnapshot(one, 'tail'), worldSnapshot(three, 'tail'), `frame ${f}`);
      f++;
    };
    frame(); // the first job starts the workers
    expect(await until(() => tailThreads(three) === 2, 10_000)).toBe(true);
    for (let k = 0; k < 60; k++) frame();
    const byWorkers = three.tailAccel!.pairsByWorkers;
    expect(byWorkers).toBeGreaterThan(0); // the workers really ran pairs (else this test proves nothing)

    // Growth: new memory, new views, the workers restart on it.
    const memBefore = three.tailAccel!.memory;
    for (let k = N; k < N + 300; k++) { a.push(bindChar(one, k)); b.push(bindChar(three, k)); }
    expect(three.tailAccel!.memory).not.toBe(memBefore);
    frame();
    expect(await until(() => tailThreads(three) === 2, 10_000)).toBe(true);
    for (let k = 0; k < 40; k++) frame();
    expect(three.tailAccel!.pairsByWorkers).toBeGreaterThan(0);
    // 540 chains: the clock's per-chain preparation ran as a job, partly on the workers (in
    // each thread's kernel instance, the chains it leaves in JavaScript); the write's per-chain
    // finish ran in the WebAssembly write (no chain here needs the JavaScript finish: no exact
    // world matrices, no failure, end helpers without children)
    expect(three.tailAccel!.prepareChunksByWorkers).toBeGreaterThan(0);
    expect(three.tailAccel!.finishChunksByWorkers).toBe(0);

    // A worker reports an error: the workers are dropped, the calling thread goes on alone.
    three.tailAccel!.failed = true;
    frame();
    expect(tailThreads(three)).toBe(0);
    expect(three.tailAccel!.threads).toBe(0);
    for (let k = 0; k < 10; k++) frame();

    // Disposal on a fresh world with workers: they stop, results stay the same.
    const again = createBitrigWorld({ entities: 8, bones: 64, threads: 1 });
    const c2 = Array.from({ length: N }, (_, k) => bindChar(again, k));
    const ref = createBitrigWorld({ entities: 8, bones: 64 });
    const r2 = Array.from({ length: N }, (_, k) => bindChar(ref, k));
    for (let g = 0; g < 30; g++) {
      if (g === 1) expect(await until(() => tailThreads(again) === 1, 10_000)).toBe(true);
      if (g === 15) { disposeTailThreads(again); expect(tailThreads(again)).toBe(0); }
      for (const c of c2) drive(c, g);
      for (const c of r2) drive(c, g);
      update(again, 1 / 60);
      update(ref, 1 / 60);
      expectSameBytes(worldSnapshot(ref, 'tail'), worldSnapshot(again, 'tail'), `disposal world frame ${g}`);
    }
  }, 60_000);

  test('a worker that times out: the world leaves the shared memory at the end of that frame, late writes into it change nothing (old memory filled with NaN), every chain restarts from rest, then bit-identical to one thread reset alike', async () => {
    const N = 240;
    const one = createBitrigWorld({ entities: 8, bones: 64 });
    const two = createBitrigWorld({ entities: 8, bones: 64, threads: 1 });
    const a = Array.from({ length: N }, (_, k) => bindChar(one, k));
    const b = Array.from({ length: N }, (_, k) => bindChar(two, k));
    let f = 0;
    const frame = (): void => {
      for (const c of a) drive(c, f);
      for (const c of b) drive(c, f);
      update(one, 1 / 60);
      update(two, 1 / 60);
      f++;
    };
    frame();
    expect(await until(() => tailThreads(two) === 1, 10_000)).toBe(true);
    const shared = two.tailAccel!.memory.buffer;
    expect(shared).toBeInstanceOf(SharedArrayBuffer);
    // Wait limit 0: any job whose last chunk is still with the worker when this thread is done times out.
    two.tailAccel!.waitLimitMs = 0;
    let frames = 0;
    while (two.tailThreadsWanted > 0 && frames < 3000) { frame(); frames++; }
    expect(two.tailThreadsWanted, 'no job timed out in 3,000 frames').toBe(0);
    // the frame that timed out ended outside the shared memory
    expect(two.tailAccel!.memory.buffer).toBeInstanceOf(ArrayBuffer);
    const arrays: ArrayBufferView[] = [];
    for (const c of Object.values(two.components as unknown as Record<string, Record<string, unknown>>)) for (const v of Object.values(c)) if (ArrayBuffer.isView(v)) arrays.push(v);
    for (const v of Object.values(two.pose)) if (ArrayBuffer.isView(v)) arrays.push(v);
    arrays.push(two.comSegments);
    for (const v of arrays) expect(v.buffer).not.toBe(shared);
    expect(tailThreads(two)).toBe(0);
    // A late writer scribbles over the whole old memory: nothing of the world sees it.
    new Float64Array(shared).fill(NaN);
    one.components.TailChain.initialised.fill(0); // the reference restarts its chains alike
    for (let k = 0; k < 40; k++) {
      frame();
      expectSameBytes(worldSnapshot(one, 'tail'), worldSnapshot(two, 'tail'), `frame ${k} after the time-out`);
    }
    for (const v of [two.components.TailParticle.pos, two.components.TailParticle.vel, two.pose.localR, two.pose.worldM]) expect(v.every(Number.isFinite)).toBe(true);
  }, 60_000);

  test('every per-chain path on three threads: animated rest, non-uniform and mirrored anchors, teleports, non-finite anchors, nested tails — bit-identical for 300 frames (review stress)', async () => {
    const N = 400;
    const one = createBitrigWorld({ entities: 1024, bones: 8192, characters: 512 });
    const three = createBitrigWorld({ entities: 1024, bones: 8192, characters: 512, threads: 2 });
    const variant = (k: number): Partial<TailOptions> => (k % 4 === 1 ? { restSource: 'animation' } : {});
    const A = Array.from({ length: N }, (_, k) => bindChar(one, k, variant(k)));
    const B = Array.from({ length: N }, (_, k) => bindChar(three, k, variant(k)));
    const driveX = (c: Char, f: number, k: number): void => {
      drive(c, f);
      const pose = c.binding.world.pose;
      const h = c.binding.slotOf[0]!;
      let again = false;
      if (k % 17 === 0 && f % 50 === 49) { pose.localT[h * 3] += 100; again = true; } // teleport
      if (k % 19 === 0 && f % 37 === 5) { pose.localT[h * 3 + 1] = NaN; again = true; } // non-finite anchor
      // non-uniform anchors, exact world matrices: most characters, so that 256+ chains need the
      // JavaScript finish and it runs as a job on the workers (the others are finished by the
      // WebAssembly write)
      if (k % 3 !== 0) { pose.localS[h * 3 + 1] = 1.3; again = true; }
      if (k % 4 === 1) { // the clip keys the tail (animation rest source)
        const t = f / 60 + c.phase;
        for (let i = 1; i < c.rest.length - 1 && i <= 8; i++) {
          const s = c.binding.slotOf[i]!;
          const q = quat.setAxisAngle(quat.create(), [1, 0, 0], 0.2 + 0.3 * Math.sin(t * 3 + i));
          for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = q[j]!;
        }
        again = true;
      }
      if (again) beginCharacterFrame(c.binding);
      if (k % 13 === 2 && f % 60 === 30) {
        // re-seated along the pose shown last (a baked clip stopping): the seat and its ease-in
        // (a wider limit, a weaker coupling for a while) run in the prepare job on the workers
        const shown = new Float64Array(c.binding.boneCount * 4);
        for (let j = 0; j < c.binding.boneCount; j++) for (let q = 0; q < 4; q++) shown[j * 4 + q] = pose.localR[c.binding.slotOf[j]! * 4 + q]!;
        reseatTailsAtPose(c.binding, shown);
      }
    };
    let f = 0;
    const frame = (): void => {
      const dt = DTS[f % DTS.length]!;
      A.forEach((c, k) => driveX(c, f, k));
      B.forEach((c, k) => driveX(c, f, k));
      update(one, dt);
      update(three, dt);
      expectSameBytes(worldSnapshot(one, 'tail'), worldSnapshot(three, 'tail'), `stress frame ${f}`);
      f++;
    };
    frame();
    expect(await until(() => tailThreads(three) === 2, 10_000)).toBe(true);
    for (let k = 0; k < 300; k++) frame();
    const a = three.tailAccel!, C = three.components.TailChain;
    expect(a.pairsByWorkers).toBeGreaterThan(0);
    expect(a.prepareChunksByWorkers).toBeGreaterThan(0);
    expect(a.finishChunksByWorkers).toBeGreaterThan(0);
    let exact = 0, animated = 0;
    for (const e of three.queries.tails.dense) { exact += C.exactWorld[e]!; animated += C.restSource[e] === 1 ? 1 : 0; }
    expect(exact).toBeGreaterThan(256); // the exact-world write path ran, and the finish job
    expect(three.queries.tails.dense.length - exact).toBeGreaterThan(30); // and so did the WebAssembly finish
    expect(animated).toBeGreaterThan(50); // the animation rest source ran
  }, 120_000);

  test('the unshared module differs from the shared one in the memory import flag only, and both compile', () => {
    const raw = Uint8Array.from(Buffer.from(TAIL_STEP_WASM_BASE64, 'base64'));
    const un = unsharedTailModuleBytes(raw)!;
    expect(un).not.toBeNull();
    const diff: number[] = [];
    for (let i = 0; i < raw.length; i++) if (raw[i] !== un[i]) diff.push(i);
    expect(diff.length).toBe(1);
    expect([raw[diff[0]!], un[diff[0]!]]).toEqual([3, 1]); // limits: shared (min, max) → unshared (min, max)
    expect(WebAssembly.Module.imports(new WebAssembly.Module(un))).toEqual([{ module: 'env', name: 'memory', kind: 'memory' }]);
    expect(tailWasmModule(true)).not.toBeNull();
    expect(tailWasmModule(false)).not.toBeNull();
    // a module without a memory import is refused (no byte is guessed)
    const empty = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    expect(unsharedTailModuleBytes(empty)).toBeNull();
  });
});
