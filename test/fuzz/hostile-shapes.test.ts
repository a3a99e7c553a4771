import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose } from '../../lib/compose/load';
import { runBounded } from '../support/bounded';
import { fuzzAssert, runsOf } from './fuzz-settings';
import { HANG_MS, scratchDir } from './fuzz-target';

/**
 * The input shapes of issue 25's second round, at random: include graphs (diamonds, fan-out, repeated entries), graphs
 * of folder links in a bound folder, and file names in a bound folder. Each loads within the time bound; names either
 * become keys the API server accepts or are refused with a ComposeError that names the file.
 */

const root = scratchDir('hostile-shapes');
let projects = 0;

function freshProject(): string {
  projects += 1;
  const dir = path.join(root, `p${projects}`);
  fs.mkdirSync(dir);
  return dir;
}

/**
 * An include graph: file i includes file i + 1 `repeat` times (a diamond when more than once) and some files after it.
 * No cycles by construction.
 */
const includeGraph = fc
  .integer({ min: 2, max: 14 })
  .chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: n, maxLength: n }),
      fc.integer({ min: 1, max: 5 }),
      fc.boolean(),
    ),
  )
  .map(([n, random, repeat, withEnv]) => {
    const picks = random.map((own, i) => [...Array.from({ length: repeat }, () => 0), ...own].filter(() => i < n - 1));
    return [n, picks, withEnv] as const;
  });

test('include graphs load in bounded time', () => {
  const details = fuzzAssert(
    fc.property(includeGraph, ([n, picks, withEnv]) => {
      const dir = freshProject();
      for (let i = 0; i < n; i++) {
        const later = picks[i].map((p) => `f${i + 1 + (p % (n - 1 - i))}.yaml`);
        const include = later.length > 0 ? `include:\n${later.map((f) => `  - ${f}\n`).join('')}` : '';
        fs.writeFileSync(path.join(dir, `f${i}.yaml`), `${include}services:\n  s${i}: {image: "nginx:1.27.2"}\n`);
      }
      if (withEnv) {
        fs.writeFileSync(path.join(dir, '.env'), 'TAG=1.27.2\n');
      }
      fs.writeFileSync(path.join(dir, 'compose.yaml'), 'include: [f0.yaml]\nservices: {}\n');
      const outcome = runBounded(() => loadCompose({ workingDir: dir, env: {} }), HANG_MS);
      if (outcome.kind === 'timeout') {
        throw new Error(`no result within ${HANG_MS} ms: ${JSON.stringify(picks)}`);
      }
      if (outcome.kind === 'error' && !isComposeError(outcome.error)) {
        throw outcome.error;
      }
      if (outcome.kind === 'value') {
        // Every file reached from f0 contributed its service.
        const reached = new Set<number>([0]);
        for (let i = 0; i < n; i++) {
          if (reached.has(i) && i < n - 1) {
            picks[i].forEach((p) => reached.add(i + 1 + (p % (n - 1 - i))));
          }
        }
        const names = outcome.value.model.services.map((s) => s.name).sort();
        expect(names).toEqual([...reached].map((i) => `s${i}`).sort());
      }
    }),
    runsOf('include graphs load in bounded time'),
  );
  expect(details.numRuns).toBe(runsOf('include graphs load in bounded time'));
});

/** A graph of folder links: level i holds links to level i + 1 (a DAG) or, sometimes, back to an earlier level. */
const linkGraph = fc.record({
  levels: fc.integer({ min: 1, max: 9 }),
  links: fc.integer({ min: 1, max: 12 }),
  back: fc.boolean(),
  files: fc.array(fc.nat(9), { maxLength: 4 }),
});

test('link graphs in a bound folder are walked in bounded time', () => {
  const details = fuzzAssert(
    fc.property(linkGraph, ({ levels, links, back, files }) => {
      const dir = freshProject();
      fs.writeFileSync(
        path.join(dir, 'compose.yaml'),
        'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./tree:/tree:ro"]\n',
      );
      for (let level = 0; level <= levels; level++) {
        fs.mkdirSync(path.join(dir, 'tree', `l${level}`), { recursive: true });
      }
      for (let level = 0; level < levels; level++) {
        for (let k = 0; k < links; k++) {
          const to = back && k === 0 && level > 0 ? 0 : level + 1;
          fs.symlinkSync(`../l${to}`, path.join(dir, 'tree', `l${level}`, `k${k}`));
        }
      }
      files.forEach((level, i) =>
        fs.writeFileSync(path.join(dir, 'tree', `l${level % (levels + 1)}`, `f${i}.txt`), 'x\n'),
      );
      const outcome = runBounded(() => loadCompose({ workingDir: dir, env: {} }), HANG_MS);
      if (outcome.kind === 'timeout') {
        throw new Error(`no result within ${HANG_MS} ms: ${JSON.stringify({ levels, links, back, files })}`);
      }
      if (outcome.kind === 'error') {
        throw outcome.error;
      }
    }),
    runsOf('link graphs in a bound folder are walked in bounded time'),
  );
  expect(details.numRuns).toBe(runsOf('link graphs in a bound folder are walked in bounded time'));
});

const KEY = /^[-._a-zA-Z0-9]+$/;

/** File names: ordinary ones, dot names, `..`-prefixed ones, long ones, non-ASCII ones, nested ones. */
const fileName = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9._-]{0,12}$/),
  fc.stringMatching(/^\.\.?[a-z0-9]{0,6}$/).filter((n) => n !== '.' && n !== '..'),
  fc.stringMatching(/^[a-zé ü]{1,8}$/),
  fc.integer({ min: 200, max: 255 }).map((n) => 'n'.repeat(n)),
);

test('bound file names become valid keys or a refusal naming the file', () => {
  const details = fuzzAssert(
    fc.property(
      fc.uniqueArray(fc.array(fileName, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
      (paths) => {
        const dir = freshProject();
        fs.writeFileSync(
          path.join(dir, 'compose.yaml'),
          'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./conf:/conf:ro"]\n',
        );
        const written: string[] = [];
        for (const parts of paths) {
          const file = path.join(dir, 'conf', ...parts);
          try {
            fs.mkdirSync(path.dirname(file), { recursive: true });
            fs.writeFileSync(file, 'x\n');
            written.push(parts.join('/'));
          } catch {
            // A name the file system refuses (a file where a folder is needed): not part of this input.
          }
        }
        const outcome = runBounded(() => {
          const { model } = loadCompose({ workingDir: dir, env: {} });
          const chart = new Chart(new App(), 'c');
          new ComposeApp(chart, 'app', { model });
          return Testing.synth(chart);
        }, HANG_MS);
        if (outcome.kind === 'timeout') {
          throw new Error(`no result within ${HANG_MS} ms: ${JSON.stringify(paths)}`);
        }
        if (outcome.kind === 'error') {
          if (!isComposeError(outcome.error)) {
            throw outcome.error;
          }
          // The refusal names one of the files.
          expect(
            written.some(
              (w) => outcome.error instanceof Error && outcome.error.message.includes(`./conf/${w.slice(0, 40)}`),
            ),
          ).toBe(true);
          return;
        }
        for (const object of outcome.value.filter((o: any) => o.kind === 'ConfigMap' || o.kind === 'Secret')) {
          for (const key of [...Object.keys(object.data ?? {}), ...Object.keys(object.binaryData ?? {})]) {
            expect({ key, valid: KEY.test(key) && !key.startsWith('..') && key.length <= 253 }).toEqual({
              key,
              valid: true,
            });
          }
        }
      },
    ),
    runsOf('bound file names become valid keys or a refusal naming the file'),
  );
  expect(details.numRuns).toBe(runsOf('bound file names become valid keys or a refusal naming the file'));
});
