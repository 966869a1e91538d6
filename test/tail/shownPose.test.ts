/**
 * What bitrig showed on a binding's bones (`CharacterBinding.shownR`, captured by
 * `endCharacterFrame`) is what `tailOverwrittenByClip` compares the engine's pose with, and
 * what a rest-source switch re-seats the tail along. The tail write keeps no copy of its own.
 *
 * The "engine" here is an array of local rotations per bone: copied into the pose store at the
 * start of a frame, given the pose store's driven rotations at the end (as an adapter does).
 */
import { describe, expect, test } from 'vitest';
import { type BitrigWorld } from '../../core/world';
import { createBitrigWorld } from '../../runtime/world';
import {
  beginCharacterFrame, bindSkeleton, endCharacterFrame, resolveTailRestSource, tailOverwrittenByClip, type CharacterBinding,
} from '../../core/binding';
import { update } from '../../systems/pipeline';
import { CLOCK, SEAT_FROM_LOCAL, linkEl, linkIndex } from '../../core/components/tail';
import { chainSource } from '../helpers/chainSource';

const LINKS = 4;

interface Engine {
  world: BitrigWorld;
  binding: CharacterBinding;
  /** The engine's local rotation per bone (4 each). */
  r: Float64Array;
  copyIn(): void;
  /** update and copy out; `capture`: call endCharacterFrame after (as the animators do). */
  frame(f: number, capture?: boolean): void;
}

function engine(): Engine {
  const world = createBitrigWorld();
  const src = chainSource(LINKS);
  const binding = bindSkeleton(world, src, { tail: { restSource: 'auto' } });
  const n = src.names.length;
  const r = new Float64Array(n * 4);
  for (let j = 0; j < n; j++) r.set(src.rest[j]!.r, j * 4);
  const pose = world.pose;
  const copyIn = (): void => {
    for (let j = 0; j < n; j++) {
      const s = binding.slotOf[j]!;
      for (let c = 0; c < 3; c++) { pose.localT[s * 3 + c] = src.rest[j]!.t[c]!; pose.localS[s * 3 + c] = 1; }
      for (let c = 0; c < 4; c++) pose.localR[s * 4 + c] = r[j * 4 + c]!;
    }
  };
  return {
    world, binding, r, copyIn,
    frame(f, capture = true) {
      pose.localT[binding.slotOf[0]! * 3] = 0.3 * Math.sin(f / 6); // (hips sweep: the tail swings)
      beginCharacterFrame(binding);
      update(world, 1 / 60);
      for (let j = 0; j < n; j++) {
        if (binding.drivenRotation[j] !== 1) continue;
        for (let c = 0; c < 4; c++) r[j * 4 + c] = pose.localR[binding.slotOf[j]! * 4 + c]!;
      }
      if (capture) endCharacterFrame(binding);
    },
  };
}

/** Turn the engine's bone `j` by `angle` radians about x (after its rotation). */
function key(e: Engine, j: number, angle: number): void {
  const s = Math.sin(angle / 2), c = Math.cos(angle / 2);
  const [x, y, z, w] = [e.r[j * 4]!, e.r[j * 4 + 1]!, e.r[j * 4 + 2]!, e.r[j * 4 + 3]!];
  e.r[j * 4] = x * c + w * s; e.r[j * 4 + 1] = y * c + z * s; e.r[j * 4 + 2] = z * c - y * s; e.r[j * 4 + 3] = w * c - x * s;
}

const staleProblems = (b: CharacterBinding): number => b.problems.filter((p) => p.includes('endCharacterFrame')).length;

describe('the shown pose', () => {
  test('the engine leaves the tail as shown: never overwritten over 60 swinging frames; shownR is the written pose bit for bit', () => {
    const e = engine();
    let swing = 0;
    for (let f = 0; f < 60; f++) {
      e.copyIn();
      expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
      e.frame(f);
      const j = 1, s = e.binding.slotOf[j]!;
      swing = Math.max(swing, 2 * Math.acos(Math.min(1, Math.abs(e.world.pose.localR[s * 4 + 3]!))));
      for (let b = 1; b <= LINKS; b++) {
        const sl = e.binding.slotOf[b]!;
        for (let c = 0; c < 4; c++) expect(e.binding.shownR[b * 4 + c]).toBe(e.world.pose.localR[sl * 4 + c]);
      }
    }
    expect(swing).toBeGreaterThan(0.01); // (the tail moved: the comparison means something)
    expect(staleProblems(e.binding)).toBe(0);
  });

  test('a key on one link: overwritten at 0.01 rad (1 − cos(θ/2) = 1.25e-5 > the 1e-6 tolerance), not at 0.001 rad (1.25e-7)', () => {
    const e = engine();
    for (let f = 0; f < 20; f++) { e.copyIn(); e.frame(f); }
    key(e, 3, 0.001);
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
    key(e, 3, 0.009);
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(true);
    expect(tailOverwrittenByClip(e.binding, 0, 1e-4)).toBe(false); // (a looser tolerance, stated per call)
  });

  test('before the first frame the shown pose is the loaded one', () => {
    const e = engine();
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
    key(e, 2, 0.05);
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(true);
  });

  test('frames without endCharacterFrame: not overwritten even when keyed (unknown), reported once in problems', () => {
    const e = engine();
    for (let f = 0; f < 3; f++) {
      e.copyIn();
      e.frame(f, false);
      key(e, 2, 0.3);
      e.copyIn();
      expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
    }
    expect(staleProblems(e.binding)).toBe(1);
  });

  test.each([0, -1, NaN])('a frame of dt %s counts too (it still writes the pose): without endCharacterFrame the shown pose is unknown after it', (dt) => {
    const e = engine();
    const frames = e.world.clock[CLOCK.FRAMES]!;
    e.copyIn();
    beginCharacterFrame(e.binding);
    update(e.world, dt);
    expect(e.world.clock[CLOCK.FRAMES]).toBe(frames + 1);
    key(e, 2, 0.3);
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
    expect(staleProblems(e.binding)).toBe(1);
  });

  test('captured once, then frames of a shared world skip this binding: the last capture still tells', () => {
    const e = engine();
    for (let f = 0; f < 10; f++) { e.copyIn(); e.frame(f); }
    for (let f = 0; f < 5; f++) update(e.world, 1 / 60); // (another animator's frames; this engine's bones untouched)
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(false);
    key(e, 1, 0.05);
    e.copyIn();
    expect(tailOverwrittenByClip(e.binding, 0)).toBe(true);
    expect(staleProblems(e.binding)).toBe(0);
  });

  test('a rest-source switch re-seats along the shown pose when it is known, else at rest', () => {
    const withCapture = engine(), without = engine();
    for (let f = 0; f < 10; f++) {
      withCapture.copyIn(); withCapture.frame(f);
      without.copyIn(); without.frame(f, false);
    }
    const C = withCapture.world.components.TailChain;
    resolveTailRestSource(withCapture.binding, 0, true);
    expect(C.initialised[withCapture.binding.tails[0]!.eid]).toBe(SEAT_FROM_LOCAL);
    // the seat starts from the shown rotations, bit for bit as float32 (the components' type)
    const B = withCapture.world.components.BendState, row = C.row[withCapture.binding.tails[0]!.eid]!;
    for (let i = 0; i < LINKS; i++) for (let c = 0; c < 4; c++) expect(B.localCur[linkEl(linkIndex(row, i), 4, c)]).toBe(Math.fround(withCapture.binding.shownR[(i + 1) * 4 + c]!));
    const C2 = without.world.components.TailChain;
    resolveTailRestSource(without.binding, 0, true);
    expect(C2.initialised[without.binding.tails[0]!.eid]).toBe(0);
    expect(staleProblems(without.binding)).toBe(1);
  });
});
