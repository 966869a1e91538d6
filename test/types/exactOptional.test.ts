/**
 * Review 43: under `exactOptionalPropertyTypes` (a strict setting many projects turn on), an
 * optional field declared `field?: T` refuses `{ field: undefined }`, yet the runtime documents
 * that a field given as undefined keeps its default. The public options types declare
 * `field?: T | undefined` (or take `PartialOptions<X>`): the fixture passes undefined for every
 * optional field and must compile with the flag on. Only the fixture's own diagnostics count
 * (the library's sources are compiled with the project's settings, not this one); its
 * `@ts-expect-error` lines prove the check is live (an unused one is an error).
 */
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../helpers/loadThree';

describe('public option types under exactOptionalPropertyTypes', () => {
  test('every optional field of the options objects accepts an explicit undefined (fixture compiles; wrong types still fail)', () => {
    const fixture = path.join(repoRoot, 'test', 'types', 'fixtures', 'exactOptional.ts');
    const program = ts.createProgram([fixture], {
      strict: true, exactOptionalPropertyTypes: true, noEmit: true, skipLibCheck: true,
      target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: ['node'], esModuleInterop: true, resolveJsonModule: true,
    });
    const file = program.getSourceFile(fixture)!;
    expect(file, 'fixture found').toBeDefined();
    const diags = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    const text = diags.map((d) => {
      const at = d.start !== undefined ? file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `line ${at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(text).toEqual([]);
  });
});
