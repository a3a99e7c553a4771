import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { referenceAppDir } from '../../lib/reference-chart';
import { permuteCompose } from '../determinism/permute';
import { expectManifestsPass } from '../support/checks';
import { AS_REFERENCE, CliRun, expectBuilt, inParallel, runCli } from '../support/cli';
import { yamllintProblemsLater } from '../support/files';
import { machinePaths } from '../support/machine-paths';
import { listFiles, referenceSecrets, writeReference } from '../support/outputs';
import { Manifest } from '../support/problems';
import { readmeCount } from '../support/readme';
import { parseYamlDocs } from '../support/yaml-docs';

/**
 * Every output mode of the built CLI over the reference app (as `npm run synth` configures it): one file per
 * resource in wave folders, one file (`-o FILE.yaml`; `--single-file` writes the same, test/cli/convert.test.ts), and
 * `--stdout`. The manifests pass the
 * validator, the Kubernetes and the safety rules, with RUNBOOK.md and the CLI's own log (stderr) scanned for secret
 * values; every YAML file is yamllint clean; no machine path appears in a file or the log; two runs, and a run on a
 * reordered compose file, write identical bytes. (The 30 corpus files through the CLI: test/cli/corpus.test.ts.)
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-cli-outputs-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface Mode {
  readonly args: readonly string[];
  /** Where the output is, relative to the project copy; undefined for --stdout. */
  readonly out?: string;
  /** The manifest files of the output, relative to `out`. */
  readonly manifests: (files: readonly string[]) => string[];
  readonly reordered?: boolean;
}

const waveFiles = (files: readonly string[]) => files.filter((f) => /^\d+-[^/]+\/[^/]+\.yaml$/.test(f));

const MODES: Readonly<Record<string, Mode>> = {
  'file per resource': { args: ['-o', 'k8s'], out: 'k8s', manifests: waveFiles },
  'file per resource, again': { args: ['-o', 'k8s'], out: 'k8s', manifests: waveFiles },
  'file per resource, reordered compose file': {
    args: ['-o', 'k8s'],
    out: 'k8s',
    manifests: waveFiles,
    reordered: true,
  },
  'one file (-o FILE.yaml)': {
    args: ['-o', 'deploy/all.yaml'],
    out: 'deploy',
    manifests: (files) => files.filter((f) => f === 'all.yaml'),
  },
  'stdout': { args: ['--stdout'], manifests: () => [] },
};

/** A copy of the reference project in its own folder (named shop, as the project). */
function project(name: string, reordered: boolean): string {
  const dir = path.join(scratch, name.replace(/\W+/g, '-'), 'shop');
  fs.cpSync(referenceAppDir(), dir, { recursive: true });
  if (reordered) {
    let state = 6;
    const pick = (n: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state % n;
    };
    const file = path.join(dir, 'compose.yaml');
    fs.writeFileSync(file, permuteCompose(fs.readFileSync(file, 'utf8'), pick));
  }
  return dir;
}

interface Run {
  readonly cwd: string;
  readonly result: CliRun;
  readonly files: string[];
  readonly docs: Manifest[];
}

const runs = new Map<string, Run>();
const library = writeReference(path.join(scratch, 'library'));
let lint: Promise<string[]>;

beforeAll(async () => {
  expectBuilt();
  await inParallel(Object.keys(MODES), 2, async (name) => {
    const mode = MODES[name];
    const cwd = project(name, mode.reordered ?? false);
    const result = await runCli(['convert', ...AS_REFERENCE, ...mode.args], { cwd });
    const out = mode.out ? path.join(cwd, mode.out) : undefined;
    const files = out && fs.existsSync(out) ? listFiles(out) : [];
    const docs = out
      ? mode.manifests(files).flatMap((f) => parseYamlDocs(fs.readFileSync(path.join(out, f), 'utf8'), f))
      : parseYamlDocs(result.stdout, 'stdout');
    runs.set(name, { cwd, result, files, docs });
  });
  // The runs again and on the reordered file write the same YAML bytes (tested below): linting the first covers them.
  const folders = ['file per resource', 'one file (-o FILE.yaml)'].map((name) => runs.get(name)!.cwd);
  lint = yamllintProblemsLater(folders);
}, 120_000);

const run = (name: string): Run => runs.get(name)!;

describe.each(Object.keys(MODES))('%s', (name) => {
  test('exits 0, and the manifests pass the validator, the Kubernetes and the safety rules, runbook and log included', () => {
    const { cwd, result, docs } = run(name);
    expect({
      code: result.code,
      timedOut: result.timedOut,
      errors: result.stderr.split('\n').filter((l) => l.startsWith('error')),
    }).toEqual({ code: 0, timedOut: false, errors: [] });
    expect(docs.length).toBe(library.docs.filter((d) => d.kind && !['KubeVirt', 'CDI'].includes(d.kind)).length);
    const runbook = MODES[name].out ? fs.readFileSync(path.join(cwd, MODES[name].out!, 'RUNBOOK.md'), 'utf8') : '';
    expectManifestsPass(docs, {
      ...library.options,
      secretValues: [...new Set([...(library.options.secretValues ?? []), ...referenceSecrets()])],
      texts: [
        { name: 'RUNBOOK.md', content: runbook },
        { name: 'stderr', content: result.stderr },
      ],
    });
  });

  test('no absolute path of the machine in any file written, nor in the log', () => {
    const { cwd, result, files } = run(name);
    const inputs = [fs.readFileSync(path.join(referenceAppDir(), 'compose.yaml'), 'utf8')];
    const out = MODES[name].out;
    const found = [
      ...files.flatMap((f) => machinePaths(f, fs.readFileSync(path.join(cwd, out!, f), 'utf8'), inputs, [scratch])),
      ...machinePaths('stderr', result.stderr, inputs, [scratch]),
      ...machinePaths('stdout', result.stdout, inputs, [scratch]),
    ];
    expect(found).toEqual([]);
  });
});

test('--stdout writes nothing', () => {
  expect(listFiles(path.dirname(run('stdout').cwd))).toEqual(listFiles(referenceAppDir()).map((f) => `shop/${f}`));
});

function bytes(name: string, except: readonly string[] = []): Record<string, string> {
  const dir = path.join(run(name).cwd, 'k8s');
  return Object.fromEntries(
    run(name)
      .files.filter((f) => !except.includes(f))
      .map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]),
  );
}

test('two runs write identical bytes', () => {
  const first = bytes('file per resource');
  expect(Object.keys(first).length).toBeGreaterThan(20);
  expect(bytes('file per resource, again')).toEqual(first);
});

test('a run on the reordered compose file writes identical bytes, the runbook included', () => {
  expect(bytes('file per resource, reordered compose file')).toEqual(bytes('file per resource'));
});

test('every YAML file written is yamllint -d relaxed clean', async () => {
  const problems = await lint;
  expect(problems).toEqual([]);
});

test('the totals, and the README claims no more', () => {
  const documents = [...runs.values()].reduce((n, r) => n + r.docs.length, 0);
  const yamlFiles = ['file per resource', 'one file (-o FILE.yaml)'].reduce(
    (n, name) => n + run(name).files.filter((f) => /\.ya?ml$/.test(f)).length,
    0,
  );
  console.log(`cli: ${documents} documents validated in ${runs.size} CLI runs; ${yamlFiles} YAML files linted`);
  expect(readmeCount('documents written by the CLI')).toBeLessThanOrEqual(documents);
  expect(readmeCount('YAML files the CLI writes')).toBeLessThanOrEqual(yamlFiles);
});
