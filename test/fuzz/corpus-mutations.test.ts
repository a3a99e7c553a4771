import * as path from 'path';
import * as fc from 'fast-check';
import { isComposeError } from '../../lib/compose/errors';
import { loadComposeFromString } from '../../lib/compose/load';
import { runBounded } from '../support/bounded';
import { fuzzAssert, runsOf } from './fuzz-settings';
import { HANG_MS, migrateBounded, scratchDir, violation } from './fuzz-target';
import { CORPUS, CorpusFile, applyMutation, describeMutation, mutation, readCorpus } from './mutations';

/**
 * The corpus files, mutated: keys deleted, types swapped, random strings in ports, sizes, durations and names, deep
 * nesting, duplicate keys and garbage bytes. Whatever the mutation, the loader and the synth either produce output
 * that passes every check, or throw a ComposeError that names where the problem is; never another exception, never
 * a hang.
 */

const corpus = readCorpus();
/** Files by folder name: counterexamples print the name, not the whole file. */
const byDir = new Map(corpus.map((f) => [f.dir, f]));
const dirs = fc.constantFrom(...corpus.map((f) => f.dir));
const outdir = scratchDir('mutations-out');
/** The shell environment of the corpus tests: nothing from the machine. */
const ENV = { PATH: '/usr/bin:/bin' };

function mutatedText(file: CorpusFile, m: Parameters<typeof applyMutation>[1]): string {
  const mutated = applyMutation(file, m);
  // Bytes are decoded as the loader decodes a file it reads (invalid UTF-8 becomes U+FFFD).
  return typeof mutated === 'string' ? mutated : mutated.toString('utf8');
}

function options(file: CorpusFile) {
  return { projectDir: path.join(CORPUS, file.dir), env: ENV, images: file.images, fileName: 'compose.yaml' };
}

test('the loader loads a mutated corpus file or throws a ComposeError with its location', () => {
  const details = fuzzAssert(
    fc.property(dirs, mutation, (dir, m) => {
      const file = byDir.get(dir)!;
      const text = mutatedText(file, m);
      const outcome = runBounded(() => loadComposeFromString(text, options(file)), HANG_MS);
      if (outcome.kind === 'timeout') {
        throw new Error(`the loader hung on ${describeMutation(file, m)}`);
      }
      if (outcome.kind === 'error') {
        const err = outcome.error;
        if (!isComposeError(err)) {
          throw new Error(`${describeMutation(file, m)}: threw ${err instanceof Error ? err.stack : String(err)}`);
        }
        if (err.file !== 'compose.yaml' || (err.path === '' && err.line === undefined)) {
          throw new Error(`${describeMutation(file, m)}: the error names no key path or line: ${err.message}`);
        }
      }
    }),
    runsOf('mutated corpus files through the loader'),
  );
  expect(details.numRuns).toBe(runsOf('mutated corpus files through the loader'));
});

test('a mutated corpus file synthesizes output that passes every check, or yields a ComposeError', () => {
  const details = fuzzAssert(
    fc.property(dirs, mutation, (dir, m) => {
      const file = byDir.get(dir)!;
      const problem = violation(migrateBounded(mutatedText(file, m), options(file), outdir), { mustSucceed: false });
      if (problem) {
        throw new Error(`${describeMutation(file, m)}: ${problem}`);
      }
    }),
    runsOf('mutated corpus files through the synth'),
  );
  expect(details.numRuns).toBe(runsOf('mutated corpus files through the synth'));
});
