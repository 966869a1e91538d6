/**
 * `bitrig rig <in.glb> -o <out.glb> [--mode chain|rigid] [--report <file.json>]
 * [--include spine,torso] [--pelvis <joint>] [--quiet]`: the rig pass on a file. Prints progress lines on stderr
 * and a human summary on stdout; exit 0 on success (also when nothing was found), 2 on bad
 * input or usage with a one-line reason, 1 for a bug ("please report"). Never writes over its
 * input; the GLB and its report are written all or nothing (both temp files, then both renamed).
 */
import { promises as fs } from 'node:fs';
import type { CliCommand, CliIO } from './main';
import type { RigInclude, RigMode } from '../rig/options';
import type { AppendageKind, AppendageReport, ExistingChainReport, RigReport } from '../rig/pass';

const KIND_LABEL: Record<AppendageKind, string> = {
  tail: 'tail-like piece(s)',
  spine: 'long piece(s) on the spine (--include spine)',
  worn: 'worn piece(s) on the torso (--include torso)',
  body: 'far piece(s) of the body itself (belly, flanks, neck; never made rigid)',
  short: 'short piece(s) on the torso',
  head: 'piece(s) on the head (ears, hair)',
  limb: 'piece(s) on limbs (sleeves, hands, feet)',
  speck: 'speck(s)',
};
import { checkOutputPath, readFileCapped, samePath, writeFilesAtomic, type AtomicFile } from '../rig/node';
import { rigGlb } from '../rig/glb';
import { CliUsageError, didYouMean, parseFlags, type FlagSpec } from './args';
import { failWith } from './fail';

const USAGE = [
  'usage: bitrig rig <in.glb> -o <out.glb> [--mode chain|rigid] [--report <file.json>] [--include spine,torso] [--pelvis <joint>] [--quiet]',
  '',
  'Finds long pieces of skin hanging from the pelvis (a tail an auto-rigger gave to a shin),',
  'grows a bone chain Tail_1…Tail_K + Tail_End along each and re-weights its skin.',
  '',
  '  -o, --out, --output <file.glb>',
  '                        where to write the rigged GLB (never the input; a .glb name; written',
  '                        atomically; an existing file is replaced, and the summary says so)',
  '  --mode chain|rigid    chain (default) grows bones; rigid gives the piece weight 1.0 on the pelvis',
  '  --report <file.json>  also write the full report (every piece found, with numbers) as JSON',
  '  --include spine,torso also make long pieces on the spine (spine) or worn torso pieces',
  '                        such as capes and skirts (torso) rigid on their bone; off by default.',
  '                        Far skin of the body itself (a long body\'s belly, flanks, neck) is',
  '                        never made rigid',
  '  --pelvis <joint>      the pelvis joint, when neither its name nor the skeleton shows it',
  '  --quiet               no progress lines',
  '',
  '  --flag=value works for every flag; --quiet=false turns the switch off',
  '',
  'The GLB and the report are written all or nothing: both to temporary files first, then',
  'renamed into place.',
  '',
  'Exit codes: 0 success (also when nothing was found), 2 bad input or usage (one line),',
  '1 a bug in bitrig (please report it).',
].join('\n');

interface RigArgs {
  input: string;
  output: string;
  mode: RigMode;
  report: string | null;
  include: RigInclude[];
  pelvis: string | null;
  quiet: boolean;
}

/** The flags of `bitrig rig` (-o, --out and --output are one option). */
export const RIG_FLAGS: readonly FlagSpec[] = [
  { names: ['--out', '-o', '--output'], kind: 'value' }, { names: ['--mode'], kind: 'value' }, { names: ['--report'], kind: 'value' },
  { names: ['--include'], kind: 'value' }, { names: ['--pelvis'], kind: 'value' },
  { names: ['--quiet', '-q'], kind: 'bool' }, { names: ['--help', '-h'], kind: 'bool' },
];

function parseArgs(args: string[]): RigArgs {
  const { _: positional, flags } = parseFlags(args, RIG_FLAGS);
  if (positional.length > 1) throw new CliUsageError(`one input file only (got "${positional[0]}" and "${positional[1]}")`);
  const input = positional[0] ?? null;
  const output = typeof flags['--out'] === 'string' ? flags['--out'] : null;
  if (output === '-') throw new CliUsageError('-o needs a file path (writing to standard output is not supported)');
  const m = flags['--mode'] ?? 'chain';
  if (m !== 'chain' && m !== 'rigid') throw new CliUsageError(`--mode must be chain or rigid, got "${m}"${didYouMean(String(m), ['chain', 'rigid'])}`);
  const list = typeof flags['--include'] === 'string' ? flags['--include'].split(',').map((s) => s.trim()).filter(Boolean) : [];
  for (const s of list) if (s !== 'spine' && s !== 'torso') throw new CliUsageError(`--include accepts spine and torso, got "${s}"${didYouMean(s, ['spine', 'torso'])}`);
  if (input === null) throw new CliUsageError('missing the input GLB', true);
  if (output === null) throw new CliUsageError('missing -o <out.glb>', true);
  return {
    input, output, mode: m, include: list as RigInclude[], quiet: flags['--quiet'] === true,
    report: typeof flags['--report'] === 'string' ? flags['--report'] : null,
    pelvis: typeof flags['--pelvis'] === 'string' ? flags['--pelvis'] : null,
  };
}

function n3(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(1) : a >= 1 ? x.toFixed(3) : x.toPrecision(3);
}

/** Options of {@link formatRigSummary}. */
export interface RigSummaryOptions {
  /** The output file existed before and was replaced (the summary says so). */
  replaced?: boolean;
}

/**
 * The human summary of a report (one line per changed piece, one for the rest).
 *
 * @example
 * for (const line of formatRigSummary(report, 'in.glb', 'out.glb', { replaced: true })) console.log(line);
 */
export function formatRigSummary(report: RigReport, input: string, output: string, options: RigSummaryOptions = {}): string[] {
  const lines: string[] = [];
  const changed = report.appendages.filter((a) => a.verdict !== 'left-alone');
  const alone = report.appendages.filter((a) => a.verdict === 'left-alone');
  const replaced = options.replaced ? `replaced existing ${output}; ` : '';
  const existing = report.existingChains ?? [];
  // Height 0 means no skin could be measured (each has a note saying why): no height, no
  // "no tail found", only the notes.
  const measured = report.height > 0 || report.appendages.length > 0 || existing.length > 0;
  lines.push(`bitrig rig: ${input} → ${output} (${replaced}${measured ? `height ${n3(report.height)} model units, ` : ''}${report.ms.toFixed(0)} ms)`);
  // Several skins (one per mesh, as FBX2glTF writes them) name the skin of each line.
  const skinCount = new Set([...report.appendages.map((a) => a.skin), ...existing.map((c) => c.skin)]).size;
  // A tail chain the model already has comes first: it is why nothing was grown. Skins sharing
  // the chain's joints give one line.
  const byChain = new Map<string, ExistingChainReport[]>();
  for (const c of existing) {
    const key = `${c.parent}\u0000${c.joints.join('\u0000')}`;
    const list = byChain.get(key);
    if (list) list.push(c);
    else byChain.set(key, [c]);
  }
  for (const group of byChain.values()) {
    const c = group[0]!;
    const n = chainBoneCount(c.joints);
    const total = group.reduce((s, g) => s + g.changedVertexCount, 0);
    const skins = group.length > 1 ? ` (in ${group.length} skins: ${group.map((g) => g.skin).join(', ')})` : skinCount > 1 ? ` (skin ${c.skin})` : '';
    const split = group.length > 1 && total > 0 ? ` (${group.map((g) => `${g.changedVertexCount} in ${g.skin}`).join(', ')})` : '';
    const moved = total
      ? `${total} vertices lying along it but weighted to body bones were re-weighted onto it${split}`
      : 'its skin is left as it is';
    lines.push(`  already has a tail chain ${chainLabel(c.joints)} (${n} bone${n === 1 ? '' : 's'})${c.parent ? ` on ${c.parent}` : ''}${skins}: nothing to grow; ${moved}`);
  }
  for (const a of changed) lines.push(`  ${describe(a, skinCount > 1)}`);
  if (changed.length === 0 && measured) {
    lines.push(
      existing.length > 0
        ? '  no chain grown, no skin re-weighted: the output has the same skeleton and weights'
        : '  no tail found: nothing long hangs from the pelvis, so no chain was grown; the output has the same skeleton and weights',
    );
  }
  for (const n of report.notes) lines.push(`  note: ${n}`);
  if (alone.length > 0) {
    const counts = new Map<AppendageKind, number>();
    for (const a of alone) counts.set(a.kind, (counts.get(a.kind) ?? 0) + 1);
    const parts = [...counts.entries()].map(([k, c]) => `${c} ${KIND_LABEL[k]}`);
    lines.push(`  left alone: ${parts.join(', ')} (--report lists every piece and why)`);
  }
  return lines;
}

/** Bones of a chain's joint list (its end helper, `…End`, not counted). */
function chainBoneCount(joints: readonly string[]): number {
  return joints.length > 1 && /end$/i.test(joints[joints.length - 1]!) ? joints.length - 1 : joints.length;
}

/** `Tail_1…Tail_8 + Tail_End`; an artist's chain without an end helper is `Tail1…Tail8`. */
function chainLabel(joints: readonly string[]): string {
  if (joints.length === 0) return '(none)';
  const last = joints[joints.length - 1]!;
  const hasEnd = joints.length > 1 && /end$/i.test(last);
  const bones = hasEnd ? joints.slice(0, -1) : joints;
  const head = bones.length === 1 ? bones[0]! : `${bones[0]}…${bones[bones.length - 1]}`;
  return hasEnd ? `${head} + ${last}` : head;
}

/** What a rigid piece is, for the summary. */
const RIGID_LABEL: Partial<Record<AppendageKind, string>> = { tail: 'tail', spine: 'piece on the spine', worn: 'worn piece' };

/** One changed piece: `chain … on Hips: …`, `onto the existing chain … on Hips: …`, `tail rigid on Hips: …`. */
function describe(a: AppendageReport, nameSkin: boolean): string {
  let what: string;
  if (a.verdict === 'chain') what = `chain ${chainLabel(a.joints)} (K = ${a.segments}, length ${n3(a.length)}) on ${a.attachment}`;
  else if (a.verdict === 'existing-chain') what = `onto the existing chain ${chainLabel(a.joints)} (no bones added) on ${a.attachment}`;
  else {
    // (the bone it rides is where it hangs from, unless the bias moved the attachment)
    what = `${RIGID_LABEL[a.kind] ?? 'piece'} rigid on ${a.rigidBone}${a.attachment && a.attachment !== a.rigidBone ? ` (hangs from ${a.attachment})` : ''}`;
  }
  if (nameSkin) what += ` (skin ${a.skin})`;
  return (
    `${what}: ${a.changedVertexCount} vertices re-weighted, reach ${a.reachRatio.toFixed(2)} H, ` +
    `elongation ${a.elongation.toFixed(2)}; weighted bone distance ${n3(a.boneDistanceBefore)} → ${n3(a.boneDistanceAfter)}`
  );
}

/** Check the paths before any work: not the input, not each other, writable names in existing folders. */
async function checkRigPaths(input: string, output: string, reportPath: string | null): Promise<void> {
  if (await samePath(input, output)) throw new CliUsageError(`refusing to write over the input ${input}; choose another -o`);
  if (reportPath && ((await samePath(reportPath, input)) || (await samePath(reportPath, output)))) {
    throw new CliUsageError(`--report ${reportPath} would overwrite the ${(await samePath(reportPath, input)) ? 'input' : 'output'}; choose another path`);
  }
  // Both outputs are checked before the pass runs (a folder, a missing folder, a .gltf name),
  // so a bad path never costs a whole run.
  await checkOutputPath(output, 'bitrig/rig', { glb: true });
  if (reportPath) await checkOutputPath(reportPath, 'bitrig/rig', { label: 'the report ' });
}

/** Write the GLB and its report all or nothing (both temp files written, then both renamed). */
async function writeOutputs(files: AtomicFile[]): Promise<void> {
  try {
    await writeFilesAtomic(files);
  } catch (e) {
    const failed = (e as { path?: string }).path ?? files[0]!.file;
    const reason = explainWrite(e, failed);
    throw new Error(`bitrig/rig: cannot write ${failed} (${reason})${files.length > 1 ? '; nothing was written' : ''}`);
  }
}

function explainWrite(e: unknown, file: string): string {
  const err = e as NodeJS.ErrnoException & { signal?: string };
  if (err.code === 'EINTR' && err.signal) return `the write was interrupted by ${err.signal}; ${file} is as it was`;
  return err.code === 'EISDIR' ? 'it is a folder' : err.code === 'ENOTFILE' ? 'it is not a regular file' : err.code === 'ENOENT' ? 'its folder does not exist'
    : err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS' ? 'permission denied' : err.code === 'ENOSPC' || err.code === 'EFBIG' || err.code === 'EDQUOT' ? 'no space left' : err.code ?? err.message;
}

async function runRig(args: string[], io: CliIO): Promise<number> {
  try {
    const { input, output, mode, include, pelvis, quiet, report: reportPath } = parseArgs(args);
    await checkRigPaths(input, output, reportPath);
    let lastStep = '';
    const t0 = Date.now();
    const onProgress = (step: string, fraction: number): void => {
      if (quiet || step === lastStep) return;
      lastStep = step;
      io.err(`bitrig rig: [${String(Math.round(fraction * 100)).padStart(3)}%] ${step} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    };
    // An existing output is replaced (as cp and most tools do), and the summary says so.
    const exists = async (f: string): Promise<boolean> => (await fs.lstat(f).catch(() => null)) !== null;
    const replacedOutput = await exists(output);
    const replacedReport = reportPath ? await exists(reportPath) : false;
    const bytes = await readFileCapped(input, 'bitrig/rig', undefined, { glb: true });
    // (no line for 'read': a file refused by the validation gets its one line and nothing else)
    const { glb, report } = await rigGlb(bytes, { mode, include, pelvis, onProgress: (step, f) => { if (step !== 'done' && step !== 'read') onProgress(step, f); } });
    onProgress('save', 0.95);
    const files: AtomicFile[] = [{ file: output, bytes: glb }];
    if (reportPath) files.push({ file: reportPath, bytes: `${JSON.stringify({ input, output, mode, include, ...report }, null, 2)}\n` });
    await writeOutputs(files);
    onProgress('done', 1);
    for (const line of formatRigSummary(report, input, output, { replaced: replacedOutput })) io.out(line);
    if (reportPath) io.out(`  report: ${reportPath}${replacedReport ? ` (replaced existing ${reportPath})` : ''}`);
    return 0;
  } catch (e) {
    return failWith('rig', e, io);
  }
}

/** The `rig` subcommand. */
export const RIG_COMMAND: CliCommand = {
  summary: 'grow a bone chain along a tail the rigger gave to a shin, and re-weight its skin',
  usage: USAGE,
  run: runRig,
};
