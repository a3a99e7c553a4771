import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { fastManifestYaml, manifestYaml } from '../../lib/base/manifest-yaml';
import { loadCompose } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { referenceAppDir } from '../../lib/reference-chart';
import { permuteCompose } from '../determinism/permute';
import { FUZZ_SEED, fuzzAssert, runsOf } from '../fuzz/fuzz-settings';
import { expectManifestsPass } from '../support/checks';
import { yamllintProblemsLater } from '../support/files';
import { machinePaths } from '../support/machine-paths';
import {
  CORPUS,
  CORPUS_DIRS,
  DIST,
  VM_FIXTURE,
  WrittenOutput,
  corpusLoadOptions,
  listFiles,
  readDist,
  referenceSecrets,
  writeCorpusApp,
  writeReference,
  writeVmExample,
} from '../support/outputs';
import { readmeCount } from '../support/readme';
import { checkSafety, checkSecretLeaks } from '../support/safety-rules';

/**
 * Every output the library writes, synthesized once and read back from disk as kubectl reads it: the reference app
 * (a fresh synth and the committed dist/), every corpus file through ComposeApp, and the VM examples.
 *
 * - Conformance: every document passes the schema validator (unknown fields rejected), the Kubernetes rules and
 *   the safety rules; every YAML file written is `yamllint -d relaxed` clean. (The golden-image bundles are checked
 *   with packer, systemd-analyze and cloud-init by test/vm and test/reference, dist/'s included.)
 * - Safety, with the secrets classified from the INPUT, independently of the converter (a value it failed to call
 *   secret would be missing from its own Secrets, and a scan for those alone would miss the leak): none outside a
 *   Secret in the manifests, the warnings or the bundle; every unpinned image flagged.
 * - Determinism: a second synth writes identical bytes, dist/ is a fresh synth, reordering what compose treats as
 *   unordered (services, keys, environment, ports, volumes, networks, depends_on, labels, top-level maps) writes
 *   identical bytes, and no absolute path of the machine appears in any output.
 *
 * One file, so that the 33 outputs are synthesized once for all three.
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-every-output-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const unlinted: string[] = [];

/** Queues the output for yamllint, which starts on every tenth (a Python start costs a tenth of a second). */
function lintedWhenWritten(output: WrittenOutput): WrittenOutput {
  unlinted.push(output.dir);
  if (unlinted.length >= 10) {
    lints.push(yamllintProblemsLater(unlinted.splice(0)));
  }
  return output;
}

interface Case {
  readonly output: WrittenOutput;
  readonly model: ComposeModel;
  /** The compose text the output came from (paths the user wrote are theirs, not the machine's). */
  readonly input: string;
  /** The project's folder, for the reordered copies. */
  readonly project: string;
}

const read = (file: string) => fs.readFileSync(file, 'utf8');

// yamllint is slow (seconds per megabyte): each part is linted in the background as soon as it is written. dist/ is
// byte for byte the fresh reference synth (tested below), so linting that covers it.
const reference = writeReference(path.join(scratch, 'a/reference'));
const lints = [yamllintProblemsLater([reference.dir])];
const referenceModel = loadCompose({ workingDir: referenceAppDir(), env: {} }).model;
const referenceInput = read(path.join(referenceAppDir(), 'compose.yaml'));
const CASES: Case[] = [
  { output: reference, model: referenceModel, input: referenceInput, project: referenceAppDir() },
  { output: readDist(reference), model: referenceModel, input: referenceInput, project: referenceAppDir() },
  ...CORPUS_DIRS.map((dir) => ({
    output: lintedWhenWritten(writeCorpusApp(dir, path.join(scratch, 'a/corpus', dir))),
    model: loadCompose(corpusLoadOptions(dir)).model,
    input: read(path.join(CORPUS, dir, 'compose.yaml')),
    project: path.join(CORPUS, dir),
  })),
  {
    output: lintedWhenWritten(writeVmExample(path.join(scratch, 'a/vm'))),
    model: loadCompose({ workingDir: VM_FIXTURE, env: {} }).model,
    input: read(path.join(VM_FIXTURE, 'compose.yaml')),
    project: VM_FIXTURE,
  },
];
const byName = new Map(CASES.map((c) => [c.output.name, c]));
if (unlinted.length > 0) {
  lints.push(yamllintProblemsLater(unlinted.splice(0)));
}

// ---- safety: secrets classified from the input ---------------------------------------------------------------

/** Names this test holds sensitive, whatever the converter thinks. */
const SENSITIVE = /PASSWORD|PASSWD|PASS$|SECRET|TOKEN|API_?KEY|PRIVATE|CREDENTIAL|SIGNING/i;
/** Values that are flags or placeholders, not secrets. */
const NOT_SECRET = /^(true|false|yes|no|on|off|none|null|changeme|invalid|\$\{.*\}|)$/i;

/** The secret values of a model as this test sees them, except those that are also names of the app (weak). */
function inputSecrets({ model, output }: Case): string[] {
  const namespace = output.docs.find((d) => d.kind === 'Namespace')?.metadata?.name ?? model.name;
  const values = [
    ...model.services.flatMap((s) =>
      s.environment.filter((e) => SENSITIVE.test(e.name) && !e.name.endsWith('_FILE')).map((e) => e.value),
    ),
    ...model.services.flatMap((s) => s.environment.map((e) => /:\/\/[^/\s:@]*:([^@\s/]+)@/.exec(e.value)?.[1])),
    ...model.secrets.map((s) =>
      s.source.kind === 'file' || s.source.kind === 'environment' || s.source.kind === 'content'
        ? s.source.content.binary
          ? undefined
          : s.source.content.text.trim()
        : undefined,
    ),
    ...(output.name === 'reference' || output.name === 'dist' ? referenceSecrets() : []),
  ].filter((v): v is string => typeof v === 'string' && v.length >= 4 && !NOT_SECRET.test(v));
  const names = [model.name, namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) =>
    n.toLowerCase(),
  );
  return [...new Set(values)].filter((v) => !names.some((n) => n.includes(v.toLowerCase())));
}

/** Images with no tag, `:latest`, and no digest. */
function unpinned(image: string): boolean {
  if (image.includes('@')) {
    return false;
  }
  const tag = /:([^:/]+)$/.exec(image)?.[1];
  return tag === undefined || tag === 'latest';
}

describe.each(CASES.map((c) => [c.output.name, c] as const))('%s', (_name, c) => {
  const { output, model } = c;

  test('every document passes the schema validator, the Kubernetes rules and the safety rules', () => {
    expect(output.docs.length).toBeGreaterThan(0);
    expectManifestsPass(output.docs, output.options);
  });

  test('no secret value of the input appears outside a Secret: manifests, warnings, bundle files', () => {
    expect(checkSecretLeaks(output.docs, { secretValues: inputSecrets(c), texts: output.texts })).toEqual([]);
  });

  test('every container of an unpinned image gets a warning, and no other', () => {
    const images = new Set(model.services.map((s) => s.image).filter(unpinned));
    const { warnings } = checkSafety(output.docs, { secretValues: [] });
    const flagged = new Set(warnings.map((w) => /image "([^"]+)"/.exec(w.message)?.[1]));
    const used = new Set(
      output.docs
        .flatMap((d) => JSON.stringify(d).match(/"image":"[^"]+"/g) ?? [])
        .map((m) => m.slice(9, -1))
        .filter(unpinned),
    );
    expect([...flagged].sort()).toEqual([...used].sort());
    for (const image of used) {
      // Every unpinned image in the output comes from the compose file (the converter adds only pinned ones).
      expect(images.has(image) || [...images].some((i) => image.endsWith(i))).toBe(true);
    }
  });

  test('the CLI prints each document byte for byte as cdk8s wrote it', () => {
    // Each document written by app.synth() (cdk8s's Yaml.stringify), read back and printed by the CLI's printer.
    const texts = output.files
      .filter((f) => f.endsWith('.k8s.yaml'))
      .flatMap((f) => read(path.join(output.dir, f)).split(/^---\n/m));
    expect(texts.length).toBe(output.docs.length);
    let fast = 0;
    for (const text of texts) {
      const doc = parseYaml(text, { version: '1.1' });
      expect(manifestYaml(doc)).toBe(text);
      fast += fastManifestYaml(doc) === undefined ? 0 : 1;
    }
    printed.push({ name: output.name, documents: texts.length, fast });
  });

  test('no absolute path of the machine appears in a file or the warnings', () => {
    expect([
      ...output.files.flatMap((f) => machinePaths(f, read(path.join(output.dir, f)), [c.input], [scratch])),
      ...output.texts.flatMap((t) => machinePaths(t.name, t.content, [c.input], [scratch])),
    ]).toEqual([]);
  });
});

/** Documents checked against the CLI's printer, and how many it printed itself (not through Yaml.stringify). */
const printed: { name: string; documents: number; fast: number }[] = [];

test("the CLI's printer prints nearly every document itself", () => {
  const documents = printed.reduce((n, p) => n + p.documents, 0);
  const fast = printed.reduce((n, p) => n + p.fast, 0);
  expect(printed.length).toBe(CASES.length);
  console.log(`the CLI's printer: ${fast} of ${documents} documents printed without Yaml.stringify`);
  expect(fast / documents).toBeGreaterThan(0.9);
});

test('every YAML file written is yamllint -d relaxed clean', async () => {
  expect((await Promise.all(lints)).flat()).toEqual([]);
});

test('the leak scan with input secrets can fail: a secret value planted in a ConfigMap is found', () => {
  const c = byName.get('reference')!;
  const secrets = inputSecrets(c);
  const planted = c.output.docs.map((d) =>
    d.kind === 'ConfigMap' ? { ...d, data: { ...(d.data ?? {}), LEAK: secrets[0] } } : d,
  );
  expect(planted.some((d) => d.kind === 'ConfigMap')).toBe(true);
  expect(checkSecretLeaks(planted, { secretValues: secrets })).not.toEqual([]);
});

test('the machine-path scan can fail: paths of the repository and the output folder are found', () => {
  const repo = path.resolve(__dirname, '../..');
  expect(
    machinePaths('x', `out: ${scratch}/a/reference\nfile: "${repo}/examples/reference/compose.yaml"`, [], [scratch]),
  ).toEqual([`x: ${repo}/examples/reference/compose.yaml`, `x: ${scratch}/a/reference`].sort());
  // `/work/` inside another path is not a path of its own (the repository cloned to /check/work/main).
  expect(machinePaths('x', 'file: /elsewhere-for-test/work/thing', [], [])).toEqual([]);
});

// ---- determinism ---------------------------------------------------------------------------------------------

/** The bytes of every file of a folder, by relative path. */
function bytes(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]));
}

function expectSameBytes(expected: string, actual: string): void {
  const left = bytes(expected);
  const right = bytes(actual);
  expect(Object.keys(right)).toEqual(Object.keys(left));
  const differing = Object.keys(left).filter((f) => left[f] !== right[f]);
  expect(differing).toEqual([]);
}

test('a second synth writes identical bytes, and dist/ is a fresh synth', () => {
  expectSameBytes(reference.dir, writeReference(path.join(scratch, 'b/reference')).dir);
  expectSameBytes(reference.dir, DIST);
  expectSameBytes(byName.get('vm/legacy')!.output.dir, writeVmExample(path.join(scratch, 'b/vm')).dir);
});

/** A copy of a project folder (its name kept: it is the default project name) with a reordered compose file. */
function permutedCopy(source: string, seed: number, run: number): string {
  const copy = path.join(scratch, 'permuted', String(run), path.basename(source));
  fs.cpSync(source, copy, { recursive: true });
  fs.chmodSync(copy, 0o755);
  const file = path.join(copy, 'compose.yaml');
  fs.chmodSync(file, 0o644);
  let state = seed >>> 0 || 1;
  const pick = (n: number) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
  fs.writeFileSync(file, permuteCompose(read(file), pick));
  return copy;
}

test('reordering what compose treats as unordered writes identical bytes (each project once, then at random)', () => {
  const projects = ['reference', ...CORPUS_DIRS];
  let run = 0;
  const property = fc.property(fc.constantFrom(...projects), fc.integer(), (project, seed) => {
    run += 1;
    const out = path.join(scratch, 'permuted-out', String(run));
    const written =
      project === 'reference'
        ? writeReference(out, permutedCopy(referenceAppDir(), seed, run))
        : writeCorpusApp(project, out, permutedCopy(path.join(CORPUS, project), seed, run));
    expectSameBytes(byName.get(project === 'reference' ? 'reference' : `corpus/${project}`)!.output.dir, written.dir);
    fs.rmSync(path.join(scratch, 'permuted', String(run)), { recursive: true, force: true });
  });
  const examples = projects.map((p, i): [string, number] => [p, FUZZ_SEED + i]);
  const details = fuzzAssert(
    property,
    examples.length + runsOf('reordered compose files write identical bytes'),
    examples,
  );
  expect(details.numRuns).toBe(projects.length + runsOf('reordered compose files write identical bytes'));
});

// ---- totals --------------------------------------------------------------------------------------------------

/** Totals for the README's "What is checked" (printed, and the README held to them). */
const TOTALS = {
  documents: CASES.reduce((n, c) => n + c.output.docs.length, 0),
  yamlFiles: CASES.reduce((n, c) => n + c.output.files.filter((f) => /\.ya?ml$/.test(f)).length, 0),
  corpusFiles: CORPUS_DIRS.length,
  secrets: CASES.reduce((n, c) => n + inputSecrets(c).length, 0),
};

test('the README\'s "What is checked" claims no more than this suite checks', () => {
  expect(readmeCount('documents written by the library')).toBeLessThanOrEqual(TOTALS.documents);
  expect(readmeCount('YAML files the library writes')).toBeLessThanOrEqual(TOTALS.yamlFiles);
  expect(readmeCount('corpus files')).toBe(TOTALS.corpusFiles);
});

test('the totals', () => {
  console.log(
    `every output: ${TOTALS.documents} documents validated in ${CASES.length} outputs; ${TOTALS.yamlFiles} YAML ` +
      `files linted; ${TOTALS.corpusFiles} corpus files; ${TOTALS.secrets} input secret values kept out`,
  );
  expect(TOTALS.secrets).toBeGreaterThan(0);
});
