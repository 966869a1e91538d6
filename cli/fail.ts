/**
 * How every `bitrig` command ends on an error, in one place: bad input or usage is exit 2
 * with one line (`bitrig <command>: <reason>`); anything else is a bug in bitrig, exit 1 with
 * one line containing "please report" (the stack only with `--debug`).
 */
import { CliUsageError } from './args';

/** Where a command writes its lines (the subset the failure handler needs). */
export interface FailIO {
  /** One line of error output. */
  err: (line: string) => void;
  /** Print the stack of an internal error (`--debug`). */
  debug?: boolean;
}

/**
 * Is this error bad input (exit 2) rather than a bug (exit 1)? Usage errors, library
 * setup errors (`bitrig/…: `) and file-system errors are bad input.
 *
 * @example
 * isInputError(new Error('bitrig/skinning: the file has no skin')); // true
 */
export function isInputError(e: unknown): boolean {
  if (e instanceof CliUsageError) return true;
  const msg = e instanceof Error ? e.message : String(e);
  return /^bitrig\/[a-z]+: /.test(msg) || /^E[A-Z]+$/.test((e as { code?: unknown })?.code as string ?? '');
}

/**
 * One-line reason from an error: the library prefix (`bitrig/x: `) removed, first line only.
 *
 * @example
 * reasonOf(new Error('bitrig/sample: the file has no animations')); // 'the file has no animations'
 */
export function reasonOf(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.split('\n')[0]!.replace(/^bitrig\/[a-z]+: /, '');
}

/**
 * Print the failure of `bitrig <command>` as one line and return its exit code (2 bad input,
 * 1 a bug). A usage error that asks for it points to `bitrig <command> --help`.
 *
 * @example
 * catch (e) { return failWith('bake', e, io); }
 */
export function failWith(command: string, e: unknown, io: FailIO): number {
  if (isInputError(e)) {
    const help = e instanceof CliUsageError && e.usage ? ` (see bitrig ${command} --help)` : '';
    io.err(`bitrig ${command}: ${reasonOf(e)}${help}`);
    return 2;
  }
  io.err(`bitrig ${command}: internal error: ${reasonOf(e)} (a bug in bitrig: please report it with the command and the file${io.debug ? '' : '; --debug shows the stack'})`);
  if (io.debug && e instanceof Error && e.stack) io.err(e.stack);
  return 1;
}
