/**
 * `solveTwoBone`: one two-bone chain solved toward a target, all positions in one solve space
 * the caller chose (see core/ik/twoBone.ts for the method and the types). The solve is the
 * WebAssembly kernel's flat two-bone record (wasm/twoBone.ts `twoBoneCore`), the one the scene IK
 * uses for its general chains, on a small instance of its own made at the first call.
 */
import { TWO_BONE_DEFAULTS, type TwoBoneInput, type TwoBoneOptions, type TwoBoneOutput } from '../core/ik/twoBone';
import type { TwoBoneExports } from '../core/kernelTypes';
import { qMul, qSlerpAt } from '../core/qmath';
import { kernelUnavailableReason, twoBoneWasmModule } from './kernels';

/** Layout of the kernel's flat two-bone record (f64 indices; wasm/twoBone.ts). */
export const TB = Object.freeze({
  /** in: root (3) */ A: 0,
  /** in: mid (3) */ B: 3,
  /** in: end (3) */ C: 6,
  /** in: target (3) */ T: 9,
  /** in: pole point (3), used when hasPole */ P: 12,
  /** in: bend hint direction (3) */ H: 15,
  /** in: position weight (1) */ W: 18,
  /** in: softening fraction (1) */ SOFT: 19,
  /** in: 1 when the pole point is used (1) */ HASPOLE: 42,
  /** out: rootDelta (4) */ QR: 20,
  /** out: midDelta (4) */ QM: 24,
  /** out: new mid (3) */ NB: 28,
  /** out: new end (3) */ NC: 31,
  /** out: miss (1) */ MISS: 34,
  /** out: extension (1) */ EXT: 35,
  /** out: upper length (1) */ L1: 36,
  /** out: lower length (1) */ L2: 37,
  /** out: blended target (3) */ BT: 38,
  /** total size */ SIZE: 64,
});

let _kernel: TwoBoneExports | null = null;
let _io: Float64Array | null = null;
const _q = new Float64Array(8);

/** The standalone instance and a view of its record (made once; throws `bitrig/ik: …` where the kernel cannot be compiled). */
function record(): Float64Array {
  if (_io !== null) return _io;
  const module = twoBoneWasmModule();
  if (module === null) throw new Error(`bitrig/ik: solveTwoBone needs the WebAssembly kernel: ${kernelUnavailableReason() ?? 'it could not be compiled'}`);
  const memory = new WebAssembly.Memory({ initial: 1, maximum: 1 });
  const instance = new WebAssembly.Instance(module, { env: { memory, exp: Math.exp, acos: Math.acos, sin: Math.sin } });
  _kernel = instance.exports as unknown as TwoBoneExports;
  _io = new Float64Array(memory.buffer, _kernel.twoBoneRecord(), TB.SIZE);
  return _io;
}

function setQ(out: Float64Array, q: ArrayLike<number> | null | undefined): void {
  if (q) { out[0] = q[0]!; out[1] = q[1]!; out[2] = q[2]!; out[3] = q[3]!; } else { out[0] = 0; out[1] = 0; out[2] = 0; out[3] = 1; }
}

/**
 * Solve a two-bone chain toward a target (core/ik/twoBone.ts says how). Writes `out`; never
 * allocates after the first call (which makes the kernel's instance, and throws `bitrig/ik: …`
 * where WebAssembly cannot be compiled). Returns false on invalid input (non-finite positions or
 * target, a zero-length bone): `out` then holds identity deltas and the unchanged pose,
 * `reached` is false.
 *
 * @example
 * const out = createTwoBoneOutput();
 * solveTwoBone({ root: [0, 1, 0], mid: [0, 0.5, 0.05], end: [0, 0, 0], target: [0.2, 0.1, 0.3] }, out);
 * // out.rootDelta, out.midDelta: rotations to apply; out.reached, out.miss
 */
export function solveTwoBone(input: TwoBoneInput, out: TwoBoneOutput, options: Readonly<TwoBoneOptions> = TWO_BONE_DEFAULTS): boolean {
  const io = record();
  for (let i = 0; i < 3; i++) {
    io[TB.A + i] = input.root[i]!; io[TB.B + i] = input.mid[i]!; io[TB.C + i] = input.end[i]!; io[TB.T + i] = input.target[i]!;
    io[TB.P + i] = input.pole ? input.pole[i]! : 0;
    io[TB.H + i] = input.bendHint ? input.bendHint[i]! : 0;
  }
  io[TB.W] = options.weight; io[TB.SOFT] = options.soften; io[TB.HASPOLE] = input.pole ? 1 : 0;
  const ok = _kernel!.twoBoneSolveRecord() === 1;
  for (let i = 0; i < 4; i++) { out.rootDelta[i] = io[TB.QR + i]!; out.midDelta[i] = io[TB.QM + i]!; }
  for (let i = 0; i < 3; i++) { out.midPosition[i] = io[TB.NB + i]!; out.endPosition[i] = io[TB.NC + i]!; out.blendedTarget[i] = io[TB.BT + i]!; }
  out.miss = io[TB.MISS]!;
  out.extension = io[TB.EXT]!;
  setQ(out.rootRotation, input.rootRotation);
  setQ(out.midRotation, input.midRotation);
  setQ(out.endRotation, input.endRotation);
  if (!ok) { out.reached = false; return false; }
  out.reached = out.miss <= options.reachTolerance;
  qMul(out.midRotation, 0, out.midDelta, 0, out.midRotation, 0);
  qMul(out.midRotation, 0, out.rootDelta, 0, out.midRotation, 0);
  qMul(out.rootRotation, 0, out.rootDelta, 0, out.rootRotation, 0);
  // End orientation: the animated one (kept in solve space), turned toward the target.
  const tr = input.targetRotation;
  let wr = options.rotationWeight;
  if (!(wr > 0)) wr = 0; else if (wr > 1) wr = 1;
  if (tr && wr > 0 && Number.isFinite(tr[0]! + tr[1]! + tr[2]! + tr[3]!)) {
    const l = Math.hypot(tr[0]!, tr[1]!, tr[2]!, tr[3]!);
    if (l > 1e-12) {
      _q[0] = tr[0]! / l; _q[1] = tr[1]! / l; _q[2] = tr[2]! / l; _q[3] = tr[3]! / l;
      _q[4] = wr;
      qSlerpAt(out.endRotation, 0, out.endRotation, 0, _q, 0, _q, 4);
    }
  }
  return true;
}
