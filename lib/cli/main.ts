import { isComposeError } from '../compose/errors';
import { CliIo, ExitCode, RunRedaction, processIo, redactingIo } from './io';
import { PROGRAM, UsageError, helpText, parseCommandLine, usageLine } from './options/options';

/** Runs the CLI with arguments (without node and the script) and returns the exit code. */
export function main(argv: readonly string[], given: CliIo = processIo()): number {
  // Every message leaves through the run's redactor, whoever threw it and whenever (finding 10 of issue 25).
  const io = redactingIo(given, new RunRedaction());
  let debug = argv.includes('--debug');
  try {
    const parsed = parseCommandLine(argv);
    debug = parsed.debug;
    switch (parsed.command) {
      case 'help':
        io.stdout(helpText(parsed.topic));
        return ExitCode.OK;
      // The commands load the constructs (and cdk8s-plus) only when they run, so that usage errors answer at once.
      case 'convert':
        return (require('./convert') as typeof import('./convert')).convert(parsed.options, io);
      case 'analyze':
        return (require('./analyze/analyze') as typeof import('./analyze/analyze')).analyze(parsed.options, io);
      case 'verify':
        return (require('./verify') as typeof import('./verify')).verify(parsed.options, io);
      case 'deploy':
        return (require('./deploy') as typeof import('./deploy')).deploy(parsed.options, io);
      case 'move-data':
        return (require('./move-data/move-data') as typeof import('./move-data/move-data')).moveData(
          parsed.options,
          io,
        );
    }
  } catch (err) {
    return reportError(err, io, debug);
  }
}

/** The entry point of `bin/cdk8s-compose`. */
export function run(): void {
  process.exitCode = main(process.argv.slice(2));
  // One more turn of the event loop, so that a SIGINT or SIGTERM that arrived during the (synchronous) command is
  // handled (output.ts: the staging folder goes, the process ends by the signal) instead of being dropped on exit.
  setImmediate(() => undefined);
}

function reportError(err: unknown, io: CliIo, debug: boolean): number {
  const detail = debug && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  if (err instanceof UsageError) {
    io.stderr(`error: ${err.message}\n${usageLine(err.command)}\n${detail ? `${detail.trimStart()}\n` : ''}`);
    return ExitCode.BAD_USAGE;
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (!isComposeError(err) && typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
    // A file system error nothing closer caught: in words, without Node's text and its absolute paths.
    const { writeError } = require('./output/output-files') as typeof import('./output/output-files');
    err = writeError(err, 'a file operation failed', 'check the output folder and the disk, then run again');
  }
  const message = err instanceof Error ? err.message : String(err);
  const known =
    isComposeError(err) ||
    message.startsWith('Validation failed') ||
    (err as NodeJS.ErrnoException)?.code !== undefined;
  io.stderr(
    `error: ${message}\n${known ? '' : `(an internal error of ${PROGRAM}: run with --debug for the stack trace)\n`}` +
      `${detail ? `${detail.trimStart()}\n` : ''}`,
  );
  return ExitCode.BAD_INPUT;
}
