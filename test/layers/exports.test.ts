/**
 * The export list of each package entry (the source modules tsup bundles): `bitrig` holds what a
 * game needs — at most 40 names —, `bitrig/systems` each system, `bitrig/character` the
 * built-in critter, `bitrig/internals` everything else (a superset of core's own surface).
 */
import { describe, expect, test } from 'vitest';
import * as main from '../../runtime/index';
import * as systems from '../../runtime/systems';
import * as character from '../../runtime/character';
import * as internals from '../../runtime/internals';
import * as core from '../../core/index';

const names = (m: object): string[] => Object.keys(m).sort();

describe('package entries', () => {
  test('bitrig: world, attach, bind, frame calls, update, options, diagnostics (exactly these 33 names)', () => {
    expect(names(main)).toEqual([
      'BIND_DEFAULTS', 'BITRIG_WORLD_DEFAULTS', 'COLLIDER_GROUPS', 'SCENE_IK_DEFAULTS', 'TAIL_DEFAULTS',
      'addSceneIK', 'addSupport', 'addTailChain', 'addTailCollider', 'attachBitrig', 'beginCharacterFrame', 'bindSkeleton',
      'createBitrigWorld', 'createBuiltinCharacter', 'endCharacterFrame', 'getTailOptions', 'isBitrigWorld',
      'linkEl', 'mergeSceneIKOptions', 'mergeTailOptions', 'removeSceneIK', 'removeSupport', 'removeTailChain', 'removeTailCollider',
      'sceneDiagnostics', 'setSceneInputs', 'setSupportFrame', 'setTailCollider', 'setTailOptions', 'setTailRestSource',
      'tailLinkIndex', 'unbindSkeleton', 'update',
    ].sort());
    expect(names(main).length).toBeLessThanOrEqual(40);
  });
  test('bitrig/systems: each system of the pipeline and update', () => {
    expect(names(systems)).toEqual([
      'footLock', 'pelvisHeight', 'resetChainToRest', 'sceneContacts', 'tailClockBegin', 'tailClockStep', 'tailCollidersBegin', 'tailStep', 'tailWrite', 'twoBoneIK', 'update',
    ]);
    for (const f of Object.values(systems)) expect(typeof f).toBe('function');
  });
  test('bitrig/character: the built-in critter', () => {
    expect(names(character)).toContain('createBuiltinCharacter');
    expect(names(character)).toContain('BUILTIN_CHARACTER_DEFAULTS');
    expect(names(character).every((n) => !['update', 'bindSkeleton', 'createBitrigWorld'].includes(n))).toBe(true);
  });
  test('bitrig/internals: core\'s surface, the systems and the kernel loading', () => {
    const all = new Set(names(internals));
    for (const n of [...names(core), ...names(systems), 'layoutTailArena', 'tailWasmModule']) expect(all.has(n), n).toBe(true);
  });
});
