/**
 * Tail chain setup (setup-time; may allocate and throw `bitrig/tail: …`).
 *
 * Reads the bind pose from the pose store (which the adapters fill from inverse bind
 * matrices, "bind pose, not loaded pose") and writes every field of the tail
 * components for a new chain entity: link topology, tip offsets (with a virtual end that
 * continues the incoming tangent in the last bone's own frame when there is no `Tail_End`),
 * hips axes, and the rest rotations with the carry and centred rest arc applied.
 */
import { addComponent, entityExists, hasComponent } from 'bitecs';
import { describeValue } from './defaults';
import type { BitrigWorld } from './world';
import { addBitrigEntity, growTailRows, isBitrigWorld, relayout, removeBitrigEntity, requireBitrigWorld, takeTailRow } from './world';
import { CLOCK, LINK_STRIDE, MAX_LINKS, REST_ANIMATION, REST_BIND, getLink, linkEl, linkIndex, setLink, type TailChainComponent } from './components/tail';
import { checkTailStability, mergeTailOptions, TAIL_OPTION_KEYS, TAIL_OPTION_TABLE, type TailOptions, type PartialOptions } from './defaults';
import { composeTRS, mulAffine } from './pose';
import { qAxisAngle, qMul, qNormalize, qRotate, qRotateInv, qSlerp, qSwing } from './qmath';
import { computeRestDirs, computeToHips } from './tailKernel';
import { checkChainColliderRoom, refreshCharacterColliders } from './colliderSetup';

export { computeRestDirs, computeToHips };

/** Which bones form a chain. Slots are pose-store slots. */
export interface TailChainSpec {
  /** Pose-store character id. */
  char: number;
  /** Bone slot of each link, root first (1…8); each the child of the previous. */
  linkSlots: readonly number[];
  /** Slot of a `Tail_End` helper under the last link, or -1. */
  endSlot: number;
  /** Slot of the bone the chain hangs from (the parent of the first link). */
  anchorSlot: number;
  /** Slot of the pelvis (defaults to the anchor). */
  hipsSlot?: number;
}

const _q = new Float64Array(16);
const _v = new Float64Array(16);

function uniformScale(s: ArrayLike<number>, o: number): number {
  return (Math.abs(s[o]!) + Math.abs(s[o + 1]!) + Math.abs(s[o + 2]!)) / 3;
}

/** Bind world matrices of a character (root frame = identity). Setup-time. */
export function bindWorldMatrices(world: BitrigWorld, char: number): Float64Array {
  const pose = world.pose;
  const start = pose.charStart[char]!;
  const count = pose.charCount[char]!;
  const out = new Float64Array(count * 16);
  const local = new Float64Array(16);
  for (let k = 0; k < count; k++) {
    const slot = start + k;
    composeTRS(local, 0, pose.bindT, slot * 3, pose.bindR, slot * 4, pose.bindS, slot * 3);
    const p = pose.parent[slot]!;
    if (p >= 0) mulAffine(out, k * 16, out, (p - start) * 16, local, 0);
    else out.set(local, k * 16);
  }
  return out;
}

/** Bind world rotation of a slot (product of bind local rotations from the root). */
function bindWorldRotation(world: BitrigWorld, slot: number, out: Float64Array, o: number): void {
  const pose = world.pose;
  out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
  const chain: number[] = [];
  for (let s = slot; s >= 0; s = pose.parent[s]!) chain.push(s);
  for (let k = chain.length - 1; k >= 0; k--) qMul(out, o, out, o, pose.bindR, chain[k]! * 4);
}

/** Copy the numeric tail options into a chain's component fields (not the rest source). */
function writeTailParams(C: TailChainComponent, eid: number, o: TailOptions): void {
  // (each option into its TailChain field, as the table names it; restSource is set by setTailRestSource)
  const fields = C as unknown as Record<string, Float64Array | Uint8Array>;
  for (const k of TAIL_OPTION_KEYS) {
    if (k === 'restSource') continue;
    const v = o[k];
    fields[TAIL_OPTION_TABLE[k].field]![eid] = typeof v === 'boolean' ? (v ? 1 : 0) : (v as number);
  }
  C.stepCache.fill(0, eid * 5, eid * 5 + 5); // per-step constants are recomputed on the next step
}

/**
 * Add a tail chain entity. Options are merged over {@link TAIL_DEFAULTS}; `restSource`
 * `'auto'` starts as `'bind'` (an adapter switches it when the playing clip keys the tail).
 *
 * @example
 * const eid = addTailChain(world, { char, linkSlots: [s1, s2, s3], endSlot: -1, anchorSlot: hips }, { carry: 0.6 });
 */
export function addTailChain(world: BitrigWorld, spec: TailChainSpec, options: PartialOptions<TailOptions> = {}): number {
  requireBitrigWorld(world, 'bitrig/tail');
  const pose = world.pose;
  const o = mergeTailOptions(options);
  checkTailStability(o, world.clock[CLOCK.FIXED_STEP]!);
  const n = spec.linkSlots.length;
  if (n < 1 || n > MAX_LINKS) throw new Error(`bitrig/tail: a chain needs 1…${MAX_LINKS} links, got ${n}`);
  const char = spec.char;
  if (!(char >= 0 && char < pose.charCapacity) || pose.charStart[char]! < 0) throw new Error(`bitrig/tail: character ${char} is not bound`);
  const owns = (s: number): boolean => s >= 0 && s < pose.capacity && pose.owner[s] === char;
  if (!owns(spec.anchorSlot)) throw new Error('bitrig/tail: the anchor bone does not belong to the character');
  for (let i = 0; i < n; i++) {
    const s = spec.linkSlots[i]!;
    if (!owns(s)) throw new Error(`bitrig/tail: link ${i} bone does not belong to the character`);
    const expectedParent = i === 0 ? spec.anchorSlot : spec.linkSlots[i - 1]!;
    if (pose.parent[s] !== expectedParent) {
      throw new Error(`bitrig/tail: link ${i} ("${pose.names[s]}") is not the child of "${pose.names[expectedParent]}"`);
    }
  }
  checkChainColliderRoom(world, char, o.colliderGroups);
  const endSlot = spec.endSlot >= 0 && owns(spec.endSlot) && pose.parent[spec.endSlot] === spec.linkSlots[n - 1] ? spec.endSlot : -1;

  // A dense row for the per-link data (reused after removal; the per-link arrays grow to fit),
  // then the entity: one new WebAssembly layout at most when both capacities grow.
  const rows = world.tailRows;
  const row = takeTailRow(rows, n);
  const rowsGrew = growTailRows(world, row);
  const accelBefore = world.tailAccel;
  const eid = addBitrigEntity(world);
  if (rowsGrew && world.tailAccel === accelBefore) relayout(world);
  const { TailChain: C, TailParticle: P, BendState: B } = world.components;
  addComponent(world, eid, C);
  addComponent(world, eid, P);
  addComponent(world, eid, B);
  const owner = world.characterEntities.get(char);
  if (owner !== undefined) { addComponent(world, eid, world.components.PartOf); world.components.PartOf.character[eid] = owner; }
  C.row[eid] = row;
  world.tailRows.ent[row] = eid;
  C.char[eid] = char;
  C.links[eid] = n;
  C.anchorSlot[eid] = spec.anchorSlot;
  C.hipsSlot[eid] = spec.hipsSlot ?? spec.anchorSlot;
  C.endSlot[eid] = endSlot;
  C.endLeaf[eid] = 0;
  for (let i = 0; i < LINK_STRIDE; i++) C.slot[linkIndex(row, i)] = i < n ? spec.linkSlots[i]! : -1;
  writeTailParams(C, eid, o);
  C.restSource[eid] = o.restSource === 'animation' ? REST_ANIMATION : REST_BIND;
  C.initialised[eid] = 0;
  C.stepsLastFrame[eid] = 0;
  C.resetLastFrame[eid] = 0;
  C.exactWorldSetup[eid] = 0;
  {
    const cs = pose.charStart[char]!, ce = cs + pose.charCount[char]!;
    const linkSet = new Set(spec.linkSlots);
    for (let s = cs; s < ce; s++) {
      if (linkSet.has(pose.parent[s]!) && !linkSet.has(s) && s !== endSlot) C.exactWorldSetup[eid] = 1;
    }
    if (endSlot >= 0) {
      C.endLeaf[eid] = 1;
      for (let s = cs; s < ce; s++) if (pose.parent[s] === endSlot) C.endLeaf[eid] = 0;
    }
    // An end helper that is a link of another chain of the character is written by that
    // chain: its world matrix is refreshed after every write (the JavaScript finish), not by
    // the WebAssembly write of the chain it ends. Both ways round.
    let siblings = world.tailsByChar.get(char);
    if (!siblings) { siblings = []; world.tailsByChar.set(char, siblings); }
    for (let j = 0; j < siblings.length; j++) {
      const e2 = siblings[j]!;
      if (e2 === eid || C.char[e2] !== char) continue;
      for (let i = 0; i < C.links[e2]!; i++) if (C.slot[linkIndex(C.row[e2]!, i)] === endSlot && endSlot >= 0) C.endLeaf[eid] = 0;
      if (C.endSlot[e2]! >= 0 && linkSet.has(C.endSlot[e2]!)) C.endLeaf[e2] = 0;
    }
    siblings.push(eid);
    for (const s of spec.linkSlots) {
      const x = pose.bindS[s * 3]!, y = pose.bindS[s * 3 + 1]!, z = pose.bindS[s * 3 + 2]!;
      if (!(x > 0) || Math.abs(x - y) > 1e-9 * x || Math.abs(x - z) > 1e-9 * x) C.exactWorldSetup[eid] = 1;
    }
  }
  C.exactWorld[eid] = C.exactWorldSetup[eid]!;
  C.mirrored[eid] = 0;
  refreshCharacterColliders(world, char);
  C.seatEase[eid] = 0; C.seatExcess[eid] = 0;
  C.anchorPrev.fill(0, eid * 8, eid * 8 + 8);
  C.anchorCur.fill(0, eid * 8, eid * 8 + 8);
  C.anchorStep.fill(0, eid * 8, eid * 8 + 8);
  C.origin.fill(0, eid * 3, eid * 3 + 3);
  for (let i = 0; i < LINK_STRIDE; i++) clearLink(P, B, linkIndex(row, i));

  // Link geometry from the bind pose.
  const bindW = bindWorldMatrices(world, char);
  const start = pose.charStart[char]!;
  let cum = 1;
  for (let i = 0; i < n; i++) {
    const s = spec.linkSlots[i]!;
    const k = linkIndex(row, i);
    setLink(B.headLs, k, 3, pose.bindT, s * 3);
    cum *= uniformScale(pose.bindS, s * 3);
    B.scaleRel[k] = cum;
    let tx = 0, ty = 0, tz = 0;
    if (i < n - 1) {
      const c = spec.linkSlots[i + 1]!;
      tx = pose.bindT[c * 3]!; ty = pose.bindT[c * 3 + 1]!; tz = pose.bindT[c * 3 + 2]!;
    } else if (endSlot >= 0) {
      tx = pose.bindT[endSlot * 3]!; ty = pose.bindT[endSlot * 3 + 1]!; tz = pose.bindT[endSlot * 3 + 2]!;
    } else {
      // Virtual end: continue the incoming tangent, expressed in the last bone's own frame.
      const par = pose.parent[s]!;
      const hw = (s - start) * 16, pw = (par - start) * 16;
      _v[0] = bindW[hw + 12]! - bindW[pw + 12]!;
      _v[1] = bindW[hw + 13]! - bindW[pw + 13]!;
      _v[2] = bindW[hw + 14]! - bindW[pw + 14]!;
      bindWorldRotation(world, s, _q, 0);
      qRotateInv(_v, 0, _q, 0, _v, 0);
      // World length → the bone's own units.
      const worldScale = Math.cbrt(Math.abs(
        bindW[hw]! * (bindW[hw + 5]! * bindW[hw + 10]! - bindW[hw + 6]! * bindW[hw + 9]!)
        - bindW[hw + 4]! * (bindW[hw + 1]! * bindW[hw + 10]! - bindW[hw + 2]! * bindW[hw + 9]!)
        + bindW[hw + 8]! * (bindW[hw + 1]! * bindW[hw + 6]! - bindW[hw + 2]! * bindW[hw + 5]!))) || 1;
      tx = _v[0]! / worldScale; ty = _v[1]! / worldScale; tz = _v[2]! / worldScale;
    }
    let len = Math.sqrt(tx * tx + ty * ty + tz * tz);
    if (!(len > 1e-9)) {
      // Zero-length link: keep a defined direction (+Y, glTF's bone axis) and zero length.
      _t[0] = 0; _t[1] = 0; _t[2] = 0; _t[3] = 0; _t[4] = 1; _t[5] = 0;
      len = 0;
    } else {
      _t[0] = tx; _t[1] = ty; _t[2] = tz; _t[3] = tx / len; _t[4] = ty / len; _t[5] = tz / len;
    }
    setLink(B.tipLs, k, 3, _t, 0);
    setLink(B.tipDirLs, k, 3, _t, 3);
    B.lenRel[k] = len * cum;
  }

  // Hips axes (model space → anchor frame): up = model +Y; forward = away from the tail root.
  const a0 = spec.anchorSlot;
  bindWorldRotation(world, a0, _q, 4); // anchor bind world rotation at _q[4..7]
  const first = (spec.linkSlots[0]! - start) * 16;
  // Tail root direction in model space: link 0 bind world rotation × tipDir.
  bindWorldRotation(world, spec.linkSlots[0]!, _q, 8);
  getLink(B.tipDirLs, linkIndex(row, 0), 3, _t, 0);
  qRotate(_v, 0, _q, 8, _t, 0);
  let hx = _v[0]!, hz = _v[2]!;
  let hl = Math.sqrt(hx * hx + hz * hz);
  if (hl < 0.2) {
    // The root points (nearly) straight down or up: use the chain's overall reach instead.
    const lastSlot = spec.linkSlots[n - 1]!;
    const lw = (lastSlot - start) * 16;
    hx = bindW[lw + 12]! - bindW[first + 12]!;
    hz = bindW[lw + 14]! - bindW[first + 14]!;
    hl = Math.sqrt(hx * hx + hz * hz);
  }
  let fx = 0, fz = 1;
  if (hl > 1e-9) { fx = -hx / hl; fz = -hz / hl; }
  // forward (fx, 0, fz), up (0, 1, 0), lateral = up × forward = (fz, 0, -fx)
  const ax = eid * 9;
  _v[0] = fx; _v[1] = 0; _v[2] = fz;
  qRotateInv(C.axesLs, ax, _q, 4, _v, 0);
  _v[0] = fz; _v[1] = 0; _v[2] = -fx;
  qRotateInv(C.axesLs, ax + 3, _q, 4, _v, 0);
  _v[0] = 0; _v[1] = 1; _v[2] = 0;
  qRotateInv(C.axesLs, ax + 6, _q, 4, _v, 0);

  for (let i = 0; i < n; i++) {
    setLink(B.restR, linkIndex(row, i), 4, pose.bindR, spec.linkSlots[i]! * 4);
  }
  if (C.restSource[eid] === REST_BIND) applyCarryAndArc(world, eid);
  else computeToHips(world, eid);
  return eid;
}

const _a = new Float64Array(LINK_STRIDE * 3);
const _t = new Float64Array(24);
const _r = new Float64Array(8);

/** Link q of a chain row at rest with no geometry: zero particle state, identity rotations (every per-link field written: rows are reused). */
function clearLink(P: BitrigWorld['components']['TailParticle'], B: BitrigWorld['components']['BendState'], q: number): void {
  for (const a of [P.pos, P.vel, B.headLs, B.restDirLs, B.restDirHs, B.tipLs, B.tipDirLs, B.headWs, B.seatAxis]) for (let c = 0; c < 3; c++) a[linkEl(q, 3, c)] = 0;
  for (const a of [B.restR, B.toHips, B.bendOld, B.rotWs, B.localCur, B.localPrev, B.restBase]) {
    for (let c = 0; c < 3; c++) a[linkEl(q, 4, c)] = 0;
    a[linkEl(q, 4, 3)] = 1;
  }
  for (let c = 0; c < 9; c++) B.toHipsM[linkEl(q, 9, c)] = c % 4 === 0 ? 1 : 0;
  P.contact[q] = 0; B.scaleRel[q] = 0; B.lenRel[q] = 0; B.seatTwist[q] = 0;
}

/**
 * Rest rotations for the `'bind'` source (carry + centred rest arc): with `a_i` the
 * authored direction of segment i in the hips frame, `c` its sagittal projection of `a_0`,
 * `u_i = R_lat(C·(i+1)/N) · rot(slerp(I, swing(c, a_i), β), c)` and `r_i = A_i⁻¹ u_i`, where
 * `A_i` (parent rest frame → hips) includes the corrections of earlier joints. Writes
 * `restR` and `toHips`. Setup-time (also used when options change).
 */
export function applyCarryAndArc(world: BitrigWorld, eid: number): void {
  const { TailChain: C, BendState: B } = world.components;
  const L = LINK_STRIDE;
  const n = C.links[eid]!;
  const ax = eid * 9;
  const latX = C.axesLs[ax + 3]!, latY = C.axesLs[ax + 4]!, latZ = C.axesLs[ax + 5]!;
  const upX = C.axesLs[ax + 6]!, upY = C.axesLs[ax + 7]!, upZ = C.axesLs[ax + 8]!;
  // Authored directions a_i in the hips (anchor) frame from the bind rest chain.
  _t[0] = 0; _t[1] = 0; _t[2] = 0; _t[3] = 1; // running product R_0 … R_i
  for (let i = 0; i < n; i++) {
    const q = linkIndex(C.row[eid]!, i);
    getLink(B.restR, q, 4, _r, 0); getLink(B.tipDirLs, q, 3, _r, 4);
    qMul(_t, 0, _t, 0, _r, 0);
    qRotate(_a, i * 3, _t, 0, _r, 4);
  }
  // c = a_0 without its lateral part; fallback: down.
  const d = _a[0]! * latX + _a[1]! * latY + _a[2]! * latZ;
  let cx = _a[0]! - d * latX, cy = _a[1]! - d * latY, cz = _a[2]! - d * latZ;
  let cl = Math.sqrt(cx * cx + cy * cy + cz * cz);
  if (cl < 1e-6) { cx = -upX; cy = -upY; cz = -upZ; cl = 1; }
  _t[4] = cx / cl; _t[5] = cy / cl; _t[6] = cz / cl; // c
  const beta = C.restCurve[eid]!;
  const carry = C.carry[eid]!;
  _t[8] = 0; _t[9] = 0; _t[10] = 0; _t[11] = 1; // A_i (corrected rest frames product)
  for (let i = 0; i < n; i++) {
    const q = linkIndex(C.row[eid]!, i);
    setLink(B.toHips, q, 4, _t, 8);
    getLink(B.restR, q, 4, _r, 0);
    if (B.lenRel[q]! > 0) {
      // Q_i(β) = slerp(I, swing(c, a_i), β); u_i = R_lat(C(i+1)/N) · Q_i c
      qSwing(_t, 12, _t, 4, _a, i * 3);
      _t[16] = 0; _t[17] = 0; _t[18] = 0; _t[19] = 1;
      qSlerp(_t, 12, _t, 16, _t, 12, beta);
      qRotate(_v, 0, _t, 12, _t, 4);
      qAxisAngle(_t, 16, latX, latY, latZ, (carry * (i + 1)) / n);
      qRotate(_v, 0, _t, 16, _v, 0);
      // r_i = A_i⁻¹ u_i (parent frame); current rest dir rb = restR_i · tipDir_i
      qRotateInv(_v, 3, _t, 8, _v, 0);
      getLink(B.tipDirLs, q, 3, _r, 4);
      qRotate(_v, 6, _r, 0, _r, 4);
      qSwing(_t, 20, _v, 6, _v, 3);
      qMul(_r, 0, _t, 20, _r, 0);
      qNormalize(_r, 0);
      setLink(B.restR, q, 4, _r, 0);
      getLink(B.restR, q, 4, _r, 0); // (as stored, float32: A_i is built from the rest the step uses)
    }
    qMul(_t, 8, _t, 8, _r, 0);
  }
  computeRestDirs(world, eid);
}

/**
 * Switch a chain's rest source at runtime (`'bind'` re-applies carry and rest arc from the
 * bind pose; `'animation'` takes the rest from the clip every frame). Setup-time.
 *
 * @example
 * setTailRestSource(world, eid, 'animation');
 */
export function setTailRestSource(world: BitrigWorld, eid: number, source: 'bind' | 'animation'): void {
  requireTailChain(world, eid, 'setTailRestSource');
  if (source !== 'bind' && source !== 'animation') throw new Error(`bitrig/tail: setTailRestSource needs 'bind' or 'animation', got ${describeValue(source)}`);
  const { TailChain: C, BendState: B } = world.components;
  const pose = world.pose;
  const n = C.links[eid]!;
  C.restSource[eid] = source === 'animation' ? REST_ANIMATION : REST_BIND;
  for (let i = 0; i < n; i++) {
    const q = linkIndex(C.row[eid]!, i);
    setLink(B.restR, q, 4, pose.bindR, C.slot[q]! * 4);
  }
  if (source === 'bind') applyCarryAndArc(world, eid);
  else computeToHips(world, eid);
}

/**
 * Change a chain's options after setup (re-derives the rest pose when carry or restCurve
 * change). Throws on invalid values. Setup-time.
 *
 * @example
 * setTailOptions(world, eid, { frequency: 1.4, floorEnabled: false });
 */
export function setTailOptions(world: BitrigWorld, eid: number, options: PartialOptions<TailOptions>): void {
  requireTailChain(world, eid, 'setTailOptions');
  const C = world.components.TailChain;
  const cur = getTailOptions(world, eid);
  const o = mergeTailOptions(options, cur);
  checkTailStability(o, world.clock[CLOCK.FIXED_STEP]!);
  if (C.char[eid]! >= 0) checkChainColliderRoom(world, C.char[eid]!, o.colliderGroups);
  writeTailParams(C, eid, o);
  refreshCharacterColliders(world, C.char[eid]!);
  const wantAnim = o.restSource === 'animation' || (o.restSource === 'auto' && C.restSource[eid] === REST_ANIMATION);
  setTailRestSource(world, eid, wantAnim ? 'animation' : 'bind');
}

/** Read a chain's current options back. */
export function getTailOptions(world: BitrigWorld, eid: number): TailOptions {
  requireTailChain(world, eid, 'getTailOptions');
  const C = world.components.TailChain;
  return {
    frequency: C.frequency[eid]!, tipRatio: C.tipRatio[eid]!, damping: C.damping[eid]!, gravity: C.gravity[eid]!,
    carry: C.carry[eid]!, restCurve: C.restCurve[eid]!, bendLimit: C.bendLimit[eid]!, couplingRate: C.couplingRate[eid]!,
    floorHeight: C.floorY[eid]!, floorEnabled: C.floorEnabled[eid] === 1, floorClearance: C.floorClearance[eid]!,
    contactDamping: C.contactDamping[eid]!, restSource: C.restSource[eid] === REST_ANIMATION ? 'animation' : 'bind',
    unitScale: C.unitScale[eid]!, colliderGroups: C.colliderGroups[eid]!, teleportDistance: C.teleportDistance[eid]!,
  };
}

/**
 * Remove a tail chain entity and release its row for reuse (as `removeBitrigEntity` does for
 * any tail entity). Setup-time.
 *
 * @example
 * removeTailChain(world, eid);
 */
export function removeTailChain(world: BitrigWorld, eid: number): void {
  requireTailChain(world, eid, 'removeTailChain');
  removeBitrigEntity(world, eid); // releases the row
}

/**
 * The per-link accessor: the link number q of link `i` (0 at the root) of chain `eid`, the
 * index of its width-1 per-link fields (`BendState.lenRel[q]`, `TailChain.slot[q]`); a
 * width-w field keeps component c at `linkEl(q, w, c)` (four chains interleaved for the
 * WebAssembly SIMD step, which reads and writes these arrays in place). Per-link data is not
 * indexed by entity id (`TailParticle.pos[eid * 3]` is not link 0 of `eid`): this is the one
 * way from an entity id to it. Particle positions are relative to `TailChain.origin`. −1 when
 * `eid` is not a live tail chain of `world` or `i` is not one of its links (per-frame safe:
 * never throws).
 *
 * @example
 * const q = tailLinkIndex(world, eid, 0);
 * const { TailParticle: P, TailChain: C } = world.components;
 * const tipY = C.origin[eid * 3 + 1] + P.pos[linkEl(q, 3, 1)]; // world height of link 0's tip
 */
export function tailLinkIndex(world: BitrigWorld, eid: number, i: number): number {
  if (!isBitrigWorld(world) || !(eid >= 0 && eid < world.capacity)) return -1;
  const C = world.components.TailChain;
  const row = C.row[eid]!;
  if (!(row >= 0 && i >= 0 && i < C.links[eid]!)) return -1;
  return linkIndex(row, i);
}

/** Throw `bitrig/tail: …` unless `eid` is a live tail chain of an attached `world`. Setup-time. */
function requireTailChain(world: BitrigWorld, eid: number, call: string): void {
  requireBitrigWorld(world, 'bitrig/tail');
  if (!(Number.isInteger(eid) && eid >= 0 && eid < world.capacity && entityExists(world, eid) && hasComponent(world, eid, world.components.TailChain))) {
    throw new Error(`bitrig/tail: ${call}: ${describeValue(eid)} is not a tail chain of this world (removed, or never added)`);
  }
}
