/**
 * The tail option table (core/tailOptions.ts) is the one source: the README's options block is
 * the table as `npm run docs:options` writes it; every option out of its range is a setup error
 * naming the range (a frequency of 1e9 used to fill the step's velocities with non-finite
 * values); stiffness and damping are checked together against the world's fixed step; and at
 * the edges of what is accepted the step stays finite and bounded.
 */
import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/loadThree';
import { checkTailStability, mergeTailOptions, TAIL_DEFAULTS, TAIL_OPTION_KEYS, TAIL_OPTION_TABLE, tailOptionsMarkdown, type OptionRow } from '../../core/defaults';
import { createBitrigWorld } from '../../runtime/world';
import { beginCharacterFrame, bindSkeleton } from '../../core/binding';
import { setTailOptions } from '../../core/tailSetup';
import { update } from '../../systems/pipeline';
import { chainSource } from '../helpers/chainSource';

describe('the tail option table', () => {
  test('the README block between the options markers is the table (npm run docs:options)', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const m = /<!-- options:begin -->\n([\s\S]*?)\n<!-- options:end -->/.exec(readme);
    expect(m, 'README has the options markers').not.toBeNull();
    expect(m![1]).toBe(tailOptionsMarkdown());
    expect(tailOptionsMarkdown().split('\n').length).toBe(2 + TAIL_OPTION_KEYS.length);
  });

  test('defaults come from the table and pass their own checks', () => {
    for (const k of TAIL_OPTION_KEYS) expect(TAIL_DEFAULTS[k]).toBe(TAIL_OPTION_TABLE[k].default);
    expect(mergeTailOptions()).toEqual(TAIL_DEFAULTS);
    expect(() => checkTailStability(TAIL_DEFAULTS, 1 / 60)).not.toThrow();
  });

  test('every number just outside its range is refused naming the range; its ends are accepted', () => {
    for (const k of TAIL_OPTION_KEYS) {
      const r: OptionRow = TAIL_OPTION_TABLE[k];
      if (r.kind !== 'number') continue;
      const span = r.max! - r.min!;
      expect(() => mergeTailOptions({ [k]: r.max! + span * 1e-6 })).toThrow(new RegExp(`^bitrig/tail: option ${k} must be a number in [\\[(]`));
      expect(() => mergeTailOptions({ [k]: r.openMin ? r.min! : r.min! - span * 1e-6 })).toThrow(new RegExp(`^bitrig/tail: option ${k} must be a number in`));
      expect(() => mergeTailOptions({ [k]: NaN })).toThrow(new RegExp(`^bitrig/tail: option ${k} must be a number in`));
      expect(() => mergeTailOptions({ [k]: r.max! })).not.toThrow();
      if (!r.openMin) expect(() => mergeTailOptions({ [k]: r.min! })).not.toThrow();
    }
    expect(() => mergeTailOptions({ frequency: 1e9 })).toThrow('bitrig/tail: option frequency must be a number in (0, 30] Hz, got 1000000000');
    expect(() => mergeTailOptions({ restSource: 'physics' as never })).toThrow('bitrig/tail: option restSource must be \'bind\', \'animation\' or \'auto\', got "physics" (a string)');
  });

  test('stiffness with damping is checked against the world\'s fixed step (semi-implicit Euler: x² + 4ζx ≤ 3.6, x = 2πf·max(1, tipRatio)·h)', () => {
    const h = 1 / 60;
    expect(() => checkTailStability({ frequency: 9, tipRatio: 1, damping: 0.65 }, h)).not.toThrow(); // x = 0.942: 0.887 + 2.449 = 3.34
    expect(() => checkTailStability({ frequency: 10, tipRatio: 1, damping: 0.65 }, h)).toThrow(/^bitrig\/tail: option frequency 10 Hz with damping 0.65 is too stiff for the world's fixed step 0.01667 s: .* at most 9.\d\d Hz here/);
    expect(() => checkTailStability({ frequency: 5, tipRatio: 2, damping: 0.65 }, h)).toThrow(/× tipRatio 2 at the tip/);
    const world = createBitrigWorld();
    const b = bindSkeleton(world, chainSource(6));
    expect(() => setTailOptions(world, b.tails[0]!.eid, { frequency: 25 })).toThrow(/too stiff for the world's fixed step/);
    expect(() => bindSkeleton(createBitrigWorld({ fixedStep: 0.1 }), chainSource(6), { tail: { frequency: 3 } })).toThrow(/too stiff for the world's fixed step 0.1 s/);
  });

  test('at the edge of what is accepted (the stiffest spring the step allows, no and most damping, most gravity, coupling and contact damping), 600 frames of a whipped anchor stay finite, on the chain\'s length', () => {
    const h = 1 / 60;
    for (const damping of [0, 0.65, 10]) {
      const xMax = -2 * damping + Math.sqrt(4 * damping * damping + 3.6);
      const frequency = (0.999 * xMax) / (2 * Math.PI * h);
      {
        const world = createBitrigWorld();
        const b = bindSkeleton(world, chainSource(6), { tail: { frequency, tipRatio: 1, damping, gravity: 50, couplingRate: 1000, contactDamping: 1000, bendLimit: 2 * Math.PI } });
        const pose = world.pose, hips = b.slotOf[0]! * 3;
        let worst = 0;
        for (let f = 0; f < 600; f++) {
          pose.localT[hips] = 0.5 * Math.sign(Math.sin(f * 0.7)); pose.localT[hips + 2] = 0.3 * Math.sin(f * 1.3);
          beginCharacterFrame(b);
          update(world, f % 7 === 0 ? 0.1 : h);
          for (const x of pose.localR) if (!Number.isFinite(x)) throw new Error(`damping ${damping}, frame ${f}: a non-finite rotation`);
          for (const x of world.components.TailParticle.vel) if (!Number.isFinite(x)) throw new Error(`damping ${damping}, frame ${f}: a non-finite velocity`);
          const tip = b.slotOf[6]! * 16, root = b.slotOf[1]! * 16, m = pose.worldM;
          worst = Math.max(worst, Math.hypot(m[tip + 12]! - m[root + 12]!, m[tip + 13]! - m[root + 13]!, m[tip + 14]! - m[root + 14]!));
        }
        expect(worst, `damping ${damping}: the chain keeps its length (0.8 m of links, 5 between these bones)`).toBeLessThan(0.8);
      }
    }
  });
});
