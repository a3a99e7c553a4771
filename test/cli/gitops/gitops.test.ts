import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { SYNC_WAVE_ANNOTATION } from '../../../lib/app/deploy-waves';
import { Manifest } from '../../support/problems';
import { kustomize, kustomizeLater, sortedCanonical } from '../../support/kustomize';
import { validateManifests } from '../../support/validate';
import { parseYamlDocs } from '../../support/yaml-docs';
import {
  CliRun,
  ROOT,
  copyFolder,
  expectBuilt,
  inParallel,
  listFiles,
  removeTempDirs,
  runCli,
  tempDir,
  yamllintProblems,
  AS_REFERENCE,
  GENERATED_HEADER as HEADER,
} from '../run-cli';

/**
 * The output for Kustomize, Argo CD and Flux (lib/cli/gitops/gitops.ts), end to end: the built CLI on copies of the reference
 * app, every kustomization it writes rendered by `kubectl kustomize` (kubectl's own kustomize; no cluster needed).
 *
 * Argo CD's Application and Flux's GitRepository and Kustomization are validated against their CRDs'
 * openAPIV3Schema (schemas/gitops/, the way the API server validates them), and held to what matters beyond the schema:
 * the repository, the path, the waves they depend on, the objects they check.
 */

const REFERENCE = path.join(ROOT, 'examples', 'reference');
const REPO = 'https://git.example.com/platform/shop.git';
const GITOPS = [
  '--labels',
  'team=shop,tier=web',
  '--gitops-repo',
  REPO,
  '--gitops-path',
  './deploy/k8s/',
  '--gitops-branch',
  'release',
  '--overlay',
  'prod',
  '--overlay',
  'staging',
];
const WAVES = ['0-namespace', '1-stateful', '2-app', '3-vm'];

interface Converted {
  readonly run: CliRun;
  readonly out: string;
}

const runs: Record<string, Converted> = {};

async function convert(name: string, args: readonly string[]): Promise<void> {
  const cwd = copyFolder(REFERENCE, tempDir(`gitops-${name}`), 'shop');
  runs[name] = {
    run: await runCli(['convert', ...AS_REFERENCE, ...args, '-o', 'k8s'], { cwd }),
    out: path.join(cwd, 'k8s'),
  };
}

beforeAll(async () => {
  expectBuilt();
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (kubectl.status !== 0) {
    throw new Error('kubectl is not installed: these tests render the kustomizations with `kubectl kustomize`');
  }
  await inParallel(
    [
      ['gitops', GITOPS],
      ['defaults', []],
      ['repo-only', ['--gitops-repo', 'git@git.example.com:platform/shop.git']],
      ['none', ['--gitops', 'none']],
    ] as const,
    2,
    ([name, args]) => convert(name, args),
  );
  // Each wave folder and the top of the two outputs the kustomization tests read, rendered once (the Flux test reads
  // the same renders of the gitops output), two at a time.
  const targets = (['gitops', 'none'] as const).flatMap((name) => [...WAVES, '.'].map((dir) => ({ name, dir })));
  await inParallel(targets, 2, async ({ name, dir }) => {
    renders.set(`${name}/${dir}`, await kustomizeLater(path.join(runs[name].out, dir)).catch((error: Error) => error));
  });
}, 120_000);

/** `kubectl kustomize` of each wave folder (and of the top, '.') of an output, before any test changed a file. */
const renders = new Map<string, Manifest[] | Error>();

/** The render of `dir` ('.' for the top) of the output `name`; kubectl's failure fails the test that reads it. */
function renderOf(name: string, dir: string): Manifest[] {
  const result = renders.get(`${name}/${dir}`);
  if (!result || result instanceof Error) {
    throw result ?? new Error(`${name}/${dir} was not rendered`);
  }
  return result;
}

afterAll(removeTempDirs);

/** The sortOptions of every wave's Kustomization, when they are all the same. */
function kustomizationSort(out: string): unknown {
  const options = WAVES.map(
    (w) => parseYamlDocs(fs.readFileSync(path.join(out, w, 'Kustomization'), 'utf8'), w)[0].sortOptions,
  );
  return options.every((o) => JSON.stringify(o) === JSON.stringify(options[0])) ? options[0] : options;
}

function waveFileDocs(out: string, wave: string): Manifest[] {
  return fs
    .readdirSync(path.join(out, wave))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseYamlDocs(fs.readFileSync(path.join(out, wave, f), 'utf8'), `${wave}/${f}`));
}

const key = (d: Manifest) => `${d.kind}/${d.metadata?.name}`;

function expectOk(run: CliRun): void {
  expect({ code: run.code, errors: run.stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({
    code: 0,
    errors: [],
  });
}

function warnings(run: CliRun, code: string): string[] {
  return run.stderr
    .split('\n')
    .filter(
      (l) =>
        l.startsWith('warning: ') &&
        l.includes(
          { 'gitops-placeholder': '<PATH_IN_REPO>', 'gitops-repo-missing': 'is not written' }[code] ??
            'committed to Git',
        ),
    );
}

describe('kustomizations', () => {
  test('every run exits 0; each wave folder has a Kustomization, the output a kustomization.yaml over the waves, with the header', () => {
    for (const { run, out } of Object.values(runs)) {
      expectOk(run);
      expect(WAVES.filter((w) => fs.existsSync(path.join(out, w, 'Kustomization')))).toEqual(WAVES);
      expect(fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8').split('\n')[0]).toBe(HEADER);
      WAVES.forEach((w) =>
        expect(fs.readFileSync(path.join(out, w, 'Kustomization'), 'utf8').split('\n')[0]).toBe(HEADER),
      );
    }
    expect(runs.gitops.run.stderr).toMatch(
      /wrote \d+ files into k8s: 0-namespace\/ \(\d+\), 1-stateful\/ \(\d+\), 2-app\/ \(\d+\), 3-vm\/ \(\d+\), kustomization\.yaml, gitops\/ \(2\), overlays\/prod\/, overlays\/staging\/, golden-image\/shop-vm\/ \(10\), RUNBOOK\.md/,
    );
  });

  test('a wave folder holds no kustomization.yaml: kubectl apply -f <folder>/ reads only the objects, as before', () => {
    const { out } = runs.gitops;
    for (const wave of WAVES) {
      const yamlFiles = fs.readdirSync(path.join(out, wave)).filter((f) => /\.(ya?ml|json)$/.test(f));
      expect(yamlFiles.filter((f) => /^kustomization\./i.test(f))).toEqual([]);
      const docs = waveFileDocs(out, wave);
      expect(docs.filter((d) => !d.apiVersion || !d.kind || d.kind === 'Kustomization').map(key)).toEqual([]);
    }
  });

  test("each wave's Kustomization lists exactly its files, in wave order, with the namespace and the --labels", () => {
    const { out } = runs.gitops;
    for (const wave of WAVES) {
      const [kustomization] = parseYamlDocs(fs.readFileSync(path.join(out, wave, 'Kustomization'), 'utf8'), wave);
      expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
      expect(kustomization.kind).toBe('Kustomization');
      expect(kustomization.namespace).toBe('shop');
      expect(kustomization.labels).toEqual([{ pairs: { team: 'shop', tier: 'web' } }]);
      expect([...kustomization.resources].sort()).toEqual(
        fs
          .readdirSync(path.join(out, wave))
          .filter((f) => f.endsWith('.yaml'))
          .sort(),
      );
    }
    // Wave order within a folder: a Service before the workload it fronts, a claim before the pod that mounts it.
    const [stateful] = parseYamlDocs(
      fs.readFileSync(path.join(out, '1-stateful', 'Kustomization'), 'utf8'),
      '1-stateful',
    );
    expect(stateful.resources.indexOf('shop-db-service.yaml')).toBeLessThan(
      stateful.resources.indexOf('shop-db-deployment.yaml'),
    );
    expect(stateful.resources.indexOf('db-data-persistentvolumeclaim.yaml')).toBeLessThan(
      stateful.resources.indexOf('shop-db-deployment.yaml'),
    );
    const [top] = parseYamlDocs(fs.readFileSync(path.join(out, 'kustomization.yaml'), 'utf8'), 'kustomization.yaml');
    expect(top).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: WAVES,
      sortOptions: { order: 'fifo' },
    });
    expect(kustomizationSort(out)).toEqual({ order: 'fifo' });
  });

  describe.each(['gitops', 'none'])('kubectl kustomize (%s)', (name) => {
    test.each(WAVES)(
      'renders %s: the same objects as its files, as data, with the namespace and the labels',
      (wave) => {
        const { out } = runs[name];
        const rendered = renderOf(name, wave);
        const files = waveFileDocs(out, wave);
        expect(rendered.length).toBe(files.length);
        expect(sortedCanonical(rendered)).toEqual(sortedCanonical(files));
        for (const doc of rendered.filter((d) => d.kind !== 'Namespace')) {
          expect({ object: key(doc), namespace: doc.metadata.namespace }).toEqual({
            object: key(doc),
            namespace: 'shop',
          });
        }
        if (name === 'gitops') {
          for (const doc of rendered) {
            expect({ object: key(doc), labels: doc.metadata.labels }).toEqual({
              object: key(doc),
              labels: expect.objectContaining({ team: 'shop', tier: 'web' }),
            });
          }
        }
      },
    );

    test("renders the whole app from the top: every wave's objects once, in the order the kustomizations list them", () => {
      const { out } = runs[name];
      const rendered = renderOf(name, '.');
      expect(sortedCanonical(rendered)).toEqual(sortedCanonical(WAVES.flatMap((w) => waveFileDocs(out, w))));
      const order = (docs: readonly Manifest[]) => docs.map(key);
      expect(order(rendered)).toEqual(
        order(
          WAVES.flatMap((w) => {
            const [kustomization] = parseYamlDocs(fs.readFileSync(path.join(out, w, 'Kustomization'), 'utf8'), w);
            return kustomization.resources.flatMap((f: string) =>
              parseYamlDocs(fs.readFileSync(path.join(out, w, f), 'utf8'), f),
            );
          }),
        ),
      );
      expect(rendered.slice(0, 2).map(key)).toEqual(['Namespace/shop', 'NetworkPolicy/default-deny']);
    });
  });
});

describe('sync waves', () => {
  test("every object carries argocd.argoproj.io/sync-wave equal to its wave folder's number", () => {
    const { out } = runs.gitops;
    let count = 0;
    for (const wave of WAVES) {
      for (const doc of waveFileDocs(out, wave)) {
        expect({ object: key(doc), wave: doc.metadata.annotations?.[SYNC_WAVE_ANNOTATION] }).toEqual({
          object: key(doc),
          wave: wave.split('-')[0],
        });
        count++;
      }
    }
    // Every object of the reference app: dist/shop.k8s.yaml holds the same (test/cli/convert.test.ts).
    expect(count).toBe(
      parseYamlDocs(fs.readFileSync(path.join(ROOT, 'dist', 'shop.k8s.yaml'), 'utf8'), 'dist/shop.k8s.yaml').length,
    );
  });

  test('--gitops none: no object carries it, and no gitops/ is written; otherwise the same objects', () => {
    const none = runs.none.out;
    const docs = WAVES.flatMap((w) => waveFileDocs(none, w));
    expect(docs.filter((d) => d.metadata.annotations?.[SYNC_WAVE_ANNOTATION] !== undefined).map(key)).toEqual([]);
    expect(fs.existsSync(path.join(none, 'gitops'))).toBe(false);
    const withoutWave = (d: Manifest) => {
      const { [SYNC_WAVE_ANNOTATION]: _, ...rest } = d.metadata.annotations ?? {};
      return { ...d, metadata: { ...d.metadata, annotations: Object.keys(rest).length > 0 ? rest : undefined } };
    };
    const defaults = WAVES.flatMap((w) => waveFileDocs(runs.defaults.out, w)).map(withoutWave);
    expect(sortedCanonical(docs.map(withoutWave))).toEqual(sortedCanonical(defaults));
  });
});

/** The Argo CD Application's spec keys (argoproj.io/v1alpha1, ApplicationSpec) and those of its parts. */
const ARGOCD_SPEC_KEYS = [
  'destination',
  'ignoreDifferences',
  'info',
  'project',
  'revisionHistoryLimit',
  'source',
  'sourceHydrator',
  'sources',
  'syncPolicy',
];
const ARGOCD_SOURCE_KEYS = [
  'chart',
  'directory',
  'helm',
  'kustomize',
  'name',
  'path',
  'plugin',
  'ref',
  'repoURL',
  'targetRevision',
];
const ARGOCD_DESTINATION_KEYS = ['name', 'namespace', 'server'];
/** Flux's Kustomization spec keys (kustomize.toolkit.fluxcd.io/v1) and GitRepository's (source.toolkit.fluxcd.io/v1). */
const FLUX_KUSTOMIZATION_KEYS = [
  'commonMetadata',
  'components',
  'decryption',
  'deletionPolicy',
  'dependsOn',
  'force',
  'healthCheckExprs',
  'healthChecks',
  'images',
  'interval',
  'kubeConfig',
  'namePrefix',
  'nameSuffix',
  'patches',
  'path',
  'postBuild',
  'prune',
  'retryInterval',
  'serviceAccountName',
  'sourceRef',
  'suspend',
  'targetNamespace',
  'timeout',
  'wait',
];
const FLUX_GIT_REPOSITORY_KEYS = [
  'ignore',
  'include',
  'interval',
  'provider',
  'proxySecretRef',
  'recurseSubmodules',
  'ref',
  'secretRef',
  'suspend',
  'timeout',
  'url',
  'verify',
];
const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

function unknownKeys(object: Record<string, unknown>, known: readonly string[]): string[] {
  return Object.keys(object).filter((k) => !known.includes(k));
}

describe('gitops/', () => {
  const gitopsDocs = (name: string, file: string) =>
    parseYamlDocs(fs.readFileSync(path.join(runs[name].out, 'gitops', file), 'utf8'), file);

  test("the Argo CD Application points at the output folder of the repository, in the app's namespace, synced automatically", () => {
    const [application, ...rest] = gitopsDocs('gitops', 'argocd-application.yaml');
    expect(rest).toEqual([]);
    expect(
      fs.readFileSync(path.join(runs.gitops.out, 'gitops', 'argocd-application.yaml'), 'utf8').split('\n')[0],
    ).toBe(HEADER);
    expect([application.apiVersion, application.kind]).toEqual(['argoproj.io/v1alpha1', 'Application']);
    expect(application.metadata).toEqual({ name: 'shop', namespace: 'argocd' });
    const spec = application.spec;
    expect(unknownKeys(spec, ARGOCD_SPEC_KEYS)).toEqual([]);
    expect(unknownKeys(spec.source, ARGOCD_SOURCE_KEYS)).toEqual([]);
    expect(unknownKeys(spec.destination, ARGOCD_DESTINATION_KEYS)).toEqual([]);
    expect(spec.project).toBe('default');
    expect(spec.source).toEqual({ repoURL: REPO, targetRevision: 'release', path: 'deploy/k8s' });
    expect(spec.destination).toEqual({ server: 'https://kubernetes.default.svc', namespace: 'shop' });
    expect(spec.syncPolicy).toEqual({ automated: { prune: true, selfHeal: true } });
    // Argo CD renders a path that holds a kustomization.yaml with kustomize: the output folder has one.
    expect(fs.existsSync(path.join(runs.gitops.out, 'kustomization.yaml'))).toBe(true);
  });

  test('Flux: a GitRepository, then a Kustomization per wave, each depending on the one before and checking what deploy waits for', () => {
    const [repository, ...kustomizations] = gitopsDocs('gitops', 'flux-kustomizations.yaml');
    expect([repository.apiVersion, repository.kind]).toEqual(['source.toolkit.fluxcd.io/v1', 'GitRepository']);
    expect(repository.metadata).toEqual({ name: 'shop', namespace: 'flux-system' });
    expect(unknownKeys(repository.spec, FLUX_GIT_REPOSITORY_KEYS)).toEqual([]);
    expect(repository.spec).toEqual({ interval: '1m', url: REPO, ref: { branch: 'release' } });
    expect(kustomizations.map((k) => k.metadata.name)).toEqual(WAVES.map((w) => `shop-${w}`));
    kustomizations.forEach((k, index) => {
      expect([k.apiVersion, k.kind, k.metadata.namespace]).toEqual([
        'kustomize.toolkit.fluxcd.io/v1',
        'Kustomization',
        'flux-system',
      ]);
      expect(k.metadata.name).toMatch(DNS_LABEL);
      expect(unknownKeys(k.spec, FLUX_KUSTOMIZATION_KEYS)).toEqual([]);
      expect(k.spec.interval).toMatch(DURATION);
      expect(k.spec.prune).toBe(true);
      expect(k.spec.sourceRef).toEqual({ kind: 'GitRepository', name: repository.metadata.name });
      expect(k.spec.path).toBe(`./deploy/k8s/${WAVES[index]}`);
      expect(k.spec.dependsOn).toEqual(index === 0 ? undefined : [{ name: kustomizations[index - 1].metadata.name }]);
      const rendered = renderOf('gitops', WAVES[index]);
      for (const check of k.spec.healthChecks ?? []) {
        expect(
          rendered.filter(
            (d) =>
              d.apiVersion === check.apiVersion &&
              d.kind === check.kind &&
              d.metadata.name === check.name &&
              d.metadata.namespace === check.namespace,
          ).length,
        ).toBe(1);
      }
      if (k.spec.healthChecks) {
        expect(k.spec.timeout).toMatch(DURATION);
      }
    });
    expect(kustomizations.map((k) => (k.spec.healthChecks ?? []).map((c: any) => `${c.kind}/${c.name}`))).toEqual([
      [],
      ['Deployment/redis', 'Deployment/shop-db'],
      [],
      ['VirtualMachine/shop-vm'],
    ]);
  });

  test('without --gitops-repo: no gitops/ (no stand-in URL is one Flux accepts), and a note that says how to get it', () => {
    const { run, out } = runs.defaults;
    expectOk(run);
    expect(fs.existsSync(path.join(out, 'gitops'))).toBe(false);
    expect(warnings(run, 'gitops-repo-missing')).toEqual([
      'warning: k8s: gitops/ (an Argo CD Application and Flux Kustomizations) is not written: it needs the Git repository ' +
        'the output is committed to: --gitops-repo URL --gitops-path PATH (--gitops none turns this note off)',
    ]);
    expect(warnings(runs.gitops.run, 'gitops-repo-missing')).toEqual([]);
    expect(warnings(runs.none.run, 'gitops-repo-missing')).toEqual([]);
    // The kustomizations do not depend on the repository: kubectl apply -k still applies the app.
    expect(fs.existsSync(path.join(out, 'kustomization.yaml'))).toBe(true);
  });

  test('--gitops-repo git@host:path without --gitops-path: Flux gets the ssh:// form, the path a placeholder and a warning', () => {
    const { run } = runs['repo-only'];
    expectOk(run);
    const [application] = gitopsDocs('repo-only', 'argocd-application.yaml');
    expect(application.spec.source).toEqual({
      repoURL: 'git@git.example.com:platform/shop.git',
      targetRevision: 'main',
      path: '<PATH_IN_REPO>',
    });
    const [repository, first] = gitopsDocs('repo-only', 'flux-kustomizations.yaml');
    expect([repository.spec.url, first.spec.path]).toEqual([
      'ssh://git@git.example.com/platform/shop.git',
      './<PATH_IN_REPO>/0-namespace',
    ]);
    expect(warnings(run, 'gitops-placeholder')).toEqual([
      'warning: k8s: gitops/argocd-application.yaml and gitops/flux-kustomizations.yaml hold <PATH_IN_REPO> where the ' +
        "output folder's path in the repository goes; Argo CD and Flux find nothing there until --gitops-path PATH is given",
    ]);
    expect(warnings(runs.gitops.run, 'gitops-placeholder')).toEqual([]);
  });

  test.each(['gitops', 'repo-only'])(
    'every Argo CD and Flux object of the %s run validates against its CRD',
    (name) => {
      const docs = ['argocd-application.yaml', 'flux-kustomizations.yaml'].flatMap((f) => gitopsDocs(name, f));
      expect(docs.map(key)).toEqual([
        'Application/shop',
        'GitRepository/shop',
        ...WAVES.map((w) => `Kustomization/shop-${w}`),
      ]);
      expect(validateManifests(docs)).toEqual([]);
    },
  );

  test('the CRD check fails on what a cluster refuses: a GitRepository whose spec.url is no http(s):// or ssh:// URL', () => {
    const [repository] = gitopsDocs('gitops', 'flux-kustomizations.yaml');
    for (const url of ['<GIT_REPO_URL>', 'git@git.example.com:platform/shop.git', 'git://git.example.com/shop.git']) {
      expect(validateManifests([{ ...repository, spec: { ...repository.spec, url } }])).toEqual([
        {
          kind: 'GitRepository',
          name: 'shop',
          path: 'spec.url',
          message: `must match ^(http|https|ssh)://.*$, got "${url}"`,
        },
      ]);
    }
    const [application] = gitopsDocs('gitops', 'argocd-application.yaml');
    expect(
      validateManifests([{ ...application, spec: { ...application.spec, source: undefined, destination: undefined } }]),
    ).toEqual([{ kind: 'Application', name: 'shop', path: 'spec.destination', message: 'required field is missing' }]);
  });

  test('a warning names the Secrets that hold values, and quotes none', () => {
    // Without --gitops-repo too: the output is on its way to Git all the same.
    expect(warnings(runs.defaults.run, 'gitops-secret')).toEqual(warnings(runs.gitops.run, 'gitops-secret'));
    const [line, ...rest] = warnings(runs.gitops.run, 'gitops-secret');
    expect(rest).toEqual([]);
    expect(line).toContain(
      'the Secrets db-password, shop-db-credentials, jwt-signing-key, api-env, migrate-env, worker-env, shop-vm-app-secrets hold values',
    );
    const secrets = WAVES.flatMap((w) => waveFileDocs(runs.gitops.out, w)).filter((d) => d.kind === 'Secret');
    for (const value of secrets.flatMap((s) => Object.values(s.data ?? {}) as string[])) {
      expect(runs.gitops.run.stderr).not.toContain(value);
      expect(runs.gitops.run.stderr).not.toContain(Buffer.from(value, 'base64').toString('utf8'));
    }
  });

  test('every YAML file written (gitops/, kustomization.yaml, overlays) is yamllint -d relaxed clean', () => {
    expect(yamllintProblems([runs.gitops.out])).toEqual([]);
  });
});

describe('overlays', () => {
  const overlay = (name: string) => path.join(runs.gitops.out, 'overlays', name);

  test("--overlay prod renders with kubectl kustomize: the base's objects, the replicas and hosts patched to the base's values", () => {
    const text = fs.readFileSync(path.join(overlay('prod'), 'kustomization.yaml'), 'utf8');
    expect(text.startsWith(HEADER)).toBe(false);
    const base = WAVES.flatMap((w) => waveFileDocs(runs.gitops.out, w));
    expect(sortedCanonical(kustomize(overlay('prod')))).toEqual(sortedCanonical(base));
    const [kustomization] = parseYamlDocs(text, 'overlays/prod/kustomization.yaml');
    expect(kustomization.resources).toEqual(WAVES.map((w) => `../../${w}`));
    expect(kustomization.patches.map((p: any) => `${p.target.kind}/${p.target.name}`)).toEqual([
      'Deployment/web',
      'Deployment/worker',
      'Ingress/web',
      'Ingress/reporting',
    ]);
  });

  test('edited, it changes the replicas and the Ingress host; convert then keeps it and says so', async () => {
    const file = path.join(overlay('staging'), 'kustomization.yaml');
    const edited = fs
      .readFileSync(file, 'utf8')
      .replace(/(name: web\n {4}patch: \|\n {6}- op: add\n {8}path: \/spec\/replicas\n {8}value: )1/, '$13')
      .replace('value: shop.example.com', 'value: shop.staging.example.com');
    expect(edited).not.toBe(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, edited);
    const docs = kustomize(overlay('staging'));
    const web = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!;
    const ingress = docs.find((d) => d.kind === 'Ingress' && d.metadata.name === 'web')!;
    expect(web.spec.replicas).toBe(3);
    expect(ingress.spec.rules.map((r: any) => r.host)).toEqual(['shop.staging.example.com']);
    expect(docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'worker')!.spec.replicas).toBe(1);

    const again = await runCli(['convert', ...AS_REFERENCE, ...GITOPS, '-o', 'k8s'], {
      cwd: path.dirname(runs.gitops.out),
    });
    expectOk(again);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
    expect(again.stderr).toContain(
      'warning: k8s: overlays/staging/kustomization.yaml exists: it is yours, and is not written again',
    );
  });
});

test("an overlay skips workloads an autoscaler drives, keeps the base's replicas, and patches TLS hosts with the rule's", async () => {
  const cwd = path.join(tempDir('gitops-overlay'), 'demo');
  fs.mkdirSync(cwd);
  fs.writeFileSync(
    path.join(cwd, 'compose.yaml'),
    [
      'services:',
      '  web:',
      '    image: nginx:1.27',
      '    ports: ["8080:80"]',
      '    deploy: { replicas: 2 }',
      '    labels:',
      '      kompose.service.expose: "demo.example.com"',
      '      kompose.service.expose.tls-secret: demo-tls',
      '  api:',
      '    image: example/api:1.0',
      '    expose: ["3000"]',
      '    labels: { kompose.hpa.replicas.min: "2", kompose.hpa.replicas.max: "5", kompose.hpa.cpu: "70" }',
      '',
    ].join('\n'),
  );
  const run = await runCli(['convert', '-o', 'k8s', '--overlay', 'prod'], { cwd });
  expectOk(run);
  const dir = path.join(cwd, 'k8s', 'overlays', 'prod');
  const [kustomization] = parseYamlDocs(fs.readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'), 'overlay');
  expect(kustomization.resources).toEqual(['../../0-namespace', '../../2-app']);
  expect(
    kustomization.patches.map((p: any) => [`${p.target.kind}/${p.target.name}`, parseYamlDocs(p.patch, 'patch')[0]]),
  ).toEqual([
    ['Deployment/web', [{ op: 'add', path: '/spec/replicas', value: 2 }]],
    [
      'Ingress/web',
      [
        { op: 'replace', path: '/spec/rules/0/host', value: 'demo.example.com' },
        { op: 'replace', path: '/spec/tls/0/hosts/0', value: 'demo.example.com' },
      ],
    ],
  ]);
  const base = ['0-namespace', '2-app'].flatMap((w) => waveFileDocs(path.join(cwd, 'k8s'), w));
  expect(sortedCanonical(kustomize(dir))).toEqual(sortedCanonical(base));
});

describe('writing', () => {
  test("a kustomization.yaml of the user's is not overwritten without --force", async () => {
    const cwd = copyFolder(REFERENCE, tempDir('gitops-foreign'), 'shop');
    fs.mkdirSync(path.join(cwd, 'k8s'));
    fs.writeFileSync(path.join(cwd, 'k8s', 'kustomization.yaml'), 'resources: [mine.yaml]\n');
    const run = await runCli(['convert', ...AS_REFERENCE, '-o', 'k8s'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to overwrite a file that cdk8s-compose did not generate');
    expect(run.stderr).toContain('kustomization.yaml');
    expect(fs.readFileSync(path.join(cwd, 'k8s', 'kustomization.yaml'), 'utf8')).toBe('resources: [mine.yaml]\n');
  });

  test('switching to --gitops none removes the gitops/ files convert wrote before', async () => {
    const cwd = copyFolder(REFERENCE, tempDir('gitops-switch'), 'shop');
    expectOk(await runCli(['convert', ...AS_REFERENCE, '--gitops-repo', REPO, '-o', 'k8s'], { cwd }));
    expect(listFiles(path.join(cwd, 'k8s', 'gitops'))).toEqual(['argocd-application.yaml', 'flux-kustomizations.yaml']);
    const run = await runCli(['convert', ...AS_REFERENCE, '--gitops', 'none', '-o', 'k8s'], { cwd });
    expectOk(run);
    expect(fs.existsSync(path.join(cwd, 'k8s', 'gitops'))).toBe(false);
    expect(run.stderr).toContain('removed 2 that are no longer generated');
  });

  test('one file (-o FILE.yaml): no kustomization, no gitops/', async () => {
    const cwd = copyFolder(REFERENCE, tempDir('gitops-onefile'), 'shop');
    expectOk(await runCli(['convert', ...AS_REFERENCE, '-o', 'deploy/all.yaml'], { cwd }));
    expect(listFiles(path.join(cwd, 'deploy')).filter((f) => !f.startsWith('golden-image/'))).toEqual([
      'RUNBOOK.md',
      'all.yaml',
    ]);
  });
});

describe('usage', () => {
  const usage = async (args: readonly string[]) => {
    const run = await runCli(['convert', ...args], { cwd: ROOT });
    return { code: run.code, error: run.stderr.split('\n')[0] };
  };

  test.each([
    [['--gitops', 'flux'], 'error: --gitops "flux" is not allowed. Allowed: argocd, none'],
    [
      ['--gitops', 'none', '--gitops-repo', REPO],
      'error: --gitops-repo is for gitops/, which --gitops none does not write',
    ],
    [
      ['--overlay', 'prod', '-o', 'all.yaml'],
      'error: --overlay needs the folder output (one file per resource): leave out -o FILE.yaml, --single-file and --stdout',
    ],
    [
      ['--gitops-path', 'k8s'],
      'error: --gitops-path is for gitops/, which is written only with --gitops-repo URL: add it',
    ],
    [
      ['--stdout', '--gitops-path', 'k8s'],
      'error: --gitops-path needs the folder output (one file per resource): leave out -o FILE.yaml, --single-file and --stdout',
    ],
    [
      ['--gitops-repo', 'not a url'],
      'error: --gitops-repo "not a url" is not a Git URL. Allowed: https://…, ssh://…, git@host:path',
    ],
    [
      ['--gitops-repo', REPO, '--gitops-path', '../k8s'],
      'error: --gitops-path "../k8s" is not a path inside the repository. Allowed: a relative path without "..", e.g. deploy/k8s',
    ],
    [
      ['--gitops-repo', REPO, '--gitops-path', '/k8s'],
      'error: --gitops-path "/k8s" is not a path inside the repository. Allowed: a relative path without "..", e.g. deploy/k8s',
    ],
    [
      ['--gitops-repo', REPO, '--gitops-branch', 'a..b'],
      'error: --gitops-branch "a..b" is not a branch name. Allowed: letters, digits, ".", "_", "-" and "/"',
    ],
    [
      ['--overlay', 'Prod'],
      'error: --overlay "Prod" is not an overlay name. Allowed: a DNS-1123 label (lower case letters, digits and "-"), e.g. prod',
    ],
  ])('%j: %s', async (args, error) => {
    expect(await usage(args)).toEqual({ code: 2, error });
  });
});
