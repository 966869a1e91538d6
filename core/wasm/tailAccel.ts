/**
 * The WebAssembly SIMD tail step and write: the world's tail components (and the pose store's
 * `localR` and `worldM`) live in a WebAssembly memory and `systems/tailStep` and
 * `systems/tailWrite` hand their link loops to `wasm/tailStep.ts` (compiled into
 * {@link TAIL_STEP_WASM_BASE64}), which runs two chains per f64x2 lane pair.
 *
 * The results are bit-identical to the JavaScript step (same IEEE operations in the same
 * order, the same per-chain work after the link loops; test/tail/wasm.test.ts compares them
 * exactly), so the backend is a speed choice only. Where WebAssembly or its SIMD extension is
 * missing (or a content-security policy forbids compiling it), the world keeps ordinary typed
 * arrays and the JavaScript step.
 *
 * The components stay plain objects of typed arrays: only their storage moves. Every re-layout
 * (world creation, capacity growth at setup) makes a new memory and new views, like the
 * JavaScript growth does, so code must read `world.components.X.field` afresh after setup.
 */
import type { BitrigWorld } from '../world';
import { LINK_STRIDE } from '../components/tail';
import { TAIL_STEP_WASM_BASE64 } from './tailStepWasm';

/** The kernel's exports (see wasm/tailStep.ts). */
interface TailStepExports {
  setPointers(...offsets: number[]): void;
  setWritePointers(...offsets: number[]): void;
  tailStep(count: number): void;
  tailWrite(count: number): void;
}

/**
 * A world's WebAssembly tail step: instance, memory and the views it shares with JavaScript
 * (`world.tailAccel`, `null` on the JavaScript step).
 *
 * @example
 * const mb = world.tailAccel ? world.tailAccel.memory.buffer.byteLength / 2 ** 20 : 0;
 */
export interface TailAccel {
  /** The instance's memory (every tail component array, the pose store's `localR` and `worldM`). */
  memory: WebAssembly.Memory;
  /** The kernel's exported functions. */
  kernel: TailStepExports;
  /** Per-chain constants of the step, filled by the kernel (16 f64 per entity id; layout in wasm/tailStep.ts). */
  chainK: Float64Array;
  /** Entity ids to step this call (i32). */
  ents: Int32Array;
  /** [0]: the step length h (seconds); [1]: the write's display fraction α. */
  params: Float64Array;
  /** Entity capacity this layout was made for. */
  capacity: number;
}

// Byte offset where the arena starts: the first page is left to the compiled module (it has no
// static data today; the reserve keeps a future one from landing on component data).
const ARENA_BASE = 65536;
const PAGE = 65536;

let _module: WebAssembly.Module | null | undefined;

function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * The compiled tail kernel, or `null` where WebAssembly SIMD is unavailable. Compiled once
 * (synchronously: the module is about 16 KB) on first use.
 *
 * @example
 * if (tailWasmModule() === null) console.info('bitrig: JavaScript tail step');
 */
export function tailWasmModule(): WebAssembly.Module | null {
  if (_module !== undefined) return _module;
  _module = null;
  try {
    if (typeof WebAssembly === 'object' && typeof atob === 'function') {
      const bytes = decodeBase64(TAIL_STEP_WASM_BASE64);
      if (WebAssembly.validate(bytes)) _module = new WebAssembly.Module(bytes);
    }
  } catch {
    _module = null; // no SIMD, or compiling WebAssembly is not allowed here
  }
  return _module;
}

/** The tail components' typed arrays, in the kernel's pointer order first. */
const POINTER_ORDER: ReadonlyArray<readonly ['TailChain' | 'TailParticle' | 'BendState', string]> = [
  ['TailChain', 'anchorStep'], ['TailChain', 'links'], ['TailChain', 'row'], ['TailChain', 'stepsLastFrame'],
  ['BendState', 'headLs'], ['BendState', 'restDirLs'], ['BendState', 'lenRel'], ['BendState', 'scaleRel'],
  ['BendState', 'restR'], ['BendState', 'localCur'], ['BendState', 'localPrev'], ['BendState', 'toHipsM'],
  ['BendState', 'restDirHs'], ['BendState', 'bendOld'], ['BendState', 'bendNew'],
  ['TailParticle', 'pos'], ['TailParticle', 'vel'], ['TailParticle', 'contact'],
  ['TailChain', 'axesLs'], ['TailChain', 'frequency'], ['TailChain', 'tipRatio'], ['TailChain', 'damping'],
  ['TailChain', 'gravity'], ['TailChain', 'unitScale'], ['TailChain', 'floorY'], ['TailChain', 'floorClearance'],
  ['TailChain', 'floorEnabled'], ['TailChain', 'stepCache'],
];

/** The write's arrays (setWritePointers order; the pose store's two are laid out here too). */
const WRITE_ORDER: ReadonlyArray<readonly ['TailChain' | 'BendState' | 'pose', string]> = [
  ['TailChain', 'anchorCur'], ['TailChain', 'initialised'], ['TailChain', 'exactWorld'], ['TailChain', 'mirrored'],
  ['TailChain', 'slot'], ['BendState', 'tipDirLs'], ['BendState', 'writtenR'], ['pose', 'localR'], ['pose', 'worldM'],
  ['TailChain', 'writeFailed'],
];

type Typed = Float64Array | Int32Array | Uint8Array;

/**
 * Move the world's tail components and the pose store's `localR` and `worldM` into a fresh
 * WebAssembly memory sized for the current capacities and (re)connect the kernel. Setup-time;
 * returns `false` (the world keeps, or goes back to, the JavaScript step) where the kernel is
 * unavailable or the memory cannot be had (over 4 GB).
 *
 * @example
 * layoutTailArena(world); // after the tail components grew
 */
export function layoutTailArena(world: BitrigWorld): boolean {
  const module = tailWasmModule();
  if (module === null) return false;
  const comps: Record<string, Record<string, unknown>> = {
    ...(world.components as unknown as Record<string, Record<string, unknown>>),
    pose: world.pose as unknown as Record<string, unknown>,
  };
  const entries: Array<{ owner: Record<string, unknown>; key: string; id: string; src: Typed }> = [];
  const seen = new Set<string>();
  const push = (c: string, key: string): void => {
    const id = c + '.' + key;
    if (seen.has(id)) return;
    const src = comps[c]![key];
    if (!(src instanceof Float64Array || src instanceof Int32Array || src instanceof Uint8Array)) {
      throw new Error(`bitrig/wasm: ${id} is not a typed array`);
    }
    seen.add(id);
    entries.push({ owner: comps[c]!, key, id, src });
  };
  for (const [c, key] of POINTER_ORDER) push(c, key);
  for (const [c, key] of WRITE_ORDER) push(c, key);
  for (const c of ['TailChain', 'TailParticle', 'BendState'] as const) {
    for (const key of Object.keys(comps[c]!)) {
      const v = comps[c]![key];
      if (ArrayBuffer.isView(v)) push(c, key);
    }
  }
  const cap = world.capacity;
  let top = ARENA_BASE;
  const offsets: number[] = [];
  const offsetOf = new Map<string, number>();
  for (const e of entries) {
    top = (top + 15) & ~15;
    offsets.push(top);
    offsetOf.set(e.id, top);
    top += e.src.byteLength;
  }
  top = (top + 15) & ~15;
  const chainKOff = top; top += cap * 16 * 8;
  const entsOff = top; top += cap * 4;
  top = (top + 15) & ~15;
  const pendingOff = top; top += (LINK_STRIDE + 1) * 4;
  top = (top + 15) & ~15;
  const paramsOff = top; top += 16;
  const pairsOff = top; top += (cap + LINK_STRIDE + 1) * 8;
  let memory: WebAssembly.Memory, instance: WebAssembly.Instance;
  try {
    if (top > 0xffff0000) throw new RangeError('over 4 GB');
    memory = new WebAssembly.Memory({ initial: Math.ceil(top / PAGE) });
    instance = new WebAssembly.Instance(module, { env: { memory } });
  } catch {
    // Too large for a 32-bit WebAssembly memory (or out of memory): the world goes on with the
    // JavaScript step on the arrays it has (views into the previous memory stay valid).
    world.tailAccel = null;
    return false;
  }
  const kernel = instance.exports as unknown as TailStepExports;
  const buffer = memory.buffer;
  for (let i = 0; i < entries.length; i++) {
    const { owner, key, src } = entries[i]!;
    const Ctor = src.constructor as { new (b: ArrayBuffer, o: number, n: number): Typed };
    const view = new Ctor(buffer, offsets[i]!, src.length);
    view.set(src);
    owner[key] = view;
  }
  kernel.setPointers(...POINTER_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!), chainKOff, entsOff, pendingOff, paramsOff, pairsOff);
  kernel.setWritePointers(...WRITE_ORDER.map(([c, key]) => offsetOf.get(c + '.' + key)!));
  world.tailAccel = {
    memory, kernel,
    chainK: new Float64Array(buffer, chainKOff, cap * 16),
    ents: new Int32Array(buffer, entsOff, cap),
    params: new Float64Array(buffer, paramsOff, 2),
    capacity: cap,
  };
  return true;
}

/**
 * Which tail step a world runs: `'wasm-simd'` (WebAssembly, two chains per SIMD lane pair)
 * or `'js'`.
 *
 * @example
 * console.log(tailBackend(world)); // 'wasm-simd' in current browsers and Node
 */
export function tailBackend(world: BitrigWorld): 'wasm-simd' | 'js' {
  return world.tailAccel !== null ? 'wasm-simd' : 'js';
}
