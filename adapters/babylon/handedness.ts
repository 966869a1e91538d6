/**
 * Babylon's left-handed world ↔ bitrig's right-handed one for skeletons whose root frame is
 * mirrored (the glTF loader's `__root__`): bitrig's world = Babylon's with x negated,
 * H = diag(−1, 1, 1). Points and directions map by negating x; rotations by conjugation,
 * H·R·H, which for a quaternion is (x, −y, −z, w); frames by H·M·H. Heights are unchanged.
 * The scene-input mapper reuses its buffers (no per-frame allocation after the first frame
 * with a given number of hands).
 */
import type { GroundHit, GroundQuery, HandTargetInput, SceneDiagnostics, SceneInputs } from '../../core/sceneIK';

/**
 * Map a column-major 4×4 between Babylon's world and bitrig's (the map is its own inverse):
 * `out = H · m · H`. Use it for support frames (`setSupportFrame`) of a mirrored character.
 *
 * @example
 * setSupportFrame(animator.world, platform, mirrorMatrixX(platformNode.getWorldMatrix().m));
 */
export function mirrorMatrixX(m: ArrayLike<number>, out: Float64Array = new Float64Array(16)): Float64Array {
  for (let i = 0; i < 16; i++) out[i] = m[i]!;
  // H·m·H: negate row 0 and column 0, except their shared element m00.
  out[1] = -out[1]!; out[2] = -out[2]!; out[3] = -out[3]!; // column 0, rows 1..3
  out[4] = -out[4]!; out[8] = -out[8]!; out[12] = -out[12]!; // row 0, columns 1..3
  return out;
}

interface MappedHand extends HandTargetInput {
  position: Float64Array;
  /** Buffers the mapped rotation and pole live in. */
  rotBuf: Float64Array;
  poleBuf: Float64Array;
}

/**
 * A reusable mapper of {@link SceneInputs} from Babylon's world into bitrig's (mirrored x):
 * hand target positions and poles negate x, rotations conjugate, the ground query is wrapped
 * (queried at (−x, z), its normal's x negated). Grips are wrist-local (bone-local frames are
 * the same in both worlds) and pass unchanged. Returns the same object every call.
 *
 * @example
 * const map = createMirrorXInputs();
 * setSceneInputs(world, ik, map(inputs));
 */
export function createMirrorXInputs(): (inputs: SceneInputs) => SceneInputs {
  const out: SceneInputs = {};
  const hands: (MappedHand | null)[] = [];
  const pool: MappedHand[] = [];
  let userGround: GroundQuery | null = null;
  let wrapped: GroundQuery | null = null;
  const pt = new Float64Array(3);
  const wrap = (q: GroundQuery): GroundQuery => (p: Float64Array, hit: GroundHit): boolean => {
    pt[0] = -p[0]!; pt[1] = p[1]!; pt[2] = p[2]!;
    const ok = q(pt, hit);
    if (ok) hit.normal[0] = -hit.normal[0]!;
    return ok;
  };
  return (inputs: SceneInputs): SceneInputs => {
    out.feet = inputs.feet;
    out.grounded = inputs.grounded;
    out.balance = inputs.balance;
    if (typeof inputs.ground !== 'function') out.ground = inputs.ground;
    else {
      if (inputs.ground !== userGround) { userGround = inputs.ground; wrapped = wrap(inputs.ground); }
      out.ground = wrapped;
    }
    const src = inputs.hands;
    if (!src) { out.hands = src; return out; }
    hands.length = src.length;
    for (let i = 0; i < src.length; i++) {
      const h = src[i];
      if (!h) { hands[i] = null; continue; }
      const m = pool[i] ?? (pool[i] = { position: new Float64Array(3), rotBuf: new Float64Array(4), poleBuf: new Float64Array(3) });
      const p = h.position;
      m.position[0] = -p[0]!; m.position[1] = p[1]!; m.position[2] = p[2]!;
      if (h.rotation) {
        const r = h.rotation;
        m.rotBuf[0] = r[0]!; m.rotBuf[1] = -r[1]!; m.rotBuf[2] = -r[2]!; m.rotBuf[3] = r[3]!;
        m.rotation = m.rotBuf;
      } else m.rotation = h.rotation;
      if (h.pole) {
        m.poleBuf[0] = -h.pole[0]!; m.poleBuf[1] = h.pole[1]!; m.poleBuf[2] = h.pole[2]!;
        m.pole = m.poleBuf;
      } else m.pole = h.pole;
      m.weight = h.weight; m.rotationWeight = h.rotationWeight; m.grip = h.grip; m.mass = h.mass;
      hands[i] = m;
    }
    out.hands = hands;
    return out;
  };
}

/**
 * Map scene diagnostics from bitrig's world into Babylon's, in place: points and normals
 * negate x, held-object rotations conjugate. Heights, bands and flags are unchanged.
 *
 * @example
 * mirrorSceneDiagnosticsX(sceneDiagnostics(world, ik));
 */
export function mirrorSceneDiagnosticsX(d: SceneDiagnostics): void {
  for (const c of d.contacts) {
    c.pointWs[0] = -c.pointWs[0]; c.normalWs[0] = -c.normalWs[0];
    c.soleWs[0] = -c.soleWs[0]; c.soleNormalWs[0] = -c.soleNormalWs[0];
  }
  for (const h of d.hands) {
    h.objectPosWs[0] = -h.objectPosWs[0];
    h.objectRotWs[1] = -h.objectRotWs[1]; h.objectRotWs[2] = -h.objectRotWs[2];
  }
  d.comWs[0] = -d.comWs[0];
  d.supportWs[0] = -d.supportWs[0];
  d.pelvis.offsetWs[0] = -d.pelvis.offsetWs[0];
}
