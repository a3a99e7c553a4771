import * as fc from 'fast-check';

/**
 * Run counts and the seed of every property-based test. CI runs the defaults with a fixed seed, so a run is
 * reproducible and a failure names its input; a soak run raises the counts and varies the seed:
 *
 *   FUZZ_RUNS=2000 FUZZ_CLI_RUNS=100 FUZZ_SEED=$RANDOM npx jest test/fuzz test/conformance/every-output
 *
 * FUZZ_RUNS is the run count of each in-process property, FUZZ_CLI_RUNS that of the properties that spawn the CLI.
 */

/** Default runs per in-process property (the loader-only one runs ten times as many: it is ~50 times cheaper). */
export const DEFAULT_FUZZ_RUNS = 20;
/** Default runs per property that spawns the built CLI (a conversion costs ~1 s). */
export const DEFAULT_FUZZ_CLI_RUNS = 5;
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

/** Every property-based test of the suite, with its kind and its multiple of the kind's run count. */
export const FUZZ_PROPERTIES = {
  'random valid apps synthesize and pass every check': { kind: 'library', factor: 1 },
  'broken apps name the broken key': { kind: 'library', factor: 1 },
  'mutated corpus files through the loader': { kind: 'library', factor: 10 },
  'mutated corpus files through the synth': { kind: 'library', factor: 1 },
  // At random, after every project reordered once (fast-check examples, not counted here).
  'reordered compose files write identical bytes': { kind: 'library', factor: 0.25 },
  'mutated corpus files through convert': { kind: 'cli', factor: 1 },
  'crafted ledgers touch nothing outside the output folder': { kind: 'library', factor: 1 },
  'a write failing at any step leaves the output as it was': { kind: 'library', factor: 1 },
  'include graphs load in bounded time': { kind: 'library', factor: 1 },
  'link graphs in a bound folder are walked in bounded time': { kind: 'library', factor: 1 },
  'bound file names become valid keys or a refusal naming the file': { kind: 'library', factor: 1 },
} as const;

export type FuzzProperty = keyof typeof FUZZ_PROPERTIES;

/** The seed of this run: FUZZ_SEED, or the default. */
export const FUZZ_SEED = envInt('FUZZ_SEED', DEFAULT_FUZZ_SEED, -(2 ** 31));

/** The run count of a property of this kind: FUZZ_RUNS / FUZZ_CLI_RUNS, or the default. */
export function fuzzRuns(kind: FuzzKind): number {
  return kind === 'cli' ? envInt('FUZZ_CLI_RUNS', DEFAULT_FUZZ_CLI_RUNS, 1) : envInt('FUZZ_RUNS', DEFAULT_FUZZ_RUNS, 1);
}

/** The run count of a property in this run. */
export function runsOf(property: FuzzProperty): number {
  const { kind, factor } = FUZZ_PROPERTIES[property];
  return Math.max(1, Math.round(fuzzRuns(kind) * factor));
}

/** The run count of a property with the defaults (what `npm test` runs). */
export function defaultRunsOf(property: FuzzProperty): number {
  const { kind, factor } = FUZZ_PROPERTIES[property];
  return Math.max(1, Math.round((kind === 'cli' ? DEFAULT_FUZZ_CLI_RUNS : DEFAULT_FUZZ_RUNS) * factor));
}

function report(details: fc.RunDetails<unknown>, kind: FuzzKind): string {
  const runs = kind === 'cli' ? 'FUZZ_CLI_RUNS' : 'FUZZ_RUNS';
  return (
    `${fc.defaultReportMessage(details) ?? 'property failed'}\n` +
    `Reproduce with FUZZ_SEED=${details.seed} and the same ${runs} (this run: ${fuzzRuns(kind)}); ` +
    `counterexample path ${details.counterexamplePath}.`
  );
}

/**
 * Checks a synchronous property with this run's seed and `runs` runs (default: FUZZ_RUNS), `examples` first (they
 * count among the runs); throws with the seed and the shrunk input on failure.
 */
export function fuzzAssert<T>(
  property: fc.IProperty<T>,
  runs = fuzzRuns('library'),
  examples: T[] = [],
): fc.RunDetails<T> {
  const details = fc.check(property, { numRuns: runs, seed: FUZZ_SEED, examples });
  if (details.failed) {
    throw new Error(report(details as fc.RunDetails<unknown>, 'library'));
  }
  return details;
}

/** The asynchronous twin of {@link fuzzAssert}, for the CLI (runs: FUZZ_CLI_RUNS). */
export async function fuzzAssertAsync<T>(
  property: fc.IAsyncProperty<T>,
  kind: FuzzKind = 'cli',
): Promise<fc.RunDetails<T>> {
  const details = await fc.check(property, { numRuns: fuzzRuns(kind), seed: FUZZ_SEED });
  if (details.failed) {
    throw new Error(report(details as fc.RunDetails<unknown>, kind));
  }
  return details;
}
