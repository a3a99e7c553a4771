import * as vm from 'vm';
import { ComposeError, isComposeError } from '../../lib/compose/errors';

/** What {@link runBounded} saw: the value, or the error thrown, and how long it took. */
export type BoundedOutcome<T> =
  | { readonly kind: 'value'; readonly value: T; readonly ms: number }
  | { readonly kind: 'error'; readonly error: unknown; readonly ms: number }
  | { readonly kind: 'timeout'; readonly ms: number };

const SCRIPT = new vm.Script('run()');
const CONTEXT = vm.createContext({ run: () => undefined }) as { run: () => void };

/**
 * Runs `fn` synchronously with a hard time limit: V8 terminates the call when the limit passes, even inside a
 * tight loop, so a hang in the code under test fails the test with the input instead of stalling CI.
 */
export function runBounded<T>(fn: () => T, timeoutMs: number): BoundedOutcome<T> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
  let value: T | undefined;
  CONTEXT.run = () => {
    value = fn();
  };
  try {
    SCRIPT.runInContext(CONTEXT, { timeout: timeoutMs });
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      return { kind: 'timeout', ms: elapsed() };
    }
    return { kind: 'error', error, ms: elapsed() };
  }
  return { kind: 'value', value: value as T, ms: elapsed() };
}

/** The ComposeError a call throws, within a time bound (a hang fails with the input). */
export function refused(fn: () => unknown, timeoutMs = 10_000): ComposeError {
  const outcome = runBounded(fn, timeoutMs);
  if (outcome.kind === 'timeout') {
    throw new Error(`no result within ${timeoutMs} ms`);
  }
  if (outcome.kind === 'value') {
    throw new Error('expected a ComposeError, got a result');
  }
  if (!isComposeError(outcome.error)) {
    throw outcome.error;
  }
  return outcome.error;
}
