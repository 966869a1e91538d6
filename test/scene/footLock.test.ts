/**
 * Foot locking: planted feet on a static floor while the body moves, on
 * translating and rotating platforms, on a 15° slope; release back to the animation; sole
 * calibration. Built on the code rig in ./rig.ts. Tolerances are stated where asserted.
 */
import { describe, expect, test, vi } from 'vitest';
import { mat4, quat, vec3 } from 'gl-matrix';
import { makeBiped, dist, vecAngle, type BipedRig } from './rig';
import { createBitrigWorld } from '../../runtime/world';
import { addSupport, fitSolePlane, removeSupport, sceneDiagnostics, setSupportFrame, type GroundHit, type GroundQuery } from '../../core/sceneIK';

const DEG = Math.PI / 180;
const DT = 1 / 60;

/** Sole points (world) of both legs after the last frame. */
function soles(rig: BipedRig): number[][] {
  return sceneDiagnostics(rig.world, rig.ik).contacts.map((c) => [...c.soleWs]);
}

/** Transform a world point into a support's local frame. */
function toLocal(m: mat4, p: ArrayLike<number>): number[] {
  const inv = mat4.invert(mat4.create(), m)!;
  const o = vec3.transformMat4(vec3.create(), p as unknown as vec3, inv);
  return [o[0]!, o[1]!, o[2]!];
}

describe('sole calibration', () => {
  test('the code rig calibrates both soles from skin: sole plane at the box bottom (y = 0, 1e-9) mid-foot, normal up (1e-9)', () => {
    const rig = makeBiped();
    expect(rig.ik.legs.map((l) => l.sole)).toEqual(['skin', 'skin']);
    rig.frame(DT, { feet: [0, 0] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    for (const c of d.contacts) {
      expect(Math.abs(c.soleWs[1])).toBeLessThan(1e-9);
      // centroid of the sole grid, not a corner: between heel (z −0.06) and toe (0.18)
      expect(c.soleWs[2]).toBeGreaterThan(0);
      expect(c.soleWs[2]).toBeLessThan(0.12);
      expect(vecAngle(c.soleNormalWs, [0, 1, 0])).toBeLessThan(1e-9);
    }
  });

  test('tail-dominated skin never counts: a Tail bone under the foot with skin 5 cm below the sole leaves the calibration unchanged (1e-9)', () => {
    const plain = makeBiped();
    const tailed = makeBiped({ tailUnderFoot: true });
    expect(tailed.ik.legs[0]!.sole).toBe('skin');
    const Fa = plain.world.components.FootContact, Fb = tailed.world.components.FootContact;
    const ea = plain.ik.legs[0]!.eid, eb = tailed.ik.legs[0]!.eid;
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(Fa.soleLs[ea * 3 + k]! - Fb.soleLs[eb * 3 + k]!)).toBeLessThan(1e-9);
      expect(Math.abs(Fa.soleNormalLs[ea * 3 + k]! - Fb.soleNormalLs[eb * 3 + k]!)).toBeLessThan(1e-9);
    }
  });

  test('fitSolePlane fits the sole, not the lowest toe vertex', () => {
    // A flat sole at y = 0 (grid) tilted 5° about x, plus one toe vertex 2 cm lower at the tip.
    const pts: number[] = [];
    const tilt = 5 * DEG;
    for (let i = 0; i <= 10; i++) for (let j = 0; j <= 4; j++) {
      const u = -0.1 + 0.02 * i, x = -0.04 + 0.02 * j;
      pts.push(x, Math.sin(tilt) * u, Math.cos(tilt) * u, x, Math.sin(tilt) * u + 0.1, Math.cos(tilt) * u);
    }
    pts.push(0, -0.02, 0.12); // a toe tip poking 2 cm below the sole
    const plane = fitSolePlane(pts, [0, 1, 0])!;
    expect(plane).not.toBeNull();
    const expectedN = [0, Math.cos(tilt), -Math.sin(tilt)];
    expect(vecAngle(plane.normal, expectedN)).toBeLessThan(0.01 * DEG);
    // the support point is under the middle of the sole (the toe tip is an outlier that
    // only lowers the plane, it does not pull the point to the toe): within 2 cm of z = 0
    expect(Math.abs(plane.point[2])).toBeLessThan(0.02);
    expect(plane.count).toBeGreaterThanOrEqual(40);
  });

  test('without a skin the sole is the ankle projected onto the lowest foot joint, and diagnostics say so', () => {
    const rig = makeBiped({ withSkin: false });
    expect(rig.ik.legs.map((l) => l.sole)).toEqual(['ankle-projected', 'ankle-projected']);
    expect(rig.ik.problems.some((p) => /ankle projected/.test(p))).toBe(true);
    rig.frame(DT, { feet: [0, 0] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.contacts.map((c) => c.sole)).toEqual(['ankle-projected', 'ankle-projected']);
    // ankle (0.1, 0.1, 0) projected to the toe joint's height (0.03)
    expect(Math.abs(d.contacts[0]!.soleWs[1] - 0.03)).toBeLessThan(1e-9);
    expect(Math.abs(d.contacts[0]!.soleWs[2])).toBeLessThan(1e-9);
  });
});

describe('static floor', () => {
  test('planted feet stay put while the body sways and bobs for 5 s: slip < 1 mm (observed ~1e-12 m)', () => {
    const rig = makeBiped();
    rig.frame(DT, { feet: [1, 1] });
    const start = soles(rig);
    let worst = 0;
    for (let f = 1; f <= 300; f++) {
      const t = f * DT;
      mat4.fromRotationTranslation(rig.root, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.15 * Math.sin(t * 1.3)),
        [0.08 * Math.sin(t * 2), 0.03 * Math.sin(t * 5), 0.06 * Math.sin(t * 1.7)]);
      rig.frame(DT);
      const now = soles(rig);
      for (let k = 0; k < 2; k++) worst = Math.max(worst, dist(now[k]!, start[k]!));
    }
    expect(worst).toBeLessThan(1e-3);
  });
});

/** A platform support: ground at its top (local y = 0), everywhere. */
function platformGround(world: BipedRig['world'], eid: number, m: mat4): GroundQuery {
  return (p, out: GroundHit) => {
    const x = p[0]!, z = p[2]!;
    // plane through the platform's origin with its up axis
    const n = vec3.transformQuat(vec3.create(), [0, 1, 0], mat4.getRotation(quat.create(), m));
    const o = mat4.getTranslation(vec3.create(), m);
    // n · (p − o) = 0 → y = o.y − (n.x (x − o.x) + n.z (z − o.z)) / n.y
    out.height = o[1]! - (n[0]! * (x - o[0]!) + n[2]! * (z - o[2]!)) / n[1]!;
    out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!;
    out.support = eid;
    void world;
    return true;
  };
}

describe('moving platforms', () => {
  test('translating platform (0.6 m/s, bobbing), 5 s: slip relative to the support < 1 mm', () => {
    const rig = makeBiped();
    const sup = addSupport(rig.world);
    const pm = mat4.create();
    const ground = platformGround(rig.world, sup, pm);
    let locals: number[][] | null = null;
    let worst = 0;
    for (let f = 0; f <= 300; f++) {
      const t = f * DT;
      mat4.fromTranslation(pm, [0.6 * t, 0.1 * Math.sin(t * 3), 0.2 * Math.sin(t)]);
      setSupportFrame(rig.world, sup, pm);
      // the game carries the character with the platform, with some body sway of its own
      mat4.multiply(rig.root, pm, mat4.fromTranslation(mat4.create(), [0.04 * Math.sin(t * 2.2), 0.02 * Math.sin(t * 4), 0]));
      rig.frame(DT, { feet: [1, 1], ground });
      const now = soles(rig).map((p) => toLocal(pm, p));
      if (!locals) locals = now;
      for (let k = 0; k < 2; k++) worst = Math.max(worst, dist(now[k]!, locals[k]!));
    }
    expect(worst).toBeLessThan(1e-3);
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.contacts.every((c) => c.locked && c.support === sup)).toBe(true);
  });

  test('rotating platform (turntable 0.8 rad/s, character 1 m off-centre), 5 s: slip relative to the support < 1 mm, soles turn with it', () => {
    const rig = makeBiped();
    const sup = addSupport(rig.world);
    const pm = mat4.create();
    const ground = platformGround(rig.world, sup, pm);
    let locals: number[][] | null = null;
    let worst = 0;
    let worstTurn = 0;
    for (let f = 0; f <= 300; f++) {
      const t = f * DT;
      mat4.fromRotationTranslation(pm, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.8 * t), [2, 0.3, -1]);
      setSupportFrame(rig.world, sup, pm);
      // carried around, but the body's own yaw lags the platform's by up to 0.1 rad
      const carry = mat4.fromRotationTranslation(mat4.create(), quat.setAxisAngle(quat.create(), [0, 1, 0], -0.1 * Math.sin(t)), [1, 0, 0]);
      mat4.multiply(rig.root, pm, carry);
      rig.frame(DT, { feet: [1, 1], ground });
      const now = soles(rig).map((p) => toLocal(pm, p));
      if (!locals) locals = now;
      for (let k = 0; k < 2; k++) worst = Math.max(worst, dist(now[k]!, locals[k]!));
      // the foot's yaw follows the platform: foot orientation in platform space constant
      const fr = mat4.getRotation(quat.create(), pm);
      const footRel = quat.multiply(quat.create(), quat.invert(quat.create(), fr), rig.rot('LeftFoot'));
      if (f === 0) (rig as unknown as { _r0: quat })._r0 = footRel;
      const r0 = (rig as unknown as { _r0: quat })._r0;
      worstTurn = Math.max(worstTurn, 2 * Math.acos(Math.min(1, Math.abs(quat.dot(r0, footRel)))));
    }
    expect(worst).toBeLessThan(1e-3);
    expect(worstTurn).toBeLessThan(0.01 * DEG);
  });
});

describe('slope', () => {
  for (const [axis, slopeDir] of [['x (across the feet)', [1, 0]], ['z (along the feet)', [0, 1]]] as const) {
    test(`15° slope along ${axis}: planted soles within 1 mm of the surface, sole normal within 2° of the slope's`, () => {
      const rig = makeBiped();
      const k = Math.tan(15 * DEG);
      const n = vec3.normalize(vec3.create(), [-k * slopeDir[0], 1, -k * slopeDir[1]]);
      const ground: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!;
        out.height = k * (x * slopeDir[0] + z * slopeDir[1]);
        out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!;
        out.support = -1;
        return true;
      };
      let worstGap = 0, worstAngle = 0;
      for (let f = 0; f < 120; f++) {
        // the body moves a little along the slope; the root stays at the ground height under it
        const x = 0.03 * Math.sin(f * DT * 2);
        mat4.fromTranslation(rig.root, [x, k * x * slopeDir[0], 0]);
        rig.frame(DT, { feet: [1, 1], ground });
        const d = sceneDiagnostics(rig.world, rig.ik);
        for (const c of d.contacts) {
          worstGap = Math.max(worstGap, Math.abs(c.gapWs) * n[1]!);
          worstAngle = Math.max(worstAngle, vecAngle(c.soleNormalWs, n));
          expect(c.reached).toBe(true);
        }
        for (let i = 0; i < 2; i++) expect(d.pelvis.band[0]).toBeLessThanOrEqual(d.pelvis.offsetWs[1] + 1e-12);
      }
      expect(worstGap).toBeLessThan(1e-3);
      expect(worstAngle).toBeLessThan(2 * DEG);
    });
  }
});

describe('maximum sole tilt', () => {
  test('maxTilt 0, 0.1 and 0.2 rad on a 0.3 rad slope, in freshly loaded modules (as a worker thread loads them): the sole turns from its animated orientation (up) by exactly that much toward the slope (1e-9 rad), the very first character processed too', async () => {
    // (the foot lock memoises cos(maxTilt / 2); a memo that started at [0, 0] read maxTilt 0 as
    // already computed, with cos 0 → no limit, for the first characters after loading)
    vi.resetModules();
    const fresh = await import('./rig');
    const { sceneDiagnostics: diagnostics } = await import('../../core/sceneIK');
    const { createBitrigWorld: newWorld } = await import('../../runtime/world');
    const slope = 0.3;
    const n = [-Math.sin(slope), Math.cos(slope), 0];
    const ground: GroundQuery = (p, out) => { out.height = Math.tan(slope) * p[0]!; out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!; out.support = -1; return true; };
    const tilts = [0, 0.1, 0, 0.2];
    const world = newWorld();
    const rigs = tilts.map((maxTilt) => fresh.makeBiped({ world, ik: { maxTilt } }));
    for (let f = 0; f < 5; f++) for (const rig of rigs) rig.frame(DT, { feet: [1, 1], ground });
    for (const [i, rig] of rigs.entries()) {
      for (const c of diagnostics(rig.world, rig.ik).contacts) expect(Math.acos(Math.min(1, c.soleNormalWs[1]!)), `character ${i}, maxTilt ${tilts[i]}`).toBeCloseTo(tilts[i]!, 9);
    }
  });
});

describe('stance and release', () => {
  test('a contact is recorded at the lock threshold and the foot blends back to the animation when the stance weight returns to 0', () => {
    const rig = makeBiped();
    // Hold the left foot, then move the body 5 cm and release over 0.5 s.
    rig.frame(DT, { feet: [1, 1] });
    const planted = soles(rig)[0]!;
    mat4.fromTranslation(rig.root, [0.05, 0, 0.03]);
    let prev = planted;
    let maxStep = 0;
    for (let f = 1; f <= 30; f++) {
      const w = 1 - f / 30;
      rig.frame(DT, { feet: [w, 1] });
      const now = soles(rig)[0]!;
      maxStep = Math.max(maxStep, dist(now, prev));
      prev = now;
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.contacts[0]!.locked).toBe(w > 0);
    }
    // released: the sole is where the animation (moved with the body) puts it, 1e-9 m
    const animated = [planted[0]! + 0.05, planted[1]!, planted[2]! + 0.03];
    expect(dist(prev, animated)).toBeLessThan(1e-9);
    // no jump: the 5.8 cm blend spreads over 30 frames (≤ 2.5 mm per frame)
    expect(maxStep).toBeLessThan(2.5e-3);
  });

  test('the ground query gets the whole sole point (x, y, z): a character 5 m up is asked about its own height (1e-9 m)', () => {
    const rig = makeBiped();
    mat4.fromTranslation(rig.root, [0.3, 5, -0.2]); // standing on a roof
    const asked: number[][] = [];
    const ground: GroundQuery = (p, out) => { asked.push([p[0]!, p[1]!, p[2]!]); out.height = 5; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1; return true; };
    rig.frame(DT, { feet: [1, 1], ground });
    expect(asked.length).toBeGreaterThanOrEqual(2);
    const pose = rig.world.pose;
    // the first two calls are the two feet, asked at their animated soles (flat at the root's y)
    for (const [i, name] of [[0, 'LeftFoot'], [1, 'RightFoot']] as const) {
      const s = rig.slot(name) * 16;
      expect(Math.abs(asked[i]![0]! - pose.worldM[s + 12]!)).toBeLessThan(0.2); // under that foot
      expect(Math.abs(asked[i]![1]! - 5)).toBeLessThan(1e-9); // sole at the root's height, not 0
    }
  });

  test('grounded false fades scene IK out: the pose returns to exactly the animation', () => {
    const rig = makeBiped();
    const k = Math.tan(15 * DEG);
    const ground: GroundQuery = (p, out) => { const x = p[0]!; out.height = k * x; out.normal[0] = -k; out.normal[1] = 1; out.normal[2] = 0; out.support = -1; return true; };
    rig.frame(DT, { feet: [1, 1], ground });
    for (let f = 0; f < 200; f++) rig.frame(DT, { feet: [1, 1], ground, grounded: false });
    const pose = rig.world.pose;
    for (const name of ['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot']) {
      const s = rig.slot(name);
      const r = rig.rest[rig.names.indexOf(name)]!;
      for (let j = 0; j < 4; j++) expect(pose.localR[s * 4 + j]).toBe(r.r[j]);
      for (let j = 0; j < 3; j++) expect(pose.localT[s * 3 + j]).toBe(r.t[j]);
    }
  });
});

describe('support rows', () => {
  test('feet standing, unlocked, on a support that is removed no longer report it (its id may be reused)', () => {
    const rig = makeBiped();
    const sup = addSupport(rig.world);
    const pm = mat4.fromTranslation(mat4.create(), [0, 0.01, 0]);
    setSupportFrame(rig.world, sup, pm);
    rig.frame(DT, { feet: [0, 0], ground: platformGround(rig.world, sup, pm) });
    const F = rig.world.components.FootContact;
    const legs = rig.ik.legs.map((l) => l.eid);
    expect(legs.every((e) => F.locked[e] === 0 && F.groundSupport[e] === sup)).toBe(true);
    expect(sceneDiagnostics(rig.world, rig.ik).contacts.every((c) => c.support === sup)).toBe(true);
    removeSupport(rig.world, sup);
    expect(legs.every((e) => F.groundSupport[e] === -1)).toBe(true);
    expect(sceneDiagnostics(rig.world, rig.ik).contacts.every((c) => c.support === -1)).toBe(true);
  });

  for (const mirror of [false, true]) {
    test(`removing a ${mirror ? 'mirrored (scale −1.3, 1.3, 1.3), ' : ''}turning, tilted support under planted feet: their contact point, ground normal, target position and orientation stay exactly as they were (1e-12), feet still locked, now to no support`, () => {
      const rig = makeBiped();
      const w = rig.world;
      const sup = addSupport(w);
      const pm = mat4.create();
      const n = vec3.normalize(vec3.create(), [0.15, 1, -0.1]);
      const ground: GroundQuery = (p, out: GroundHit) => {
        const o = mat4.getTranslation(vec3.create(), pm);
        out.height = o[1]! - (n[0]! * (p[0]! - o[0]!) + n[2]! * (p[2]! - o[2]!)) / n[1]!;
        out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!;
        out.support = sup;
        return true;
      };
      const place = (t: number): void => {
        mat4.fromRotationTranslation(pm, quat.setAxisAngle(quat.create(), vec3.normalize(vec3.create(), [0.2, 1, 0.3]), 0.7 * t), [0.5 * t, 0.1, 0.2 * t]);
        if (mirror) mat4.scale(pm, pm, [-1.3, 1.3, 1.3]);
        setSupportFrame(w, sup, pm);
      };
      for (let f = 0; f <= 40; f++) {
        place(f * DT);
        mat4.copy(rig.root, pm);
        if (mirror) mat4.scale(rig.root, rig.root, [-1 / 1.3, 1 / 1.3, 1 / 1.3]);
        rig.frame(DT, { feet: [1, 1], ground });
      }
      place(50 * DT); // the support turns on under the locked feet
      rig.frame(DT, { feet: [1, 1], ground });
      const F = w.components.FootContact, L = w.components.Limb;
      const legs = rig.ik.legs.map((l) => l.eid);
      const snap = (): number[][] => legs.map((e) => [
        ...F.contactWs.subarray(e * 3, e * 3 + 3), ...F.normalWs.subarray(e * 3, e * 3 + 3),
        ...L.targetRotWs.subarray(e * 4, e * 4 + 4), ...L.targetWs.subarray(e * 3, e * 3 + 3),
      ]);
      const before = snap();
      expect(legs.every((e) => F.locked[e] === 1 && F.support[e] === sup)).toBe(true);
      removeSupport(w, sup);
      const other = addSupport(w); // (may take the freed id and row)
      setSupportFrame(w, other, mat4.fromTranslation(mat4.create(), [5, 1, -3]));
      rig.frame(DT, { feet: [1, 1], ground });
      const after = snap();
      let worst = 0;
      for (const [i, row] of before.entries()) for (const [j, v] of row.entries()) worst = Math.max(worst, Math.abs(v - after[i]![j]!));
      expect(worst).toBeLessThan(1e-12);
      expect(legs.every((e) => F.locked[e] === 1 && F.support[e] === -1)).toBe(true);
    });
  }

  test('support frames are sized by supports, not entities: 40 supports grow the rows (16 → 64), each keeps its own frame; other entities, also ones added after an entity growth, are no support (row −1); a released row is reused', () => {
    const rig = makeBiped({ world: createBitrigWorld({ entities: 8, bones: 64 }) });
    const w = rig.world;
    const S = () => w.components.SupportFrame;
    const cap0 = w.capacity;
    expect(S().matrixWs.length).toBe(16 * 16); // 16 rows, whatever the entity capacity
    const ids: number[] = [];
    for (let k = 0; k < 40; k++) {
      const id = addSupport(w);
      ids.push(id);
      setSupportFrame(w, id, mat4.fromTranslation(mat4.create(), [k, 2 * k, -k]));
    }
    expect(w.supportRows.capacity).toBe(64);
    expect(w.capacity).toBeGreaterThan(cap0); // the entity arrays grew too
    expect(S().matrixWs.length).toBe(64 * 16);
    for (const [k, id] of ids.entries()) {
      const r = S().row[id]!;
      expect(Array.from(S().matrixWs.subarray(r * 16 + 12, r * 16 + 15))).toEqual([k, 2 * k, -k]);
    }
    expect(new Set(ids.map((id) => S().row[id])).size).toBe(40);
    // the rig's own entities (character, limbs) and every entity past the supports are no support
    for (let e = 0; e < w.capacity; e++) if (!ids.includes(e)) expect(S().row[e], `entity ${e}`).toBe(-1);
    const freed = S().row[ids[7]!]!;
    removeSupport(w, ids[7]!);
    expect(S().row[ids[7]!]).toBe(-1);
    setSupportFrame(w, ids[7]!, mat4.create()); // (ignored: no longer a support)
    const again = addSupport(w);
    expect(S().row[again]).toBe(freed);
    expect(Array.from(S().matrixWs.subarray(freed * 16, freed * 16 + 16))).toEqual(Array.from(mat4.create())); // reset to identity
  });

  test('removing the platform under planted feet: they keep its last frame until they lift (soles still within 1e-9 m for 1 s), a new support reusing its row does not move them', () => {
    const rig = makeBiped();
    const sup = addSupport(rig.world);
    const pm = mat4.create();
    const ground = platformGround(rig.world, sup, pm);
    for (let f = 0; f <= 60; f++) {
      const t = f * DT;
      mat4.fromRotationTranslation(pm, quat.setAxisAngle(quat.create(), [0, 1, 0], 0.5 * t), [0.6 * t, 0.1, 0]);
      setSupportFrame(rig.world, sup, pm);
      mat4.copy(rig.root, pm);
      rig.frame(DT, { feet: [1, 1], ground });
    }
    const planted = soles(rig);
    const row = rig.world.components.SupportFrame.row[sup]!;
    removeSupport(rig.world, sup);
    const d0 = sceneDiagnostics(rig.world, rig.ik);
    expect(d0.contacts.every((c) => c.locked && c.support === -1)).toBe(true);
    const other = addSupport(rig.world);
    expect(rig.world.components.SupportFrame.row[other]).toBe(row);
    setSupportFrame(rig.world, other, mat4.fromTranslation(mat4.create(), [5, 1, -3]));
    let worst = 0;
    for (let f = 0; f < 60; f++) {
      // the body keeps moving a little; the feet stay planted where the platform left them
      mat4.multiply(rig.root, pm, mat4.fromTranslation(mat4.create(), [0.03 * Math.sin(f * 0.2), 0, 0]));
      rig.frame(DT, { feet: [1, 1] });
      const now = soles(rig);
      for (let k = 0; k < 2; k++) worst = Math.max(worst, dist(now[k]!, planted[k]!));
    }
    expect(worst).toBeLessThan(1e-9);
  });
});
