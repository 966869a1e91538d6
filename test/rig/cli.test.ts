/**
 * The `bitrig rig` command: success, nothing found, and bad input (not a GLB, truncated, no
 * skin, a zero-height model, overwriting the input) —
 * each with its exit code, a one-line reason naming the problem, no output file and the input
 * untouched. Runs `main()` in-process; one test spawns the real entry script.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { createBuiltinCharacter } from '../../core/character/index';
import { characterToGlb } from '../../rig/characterDocument';
import { writeGlbBytes } from '../../rig/glb';
import { writeFileAtomic } from '../../rig/node';
import { repoRoot } from '../fixtures/assets';
import { makeTinyDoc, makeUnskinnedDoc } from './tiny';
import { validateGlb } from './validate';

const dir = mkdtempSync(path.join(os.tmpdir(), 'bitrig-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = runCli;

const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');

function put(name: string, bytes: Uint8Array | string): string {
  const f = path.join(dir, name);
  writeFileSync(f, bytes);
  return f;
}

describe('bitrig rig', () => {
  it('rigs the built-in character: exit 0, a valid output, a JSON report, a summary', async () => {
    const input = put('critter.glb', await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
    const hash = sha(input);
    const output = path.join(dir, 'critter-rigged.glb');
    const report = path.join(dir, 'critter.json');
    const r = await run(['rig', input, '-o', output, '--report', report]);
    expect(r.code).toBe(0);
    expect(sha(input)).toBe(hash);
    expect(existsSync(output)).toBe(true);
    expect((await validateGlb(new Uint8Array(readFileSync(output)))).errors).toBe(0);
    const json = JSON.parse(readFileSync(report, 'utf8'));
    expect(json.appendages.filter((a: { verdict: string }) => a.verdict === 'chain')).toHaveLength(1);
    expect(json.chains).toBe(1);
    expect(r.out.join('\n')).toMatch(/chain Tail_1…Tail_\d \+ Tail_End .* on Hips/);
    // Progress lines on stderr, one per step.
    expect(r.err.some((l) => /\[ *\d+%\] distance/.test(l))).toBe(true);
    // No temp files left beside the outputs.
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('exits 0 and says so when nothing is found (--mode rigid, --quiet)', async () => {
    const input = put('plain.glb', await writeGlbBytes(makeTinyDoc({ tail: false }).doc));
    const output = path.join(dir, 'plain-out.glb');
    const r = await run(['rig', input, '-o', output, '--mode', 'rigid', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.out.join('\n')).toMatch(/no tail found/);
    expect(existsSync(output)).toBe(true);
  });

  const bad: [string, () => Promise<Uint8Array | string>, RegExp][] = [
    ['not a GLB', async () => '{"asset": {"version": "2.0"}}', /not a GLB file/],
    ['truncated', async () => (await writeGlbBytes(makeTinyDoc({ tail: true }).doc)).subarray(0, 700), /truncated GLB/],
    ['no skin', async () => writeGlbBytes(makeUnskinnedDoc()), /no skin/],
    ['zero-height model', async () => writeGlbBytes(makeTinyDoc({ tail: true, flat: true }).doc), /zero height/],
  ];
  it.each(bad)('bad input (%s): exit 2, one line naming it, no output, input untouched', async (label, make, reason) => {
    const input = put(`bad-${label.replace(/\W+/g, '-')}.glb`, await make());
    const hash = sha(input);
    const mtime = statSync(input).mtimeMs;
    const output = path.join(dir, `bad-${label.replace(/\W+/g, '-')}-out.glb`);
    const r = await run(['rig', input, '-o', output, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.err).toHaveLength(1);
    expect(r.err[0]).toMatch(reason);
    expect(r.err[0]).toMatch(/^bitrig rig: /);
    expect(existsSync(output)).toBe(false);
    expect(sha(input)).toBe(hash);
    expect(statSync(input).mtimeMs).toBe(mtime);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a skin without inverse bind matrices (identity, glTF 2.0) is accepted: exit 0, a note says why nothing on it was measured', async () => {
    const input = put('no-ibm.glb', await writeGlbBytes(makeTinyDoc({ tail: true, ibm: false }).doc));
    const output = path.join(dir, 'no-ibm-out.glb');
    const r = await run(['rig', input, '-o', output, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    expect(r.out.join('\n')).toMatch(/note: tiny: no inverse bind matrices, so glTF 2\.0 makes them identity/);
    expect((await validateGlb(new Uint8Array(readFileSync(output)))).errors).toBe(0);
  });

  it('replaces an existing output and report, and the summary says so (review 23)', async () => {
    const input = put('again.glb', await writeGlbBytes(makeTinyDoc({ tail: true }).doc));
    const output = path.join(dir, 'again-out.glb');
    const report = path.join(dir, 'again.json');
    const first = await run(['rig', input, '-o', output, '--report', report, '--quiet']);
    expect(first.code).toBe(0);
    expect(first.out.join('\n')).not.toMatch(/replaced/);
    writeFileSync(output, 'an older file');
    const second = await run(['rig', input, '-o', output, '--report', report, '--quiet']);
    expect(second.code).toBe(0);
    expect(second.out[0]!.startsWith(`bitrig rig: ${input} → ${output} (replaced existing ${output}; height `)).toBe(true);
    expect(second.out).toContain(`  report: ${report} (replaced existing ${report})`);
    expect(readFileSync(output).subarray(0, 4).toString()).toBe('glTF');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to write over its input (same path, or another spelling of it)', async () => {
    const input = put('self.glb', await writeGlbBytes(makeTinyDoc({ tail: true }).doc));
    const hash = sha(input);
    for (const o of [input, path.join(dir, '.', 'self.glb'), path.relative(process.cwd(), input)]) {
      const r = await run(['rig', input, '-o', o]);
      expect(r.code).toBe(2);
      expect(r.err[0]).toMatch(/refusing to write over the input/);
    }
    const r2 = await run(['rig', input, '-o', path.join(dir, 'self-out.glb'), '--report', input]);
    expect(r2.code).toBe(2);
    expect(r2.err[0]).toMatch(/--report .* would overwrite the input/);
    expect(sha(input)).toBe(hash);
  });

  it('names usage problems with exit 2', async () => {
    const input = put('usage.glb', await writeGlbBytes(makeTinyDoc({ tail: true }).doc));
    const cases: [string[], RegExp][] = [
      [['rig', input], /missing -o/],
      [['rig', '-o', 'x.glb'], /missing the input/],
      [['rig', input, '-o', 'x.glb', '--mode', 'bones'], /--mode must be chain or rigid/],
      [['rig', input, '-o', 'x.glb', '--include', 'arms'], /--include accepts spine and torso/],
      [['rig', input, '-o', 'x.glb', '--frobnicate'], /unknown option --frobnicate/],
      [['rig', path.join(dir, 'missing.glb'), '-o', path.join(dir, 'm.glb')], /cannot read .*missing\.glb \(no such file\)/],
      [['rig', input, '-o', path.join(dir, 'no-such-folder', 'o.glb')], /cannot write .*o\.glb \(its folder .*no-such-folder does not exist\)/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['rig', input, '-o', path.join(dir, 'p.glb'), '--pelvis', 'Tailbone'], /pelvis "Tailbone" is not a joint of any skin/],
      [['rig', input, '-o', path.join(dir, 'a.glb'), '-o', path.join(dir, 'b.glb')], /-o is given twice/],
      [['rig', input, '-o', path.join(dir, 'a.glb'), '--include', 'spine', '--include', 'torso'], /--include is given twice/],
      [['rig', input, '-o', path.join(dir, 'a.glb'), '--quiet=maybe'], /--quiet is on or off: give it alone, or --quiet=true or --quiet=false/],
      [['rig', input, '-o', '-'], /-o needs a file path/],
      [['rig', input, '--output='], /--output needs a value/],
      [['rig', input, '-o', path.join(dir, 'a.glb'), '--include='], /--include needs a value/],
    ];
    for (const [args, re] of cases) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.join('\n')).toMatch(re);
    }
    const dashed = put('-dash.glb', readFileSync(input)); // ('--' ends the options)
    expect((await run(['rig', '-o', path.join(dir, 'dashed-out.glb'), '-q', '--', dashed])).code).toBe(0);
    const named = await run(['rig', input, '-o', path.join(dir, 'named.glb'), '--pelvis', 'Hips', '-q']);
    expect(named.code).toBe(0);
    expect(named.out.join('\n')).toMatch(/on Hips/);
    expect((await run(['--version'])).out[0]).toMatch(/^\d+\.\d+\.\d+/);
    expect((await run(['rig', '--help'])).out[0]).toMatch(/^usage: bitrig rig/);
    expect((await run(['--help'])).out.join('\n')).toMatch(/rig +grow a bone chain/);
  });

  it('writes atomically: a failed write leaves the target as it was and no temp file', async () => {
    const target = path.join(dir, 'occupied');
    mkdirSync(target);
    await expect(writeFileAtomic(target, new Uint8Array([1, 2, 3]))).rejects.toThrow();
    expect(statSync(target).isDirectory()).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('an output that cannot be written (a folder, an empty path) or a report into a missing folder: exit 2 with one line naming it, before anything is written (review 23)', async () => {
    const input = put('creature-w.glb', await characterToGlb(createBuiltinCharacter({ variant: 'shin' })));
    const folder = path.join(dir, 'a-folder');
    mkdirSync(folder);
    const r1 = await run(['rig', input, '-o', folder, '--quiet']);
    expect(r1.code).toBe(2);
    expect(r1.err).toEqual([expect.stringMatching(/^bitrig rig: cannot write .*a-folder \(it is a folder\)$/)]);
    expect(statSync(folder).isDirectory()).toBe(true);
    const out = path.join(dir, 'never.glb');
    const r2 = await run(['rig', input, '-o', out, '--report', path.join(dir, 'missing', 'r.json'), '--quiet']);
    expect(r2.code).toBe(2);
    expect(r2.err.join('\n')).toMatch(/cannot write the report .*r\.json \(its folder .*missing does not exist\)/);
    expect(existsSync(out)).toBe(false);
    await expect(writeFileAtomic('', new Uint8Array([1]))).rejects.toThrow(/no output path/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('runs as a program: the entry script exits with the code main returns', () => {
    const script = path.join(repoRoot, 'cli', 'main.ts');
    const ok = spawnSync(process.execPath, ['--import', 'tsx', script, '--version'], { cwd: repoRoot, encoding: 'utf8' });
    expect(ok.status).toBe(0);
    expect(ok.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const badFile = put('spawn-bad.glb', 'hello');
    const bad = spawnSync(process.execPath, ['--import', 'tsx', script, 'rig', badFile, '-o', path.join(dir, 'spawn-out.glb')], { cwd: repoRoot, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a GLB file/);
  });
});
