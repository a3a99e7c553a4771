import * as path from 'path';
import { ComposeWarning } from '../compose/errors';
import type { Redactor } from '../compose/sensitive';
import { formatWarningGroup, groupWarnings } from '../compose/warning-groups';
import { compare } from '../util/sort';

/** Exit codes of the CLI. */
export enum ExitCode {
  OK = 0,
  /** Bad input: the compose files, their files, the output folder. */
  BAD_INPUT = 1,
  /** Bad usage: an unknown command or option, a malformed value. */
  BAD_USAGE = 2,
  /** deploy: a kubectl command failed or a wait timed out. */
  DEPLOY_FAILED = 3,
  /** verify: an expectation of the compose app does not hold in the manifests (the same code as bad input). */
  // eslint-disable-next-line @typescript-eslint/no-duplicate-enum-values -- one exit code, two names on purpose
  EXPECTATION_BROKEN = 1,
}

/** Where the CLI runs: its folder and environment (a test passes its own). */
export interface CliEnvironment {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The run's redaction: a command hands it the secrets as soon as it knows them, and every message on stderr passes
   * through it (`main` wraps the streams), errors thrown before the app is built included.
   * @default - nothing is redacted at the boundary (each message is redacted where it is made)
   */
  readonly redaction?: RunRedaction;
}

/**
 * The one boundary every error and warning crosses on its way out: the redactor that knows the most secrets so far
 * (the loader's, then the app's, which also knows the public names a weak secret is part of).
 */
export class RunRedaction {
  private redactor?: Redactor;

  /** From now on, messages are redacted by `redactor`. */
  public use(redactor: Redactor): void {
    this.redactor = redactor;
  }

  public redact(text: string): string {
    return this.redactor ? this.redactor.redact(text) : text;
  }
}

/** `io` whose stderr passes through `redaction` (stdout carries the manifests, whose Secrets hold the values). */
export function redactingIo(io: CliIo, redaction: RunRedaction): CliIo {
  return { ...io, redaction, stderr: (text) => io.stderr(redaction.redact(text)) };
}

/** The CLI's surroundings: where it runs, its environment, and where it prints. */
export interface CliIo extends CliEnvironment {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own folder, environment and streams. */
export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
}

/**
 * One line per warning on stderr (identical findings of several services as one line naming them all; none with
 * `quiet`), then the count by code.
 */
export function printWarnings(warnings: readonly ComposeWarning[], io: CliIo, quiet = false): void {
  if (!quiet) {
    for (const group of groupWarnings(warnings)) {
      io.stderr(`warning: ${oneLine(formatWarningGroup(group))}\n`);
    }
  }
  const counts = new Map<string, number>();
  warnings.forEach((w) => counts.set(w.code, (counts.get(w.code) ?? 0) + 1));
  const byCode = [...counts.entries()].sort(([a], [b]) => compare(a, b)).map(([code, n]) => `${code} ×${n}`);
  io.stderr(
    `${warnings.length} warning${warnings.length === 1 ? '' : 's'}${byCode.length > 0 ? ` (${byCode.join(', ')})` : ''}\n`,
  );
}

/** Text on one line: line breaks and the blanks around them become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** A folder as the user would name it: relative to the working folder when inside it. */
export function display(cwd: string, folder: string): string {
  const relative = path.relative(cwd, folder);
  if (relative === '') {
    return '.';
  }
  return relative.startsWith('..') || path.isAbsolute(relative) ? folder : relative;
}
