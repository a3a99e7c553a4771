import * as fc from 'fast-check';

/**
 * Run counts and the seed of every property-based test. CI runs the defaults with a fixed seed, so a run is
 * reproducible and a failure names its input; a soak run raises the counts and varies the seed:
 *
 *   FUZZ_RUNS=2000 FUZZ_CLI_RUNS=100 FUZZ_SEED=$RANDOM npx jest test/fuzz
 *
 * FUZZ_RUNS is the run count of each in-process property, FUZZ_CLI_RUNS that of the properties that spawn the CLI.
 */

/** Default runs per in-process property that synthesizes (loader-only properties run {@link LOADER_FACTOR} times as many). */
export const DEFAULT_FUZZ_RUNS = 40;
/** Loader-only properties are ~50 times cheaper than a synth: they run this many times FUZZ_RUNS. */
export const LOADER_FACTOR = 10;
/** Default runs per property that spawns the built CLI (a process start costs ~0.3 s). */
export const DEFAULT_FUZZ_CLI_RUNS = 6;
/** Default seed. */
export const DEFAULT_FUZZ_SEED = 6;

export type FuzzKind = 'library' | 'cli';

function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
  }
  return value;
}

/** The seed of this run: FUZZ_SEED, or the default. */
export const FUZZ_SEED = envInt('FUZZ_SEED', DEFAULT_FUZZ_SEED, -(2 ** 31));

/** The run count of a property of this kind: FUZZ_RUNS / FUZZ_CLI_RUNS, or the default. */
export function fuzzRuns(kind: FuzzKind): number {
  return kind === 'cli' ? envInt('FUZZ_CLI_RUNS', DEFAULT_FUZZ_CLI_RUNS, 1) : envInt('FUZZ_RUNS', DEFAULT_FUZZ_RUNS, 1);
}

function report(details: fc.RunDetails<unknown>, kind: FuzzKind): string {
  const runs = kind === 'cli' ? 'FUZZ_CLI_RUNS' : 'FUZZ_RUNS';
  return `${fc.defaultReportMessage(details) ?? 'property failed'}\n`
    + `Reproduce with FUZZ_SEED=${details.seed} and the same ${runs} (this run: ${fuzzRuns(kind)}); `
    + `counterexample path ${details.counterexamplePath}.`;
}

/**
 * Checks a synchronous property with this run's seed and `runs` runs (default: FUZZ_RUNS); throws with the seed and
 * the shrunk input on failure.
 */
export function fuzzAssert<T>(property: fc.IProperty<T>, runs = fuzzRuns('library')): fc.RunDetails<T> {
  const details = fc.check(property, { numRuns: runs, seed: FUZZ_SEED });
  if (details.failed) {
    throw new Error(report(details as fc.RunDetails<unknown>, 'library'));
  }
  return details;
}

/** The asynchronous twin of {@link fuzzAssert}, for the CLI (runs: FUZZ_CLI_RUNS). */
export async function fuzzAssertAsync<T>(property: fc.IAsyncProperty<T>, kind: FuzzKind = 'cli'): Promise<fc.RunDetails<T>> {
  const details = await fc.check(property, { numRuns: fuzzRuns(kind), seed: FUZZ_SEED });
  if (details.failed) {
    throw new Error(report(details as fc.RunDetails<unknown>, kind));
  }
  return details;
}
