import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as fc from 'fast-check';
import { referenceAppDir } from '../../lib/reference-chart';
import { fuzzAssert, runsOf } from '../fuzz/fuzz-settings';
import { machinePaths } from '../support/machine-paths';
import {
  CORPUS, CORPUS_DIRS, DIST, VM_FIXTURE, WrittenOutput, listFiles, writeCorpusApp, writeReference, writeVmExample,
} from '../support/outputs';
import { permuteCompose } from './permute';

/**
 * Determinism: two synths write identical bytes (the reference app, every corpus app, the VM examples; and dist/ is
 * a fresh synth); reordering what compose treats as unordered (services, keys, environment entries, ports,
 * volumes, networks, depends_on lists, labels, top-level maps) writes identical bytes; and no absolute path of the
 * machine appears in any output.
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-determinism-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** The bytes of every file of an output, by relative path. */
function bytes(output: { dir: string }): Record<string, string> {
  return Object.fromEntries(listFiles(output.dir).map((f) => [f, fs.readFileSync(path.join(output.dir, f)).toString('base64')]));
}

function expectSameBytes(a: { dir: string }, b: { dir: string }): void {
  const left = bytes(a);
  const right = bytes(b);
  expect(Object.keys(right)).toEqual(Object.keys(left));
  for (const file of Object.keys(left)) {
    if (left[file] !== right[file]) {
      throw new Error(`${file} differs between ${a.dir} and ${b.dir}`);
    }
  }
}

const first = {
  reference: writeReference(path.join(scratch, 'a/reference')),
  vm: writeVmExample(path.join(scratch, 'a/vm')),
  corpus: new Map(CORPUS_DIRS.map((dir) => [dir, writeCorpusApp(dir, path.join(scratch, 'a/corpus', dir))])),
};

describe('two synths write identical bytes', () => {
  test('the reference app, and dist/ is a fresh synth', () => {
    expectSameBytes(first.reference, writeReference(path.join(scratch, 'b/reference')));
    expectSameBytes(first.reference, { dir: DIST });
  });

  test('the VM examples', () => {
    expectSameBytes(first.vm, writeVmExample(path.join(scratch, 'b/vm')));
  });

  test('every corpus app', () => {
    for (const dir of CORPUS_DIRS) {
      expectSameBytes(first.corpus.get(dir)!, writeCorpusApp(dir, path.join(scratch, 'b/corpus', dir)));
    }
  });
});

/** A copy of a project folder (the folder name kept: it is the default project name) with a reordered compose file. */
function permutedCopy(source: string, seed: number): string {
  const copy = path.join(scratch, 'permuted', String(seed), path.basename(source));
  fs.cpSync(source, copy, { recursive: true });
  fs.chmodSync(copy, 0o755);
  const file = path.join(copy, 'compose.yaml');
  fs.chmodSync(file, 0o644);
  let state = seed >>> 0 || 1;
  const pick = (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  fs.writeFileSync(file, permuteCompose(fs.readFileSync(file, 'utf8'), pick));
  return copy;
}

test('reordering what compose treats as unordered writes identical bytes', () => {
  const projects = ['reference', ...CORPUS_DIRS];
  const details = fuzzAssert(fc.property(fc.constantFrom(...projects), fc.integer(), (project, seed) => {
    if (project === 'reference') {
      const copy = permutedCopy(referenceAppDir(), seed);
      expectSameBytes(first.reference, { dir: writeReferenceFrom(copy, seed) });
    } else {
      const copy = permutedCopy(path.join(CORPUS, project), seed);
      const out = writeCorpusApp(project, path.join(scratch, 'permuted-out', String(seed), project), copy);
      expectSameBytes(first.corpus.get(project)!, out);
    }
    fs.rmSync(path.join(scratch, 'permuted', String(seed)), { recursive: true, force: true });
  }), runsOf('reordered compose files write identical bytes'));
  expect(details.numRuns).toBe(runsOf('reordered compose files write identical bytes'));
});

function writeReferenceFrom(composeDir: string, seed: number): string {
  return writeReference(path.join(scratch, 'permuted-out', String(seed), 'reference'), composeDir).dir;
}

test('no absolute path of the machine appears in any output', () => {
  const outputs: [WrittenOutput, string[]][] = [
    [first.reference, [fs.readFileSync(path.join(referenceAppDir(), 'compose.yaml'), 'utf8')]],
    [first.vm, [fs.readFileSync(path.join(VM_FIXTURE, 'compose.yaml'), 'utf8')]],
    ...CORPUS_DIRS.map((dir): [WrittenOutput, string[]] => [first.corpus.get(dir)!, [fs.readFileSync(path.join(CORPUS, dir, 'compose.yaml'), 'utf8')]]),
  ];
  const found = outputs.flatMap(([output, inputs]) => [
    ...output.files.flatMap((f) => machinePaths(`${output.name}/${f}`, fs.readFileSync(path.join(output.dir, f), 'utf8'), inputs, [scratch])),
    ...output.texts.flatMap((t) => machinePaths(`${output.name}/${t.name}`, t.content, inputs, [scratch])),
  ]);
  expect(found).toEqual([]);
});

test('the machine-path scan finds a path of this machine (it can fail)', () => {
  const repo = path.resolve(__dirname, '../..');
  expect(machinePaths('x', `out: ${scratch}/a/reference\nfile: "${repo}/examples/reference/compose.yaml"`, [], [scratch]))
    .toEqual([`x: ${repo}/examples/reference/compose.yaml`, `x: ${scratch}/a/reference`].sort());
});
