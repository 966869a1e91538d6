/**
 * The flags of `bitrig rig`, `measure` and `bake`, parsed alike: `--flag=value` for every
 * flag, a repeated flag refused (aliases count as one), an empty value refused, switches
 * taking true/false/yes/no, an unknown flag or command naming the nearest one; a bug is exit 1
 * with "please report" and no stack unless --debug; the GLB is never left without its report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFlags, CliUsageError, type FlagSpec } from '../../cli/args';
import { RIG_FLAGS } from '../../cli/rig';
import { MEASURE_FLAGS } from '../../cli/measure';
import { BAKE_FLAGS } from '../../cli/bake';
import { failWith } from '../../cli/fail';
import { runCli } from '../helpers/cli';
import { fuzzBases } from './fuzz/runCase';

let dir = '';
let chainFile = '';
let shinFile = '';
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-flags-'));
  const [chain, shin] = await fuzzBases();
  chainFile = path.join(dir, 'chain.glb');
  shinFile = path.join(dir, 'shin.glb');
  writeFileSync(chainFile, chain!);
  writeFileSync(shinFile, shin!);
});
afterAll(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const TABLES: [string, readonly FlagSpec[]][] = [['rig', RIG_FLAGS], ['measure', MEASURE_FLAGS], ['bake', BAKE_FLAGS]];

describe('one flag parser for every command', () => {
  it('--flag=value parses as --flag value for every value flag of every command, under every spelling', () => {
    for (const [cmd, specs] of TABLES) {
      for (const s of specs.filter((x) => x.kind === 'value')) {
        for (const name of s.names) {
          const a = parseFlags(['in.glb', `${name}=v1`], specs);
          const b = parseFlags(['in.glb', name, 'v1'], specs);
          expect(a, `${cmd} ${name}`).toEqual(b);
          expect(a.flags[s.names[0]!], `${cmd} ${name}`).toBe('v1');
        }
      }
    }
  });

  it('switches take no value or true/false/yes/no/1/0; anything else is refused saying so', () => {
    for (const [cmd, specs] of TABLES) {
      for (const s of specs.filter((x) => x.kind === 'bool')) {
        const n = s.names[0]!;
        expect(parseFlags([n], specs).flags[n], `${cmd} ${n}`).toBe(true);
        for (const w of ['true', 'yes', '1', 'YES']) expect(parseFlags([`${n}=${w}`], specs).flags[n]).toBe(true);
        for (const w of ['false', 'no', '0']) expect(parseFlags([`${n}=${w}`], specs).flags[n]).toBe(false);
        expect(() => parseFlags([`${n}=maybe`], specs)).toThrow(`${n} is on or off: give it alone, or ${n}=true or ${n}=false (yes/no, 1/0 also work), got "maybe"`);
      }
    }
  });

  it('a flag given twice is refused for every value flag but --clip-mode (whose values merge), aliases counting as one', () => {
    for (const [cmd, specs] of TABLES) {
      for (const s of specs.filter((x) => x.kind === 'value')) {
        const n = s.names[0]!;
        if (s.repeatable) { expect(parseFlags([n, 'a', n, 'b'], specs).flags[n]).toBe('a,b'); continue; }
        expect(() => parseFlags([n, 'a', n, 'b'], specs), `${cmd} ${n}`).toThrow(`${n} is given twice; give it once`);
        if (s.names.length > 1) expect(() => parseFlags([s.names[1]!, 'a', n, 'b'], specs)).toThrow(`${s.names[1]} and ${n} are the same option; give it once`);
      }
    }
    expect(() => parseFlags(['--quiet', '-q'], RIG_FLAGS)).toThrow('--quiet and -q are the same option; give it once');
  });

  it('an empty value is refused for every value flag; a negative number is a value, another flag is not', () => {
    for (const [, specs] of TABLES) {
      for (const s of specs.filter((x) => x.kind === 'value')) {
        const n = s.names[0]!;
        expect(() => parseFlags([`${n}=`], specs)).toThrow(CliUsageError);
        expect(() => parseFlags([`${n}=`], specs)).toThrow(`${n} needs a value (got an empty one)`);
        expect(() => parseFlags([n, ''], specs)).toThrow(`${n} needs a value (got an empty one)`);
        expect(() => parseFlags([n, '--json'], specs)).toThrow(`${n} needs a value`);
      }
    }
    expect(parseFlags(['--carry', '-30'], MEASURE_FLAGS).flags['--carry']).toBe('-30');
    expect(parseFlags(['--', '-x.glb'], MEASURE_FLAGS)._).toEqual(['-x.glb']);
  });
});

describe('the commands, run', () => {
  it('--mode chain --mode rigid is refused like every other repeated flag', async () => {
    const r = await runCli(['rig', shinFile, '-o', path.join(dir, 'm.glb'), '--mode', 'chain', '--mode', 'rigid']);
    expect(r).toEqual({ code: 2, out: [], err: ['bitrig rig: --mode is given twice; give it once'] });
  });

  it('--rest-curve= is refused, not taken as 0', async () => {
    for (const args of [['measure', chainFile, '--clip', 'walk', '--rest-curve='], ['bake', chainFile, '-o', path.join(dir, 'r.glb'), '--rest-curve=']]) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.err).toEqual([`bitrig ${args[0]}: --rest-curve needs a value (got an empty one) (see bitrig ${args[0]} --help)`]);
    }
  });

  it('--json=yes is --json; --json=no is the table', async () => {
    const yes = await runCli(['measure', chainFile, '--clip', 'walk', '--samples=3', '--json=yes']);
    expect(yes.code).toBe(0);
    expect(JSON.parse(yes.out.join('\n')).samples).toBe(3);
    const no = await runCli(['measure', chainFile, '--clip=walk', '--samples=3', '--json=no']);
    expect(no.code).toBe(0);
    expect(no.out.join('\n')).toMatch(/^walk clip, /);
  });

  it('a misspelled flag or command names the nearest one', async () => {
    expect((await runCli(['measure', chainFile, '--clip', 'walk', '--jsno'])).err).toEqual(['bitrig measure: unknown option --jsno (did you mean --json?) (see bitrig measure --help)']);
    expect((await runCli(['bake', chainFile, '-o', 'x.glb', '--clip-mod', 'once'])).err).toEqual(['bitrig bake: unknown option --clip-mod (did you mean --clip-mode?) (see bitrig bake --help)']);
    expect((await runCli(['rig', shinFile, '-o', 'x.glb', '--reprot', 'r.json'])).err).toEqual(['bitrig rig: unknown option --reprot (did you mean --report?) (see bitrig rig --help)']);
    expect((await runCli(['bak', chainFile])).err).toEqual(['bitrig: unknown command "bak" (did you mean bake?)']);
    expect((await runCli(['frobnicate'])).err).toEqual(['bitrig: unknown command "frobnicate" (commands: rig, measure, bake; see bitrig --help)']);
    expect((await runCli(['rig', shinFile, '-o', 'x.glb', '--mode', 'rigd'])).err).toEqual(['bitrig rig: --mode must be chain or rigid, got "rigd" (did you mean rigid?)']);
  });

  it('--report where it cannot be written: neither the GLB nor the report is left behind', async () => {
    if (!existsSync('/proc/version')) return; // (a file that exists but whose folder takes no new file, even for root)
    const out = path.join(dir, 'with-report.glb');
    const r = await runCli(['rig', shinFile, '-o', out, '--report', '/proc/version', '-q']);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(/^bitrig rig: cannot write \/proc\/version \(.+\); nothing was written$/);
    expect(existsSync(out)).toBe(false);
    const ok = await runCli(['rig', shinFile, '-o', out, '--report', path.join(dir, 'r.json'), '-q', '--debug']);
    expect(ok.code).toBe(0);
    expect(existsSync(out) && existsSync(path.join(dir, 'r.json'))).toBe(true);
  });
});

describe('exit 1 is a bug, said as one line', () => {
  it('an internal error: one line with "please report", the stack only with --debug; bad input stays exit 2', () => {
    const lines: string[] = [];
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(failWith('rig', bug, { err: (l) => lines.push(l) })).toBe(1);
    expect(lines).toEqual(["bitrig rig: internal error: Cannot read properties of undefined (reading 'x') (a bug in bitrig: please report it with the command and the file; --debug shows the stack)"]);
    lines.length = 0;
    expect(failWith('rig', bug, { err: (l) => lines.push(l), debug: true })).toBe(1);
    expect(lines[0]).toBe("bitrig rig: internal error: Cannot read properties of undefined (reading 'x') (a bug in bitrig: please report it with the command and the file)");
    expect(lines[1]).toMatch(/^TypeError: Cannot read properties[\s\S]*\n\s+at /);
    lines.length = 0;
    expect(failWith('bake', new Error('bitrig/bake: the file has no animations'), { err: (l) => lines.push(l), debug: true })).toBe(2);
    expect(lines).toEqual(['bitrig bake: the file has no animations']);
  });
});
