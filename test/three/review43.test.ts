/**
 * Review 43 (a newcomer installing the package): the three.js entry and the engine-free
 * animator core on the mistakes a first user makes.
 *
 * - `createAnimator(gltf)` (the loader's result, not `gltf.scene`) says to pass `gltf.scene`.
 * - `placeOnGround` from 'bitrig/three' works on three.js releases whose BufferAttribute has no
 *   `getComponent` (r150…r154, the bottom of the peer range; interleaved attributes until r160), and refuses unknown option keys.
 * - `updateAnimators(animator, dt)` with one animator (no array) advances it; garbage throws.
 * - `setTailPhysics` takes a boolean only (`'no'` turned physics on).
 * - `bindSkeleton(garbage)` / `bindSkeleton({}, source)` throw `bitrig/bind: …`, not TypeErrors.
 */
import { describe, expect, test } from 'vitest';
import { AnimationMixer, BufferAttribute, type Mesh, type Object3D } from 'three';
import { createAnimator, updateAnimators, characterToThree, placeOnGround, skeletonSourceFromThree } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { createBitrigWorld } from '../../runtime/world';
import { bindSkeleton } from '../../core/binding';
import { writeGlbBytes } from '../../rig/glb';
import { makeCritter } from '../bake/fixtures';
import { loadGlbThree } from '../helpers/loadThree';

function character() {
  const c = characterToThree(createBuiltinCharacter());
  const mixer = new AnimationMixer(c.root);
  mixer.clipAction(c.clips.find((k) => k.name === 'walk')!).play();
  return { ...c, mixer };
}

/** Tail link rotations of an animator's first chain (x, y, z, w per link). */
function tailRotations(root: Object3D): number[] {
  const out: number[] = [];
  root.traverse((o) => { if (/^Tail_\d+$/.test(o.name)) out.push(o.quaternion.x, o.quaternion.y, o.quaternion.z, o.quaternion.w); });
  return out;
}

describe('createAnimator (three.js): the loader result instead of gltf.scene', () => {
  test('createAnimator(gltf) says "pass gltf.scene"; a Babylon.js node points at bitrig/babylon; {} is "an object" (was "[object Object]")', () => {
    const c = character();
    const gltf = { scene: c.root, animations: c.clips, scenes: [c.root], cameras: [], asset: {}, parser: {}, userData: {} };
    expect(() => createAnimator(gltf as never)).toThrow(/^bitrig\/three: createAnimator needs a three\.js Object3D \(e\.g\. gltf\.scene\), got the loader's result \(an object with \.scene\): pass gltf\.scene$/);
    expect(() => createAnimator({ getChildMeshes() { return []; }, name: 'n' } as never)).toThrow(/got a Babylon\.js object: use createAnimator from 'bitrig\/babylon'/);
    expect(() => createAnimator({} as never)).toThrow(/^bitrig\/three: createAnimator needs a three\.js Object3D \(e\.g\. gltf\.scene\), got an object$/);
    expect(() => createAnimator('fox.glb' as never)).toThrow(/got "fox\.glb" \(a string\)$/);
    expect(createAnimator(gltf.scene, { mixer: c.mixer }).alive).toBe(true);
  });
});

describe('placeOnGround (three.js) on older three.js and with option typos', () => {
  test('a BufferAttribute without getComponent (three r150–r154; interleaved ones until r160) gives the same floor through getX…getW; the tail is still ignored', async () => {
    const crit = makeCritter({ variant: 'chain', tailTipY: -0.25 });
    const bytes = await writeGlbBytes(crit.doc);
    const modern = placeOnGround((await loadGlbThree(bytes)).scene);
    const old = (await loadGlbThree(bytes)).scene;
    let stripped = 0;
    old.traverse((o) => {
      const g = (o as Mesh).geometry;
      if (!g) return;
      for (const name of ['skinIndex', 'skinWeight']) {
        const a = g.getAttribute(name) as BufferAttribute | undefined;
        if (!a) continue;
        // (as on three r150–r154: the method does not exist)
        Object.defineProperty(a, 'getComponent', { value: undefined, configurable: true });
        stripped++;
      }
    });
    expect(stripped).toBeGreaterThanOrEqual(2);
    const r = placeOnGround(old);
    expect(r).toEqual(modern);
    expect(r.offsetY).toBeCloseTo(0, 4); // soles at y = 0 already
    expect(r.allFloor).toBeLessThan(r.bodyFloor - 0.2); // the tail hangs below and is ignored
  });

  test('unknown option keys are refused with the nearest known one; wrong types are named; undefined keeps the default', () => {
    const c = character();
    expect(() => placeOnGround(c.root, { floory: 1 } as never)).toThrow(/^bitrig\/three: placeOnGround: unknown option "floory" \(did you mean "floorY"\?\); options: floorY, includeTail, isTailBone$/);
    expect(() => placeOnGround(c.root, { includetail: true } as never)).toThrow(/did you mean "includeTail"/);
    expect(() => placeOnGround(c.root, 'y=0' as never)).toThrow(/^bitrig\/three: placeOnGround: options must be an object, got "y=0" \(a string\)/);
    expect(() => placeOnGround(c.root, { floorY: '1' as never })).toThrow(/^bitrig\/three: placeOnGround: floorY must be a finite number, got "1" \(a string\)/);
    expect(() => placeOnGround(c.root, { includeTail: 1 as never })).toThrow(/includeTail must be true or false, got 1/);
    expect(() => placeOnGround(c.root, { isTailBone: 'Tail' as never })).toThrow(/isTailBone must be a function/);
    expect(() => placeOnGround({} as never)).toThrow(/^bitrig\/three: placeOnGround needs a three\.js Object3D/);
    const a = placeOnGround(c.root, { floorY: undefined, includeTail: undefined });
    expect(placeOnGround(c.root).offsetY).toBeCloseTo(0, 9); // (a moved the model onto y = 0)
    expect(Number.isFinite(a.offsetY)).toBe(true);
  });
});

describe('animator core: usage errors', () => {
  test('updateAnimators(animator, dt) with one animator (no array) advances it exactly like updateAnimators([animator], dt)', () => {
    const a = character(), b = character();
    const an = createAnimator(a.root, { mixer: a.mixer });
    const bn = createAnimator(b.root, { mixer: b.mixer });
    const start = tailRotations(a.root);
    for (let f = 0; f < 60; f++) { updateAnimators(an, 1 / 60); updateAnimators([bn], 1 / 60); }
    const ra = tailRotations(a.root), rb = tailRotations(b.root);
    expect(ra.length).toBeGreaterThan(0);
    expect(ra).toEqual(rb); // same bits
    expect(Math.max(...ra.map((v, i) => Math.abs(v - start[i]!)))).toBeGreaterThan(1e-3); // it did move (was silently nothing)
  });

  test('updateAnimators with something else throws bitrig/three: … naming it', () => {
    const a = character();
    const an = createAnimator(a.root, { mixer: a.mixer });
    expect(() => updateAnimators({} as never, 1 / 60)).toThrow(/^bitrig\/three: updateAnimators\(animators, dt\) needs an array of animators \(or one animator\), got an object$/);
    expect(() => updateAnimators(undefined as never, 1 / 60)).toThrow(/got undefined$/);
    expect(() => updateAnimators([an, a.root] as never, 1 / 60)).toThrow(/^bitrig\/three: updateAnimators\(animators, dt\): animators\[1\] is not an animator, got an object$/);
    expect(() => updateAnimators([], 1 / 60)).not.toThrow();
  });

  test('setTailPhysics takes true or false only: "no", 0 and "false" throw (they turned physics on)', () => {
    const a = character();
    const an = createAnimator(a.root, { mixer: a.mixer });
    for (const v of ['no', 0, 'false', null, undefined]) {
      expect(() => an.setTailPhysics(v as never), String(v)).toThrow(/^bitrig\/three: setTailPhysics\(on\) needs true or false, got /);
    }
    expect(() => an.setTailPhysics(false)).not.toThrow();
    // physics stayed off through the refused calls: the tail shows its carried rest pose
    for (let f = 0; f < 10; f++) an.update(1 / 60);
    const rest = tailRotations(a.root);
    a.mixer.setTime(0.37);
    an.update(1 / 60);
    expect(tailRotations(a.root)).toEqual(rest);
  });

  test('bindSkeleton with a wrong world or source throws bitrig/bind: … (not a TypeError)', () => {
    const c = character();
    const src = skeletonSourceFromThree(c.skeleton);
    const world = createBitrigWorld();
    const bad: Array<[() => unknown, RegExp]> = [
      [() => bindSkeleton(undefined as never, src), /^bitrig\/bind: expected a bitrig world, got undefined; call attachBitrig\(world\) once on your bitECS world \(or make one with createBitrigWorld\(\)\)$/],
      [() => bindSkeleton({} as never, src), /^bitrig\/bind: expected a bitrig world, got a world bitrig is not attached to; call attachBitrig\(world\)/],
      [() => bindSkeleton(src as never, world as never), /^bitrig\/bind: expected a bitrig world/],
      [() => bindSkeleton(world, undefined as never), /^bitrig\/bind: bindSkeleton\(world, source\) needs a skeleton source \{ names, parents, rest, inverseBind\? \}.*, got undefined$/],
      [() => bindSkeleton(world, 'skeleton' as never), /needs a skeleton source .*got "skeleton" \(a string\)$/],
      [() => bindSkeleton(world, {} as never), /^bitrig\/bind: source\.names must be an array with one entry per bone, got undefined$/],
      [() => bindSkeleton(world, { ...src, parents: 3 } as never), /^bitrig\/bind: source\.parents must be an array/],
      [() => bindSkeleton(world, { ...src, names: src.names.map((_, i) => i) } as never), /^bitrig\/bind: source\.names must be bone names/],
      [() => bindSkeleton(world, { ...src, rest: src.rest.map(() => null) } as never), /^bitrig\/bind: source\.rest\[0\] must be \{ t, r, s \}/],
      [() => bindSkeleton(world, { ...src, inverseBind: 5 } as never), /^bitrig\/bind: source\.inverseBind must be an array/],
      [() => bindSkeleton(world, src, null as never), /^bitrig\/bind: options must be an object, got null$/],
    ];
    for (const [f, msg] of bad) expect(f).toThrow(msg);
    expect(world.queries.tails.dense.length).toBe(0); // nothing half-bound
    expect(bindSkeleton(world, src).tails.length).toBe(1);
  });
});
