#!/usr/bin/env node
/**
 * The `bitrig` command: a dispatcher over the subcommands `rig`, `measure` and `bake`. Exit
 * codes: 0 success, 2 bad input or usage (a one-line reason on stderr), 1 a bug in bitrig
 * (one line saying "please report"; the stack only with `--debug`).
 *
 * Registered as the package's `bin` (`dist/cli.js`), so `npx bitrig rig in.glb -o out.glb`
 * works after `npm install` (no engine needed). Tests call {@link main} in-process with their own {@link CliIO}.
 */
import { version } from '../package.json';
import { RIG_COMMAND } from './rig';
import { MEASURE_COMMAND } from './measure';
import { BAKE_COMMAND } from './bake';
import { didYouMean } from './args';
import { failWith } from './fail';

/** Where a command prints: `out` for results, `err` for progress and errors. */
export interface CliIO {
  /** One line of normal output. */
  out: (line: string) => void;
  /** One line of progress or error output. */
  err: (line: string) => void;
  /** Print the stack of an internal error (`--debug`). */
  debug?: boolean;
}

/** A subcommand of `bitrig`. */
export interface CliCommand {
  /** One-line summary for `bitrig --help`. */
  summary: string;
  /** Full usage text for `bitrig <command> --help`. */
  usage: string;
  /** Run with the arguments after the command name; resolves to the exit code. */
  run: (args: string[], io: CliIO) => Promise<number>;
}

/** The subcommands, by name. Other commands register here (one line each). */
export const COMMANDS: Record<string, CliCommand> = {
  rig: RIG_COMMAND,
  measure: MEASURE_COMMAND,
  bake: BAKE_COMMAND,
};

/** The package version printed by `bitrig --version`. */
export const VERSION: string = version;

/** Default IO: stdout and stderr. */
export const PROCESS_IO: CliIO = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

function usage(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  return [
    `bitrig ${VERSION}: tails for characters whose rigger never gave them bones`,
    '',
    'usage: bitrig <command> [options]',
    '',
    'commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${COMMANDS[n]!.summary}`),
    '',
    'bitrig <command> --help shows a command\'s options; bitrig --version prints the version;',
    '--debug shows the stack when bitrig fails with an internal error (exit 1).',
  ].join('\n');
}

/**
 * Run the `bitrig` command line (`argv` without `node` and the script) and resolve to the
 * exit code. Never calls `process.exit`.
 *
 * @example
 * const code = await main(['rig', 'fox.glb', '-o', 'fox-rigged.glb']);
 */
export async function main(argv: readonly string[], io: CliIO = PROCESS_IO): Promise<number> {
  // --debug (anywhere before a lone --) shows the stack of an internal error.
  const end = argv.indexOf('--');
  const flagsPart = end < 0 ? argv : argv.slice(0, end);
  const debug = flagsPart.includes('--debug');
  if (debug) io = { ...io, debug: true };
  const [cmd, ...rest] = debug ? [...flagsPart.filter((a) => a !== '--debug'), ...(end < 0 ? [] : argv.slice(end))] : argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(usage());
    return cmd === undefined ? 2 : 0;
  }
  if (cmd === '--version' || cmd === '-v') {
    io.out(VERSION);
    return 0;
  }
  const command = COMMANDS[cmd];
  if (!command) {
    const hint = didYouMean(cmd, Object.keys(COMMANDS));
    io.err(`bitrig: unknown command "${cmd}"${hint || ` (commands: ${Object.keys(COMMANDS).join(', ')}; see bitrig --help)`}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run([...rest], io);
  } catch (e) {
    return failWith(cmd, e, io);
  }
}

/** True when this module is the program being run (the bin, or `tsx cli/main.ts`). */
function isEntry(): boolean {
  if (typeof process === 'undefined' || !Array.isArray(process.argv)) return false;
  const script = process.argv[1] ?? '';
  return /(?:^|[\\/])(?:bitrig|cli\.c?js|cli\.mjs|main\.[cm]?[jt]s)$/.test(script);
}

if (isEntry()) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
