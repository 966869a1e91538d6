/**
 * Real files: the walk clips of threejs-xbot, threejs-soldier and
 * khronos-fox (four legs), played by three's AnimationMixer through the three.js animator with
 * scene IK, over a 15° slope and on a moving platform. The stance weights are what a game
 * would derive from the clip (each foot's height over one cycle); the body moves at the
 * clip's stance speed. Same numbers as the code rig: planted soles within 1 mm of the surface
 * and 2° of its normal, slip relative to the support < 1 mm, pelvis inside its band.
 * The Mixamo characters skip with a printed reason when ../shared/assets lacks them.
 */
import { describe, expect, test } from 'vitest';
import { AnimationMixer, Matrix4, Quaternion, Vector3, type AnimationClip, type Object3D } from 'three';
import { hasAsset, assetPath, warnIfNoAssets, type AssetName } from '../fixtures/assets';
import { loadGlbFileThree } from '../helpers/loadThree';
import { createAnimator, type Animator } from '../../adapters/three/animator';
import { addSupport, setSupportFrame, type GroundQuery } from '../../core/sceneIK';

const DT = 1 / 60;
const DEG = Math.PI / 180;

interface Loaded { scene: Object3D; clip: AnimationClip; mixer: AnimationMixer; animator: Animator; us: number }

async function load(asset: AssetName, clipName: string): Promise<Loaded> {
  const gltf = await loadGlbFileThree(assetPath(asset));
  const clip = gltf.animations.find((a) => a.name.toLowerCase() === clipName.toLowerCase())!;
  const mixer = new AnimationMixer(gltf.scene);
  mixer.clipAction(clip).play();
  mixer.update(0); // pose the clip's first frame (the bones hold the bind pose until then)
  const animator = createAnimator(gltf.scene, { mixer, sceneIK: true });
  return { scene: gltf.scene, clip, mixer, animator, us: animator.diagnostics().unitScale };
}

/** Stance timing from the clip: per leg, stance weight vs time, the travel direction and speed. */
interface Gait { weights: (t: number) => number[]; dir: Vector3; speed: number; legs: number }

function gaitOf(l: Loaded): Gait {
  const { animator, clip } = l;
  const n = animator.sceneIK!.legs.length;
  const T = clip.duration;
  const N = Math.max(40, Math.round(T * 120));
  const soles: number[][][] = [];
  // The animator owns the mixer: sample one cycle by stepping it (scene IK off: grounded false).
  animator.update(0, { grounded: false, feet: new Array(n).fill(0) });
  for (let i = 0; i < N; i++) {
    soles.push(animator.diagnostics().scene!.contacts.map((c) => [...c.soleWs]));
    animator.update(T / N, { grounded: false });
  }
  const lo: number[] = [], hi: number[] = [];
  for (let k = 0; k < n; k++) {
    lo.push(Math.min(...soles.map((s) => s[k]![1]!)));
    hi.push(Math.max(...soles.map((s) => s[k]![1]!)));
  }
  const w = (k: number, i: number): number => {
    const h = (soles[i % N]![k]![1]! - lo[k]!) / Math.max(1e-9, hi[k]! - lo[k]!);
    return Math.min(1, Math.max(0, (0.3 - h) / 0.2)); // 1 below 10 % of the lift, 0 above 30 %
  };
  // Travel: minus the mean horizontal velocity of fully planted feet.
  const v = new Vector3();
  let cnt = 0;
  for (let i = 0; i < N; i++) {
    for (let k = 0; k < n; k++) {
      if (w(k, i) < 1 || w(k, i + 1) < 1) continue;
      const a = soles[i]![k]!, b = soles[(i + 1) % N]![k]!;
      v.x -= (b[0]! - a[0]!) / (T / N); v.z -= (b[2]! - a[2]!) / (T / N);
      cnt++;
    }
  }
  v.multiplyScalar(1 / Math.max(1, cnt));
  const speed = v.length();
  return {
    legs: n, dir: v.clone().normalize(), speed,
    weights: (t: number) => {
      const x = (((t % T) + T) % T) / T * N;
      const i0 = Math.floor(x), f = x - i0;
      return Array.from({ length: n }, (_, k) => w(k, i0) * (1 - f) + w(k, i0 + 1) * f);
    },
  };
}

interface Stats { gap: number; normal: number; slip: number; band: number; plantedFrames: number; unreached: number }

function run(l: Loaded, g: Gait, seconds: number, frame: (t: number) => { root: Matrix4; ground: GroundQuery; support?: () => Matrix4 | null }): Stats {
  const { animator } = l;
  const s: Stats = { gap: 0, normal: 0, slip: 0, band: 0, plantedFrames: 0, unreached: 0 };
  const anchor: (number[] | null)[] = new Array(g.legs).fill(null);
  for (let f = 0; f < seconds * 60; f++) {
    const t = f * DT;
    const fr = frame(t);
    fr.root.decompose(l.scene.position, l.scene.quaternion, l.scene.scale);
    l.scene.updateMatrixWorld(true);
    animator.update(f === 0 ? 0 : DT, { feet: g.weights(t), ground: fr.ground, grounded: true });
    const d = animator.diagnostics().scene!;
    s.band = Math.max(s.band, d.pelvis.band[0] - d.pelvis.offsetWs[1], d.pelvis.offsetWs[1] - d.pelvis.band[1]);
    const sup = fr.support?.() ?? null;
    const inv = sup ? sup.clone().invert() : null;
    d.contacts.forEach((c, k) => {
      if (c.stance < 1 || !c.locked) { anchor[k] = null; return; }
      s.plantedFrames++;
      if (!c.reached) s.unreached++;
      s.gap = Math.max(s.gap, Math.abs(c.gapWs) * c.normalWs[1]);
      s.normal = Math.max(s.normal, Math.acos(Math.min(1, c.soleNormalWs[0] * c.normalWs[0] + c.soleNormalWs[1] * c.normalWs[1] + c.soleNormalWs[2] * c.normalWs[2])));
      const p = new Vector3(...c.soleWs);
      if (inv) p.applyMatrix4(inv);
      if (!anchor[k]) anchor[k] = [p.x, p.y, p.z];
      else s.slip = Math.max(s.slip, p.distanceTo(new Vector3(...anchor[k]!)));
    });
  }
  return s;
}

const CASES: { asset: AssetName; clip: string }[] = [
  { asset: 'threejs-xbot', clip: 'walk' },
  { asset: 'threejs-soldier', clip: 'Walk' },
  { asset: 'khronos-fox', clip: 'Walk' },
];

warnIfNoAssets();
describe('real walk clips', () => {
  for (const c of CASES) {
    test.skipIf(!hasAsset(c.asset))(`${c.asset} ${c.clip}: 15° slope, 5 s — planted soles within 1 mm and 2°, no slip > 1 mm, pelvis in band`, async () => {
      const g = gaitOf(await load(c.asset, c.clip));
      const l = await load(c.asset, c.clip); // a fresh character, clip at time 0
      expect(g.speed).toBeGreaterThan(0);
      const k = Math.tan(15 * DEG);
      const d = g.dir;
      const n = new Vector3(-k * d.x, 1, -k * d.z).normalize();
      const ground: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!;
        out.height = k * (x * d.x + z * d.z);
        out.normal[0] = n.x; out.normal[1] = n.y; out.normal[2] = n.z; out.support = -1;
        return true;
      };
      const yaw = new Quaternion();
      const s = run(l, g, 5, (t) => {
        const p = d.clone().multiplyScalar(g.speed * t);
        p.y = k * (p.x * d.x + p.z * d.z);
        return { root: new Matrix4().compose(p, yaw, new Vector3(1, 1, 1)), ground };
      });
      console.log(`${c.asset} slope: legs ${g.legs}, speed ${(g.speed / l.us).toFixed(3)} m/s, planted frames ${s.plantedFrames}, gap ${(s.gap / l.us * 1000).toFixed(4)} mm, normal ${(s.normal / DEG).toFixed(4)}°, slip ${(s.slip / l.us * 1000).toFixed(4)} mm, band ${s.band}, unreached ${s.unreached}`);
      expect(s.plantedFrames).toBeGreaterThan(60);
      expect(s.gap / l.us).toBeLessThan(1e-3);
      expect(s.normal).toBeLessThan(2 * DEG);
      expect(s.slip / l.us).toBeLessThan(1e-3);
      expect(s.band).toBeLessThanOrEqual(1e-9 * l.us);
    });

    test.skipIf(!hasAsset(c.asset))(`${c.asset} ${c.clip}: moving platform (translating, bobbing and turning), 5 s — slip relative to the support < 1 mm, pelvis in band`, async () => {
      const g = gaitOf(await load(c.asset, c.clip));
      const l = await load(c.asset, c.clip);
      const world = l.animator.world;
      const sup = addSupport(world);
      const pm = new Matrix4();
      const ground: GroundQuery = (p, out) => { const x = p[0]!, z = p[2]!;
        const o = new Vector3().setFromMatrixPosition(pm);
        const nn = new Vector3(0, 1, 0).applyQuaternion(new Quaternion().setFromRotationMatrix(pm));
        out.height = o.y - (nn.x * (x - o.x) + nn.z * (z - o.z)) / nn.y;
        out.normal[0] = nn.x; out.normal[1] = nn.y; out.normal[2] = nn.z; out.support = sup;
        return true;
      };
      const us = l.us;
      const s = run(l, g, 5, (t) => {
        pm.compose(
          new Vector3(0.4 * us * t, 0.05 * us * Math.sin(t * 3), 0.1 * us * Math.sin(t)),
          new Quaternion().setFromAxisAngle(new Vector3(0, 1, 0), 0.3 * t), new Vector3(1, 1, 1),
        );
        setSupportFrame(world, sup, pm.elements);
        const walk = new Matrix4().makeTranslation(g.dir.x * g.speed * t, 0, g.dir.z * g.speed * t);
        return { root: pm.clone().multiply(walk), ground, support: () => pm };
      });
      console.log(`${c.asset} platform: planted frames ${s.plantedFrames}, gap ${(s.gap / us * 1000).toFixed(4)} mm, slip ${(s.slip / us * 1000).toFixed(4)} mm, band ${s.band}, unreached ${s.unreached}`);
      expect(s.plantedFrames).toBeGreaterThan(60);
      expect(s.slip / us).toBeLessThan(1e-3);
      expect(s.gap / us).toBeLessThan(1e-3);
      expect(s.band).toBeLessThanOrEqual(1e-9 * us);
    });
  }
});
