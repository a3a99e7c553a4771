import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as fc from 'fast-check';
import { parse } from 'yaml';
import { toDnsLabel } from '../../lib/base/naming';
import { loadCompose } from '../../lib/compose/load';
import { secretValuesOf } from '../support/app-checks';
import { checkManifests } from '../support/checks';
import { CliRun, expectBuilt, inParallel, runCli } from '../support/cli';
import { formatProblem, Manifest } from '../support/problems';
import { podTemplates } from '../support/workloads';
import { readYamlFiles } from '../support/yaml-docs';
import { FUZZ_SEED, runsOf } from './fuzz-settings';
import { CORPUS, CorpusFile, Mutation, applyMutation, describeMutation, mutation, readCorpus } from './mutations';

/**
 * `convert` of the built CLI on mutated corpus files (FUZZ_CLI_RUNS cases, seeded; process starts are slow, so the
 * cases run two at a time, without shrinking). Whatever the input: exit 0 with output that passes every check, or
 * exit 1 with one `error:` line naming the compose file, no stack trace, and no output or staging folder left
 * behind; never another exit code, never a hang.
 */

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-fuzz-cli-')));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const corpus = readCorpus();
const cases = fc.sample(fc.tuple(fc.nat(corpus.length - 1), mutation), {
  seed: FUZZ_SEED,
  numRuns: runsOf('mutated corpus files through convert'),
});
/** A run longer than this counts as a hang (a conversion of the largest corpus file takes about 2 s). */
const HANG_MS = 60_000;

interface Case {
  readonly index: number;
  readonly label: string;
  readonly cwd: string;
  readonly result: CliRun;
}

const results: Case[] = [];

beforeAll(async () => {
  expectBuilt();
  results.push(
    ...(await inParallel(
      cases.map((c, index) => [index, ...c] as [number, number, Mutation]),
      2,
      async ([index, pick, m]) => {
        const file = corpus[pick];
        const cwd = path.join(scratch, String(index), file.dir);
        fs.cpSync(path.join(CORPUS, file.dir), cwd, { recursive: true });
        fs.chmodSync(path.join(cwd, 'compose.yaml'), 0o644);
        const mutated = applyMutation(file, m);
        fs.writeFileSync(path.join(cwd, 'compose.yaml'), mutated);
        const images = Object.entries(imagesFor(file, mutated)).flatMap(([s, ref]) => ['--image', `${s}=${ref}`]);
        const result = await runCli(['convert', '-o', 'k8s', ...images], { cwd, timeoutMs: HANG_MS });
        return { index, label: `case ${index} (FUZZ_SEED=${FUZZ_SEED}): ${describeMutation(file, m)}`, cwd, result };
      },
    )),
  );
}, 10 * HANG_MS);

/**
 * `--image` for the build-only services the mutated file still has: the CLI refuses one for a service the project
 * does not have (a usage error, exit 2).
 */
function imagesFor(file: CorpusFile, mutated: string | Buffer): Record<string, string> {
  let services: unknown;
  try {
    services = parse(mutated.toString(), { merge: true })?.services;
  } catch {
    return {};
  }
  const names = services && typeof services === 'object' ? Object.keys(services) : [];
  return Object.fromEntries(Object.entries(file.images).filter(([name]) => names.includes(name)));
}

/** The check options of a successful conversion, derived from the compose file and the output. */
function options(cwd: string, images: Record<string, string>, docs: readonly Manifest[]) {
  const { model } = loadCompose({ workingDir: cwd, env: {}, images });
  const namespace = docs.find((d) => d.kind === 'Namespace')?.metadata?.name ?? model.name;
  const names = [model.name, namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) =>
    n.toLowerCase(),
  );
  const accounts = new Set(docs.filter((d) => d.kind === 'ServiceAccount').map((d) => d.metadata.name));
  return {
    secretValues: secretValuesOf(docs).filter(
      (v) => !(v.trim() !== '' && names.some((n) => n.includes(v.trim().toLowerCase()))),
    ),
    allowServiceAccountToken: podTemplates(docs)
      .filter((t) => accounts.has(t.spec.serviceAccountName))
      .map((t) => t.doc.metadata.name),
    allowPrivileged: model.services.filter((s) => s.privileged || s.capAdd.length > 0).map((s) => toDnsLabel(s.name)),
  };
}

function violation({ cwd, result }: Case, images: Record<string, string>): string | undefined {
  if (result.timedOut) {
    return `no exit within ${HANG_MS} ms (a hang)`;
  }
  if (/\n\s+at \S/.test(result.stderr) || /\b(TypeError|RangeError|ReferenceError)\b/.test(result.stderr)) {
    return `a stack trace or a JavaScript error in the log:\n${result.stderr}`;
  }
  const stages = fs.readdirSync(cwd).filter((f) => f.startsWith('.cdk8s-compose-'));
  if (stages.length > 0) {
    return `staging folders left behind: ${stages.join(', ')}`;
  }
  const out = path.join(cwd, 'k8s');
  if (result.code === 1) {
    const errors = result.stderr.split('\n').filter((l) => l.startsWith('error: '));
    if (errors.length !== 1 || !/^error: compose\.yaml(:\d+:\d+)?: /.test(errors[0])) {
      return `exit 1 without one "error: compose.yaml…: " line:\n${result.stderr}`;
    }
    return fs.existsSync(out) ? `exit 1, but ${out} was written` : undefined;
  }
  if (result.code !== 0) {
    return `exit code ${result.code}:\n${result.stderr}`;
  }
  const docs = readYamlFiles(out)
    .filter((f) => /^\d+-/.test(f.file))
    .flatMap((f) => f.docs);
  const runbook = fs.readFileSync(path.join(out, 'RUNBOOK.md'), 'utf8');
  const { problems } = checkManifests(docs, {
    ...options(cwd, images, docs),
    texts: [
      { name: 'RUNBOOK.md', content: runbook },
      { name: 'stderr', content: result.stderr },
    ],
  });
  return problems.length > 0 ? `the output fails the checks:\n${problems.map(formatProblem).join('\n')}` : undefined;
}

test('convert on a mutated corpus file: valid output, or exit 1 with one located error and nothing written', () => {
  expect(results).toHaveLength(runsOf('mutated corpus files through convert'));
  const failures = results
    .map((c) => {
      const file = corpus[cases[c.index][0]];
      const problem = violation(c, imagesFor(file, applyMutation(file, cases[c.index][1])));
      return problem ? `${c.label}: ${problem}` : undefined;
    })
    .filter((f) => f !== undefined);
  expect(failures).toEqual([]);
  const converted = results.filter((c) => c.result.code === 0).length;
  console.log(
    `convert fuzz: ${results.length} runs (FUZZ_SEED=${FUZZ_SEED}), ${converted} converted, ${results.length - converted} refused`,
  );
});
