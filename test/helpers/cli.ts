/**
 * Run the `bitrig` command line in-process (cli/main.ts `main`) and capture what it prints.
 *
 * @example
 * const { code, out, err } = await runCli(['rig', 'in.glb', '-o', 'out.glb']);
 */
import { main } from '../../cli/main';

/** Exit code and the lines written to stdout (`out`) and stderr (`err`). */
export interface CliRun { code: number; out: string[]; err: string[] }

/** Run `bitrig <argv…>` in-process and capture its output lines. */
export async function runCli(argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}
