import * as fs from 'fs';
import * as path from 'path';
import { toDnsLabel } from '../../lib/base/naming';
import { loadCompose } from '../../lib/compose/load';
import { CheckOptions, expectManifestsPass } from '../support/checks';
import { kustomize, sortedCanonical } from '../support/kustomize';
import { Manifest } from '../support/problems';
import { podTemplates } from '../support/workloads';
import {
  CORPUS,
  CliRun,
  copyFolder,
  expectBuilt,
  inParallel,
  manifestFiles,
  removeTempDirs,
  runCli,
  tempDir,
  yamllintProblemsLater,
} from './run-cli';

/**
 * Converts every folder of the shared corpus with the built CLI, each from a copy in a temporary folder, and checks
 * what it wrote: the validator, the Kubernetes rules and the safety rules over the manifests (and the runbook's
 * text), yamllint over every folder, and the wave folders.
 */

interface Expected {
  /** The services that only have `build:`, each converted without `--image` to the image docker compose build tags. */
  readonly built?: readonly string[];
  /** The wave folders written. */
  readonly waves: readonly string[];
}

const ALL = ['0-namespace', '1-stateful', '2-app'];
const NO_STATEFUL = ['0-namespace', '2-app'];

const EXPECTED: Readonly<Record<string, Expected>> = {
  'airflow': { waves: ALL },
  'aspnet-mssql': { built: ['web'], waves: NO_STATEFUL },
  'casaos-unifi-network-application': { waves: ALL },
  'compose-bridge-e2e': { waves: NO_STATEFUL },
  'elasticsearch-logstash-kibana': { waves: NO_STATEFUL },
  'fastapi': { built: ['api'], waves: NO_STATEFUL },
  'gitea-postgres': { waves: ALL },
  'kompose-cronjob': { waves: NO_STATEFUL },
  'kompose-envfile-interpolation': { waves: NO_STATEFUL },
  'kompose-healthcheck': { waves: ALL },
  'kompose-host-port-protocol': { waves: NO_STATEFUL },
  'kompose-hpa': { waves: NO_STATEFUL },
  'kompose-secrets-long': { waves: ['0-namespace', '1-stateful'] },
  'kompose-v2': { waves: ALL },
  'mailcow': { waves: ALL },
  'minecraft': { waves: NO_STATEFUL },
  'nextcloud-redis-mariadb': { waves: ALL },
  'nginx-golang-mysql': { built: ['backend'], waves: ALL },
  // redislabs/redismod is not an official redis image, so it is not detected as a stateful dependency.
  'nginx-nodejs-redis': { built: ['nginx', 'web1', 'web2'], waves: NO_STATEFUL },
  'open-webui-gpu': { waves: NO_STATEFUL },
  'paperless-ngx-postgres-tika': { waves: ALL },
  'pihole-cloudflared-DoH': { waves: NO_STATEFUL },
  'plausible-ce': { waves: ALL },
  'plex': { waves: NO_STATEFUL },
  'portainer': { waves: NO_STATEFUL },
  'prometheus-grafana': { waves: NO_STATEFUL },
  'react-express-mongodb': { built: ['backend', 'frontend'], waves: ALL },
  'react-java-mysql': { built: ['backend', 'frontend'], waves: ALL },
  'wasmedge-kafka-mysql': { waves: ALL },
  'wireguard': { waves: NO_STATEFUL },
};

const DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();
const work = tempDir('corpus');
const runs = new Map<string, CliRun>();
let yamllint: Promise<string[]>;

beforeAll(async () => {
  expectBuilt();
  await inParallel(DIRS, 2, async (dir) => {
    const project = copyFolder(path.join(CORPUS, dir), work);
    runs.set(dir, await runCli(['convert', '-o', 'k8s'], { cwd: project }));
  });
  yamllint = yamllintProblemsLater(DIRS.map((dir) => path.join(work, dir, 'k8s')));
}, 120_000);

afterAll(removeTempDirs);

test('the table covers every corpus folder', () => {
  expect(DIRS).toEqual(Object.keys(EXPECTED).sort());
});

/**
 * What the output must pass with, as for ComposeApp's own corpus test (test/support/app-checks.ts), derived from the
 * compose file and the output: privilege only where the compose file asked for it, a token only for pods whose
 * service account the output defines (the dependency waits), and no Secret value anywhere else (the runbook
 * included), except values that are part of a project, service or image name, which the app reports as weak.
 */
/** The decoded values of every Secret, each once. */
function secretValuesOf(docs: readonly Manifest[]): string[] {
  const values = docs
    .filter((d) => d.kind === 'Secret')
    .flatMap((d) => Object.values(d.data ?? {}) as string[])
    .map((v) => Buffer.from(v, 'base64').toString('utf-8'));
  return [...new Set(values)];
}

function checkOptions(dir: string, docs: readonly Manifest[], runbook: string): CheckOptions {
  const { model } = loadCompose({ workingDir: path.join(work, dir), env: {} });
  const namespace = docs.find((d) => d.kind === 'Namespace')!.metadata.name;
  const names = [model.name, namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) =>
    n.toLowerCase(),
  );
  const secrets = secretValuesOf(docs).filter(
    (v) => !(v.trim() !== '' && names.some((n) => n.includes(v.trim().toLowerCase()))),
  );
  const accounts = new Set(docs.filter((d) => d.kind === 'ServiceAccount').map((d) => d.metadata.name));
  return {
    secretValues: secrets,
    allowServiceAccountToken: podTemplates(docs)
      .filter((t) => accounts.has(t.spec.serviceAccountName))
      .map((t) => t.doc.metadata.name),
    allowPrivileged: model.services.filter((s) => s.privileged || s.capAdd.length > 0).map((s) => toDnsLabel(s.name)),
    texts: [{ name: 'RUNBOOK.md', content: runbook }],
  };
}

describe.each(DIRS)('%s', (dir) => {
  test('converts, and the manifests and the runbook pass every check', () => {
    const run = runs.get(dir)!;
    expect({ code: run.code, stderr: run.stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({
      code: 0,
      stderr: [],
    });
    const out = path.join(work, dir, 'k8s');
    const files = manifestFiles(out);
    expect([...new Set(files.map((f) => f.file.split('/')[0]))]).toEqual(EXPECTED[dir].waves);
    // One object per file, the file named after it.
    for (const file of files) {
      expect(file.docs).toHaveLength(1);
      expect(file.file.split('/')[1]).toBe(`${file.docs[0].metadata.name}-${file.docs[0].kind.toLowerCase()}.yaml`);
    }
    const runbook = fs.readFileSync(path.join(out, 'RUNBOOK.md'), 'utf-8');
    const docs = files.flatMap((f) => f.docs);
    expectManifestsPass(docs, checkOptions(dir, docs, runbook));
    // Warnings: one line each (identical ones of several services as one line naming them), then the count.
    const lines = run.stderr.trimEnd().split('\n');
    const warnings = lines.filter((l) => l.startsWith('warning: '));
    const findings = warnings.reduce(
      (n, w) => n + (/^warning: [^ ]+ services\.\*[^ ]* \(([^)]*)\):/.exec(w)?.[1].split(', ').length ?? 1),
      0,
    );
    // The build-only services run the images docker compose build tags: one warning, and the runbook builds them.
    const built = EXPECTED[dir].built ?? [];
    expect(warnings.filter((l) => l.includes('built from source without an image'))).toHaveLength(
      built.length > 0 ? 1 : 0,
    );
    for (const service of built) {
      expect(runbook).toContain(`docker push ${dir.toLowerCase()}-${service}\n`);
    }
    const summary = lines.find((l) => /^\d+ warnings?\b/.test(l));
    expect(summary).toMatch(new RegExp(`^${findings} warnings?\\b`));
    expect(new Set(warnings).size).toBe(warnings.length);
    expect(lines[lines.length - 1]).toMatch(/^wrote \d+ files into k8s: 0-namespace\/ \(\d+\), .*RUNBOOK\.md$/);
  });
});

test('kubectl kustomize renders every output to the objects of its wave files', () => {
  // Few kubectl runs instead of one per output: each run renders a kustomization that lists several outputs (each
  // built by kustomize as on its own: its kustomization.yaml, its waves' Kustomizations, their namespace), no two of
  // them in the same namespace, and each rendered object is given back to the output whose namespace it is in.
  const outputs = DIRS.map((dir) => {
    const docs = manifestFiles(path.join(work, dir, 'k8s')).flatMap((f) => f.docs);
    return { dir, docs, namespace: docs.find((d) => d.kind === 'Namespace')?.metadata.name as string | undefined };
  });
  const batches: Array<typeof outputs> = [];
  for (const output of outputs) {
    const batch = batches.find(
      (b) =>
        output.namespace !== undefined && b.every((o) => o.namespace !== undefined && o.namespace !== output.namespace),
    );
    if (batch) {
      batch.push(output);
    } else {
      batches.push([output]);
    }
  }
  /** The namespace an object belongs to: its own, or its name for a Namespace; none for other cluster objects. */
  const owner = (d: Manifest) => (d.kind === 'Namespace' ? d.metadata.name : d.metadata.namespace);
  batches.forEach((batch, index) => {
    const top = path.join(work, `kustomize-${index}`);
    fs.mkdirSync(top);
    fs.writeFileSync(
      path.join(top, 'kustomization.yaml'),
      `resources:\n${batch.map((o) => `- ../${o.dir}/k8s\n`).join('')}`,
    );
    const rendered = kustomize(batch.length === 1 ? path.join(work, batch[0].dir, 'k8s') : top);
    for (const { dir, docs, namespace } of batch) {
      const mine = (d: Manifest) => batch.length === 1 || (namespace !== undefined && owner(d) === namespace);
      expect({ dir, objects: sortedCanonical(rendered.filter(mine)) }).toEqual({
        dir,
        objects: sortedCanonical(docs.filter(mine)),
      });
    }
    // Nothing else: the objects of no namespace (cluster-wide), and none lost or added.
    expect({ batch: batch.map((o) => o.dir), objects: sortedCanonical(rendered) }).toEqual({
      batch: batch.map((o) => o.dir),
      objects: sortedCanonical(batch.flatMap((o) => o.docs)),
    });
  });
});

// Last, so that the checks above run while yamllint does.
test('yamllint -d relaxed finds no error in any file written', async () => {
  expect((await yamllint).map((line) => line.slice(work.length + 1))).toEqual([]);
});
