/**
 * Pelvis band and balance: the pelvis moves inside the band from which every planted
 * leg reaches its target, smoothing never crosses the band (the seed's floating foot on a
 * slope), centre of mass from body segments and held loads (tail never counts).
 */
import { describe, expect, test } from 'vitest';
import { mat4, vec3 } from 'gl-matrix';
import { makeBiped, dist } from './rig';
import { addSupport, computeCenterOfMass, sceneDiagnostics, setSupportFrame, type GroundQuery } from '../../core/sceneIK';

const DT = 1 / 60;

describe('pelvis band', () => {
  test('the band is the analytic reach interval of the planted legs (1e-9 m)', () => {
    const rig = makeBiped({ ik: { soften: 0 } });
    // lower the left floor by 6 cm under a planted left foot
    const ground: GroundQuery = (p, out) => { const x = p[0]!; out.height = x > 0 ? -0.06 : 0; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1; return true; };
    rig.frame(DT, { feet: [1, 1], ground });
    const d = sceneDiagnostics(rig.world, rig.ik);
    const L = rig.world.components.Limb;
    // recompute: hips before the offset = after − offset; R = upper + lower (soften 0)
    let hi = Infinity, lo = -Infinity;
    for (const lh of rig.ik.legs) {
      const [r, m, e] = lh.bones;
      const a = rig.pos(r).map((v, k) => (k === 1 ? v - d.pelvis.offsetWs[1] : v));
      const R = dist(rig.pos(r), rig.pos(m)) + dist(rig.pos(m), rig.pos(e));
      const t = [L.targetWs[lh.eid * 3]!, L.targetWs[lh.eid * 3 + 1]!, L.targetWs[lh.eid * 3 + 2]!];
      const dx = a[0]! - t[0]!, dy = a[1]! - t[1]!, dz = a[2]! - t[2]!;
      const sq = Math.sqrt(R * R - dx * dx - dz * dz);
      hi = Math.min(hi, -dy + sq);
      lo = Math.max(lo, -dy - sq);
    }
    expect(Math.abs(d.pelvis.band[1] - hi)).toBeLessThan(1e-9);
    expect(Math.abs(d.pelvis.band[0] - Math.max(lo, -0.45 * 0.8022))).toBeLessThan(1e-3);
    expect(d.pelvis.offsetWs[1]).toBeLessThan(0);
    expect(Math.abs(d.pelvis.offsetWs[1] - hi)).toBeLessThan(1e-9); // clamped to the top of the band
    expect(d.contacts.every((c) => c.reached && Math.abs(c.gapWs) < 1e-6)).toBe(true);
  });

  test('a planted foot on a sinking platform: the pelvis never leaves its band and no planted foot floats > 1 mm, although plain smoothing would have left the band', () => {
    const rig = makeBiped({ ik: { pelvisRate: 3 } });
    const sup = addSupport(rig.world);
    const pm = mat4.create();
    // right foot on the platform, left foot on the static floor
    const ground: GroundQuery = (p, out) => { const x = p[0]!;
      const onPlatform = x < 0;
      out.height = onPlatform ? pm[13]! : 0;
      out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0;
      out.support = onPlatform ? sup : -1;
      return true;
    };
    let naive = 0;
    let naiveLeft = false;
    let worstFloat = 0, worstBand = 0;
    for (let f = 0; f < 360; f++) {
      const t = f * DT;
      // sinks 22 cm in 0.5 s, holds, rises back
      const depth = t < 0.5 ? 0.22 * (t / 0.5) : t < 3 ? 0.22 : Math.max(0, 0.22 * (1 - (t - 3) / 0.5));
      mat4.fromTranslation(pm, [0, -depth, 0]);
      setSupportFrame(rig.world, sup, pm);
      rig.frame(DT, { feet: [1, 1], ground });
      const d = sceneDiagnostics(rig.world, rig.ik);
      const y = d.pelvis.offsetWs[1];
      worstBand = Math.max(worstBand, d.pelvis.band[0] - y, y - d.pelvis.band[1]);
      for (const c of d.contacts) worstFloat = Math.max(worstFloat, c.gapWs);
      // plain exponential smoothing of the same desired height, without the band clamp
      const desired = Math.min(Math.max(0, d.pelvis.band[0]), d.pelvis.band[1]);
      naive = f === 0 ? desired : naive + (desired - naive) * (1 - Math.exp(-3 * DT));
      if (naive > d.pelvis.band[1] + 1e-3 || naive < d.pelvis.band[0] - 1e-3) naiveLeft = true;
    }
    expect(naiveLeft).toBe(true); // the scenario is sharp enough to catch smoothing across the limit
    expect(worstBand).toBeLessThanOrEqual(1e-12);
    expect(worstFloat).toBeLessThan(1e-3);
  });

  test('stepping down: a foot planted 12 cm lower while the other stays; planted feet never float > 1 mm, pelvis stays in band', () => {
    const rig = makeBiped({ ik: { pelvisRate: 6 } });
    const ground: GroundQuery = (p, out) => { const x = p[0]!; out.height = x < 0 ? -0.12 : 0; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1; return true; };
    let worstFloat = 0, worstBand = 0;
    for (let f = 0; f < 120; f++) {
      const w = Math.min(1, f / 40); // the right foot comes down over 2/3 s
      rig.frame(DT, { feet: [1, w], ground });
      const d = sceneDiagnostics(rig.world, rig.ik);
      worstBand = Math.max(worstBand, d.pelvis.band[0] - d.pelvis.offsetWs[1], d.pelvis.offsetWs[1] - d.pelvis.band[1]);
      for (const c of d.contacts) if (c.stance >= 1) worstFloat = Math.max(worstFloat, c.gapWs);
    }
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.contacts[1]!.locked).toBe(true);
    expect(Math.abs(d.contacts[1]!.gapWs)).toBeLessThan(1e-3);
    expect(worstFloat).toBeLessThan(1e-3);
    expect(worstBand).toBeLessThanOrEqual(1e-12);
  });

  test('no planted leg: the band is the drop/raise limits and the pelvis returns to the animated height', () => {
    const rig = makeBiped();
    for (let f = 0; f < 240; f++) rig.frame(DT, { feet: [0, 0] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.pelvis.legs).toBe(0);
    expect(d.pelvis.band[0]).toBeLessThan(0);
    expect(d.pelvis.band[1]).toBeGreaterThan(0);
    expect(d.pelvis.offsetWs[1]).toBe(0);
  });

  test('a target no pelvis height can reach is reported as infeasible; the other leg keeps the band', () => {
    const rig = makeBiped();
    rig.frame(DT, { feet: [1, 1] });
    // walk the body 1.5 m away sideways: the left foot's lock is out of reach
    mat4.fromTranslation(rig.root, [-1.5, 0, 0]);
    rig.frame(DT, { feet: [1, 0.5] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.pelvis.infeasibleLegs).toBe(1);
    expect(d.contacts[0]!.reached).toBe(false);
    expect(d.repositionNeeded).toBe(true);
    expect(d.pelvis.offsetWs[1]).toBeGreaterThanOrEqual(d.pelvis.band[0]);
    expect(d.pelvis.offsetWs[1]).toBeLessThanOrEqual(d.pelvis.band[1]);
  });
});

describe('planted feet the band cannot serve together (among equal stances the interval nearest the animated height wins)', () => {
  for (const pit of ['left', 'right'] as const) {
    test(`both feet planted, a 3 m drop under the ${pit} foot only: the body keeps its height (offset 0, 1e-9 m) and that foot dangles (not reached), the other stays on its ground (gap 1e-6 m); mirror images give mirror results; a reposition is asked for`, () => {
      const rig = makeBiped();
      const ground: GroundQuery = (p, out) => {
        const over = pit === 'left' ? p[0]! > 0 : p[0]! < 0;
        out.height = over ? -3 : 0; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1;
        return true;
      };
      for (let f = 0; f < 30; f++) rig.frame(DT, { feet: [1, 1], ground });
      const d = sceneDiagnostics(rig.world, rig.ik);
      const over = pit === 'left' ? 0 : 1, safe = 1 - over;
      expect(Math.abs(d.pelvis.offsetWs[1])).toBeLessThan(1e-9);
      expect(d.pelvis.infeasibleLegs).toBe(1);
      expect(d.contacts[over]!.reached).toBe(false);
      expect(d.contacts[over]!.gapWs).toBeGreaterThan(2.5);
      expect(d.contacts[safe]!.reached).toBe(true);
      expect(Math.abs(d.contacts[safe]!.gapWs)).toBeLessThan(1e-6);
      expect(d.repositionNeeded).toBe(true);
    });
  }

  test('both feet planted, a 2 m block under one foot only: the body keeps its height (1e-9 m) and that foot misses (not reached), the other stays on the floor (1e-6 m), whichever foot it is', () => {
    for (const side of [0, 1]) {
      const rig = makeBiped();
      const ground: GroundQuery = (p, out) => {
        const on = side === 0 ? p[0]! > 0 : p[0]! < 0;
        out.height = on ? 2 : 0; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1;
        return true;
      };
      for (let f = 0; f < 30; f++) rig.frame(DT, { feet: [1, 1], ground });
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(Math.abs(d.pelvis.offsetWs[1]), `block under foot ${side}`).toBeLessThan(1e-9);
      expect(d.contacts[side]!.reached).toBe(false);
      expect(d.contacts[1 - side]!.reached).toBe(true);
      expect(Math.abs(d.contacts[1 - side]!.gapWs)).toBeLessThan(1e-6);
      expect(d.repositionNeeded).toBe(true);
    }
  });

  test('ground 10 m under both planted feet: the feet win over maxDrop (they reach it), and diagnostics say the pelvis is beyond its limits and ask for a reposition; on a 15° slope they do not', () => {
    const rig = makeBiped();
    const deep: GroundQuery = (_p, out) => { out.height = -10; out.normal[0] = 0; out.normal[1] = 1; out.normal[2] = 0; out.support = -1; return true; };
    for (let f = 0; f < 30; f++) rig.frame(DT, { feet: [1, 1], ground: deep });
    const d = sceneDiagnostics(rig.world, rig.ik);
    expect(d.contacts.every((c) => c.reached)).toBe(true);
    expect(d.pelvis.offsetWs[1]).toBeLessThan(-9);
    expect(d.pelvis.beyondLimits).toBe(true);
    expect(d.repositionNeeded).toBe(true);
    const slope = makeBiped();
    const k = Math.tan(15 * Math.PI / 180), n = vec3.normalize(vec3.create(), [-k, 1, 0]);
    const sloped: GroundQuery = (p, out) => { out.height = k * p[0]!; out.normal[0] = n[0]!; out.normal[1] = n[1]!; out.normal[2] = n[2]!; out.support = -1; return true; };
    for (let f = 0; f < 30; f++) slope.frame(DT, { feet: [1, 1], ground: sloped });
    const ds = sceneDiagnostics(slope.world, slope.ik);
    expect(ds.pelvis.offsetWs[1]).toBeLessThan(0);
    expect(ds.pelvis.beyondLimits).toBe(false);
    expect(ds.repositionNeeded).toBe(false);
  });
});

describe('centre of mass and balance', () => {
  test('tail bones never count: the COM of a rig with a tail equals the COM without (1e-12 m)', () => {
    const a = makeBiped();
    const b = makeBiped({ withTail: true });
    a.frame(DT, { feet: [1, 1] });
    b.frame(DT, { feet: [1, 1] });
    const ca = sceneDiagnostics(a.world, a.ik).comWs, cb = sceneDiagnostics(b.world, b.ik).comWs;
    expect(dist(ca, cb)).toBeLessThan(1e-12);
    // and the COM sits near the pelvis height, between the feet
    expect(ca[1]).toBeGreaterThan(0.8);
    expect(ca[1]).toBeLessThan(1.2);
    expect(Math.abs(ca[0])).toBeLessThan(1e-6); // symmetric rig; bind data pass through float32 scratch in the pose store
  });

  test('a held load shifts the COM toward the hand by load/(body + load) of the distance (1e-9 m)', () => {
    const rig = makeBiped({ ik: { bodyMass: 70, balance: 0 } });
    rig.frame(DT, { feet: [1, 1] });
    const c0 = [...sceneDiagnostics(rig.world, rig.ik).comWs];
    const hand = rig.pos('LeftHand');
    rig.frame(DT, { hands: [{ position: hand, weight: 0, rotationWeight: 0, grip: { position: [0, 0, 0], rotation: [0, 0, 0, 1] }, mass: 7 }, null] });
    const d = sceneDiagnostics(rig.world, rig.ik);
    const obj = d.hands[0]!.objectPosWs;
    const expected = [0, 1, 2].map((k) => c0[k]! + (7 / 77) * (obj[k]! - c0[k]!));
    const out = new Float64Array(3);
    computeCenterOfMass(rig.world, rig.ik.eid, out, 0);
    expect(dist(out, expected)).toBeLessThan(1e-9);
  });

  test('balance moves the pelvis so the COM comes over the supporting feet (horizontal distance shrinks)', () => {
    const run = (balance: number): number => {
      const rig = makeBiped({ ik: { balance, balanceMaxShift: 0.3 } });
      const load = { position: [0.6, 1.4, 0.3], weight: 0, rotationWeight: 0, grip: { position: [0, 0, 0], rotation: [0, 0, 0, 1] }, mass: 20 };
      for (let f = 0; f < 180; f++) rig.frame(DT, { feet: [1, 1], hands: [load, null] });
      const d = sceneDiagnostics(rig.world, rig.ik);
      expect(d.contacts.every((c) => c.reached)).toBe(true);
      return Math.hypot(d.comWs[0] - d.supportWs[0], d.comWs[2] - d.supportWs[2]);
    };
    const off = run(0), on = run(1);
    expect(on).toBeLessThan(off * 0.5);
    void vec3;
  });
});
