/**
 * `npm run models:detail`: make the demo's failure case from a real animal. Reads
 * `demo/models/quaternius-fox.glb`, removes its tail bones and hands the tail's skin to the
 * left shin and both thighs (as an auto-rigger does, {@link detailAnimal}), and writes
 * `demo/models/quaternius-fox-detailed.glb`: a temp file beside it, then a rename, so a
 * failed run leaves no half-written model. Never writes over its input.
 *
 *   npm run models:detail [-- --in demo/models/quaternius-fox.glb --out demo/models/quaternius-fox-detailed.glb]
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readGlbBytes, writeGlbBytes } from '../../rig/glb';
import { ANIMAL_PRESETS, detailAnimal } from './detailAnimal';

/** Arguments of {@link detailFile}. */
export interface DetailFileArgs {
  /** Input GLB (a tailed Quaternius animal). */
  input: string;
  /** Output GLB; must differ from the input. */
  output: string;
}

/**
 * De-tail one GLB file into another, atomically. Throws `bitrig models: …` when the output is
 * the input or the animal has no tail chain.
 *
 * @example
 * await detailFile({ input: 'demo/models/quaternius-fox.glb', output: 'demo/models/quaternius-fox-detailed.glb' });
 */
export async function detailFile(args: DetailFileArgs): Promise<{ tailVertices: number; wrongJoints: string[] }> {
  const input = path.resolve(args.input);
  const output = path.resolve(args.output);
  if (input === output) throw new Error(`bitrig models: the output ${output} is the input; choose another file`);
  const doc = await readGlbBytes(new Uint8Array(await fs.readFile(input)));
  const truth = detailAnimal(doc, ANIMAL_PRESETS['quaternius-fox']);
  const bytes = await writeGlbBytes(doc);
  const tmp = path.join(path.dirname(output), `.${path.basename(output)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, bytes);
    await fs.rename(tmp, output);
  } finally {
    await fs.rm(tmp, { force: true });
  }
  return { tailVertices: truth.tailVertices.length, wrongJoints: truth.wrongJoints };
}

function parseArgs(argv: string[]): DetailFileArgs {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const out: DetailFileArgs = {
    input: path.join(root, 'demo/models/quaternius-fox.glb'),
    output: path.join(root, 'demo/models/quaternius-fox-detailed.glb'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--in') out.input = argv[++i] ?? '';
    else if (a === '--out') out.output = argv[++i] ?? '';
    else throw new Error(`bitrig models: unknown argument ${a} (use --in FILE --out FILE)`);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
detailFile(args).then(
  (r) => console.log(`bitrig models: wrote ${path.relative(process.cwd(), args.output)} (${r.tailVertices} tail vertices handed to ${r.wrongJoints.join(', ')})`),
  (e: unknown) => { console.error(e instanceof Error ? e.message : String(e)); process.exit(1); },
);
