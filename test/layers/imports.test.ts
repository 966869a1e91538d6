/**
 * Layers point one way: core/ ← systems/ ← runtime/ ← adapters/. Every relative import of every
 * TypeScript file in a layer is resolved and checked against the layers below it (a test that
 * fails when one file imports upward: see the control).
 */
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../helpers/loadThree';

const LAYERS = ['core', 'systems', 'runtime', 'adapters'] as const;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The top-level folder each relative import of `file` (its text) lands in. */
function importedFolders(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"\n;]*?from\s*'(\.[^']+)'/g)) {
    const target = path.relative(repoRoot, path.resolve(path.dirname(file), m[1]!));
    out.push(target.split(path.sep)[0]!);
  }
  return out;
}

/** Imports of `layer`'s files into a layer above it, as "file → folder". */
function upward(layer: (typeof LAYERS)[number], text?: (file: string) => string): string[] {
  const above = LAYERS.slice(LAYERS.indexOf(layer) + 1) as readonly string[];
  const bad: string[] = [];
  for (const f of filesUnder(path.join(repoRoot, layer))) {
    const t = text ? text(f) : readFileSync(f, 'utf8');
    for (const to of importedFolders(f, t)) if (above.includes(to)) bad.push(`${path.relative(repoRoot, f)} → ${to}/`);
  }
  return bad;
}

describe('layers point one way', () => {
  test('the check finds an upward import (control: core/pose.ts made to import systems/)', () => {
    const pose = path.join(repoRoot, 'core', 'pose.ts');
    const bad = upward('core', (f) => readFileSync(f, 'utf8') + (f === pose ? "\nimport { update } from '../systems/pipeline';\n" : ''));
    expect(bad).toEqual(['core/pose.ts → systems/']);
  });
  test('core/ imports nothing from systems/, runtime/ or adapters/', () => {
    expect(upward('core')).toEqual([]);
  });
  test('systems/ imports nothing from runtime/ or adapters/', () => {
    expect(upward('systems')).toEqual([]);
  });
  test('runtime/ imports nothing from adapters/', () => {
    expect(upward('runtime')).toEqual([]);
  });
  test('core/ and systems/ import no engine', () => {
    for (const layer of ['core', 'systems']) {
      for (const f of filesUnder(path.join(repoRoot, layer))) {
        expect(readFileSync(f, 'utf8'), path.relative(repoRoot, f)).not.toMatch(/from '(three|@babylonjs\/[^']+)'/);
      }
    }
  });
});
