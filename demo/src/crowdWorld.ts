/**
 * The crowd page's world: characters made in code (hips, two legs, a six-link tail) bound into
 * one bitrig world, the adapter's read (the animated pose into the pose store, the bodies
 * swaying) and the arrays compared between two worlds. Used on the page's thread and by the
 * worker that owns the second world (crowdWorker.ts).
 */
import { createBitrigWorld } from '../../runtime/world';
import type { BitrigWorld } from '../../core/world';
import { beginCharacterFrame, bindSkeleton, type CharacterBinding, type SkeletonSource } from '../../core/binding';
import { addSceneIK, setSceneInputs } from '../../core/sceneIK';

/** A biped of hips, two bent legs and a six-link tail with its end. */
function source(): SkeletonSource {
  const names: string[] = [], parents: number[] = [], pos: number[][] = [];
  const add = (n: string, p: number, x: number[]): number => { names.push(n); parents.push(p); pos.push(x); return names.length - 1; };
  const hips = add('Hips', -1, [0, 0.93, 0]);
  for (const [side, sx] of [['Left', 1], ['Right', -1]] as const) {
    const up = add(`${side}UpLeg`, hips, [0.1 * sx, 0.9, 0]);
    const leg = add(`${side}Leg`, up, [0.1 * sx, 0.5, 0.04]);
    add(`${side}Foot`, leg, [0.1 * sx, 0.1, 0]);
  }
  let p = hips;
  for (let i = 0; i <= 6; i++) p = add(i < 6 ? `Tail_${i + 1}` : 'Tail_End', p, [0, 0.85 - 0.06 * i, -0.1 - 0.11 * i]);
  return {
    names, parents,
    inverseBind: pos.map((x) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -x[0]!, -x[1]!, -x[2]!, 1]),
    rest: pos.map((x, i) => ({ t: parents[i]! >= 0 ? x.map((v, k) => v - pos[parents[i]!]![k]!) : x, r: [0, 0, 0, 1], s: [1, 1, 1] })),
  };
}

export interface Crowd { world: BitrigWorld; bindings: CharacterBinding[]; src: SkeletonSource }

export function makeCrowd(n: number): Crowd {
  const src = source();
  const world = createBitrigWorld({ entities: n * 4 + 16, chains: n + 16, bones: n * src.names.length + 16, characters: n + 16 });
  const bindings: CharacterBinding[] = [];
  for (let i = 0; i < n; i++) {
    const b = bindSkeleton(world, src, { tail: { floorEnabled: true } });
    const h = addSceneIK(world, b, { arms: false });
    setSceneInputs(world, h, { feet: [1, 1], grounded: true });
    bindings.push(b);
  }
  return { world, bindings, src };
}

/** What an adapter's read does: the animated pose into the pose store; the bodies sway. */
export function read(c: Crowd, f: number): void {
  const pose = c.world.pose;
  for (let i = 0; i < c.bindings.length; i++) {
    const b = c.bindings[i]!;
    for (let k = 0; k < c.src.names.length; k++) {
      const s = b.slotOf[k]!, r = c.src.rest[k]!;
      for (let j = 0; j < 3; j++) { pose.localT[s * 3 + j] = r.t[j]!; pose.localS[s * 3 + j] = 1; }
      for (let j = 0; j < 4; j++) pose.localR[s * 4 + j] = r.r[j]!;
    }
    const o = b.charId * 16;
    pose.charRootWs[o] = 1; pose.charRootWs[o + 5] = 1; pose.charRootWs[o + 10] = 1; pose.charRootWs[o + 15] = 1;
    pose.charRootWs[o + 12] = (i % 100) * 2 + 0.03 * Math.sin(f * 0.1 + i);
    pose.charRootWs[o + 14] = Math.floor(i / 100) * 2 + 0.03 * Math.cos(f * 0.13 + i);
    beginCharacterFrame(b);
  }
}

/** The arrays the page compares between its two worlds, as copies (what the worker posts back). */
export function resultArrays(w: BitrigWorld): Float64Array[] {
  return [w.pose.localR, w.pose.localT, w.pose.worldM, w.components.TailParticle.pos, w.components.Limb.targetWs, w.components.SceneCharacter.offsetWs].map((a) => a.slice());
}

/** Whether two sets of result arrays are the same byte for byte. */
export function sameBytes(x: readonly Float64Array[], y: readonly Float64Array[]): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const p = new Uint8Array(x[i]!.buffer, x[i]!.byteOffset, x[i]!.byteLength), q = new Uint8Array(y[i]!.buffer, y[i]!.byteOffset, y[i]!.byteLength);
    if (p.length !== q.length) return false;
    for (let k = 0; k < p.length; k++) if (p[k] !== q[k]) return false;
  }
  return true;
}
