/**
 * Review 43: under `exactOptionalPropertyTypes` (a strict setting many projects turn on), an
 * optional field declared `field?: T` refuses `{ field: undefined }`, yet the runtime documents
 * that a field given as undefined keeps its default. The public options types declare
 * `field?: T | undefined` (or take `PartialOptions<X>`): the fixture passes undefined for every
 * optional field and must compile with the flag on. Only the fixture's own diagnostics count
 * (the library's sources are compiled with the project's settings, not this one); its
 * `@ts-expect-error` lines prove the check is live (an unused one is an error).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../helpers/loadThree';

/** Diagnostics of one file of a program compiled with `options` (the library's own files are not reported). */
function fileDiagnostics(file: string, options: ts.CompilerOptions): string[] {
  const program = ts.createProgram([file], {
    strict: true, noEmit: true, skipLibCheck: true,
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'], typeRoots: [path.join(repoRoot, 'node_modules', '@types')], esModuleInterop: true, resolveJsonModule: true, ...options,
  });
  const source = program.getSourceFile(file);
  if (!source) return [`${file}: not found`];
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
    const at = d.start !== undefined ? source.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    return `line ${at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

describe('public option types under exactOptionalPropertyTypes', () => {
  test('every optional field of the options objects accepts an explicit undefined (fixture compiles; wrong types still fail)', () => {
    const fixture = path.join(repoRoot, 'test', 'types', 'fixtures', 'exactOptional.ts');
    const text = fileDiagnostics(fixture, { exactOptionalPropertyTypes: true });
    expect(text).toEqual([]);
  });

  test('the API guide\'s GroundQuery example compiles under noUncheckedIndexedAccess (p[0] of a Float64Array is number | undefined there)', () => {
    const readme = readFileSync(path.join(repoRoot, 'docs', 'api.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.startsWith('const ground: GroundQuery ='));
    expect(line, 'docs/api.md has the GroundQuery example').toBeDefined();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-readme-'));
    try {
      const file = path.join(dir, 'ground.ts');
      writeFileSync(file, [
        `import type { GroundQuery } from ${JSON.stringify(path.join(repoRoot, 'core', 'index'))};`,
        'declare function terrainHeight(x: number, z: number): number;',
        'declare function terrainNormal(x: number, z: number, out: number[] | Float64Array): void;',
        `export ${line}`,
        '',
      ].join('\n'));
      expect(fileDiagnostics(file, { noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true })).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
