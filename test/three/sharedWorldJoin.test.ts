/**
 * An animator that joins a shared world's frames late (the world stepped for other animators
 * since it was made): until its first write bitrig has shown nothing on its bones, so the pose
 * they were loaded in is what `tailOverwrittenByClip` compares with, as at bind.
 */
import { describe, expect, test } from 'vitest';
import { Quaternion, Vector3 } from 'three';
import { createAnimator, characterToThree, updateAnimators } from '../../adapters/three';
import { createBuiltinCharacter } from '../../core/character';
import { createBitrigWorld } from '../../runtime/world';

describe('an animator joining a shared world late', () => {
  test('a tail the game keys on its first frame is seen at once (\'auto\' → animation), and no problem about endCharacterFrame', () => {
    const world = createBitrigWorld({ entities: 64, chains: 8, bones: 256, characters: 4 });
    const a = createAnimator(characterToThree(createBuiltinCharacter({ variant: 'chain' })).root, { world });
    const tb = characterToThree(createBuiltinCharacter({ variant: 'chain' }));
    const b = createAnimator(tb.root, { world }); // (no mixer: 'auto' is told by what the engine overwrote)
    for (let f = 0; f < 3; f++) updateAnimators([a], 1 / 60); // the world runs without b
    // the game keys b's tail (no mixer: its own code turns Tail_3 by 0.3 rad)
    const bone = tb.skeleton.bones.find((x) => x.name === 'Tail_3')!;
    bone.quaternion.multiply(new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), 0.3));
    updateAnimators([a, b], 1 / 60);
    expect(b.diagnostics().tails[0]!.restSource).toBe('animation');
    for (let f = 0; f < 3; f++) updateAnimators([a, b], 1 / 60);
    for (const x of [a, b]) expect(x.diagnostics().problems.filter((p) => p.includes('endCharacterFrame'))).toEqual([]);
    a.dispose(); b.dispose();
  });
});
