/**
 * FootLock — planted feet, terrain and moving supports.
 *
 * Reads: per character the `grounded` input, the game's ground query and the root frame's
 * world height (the character's reference floor); per leg the stance weight, the sole
 * calibration, the animated world matrix of the end bone (pose store), and the recorded
 * contact with its SupportFrame (world matrix this frame).
 * Writes: per character the grounded fade `groundBlend`; per leg `stanceEff`, the lock state
 * (contact point, foot orientation and ground normal in the support's local frame), the
 * diagnostics (`contactWs`, `normalWs`, `groundY`, …) and the leg's IK request in the Limb
 * component: the end joint's world target, its world orientation target and the weights.
 *
 * Per leg, with w the stance weight (× grounded fade):
 * - free target F: the animated sole raised by the ground height under it minus the
 *   reference floor (the clip's swing height is kept above the terrain; never below it);
 * - planted target G: when locked, the recorded contact carried by its support's current
 *   frame (a translating or rotating platform carries the foot; the static world keeps it
 *   in place while the body moves); otherwise the animated sole dropped onto the ground with
 *   the sole normal turned onto the ground normal (at most `maxTilt`);
 * - a contact is recorded in the support's local frame when w reaches `lockOn` and released
 *   when w returns to 0, so the target never jumps: target = F + w (G − F), orientation
 *   slerp(F, G, w).
 * Units: world units; angles radians. Never allocates, never throws (a throwing ground query
 * counts as "no ground"; the error is kept in `world.groundError` for the diagnostics).
 *
 * The step itself is the WebAssembly kernel `wasm/sceneContacts.ts` (`footLockRun`); this
 * system only gathers what JavaScript alone can give: the game's ground queries. The kernel
 * first lists the legs to ask and their sole points (`footGroundPoints`), each query's answer
 * is checked ({@link queryGround}) and left in the kernel's ground hits, then the kernel runs.
 * A query that reads FootLock's outputs of this frame (another character's, or its own
 * `groundBlend`) sees them one frame older; one that grows a capacity (adds supports past the
 * rows made at setup) loses that frame's foot lock — a ground query answers from the game's
 * terrain and adds nothing.
 *
 * Runs over a range of the scene characters (`from`, `count` into `world.queries.sceneChars.dense`;
 * all by default): characters are independent here, so a game's job system may split them.
 */
import type { BitrigWorld } from '../core/world';
import type { GroundHit } from '../core/sceneIK';

const _hit: GroundHit = { height: 0, normal: new Float64Array(3), support: -1 };
const _hitNormal = _hit.normal as Float64Array;
const _gp = new Float64Array(3); // ground query point (world sole)

/**
 * Run the foot-lock step for the scene characters `[from, from + count)` of
 * `world.queries.sceneChars.dense` (every one by default).
 *
 * @example
 * footLock(world, 1 / 60);
 */
export function footLock(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): void {
  const accel = world.tailAccel; // (the layout the list is in: a ground query that grows a capacity re-lays the world out, and this frame's lock is lost)
  const n = footLockPrepare(world, dt, from, count);
  if (n > 0) accel!.scene!.footLockRun(0, n);
}

/**
 * FootLock's JavaScript half for the scene characters `[from, from + count)`: lists them in the
 * scene kernel's character list (`-1 - c` for a character with a ground query), sets its dt and
 * asks the game's ground queries for every sole point, leaving the answers in the kernel's
 * ground hits. Returns how many characters are listed (0: nothing to run, a world mid-setup);
 * the kernel's `footLockRun` over `[0, n)` of the list, of the layout read before this call,
 * then completes the step, in one call or block by block (the pipeline's scene step).
 * Per-frame; never throws or allocates.
 *
 * @example
 * const accel = world.tailAccel, n = footLockPrepare(world, dt); if (n > 0) accel!.scene!.footLockRun(0, n);
 */
export function footLockPrepare(world: BitrigWorld, dt: number, from = 0, count = 0x7fffffff): number {
  const SC = world.components.SceneCharacter;
  const chars = world.queries.sceneChars.dense;
  const lo = from > 0 ? from : 0;
  const hi = count < chars.length - lo ? lo + count : chars.length;
  const accel = world.tailAccel;
  // (the kernel's arrays are this world's own after every layout; anything else is a world mid-setup: nothing to do)
  if (accel === null || accel.scene === null || hi <= lo || hi - lo > accel.sceneList.length) return 0;
  if (world.components.SupportFrame.matrixWs.buffer !== accel.memory.buffer) return 0;
  const list = accel.sceneList, ground = SC.ground;
  const n = hi - lo;
  let queried = false;
  for (let i = lo; i < hi; i++) {
    const c = chars[i]!;
    if (ground[c]) { list[i - lo] = -1 - c; queried = true; } else list[i - lo] = c;
  }
  accel.sceneParams[0] = dt;
  if (queried) {
    const m = accel.scene.footGroundPoints(n);
    const hit = accel.sceneGround, ok = accel.sceneGroundOk;
    for (let j = 0; j < m; j++) {
      const e = list[n + j]!;
      ok[e] = queryGround(world, hit, e, hit[e * 5 + 4]!) ? 1 : 0;
    }
  }
  return n;
}

/**
 * Ask character c's ground query about leg e's sole point (`g[e*5 .. e*5+2]`: the kernel's
 * ground hits, the point written by the kernel) and leave the checked answer there: height, unit normal (up when missing,
 * degenerate or facing down), support entity (-1 unless a live support). False when the query
 * says no ground, throws (the error is kept in `world.groundError`) or gives a non-finite height.
 */
function queryGround(world: BitrigWorld, g: Float64Array, e: number, c: number): boolean {
  const fn = world.components.SceneCharacter.ground[c];
  const o = e * 5;
  if (!fn) return false;
  _hit.height = NaN; _hit.support = -1;
  _hit.normal = _hitNormal;
  _hitNormal[0] = 0; _hitNormal[1] = 1; _hitNormal[2] = 0;
  let ok = false;
  _gp[0] = g[o]!; _gp[1] = g[o + 1]!; _gp[2] = g[o + 2]!;
  try { ok = fn(_gp, _hit) === true; } catch (err) {
    ok = false;
    const ge = world.groundError;
    if (ge !== undefined) { ge.char = c; ge.error = err; ge.time = world.time; }
  }
  const h = +_hit.height;
  if (!ok || !Number.isFinite(h)) return false;
  // (the game may have replaced `normal`, with anything: a missing one counts as up)
  const nn = _hit.normal as ArrayLike<number> | null | undefined;
  let nx = 0, ny = 1, nz = 0;
  if (nn !== null && nn !== undefined) { nx = +nn[0]!; ny = +nn[1]!; nz = +nn[2]!; }
  const l = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(l > 1e-12) || !Number.isFinite(l) || !(ny / l > 1e-6)) { nx = 0; ny = 1; nz = 0; } else { nx /= l; ny /= l; nz /= l; }
  const s = _hit.support;
  const S = world.components.SupportFrame;
  g[o] = h; g[o + 1] = nx; g[o + 2] = ny; g[o + 3] = nz;
  g[o + 4] = Number.isInteger(s) && s >= 0 && s < world.capacity && S.row[s]! >= 0 ? s : -1;
  return true;
}
