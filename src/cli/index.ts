/**
 * `kb-voice/cli`: the argument rules of the three commands, `kb-voice` (relay), `kb-voice-emulator`
 * and `kb-voice-qa`, in one place: `node:util` `parseArgs`, strict (an unknown flag is a usage
 * error), integers as digits only in a stated range, one of a fixed set of choices, and one exit
 * code for every usage error: 2 (the shell's convention for "called wrongly", as getopt-based
 * tools use it; 1 stays for "ran and failed"). The emulator and QA packages import it from here,
 * the one published entry they may both reach; it is Node-only, for commands, not the library.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A command's options, as `parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** What `parseCommandArgs` returns for options `O`: `parseArgs`'s own typed result. */
export type ParsedCommand<O extends CommandOptions> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>>;

/** The exit code of every usage error of kb-voice's commands. */
export const USAGE_EXIT_CODE = 2;

/** Thrown for bad command-line arguments; the message is meant for the user. */
export class UsageError extends Error {
  readonly code = 'usage';
}

/** `parseArgs` with the commands' rules: strict, positionals only where asked for; throws `UsageError`. */
export function parseCommandArgs<const O extends CommandOptions>(argv: string[], options: O, { positionals = false } = {}): ParsedCommand<O> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** `--name`'s value as an integer from `min` to `max` (digits only), `fallback` when absent. */
export function integerOption(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${value}'`);
  return n;
}

/** `--name`'s value, one of `choices`; undefined when absent. */
export function choiceOption<T extends string>(name: string, value: string | undefined, choices: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${value}'`);
  return value as T;
}

/**
 * Runs a command's body; a `UsageError` it throws is written to stderr as `<command>: <message>`
 * with the usage text after it, and becomes `USAGE_EXIT_CODE`. Other errors pass through.
 */
export async function withUsage(command: string, usage: string, body: () => Promise<number | void> | number | void): Promise<number | void> {
  try {
    return await body();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${command}: ${error.message}\n\n${usage.trimEnd()}\n`);
    return USAGE_EXIT_CODE;
  }
}
