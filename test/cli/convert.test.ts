import * as fs from 'fs';
import * as path from 'path';
import { Manifest } from '../support/problems';
import { checkSafety } from '../support/safety-rules';
import { podTemplates } from '../support/workloads';
import { findDoc, findDocs, parseYamlDocs } from '../support/yaml-docs';
import {
  CliRun,
  ROOT,
  copyFolder,
  expectBuilt,
  inParallel,
  listFiles,
  manifestDocs,
  manifestFiles,
  removeTempDirs,
  runCli,
  tempDir,
  yamllintProblems,
  AS_REFERENCE,
  GENERATED_HEADER as HEADER,
} from './run-cli';

/**
 * `cdk8s-compose convert` end to end: the built CLI as a child process on copies of the reference app and of small
 * projects written here, in both command shapes and with every flag.
 */

const REFERENCE = path.join(ROOT, 'examples', 'reference');
/** `npm run synth`'s objects of the app chart (dist/platform.k8s.yaml installs KubeVirt and CDI), sorted by kind and name. */
function distObjects(): Manifest[] {
  return sortDocs(
    parseYamlDocs(fs.readFileSync(path.join(ROOT, 'dist', 'shop.k8s.yaml'), 'utf-8'), 'dist/shop.k8s.yaml'),
  );
}

function sortDocs(docs: readonly Manifest[]): Manifest[] {
  const key = (d: Manifest) => `${d.kind}/${d.metadata?.name}`;
  return [...docs].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A project folder with these files. */
function project(files: Readonly<Record<string, string>>, name = 'demo'): string {
  const dir = path.join(tempDir('project'), name);
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

/** A fresh copy of the reference app, in `<temp>/shop`. */
function referenceCopy(): string {
  return copyFolder(REFERENCE, tempDir('reference'), 'shop');
}

function stderrLines(run: CliRun, prefix: string): string[] {
  return run.stderr.split('\n').filter((l) => l.startsWith(prefix));
}

function expectOk(run: CliRun): void {
  expect({ code: run.code, errors: stderrLines(run, 'error') }).toEqual({ code: 0, errors: [] });
}

const MERGE_PROJECT = {
  'compose.yaml': [
    'services:',
    '  web:',
    '    image: nginx:${NGINX_TAG:-1.25}',
    '    ports: ["8080:80"]',
    '  debug:',
    '    image: busybox:1.36',
    '    profiles: [debug]',
    '    command: ["sleep", "3600"]',
    '',
  ].join('\n'),
  'override.yaml': 'services:\n  web:\n    deploy:\n      replicas: 3\n',
  'prod.env': 'NGINX_TAG=1.27.2\n',
};

const OUTSIDE_PROJECT = {
  'app/compose.yaml': [
    'services:',
    '  api:',
    '    build: ./api',
    '    secrets: [token]',
    'secrets:',
    '  token:',
    '    file: ../token.txt',
    '',
  ].join('\n'),
  'token.txt': 'tok-3f9a2c71\n',
};

const KOMPOSE_LABELS = {
  'compose.yaml': [
    'services:',
    '  web:',
    '    image: nginx:1.27.2',
    '    ports: ["80:80"]',
    '    labels:',
    '      kompose.service.expose: shop.example.com/app',
    '      kompose.service.expose.tls-secret: shop-tls',
    '      kompose.service.expose.ingress-class-name: traefik',
    '      kompose.hpa.cpu: "60"',
    '      kompose.hpa.replicas.min: "2"',
    '      kompose.hpa.replicas.max: "4"',
    '  resolver:',
    '    image: coredns/coredns:1.11.1',
    '    ports: ["53:53/udp"]',
    '    labels:',
    '      kompose.service.type: nodeport',
    '  files:',
    '    image: nginx:1.27.2',
    '    expose: ["80"]',
    '    volumes: ["data:/data"]',
    '    labels:',
    '      kompose.controller.type: statefulset',
    '      kompose.service.healthcheck.liveness.http_get_path: /health',
    '      kompose.service.healthcheck.liveness.http_get_port: "80"',
    '      kompose.service.group: static',
    '      kompose.volume.type: emptyDir',
    'volumes:',
    '  data:',
    '    labels:',
    '      kompose.volume.size: 3Gi',
    '      kompose.volume.storage-class-name: fast',
    '',
  ].join('\n'),
};

/** A database whose data compose keeps in a volume, and a cache without one. */
const CACHE_PROJECT = {
  'compose.yaml': [
    'services:',
    '  db: { image: "postgres:16.4", environment: { POSTGRES_PASSWORD: cache-db-pass-1 }, volumes: ["pgdata:/var/lib/postgresql/data"] }',
    '  cache: { image: "redis:7.4" }',
    'volumes: { pgdata: {} }',
    '',
  ].join('\n'),
};

interface Scenario {
  readonly cwd: string;
  readonly args: readonly string[];
}

/** Independent conversions, run in parallel before the tests. */
const scenarios: Record<string, Scenario> = {};
const runs: Record<string, CliRun> = {};

beforeAll(async () => {
  expectBuilt();
  const reference = () => referenceCopy();
  const inParent = (dir: string) => path.dirname(dir);
  Object.assign(scenarios, {
    kompose: { cwd: inParent(reference()), args: ['convert', '-f', 'shop/compose.yaml', ...AS_REFERENCE, '-o', 'out'] },
    discovery: { cwd: reference(), args: ['convert', ...AS_REFERENCE] },
    secondShape: { cwd: reference(), args: ['convert', 'compose.yaml', '--output', 'k8s'] },
    stdout: { cwd: reference(), args: ['convert', '--stdout', ...AS_REFERENCE] },
    oneFile: { cwd: reference(), args: ['convert', ...AS_REFERENCE, '-o', 'deploy/all.yaml'] },
    singleFile: { cwd: reference(), args: ['convert', '--single-file', '-o', 'k8s'] },
    metadata: {
      cwd: reference(),
      args: [
        'convert',
        '--labels',
        'team=shop,example.com/tier=web',
        '--annotations',
        'owner=ops@example.com',
        '--controller',
        'statefulset',
        '-o',
        'out',
      ],
    },
    merged: {
      cwd: project(MERGE_PROJECT),
      args: [
        'convert',
        '-f',
        'compose.yaml',
        '-f',
        'override.yaml',
        '--env-file',
        'prod.env',
        '--profile',
        'debug',
        '-p',
        'demo-prod',
        '-o',
        'out',
      ],
    },
    plain: { cwd: project(MERGE_PROJECT), args: ['convert', '-o', 'out'] },
    outside: {
      cwd: path.join(project(OUTSIDE_PROJECT), 'app'),
      args: ['convert', '--image', 'api=registry.example.com/api:2.0', '-o', 'out'],
    },
    outsideAllowed: {
      cwd: path.join(project(OUTSIDE_PROJECT), 'app'),
      args: ['convert', '--image', 'api=registry.example.com/api:2.0', '--allow-outside-project', '-o', 'out'],
    },
    labels: { cwd: project(KOMPOSE_LABELS, 'labels'), args: ['convert', '-o', 'out'] },
    quiet: { cwd: reference(), args: ['convert', ...AS_REFERENCE, '--quiet', '-o', 'out'] },
    cacheDefault: { cwd: project(CACHE_PROJECT, 'cache'), args: ['convert', '-o', 'out'] },
    cacheBackupOn: { cwd: project(CACHE_PROJECT, 'cache'), args: ['convert', '--backup', 'on', '-o', 'out'] },
    options: {
      cwd: reference(),
      args: [
        'convert',
        '--network-policies',
        'off',
        '--ingress-class-name',
        'traefik',
        '--storage-class-name',
        'fast-ssd',
        '--backup',
        'off',
        '--quota',
        'limits.memory=32Gi,persistentvolumeclaims=20',
        '--default-limits',
        '--volume-size',
        'reports=10Gi',
        '--copy-up',
        'off',
        '-o',
        'out',
      ],
    },
    ingressController: {
      cwd: reference(),
      args: [
        'convert',
        '--ingress-controller-namespace',
        'traefik',
        '--ingress-controller-pod-labels',
        'app.kubernetes.io/name=traefik',
        '--quota',
        'off',
        '--backup',
        'on',
        '-o',
        'out',
      ],
    },
  });
  await inParallel(Object.keys(scenarios), 2, async (name) => {
    runs[name] = await runCli(scenarios[name].args, { cwd: scenarios[name].cwd });
  });
}, 120_000);

afterAll(removeTempDirs);

const out = (name: string, folder = 'out') => path.join(scenarios[name].cwd, folder);

describe('the kompose shape: convert -f FILE -o DIR', () => {
  test('writes the same objects as npm run synth, one per file, in wave folders', () => {
    expectOk(runs.kompose);
    const files = manifestFiles(out('kompose'));
    expect(sortDocs(files.flatMap((f) => f.docs))).toEqual(distObjects());
    for (const file of files) {
      expect(file.docs).toHaveLength(1);
      const doc = file.docs[0];
      const wave =
        doc.kind === 'Namespace' || doc.kind === 'NetworkPolicy' || doc.kind === 'ResourceQuota'
          ? '0-namespace'
          : ['shop-db', 'redis'].includes(doc.metadata.labels?.app) ||
              ['db-data', 'redis-data', 'db-password'].includes(doc.metadata.name)
            ? '1-stateful'
            : doc.metadata.name.startsWith('shop-vm') || doc.metadata.name.startsWith('reporting')
              ? '3-vm'
              : '2-app';
      expect(file.file).toBe(`${wave}/${doc.metadata.name}-${doc.kind.toLowerCase()}.yaml`);
      expect(fs.readFileSync(path.join(out('kompose'), file.file), 'utf-8').split('\n')[0]).toBe(HEADER);
    }
    // Beside the manifests, each wave folder holds only its Kustomization (test/cli/gitops/gitops.test.ts).
    expect(
      listFiles(out('kompose')).filter((f) => /^\d-/.test(f) && !f.endsWith('.yaml') && !f.endsWith('/Kustomization')),
    ).toEqual([]);
  });

  test('writes the same golden image bundle as npm run synth, byte for byte (run in the project folder, as main.ts loads it)', () => {
    const bundle = path.join(scenarios.discovery.cwd, 'golden-image');
    const dist = path.join(ROOT, 'dist', 'golden-image');
    expect(listFiles(bundle).filter((f) => f !== '.cdk8s-compose-files')).toEqual(listFiles(dist));
    for (const file of listFiles(dist)) {
      expect(fs.readFileSync(path.join(bundle, file))).toEqual(fs.readFileSync(path.join(dist, file)));
    }
  });

  test('prints one line per warning (identical ones of several services as one) with the file as given, a count, and what it wrote', () => {
    const warnings = stderrLines(runs.kompose, 'warning: ');
    expect(warnings).toContain(
      'warning: shop/compose.yaml: services.*.environment.DATABASE_URL (api, migrate, worker): host "shop_db" in ' +
        'DATABASE_URL rewritten to the Service name "shop-db"',
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^warning: shop\/compose\.yaml:\d+:\d+: services\.api\.environment\.REDIS_URL: host "cache"/,
      ),
    );
    const lines = runs.kompose.stderr.trimEnd().split('\n');
    expect(lines.slice(0, warnings.length)).toEqual(warnings);
    const findings = warnings.reduce(
      (n, w) => n + (/^warning: [^ ]+ services\.\*[^ ]* \(([^)]*)\):/.exec(w)?.[1].split(', ').length ?? 1),
      0,
    );
    expect(findings).toBeGreaterThan(warnings.length);
    expect(lines[warnings.length]).toMatch(
      new RegExp(`^${findings} warnings \\(.*host-rewrite ×\\d+.*, vm-target ×1\\)$`),
    );
    const count = (folder: string) =>
      listFiles(out('kompose')).filter((f) => f.startsWith(`${folder}/`) && !f.endsWith('/Kustomization')).length;
    expect(lines[warnings.length + 1]).toMatch(
      /^verify: \d+ expectations: \d+ hold, 0 reported, 0 broken; data: \d+ durable, \d+ shared, \d+ seeded \(0 broken\)$/,
    );
    expect(lines[warnings.length + 2]).toBe(
      `wrote ${listFiles(out('kompose')).length} files into out: 0-namespace/ (${count('0-namespace')}), ` +
        `1-stateful/ (${count('1-stateful')}), 2-app/ (${count('2-app')}), 3-vm/ (${count('3-vm')}), ` +
        `kustomization.yaml, golden-image/shop-vm/ (${count('golden-image/shop-vm')}), RUNBOOK.md`,
    );
    expect(lines).toHaveLength(warnings.length + 3);
    expect(runs.kompose.stdout).toBe('');
  });

  test('every YAML file is yamllint -d relaxed clean', () => {
    expect(
      yamllintProblems([out('kompose'), out('metadata'), out('labels'), path.join(scenarios.oneFile.cwd, 'deploy')]),
    ).toEqual([]);
  });
});

describe('RUNBOOK.md', () => {
  const runbook = () => fs.readFileSync(path.join(out('kompose'), 'RUNBOOK.md'), 'utf-8');
  /** The lines of the shell blocks, in order. */
  const commands = () =>
    runbook()
      .split('\n')
      .filter((l) => /^\s*kubectl /.test(l))
      .map((l) => l.trim());

  test('begins with the header and the project, and holds no secret value', () => {
    expect(runbook().split('\n').slice(0, 2)).toEqual([
      '<!-- Generated by cdk8s-compose. Do not edit. -->',
      '# Runbook: shop',
    ]);
    const docs = manifestDocs(out('kompose'));
    const report = checkSafety(docs, {
      texts: [{ name: 'RUNBOOK.md', content: runbook() }],
      allowServiceAccountToken: ['api', 'worker'],
    });
    expect(report.problems).toEqual([]);
  });

  test('sets up the context with a token placeholder, then checks the connection', () => {
    expect(commands().slice(0, 6)).toEqual([
      'kubectl config set-cluster <CLUSTER_NAME> --server=<CLUSTER_API_URL>',
      'kubectl config set-credentials <USER_NAME> --token=<ACCESS_TOKEN>',
      'kubectl config set-context shop --cluster=<CLUSTER_NAME> --user=<USER_NAME> --namespace=shop',
      'kubectl config use-context shop',
      'kubectl cluster-info',
      'kubectl get nodes',
    ]);
  });

  test('deploys wave by wave, waiting for the stateful dependencies, moves the data, then verifies', () => {
    const deploy = commands().indexOf('kubectl apply -f 0-namespace/shop-namespace.yaml');
    expect(deploy).toBeGreaterThan(6);
    // Move the data (between Deploy and Verify) fills the claims that replace the compose volumes: test/cli/move-data/move-data.test.ts.
    const [before, rest] = runbook().split('## 6. Move the data\n');
    expect(before).toContain('## 5. Deploy\n');
    expect(rest.split('\n## ')[1]).toMatch(/^7\. Verify\n/);
    const moves = commands()
      .filter((c) => /^kubectl run move-data-/.test(c))
      .map((c) => c.split(' ')[2]);
    expect(moves).toEqual(['move-data-db-data', 'move-data-redis-data', 'move-data-reports']);
    const outside = commands().filter((c) => !rest.split('\n## ')[0].includes(c));
    expect(outside.slice(outside.indexOf('kubectl apply -f 0-namespace/shop-namespace.yaml')).slice(0, 14)).toEqual([
      'kubectl apply -f 0-namespace/shop-namespace.yaml',
      'kubectl apply -f 0-namespace/',
      'kubectl apply -f 1-stateful/',
      'kubectl wait --for=condition=ready pod -l app=redis -n shop --timeout=300s',
      'kubectl wait --for=condition=ready pod -l app=shop-db -n shop --timeout=300s',
      'kubectl apply -f 2-app/',
      'kubectl apply -f 3-vm/',
      'kubectl wait --for=condition=Ready vm/shop-vm -n shop --timeout=300s',
      'kubectl get pods -n shop',
      'kubectl get svc -n shop',
      'kubectl get ingress -n shop',
      'kubectl get pvc -n shop',
      'kubectl get hpa -n shop',
      'kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/shop/pods',
    ]);
    for (const command of commands().filter((c) => /^kubectl apply -f \d-/.test(c))) {
      expect(fs.existsSync(path.join(out('kompose'), command.slice('kubectl apply -f '.length)))).toBe(true);
    }
  });

  test("troubleshoots the four classes with this app's names", () => {
    const all = commands();
    const docs = manifestDocs(out('kompose'));
    // Pod start-up: list, describe, logs (init containers too).
    expect(all).toEqual(
      expect.arrayContaining([
        'kubectl describe pod -l app=api -n shop',
        'kubectl logs deployment/api -n shop',
        'kubectl logs deployment/api -c wait-for-shop-db -n shop',
        'kubectl logs job/migrate -n shop',
      ]),
    );
    // Service communication: endpoints, then per Service a describe and a busybox pod resolving its name.
    expect(all).toContain('kubectl get endpoints -n shop');
    for (const service of findDocs(docs, 'Service').map((d) => d.metadata.name)) {
      expect(all).toContain(`kubectl describe service ${service} -n shop`);
      expect(
        all.find((c) =>
          c.startsWith(`kubectl run dns-${service} --image=busybox:1.36 --rm -it --restart=Never -n shop `),
        ),
      ).toMatch(new RegExp(`-- nslookup ${service}\\.shop\\.svc\\.cluster\\.local$`));
    }
    // Storage and configuration.
    for (const claim of findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.name)) {
      expect(all).toContain(`kubectl describe pvc ${claim} -n shop`);
    }
    expect(all).toContain('kubectl get pv');
    for (const kind of ['ConfigMap', 'Secret']) {
      for (const name of findDocs(docs, kind).map((d) => d.metadata.name)) {
        expect(all).toContain(`kubectl describe ${kind.toLowerCase()} ${name} -n shop`);
      }
    }
    expect(runbook()).toMatch(
      /## 11\. Tear down\n\n\*\*Copy the backups off first\*\* \(\[Backups\]\(#backups\)\)[^\n]*\n\nDeleting the namespace deletes everything in it, waiting until it is gone\. Delete only `shop`, never a namespace the cluster uses [^\n]*\n\n```sh\nkubectl delete namespace shop\n/,
    );
  });

  test('draws who talks to whom by wave: ports, the conditions no traffic shows, the networks in the boxes, the ways in', () => {
    const mermaid = runbook().split('```mermaid\n')[1].split('\n```')[0].split('\n');
    expect(mermaid[0]).toBe('flowchart LR');
    expect(mermaid).toEqual(
      expect.arrayContaining([
        '  subgraph wave_1_stateful ["1-stateful"]',
        '    svc_shop_db[("shop-db<br/>postgres<br/><i>backend</i>")]',
        '    svc_migrate[["migrate<br/>Job<br/><i>backend</i>"]]',
        '    svc_api["api<br/>Deployment ×2<br/><i>backend, frontend</i>"]',
        '  subgraph wave_3_vm ["3-vm: VM shop-vm"]',
        '  svc_api -->|"6379"| svc_redis',
        '  svc_api -->|"5432, once healthy"| svc_shop_db',
        '  svc_web -->|"8000, once healthy"| svc_api',
        '  svc_api -.->|"waits: completed"| svc_migrate',
        '  internet -->|"shop.example.com"| svc_web',
        '  internet -->|"9090"| svc_api',
      ]),
    );
    // No network nodes, no depends_on arrow without a condition.
    expect(mermaid.filter((l) => /net_|service_started/.test(l))).toEqual([]);
  });
});

test('no options: the default compose file, into the current folder; the same manifests byte for byte', () => {
  expectOk(runs.discovery);
  const cwd = scenarios.discovery.cwd;
  const written = listFiles(cwd).filter((f) => /^\d-/.test(f));
  const expected = listFiles(out('kompose')).filter((f) => /^\d-/.test(f));
  expect(written).toEqual(expected);
  for (const file of written) {
    expect(fs.readFileSync(path.join(cwd, file), 'utf-8')).toBe(
      fs.readFileSync(path.join(out('kompose'), file), 'utf-8'),
    );
  }
  expect(fs.existsSync(path.join(cwd, 'RUNBOOK.md'))).toBe(true);
  expect(fs.readFileSync(path.join(cwd, 'compose.yaml'), 'utf-8')).toBe(
    fs.readFileSync(path.join(REFERENCE, 'compose.yaml'), 'utf-8'),
  );
});

test("the second tool's shape: convert FILE --output DIR, with the defaults", () => {
  expectOk(runs.secondShape);
  const docs = manifestDocs(out('secondShape', 'k8s'));
  // The defaults run every service in a container (dist/ runs the reporting daemon in a VM): the same objects as the
  // default conversion into one file.
  const key = (d: any) => `${d.kind}/${d.metadata.name}`;
  const single = fs.readFileSync(path.join(out('singleFile', 'k8s'), 'shop.yaml'), 'utf-8');
  expect(docs.map(key).sort()).toEqual(parseYamlDocs(single, 'shop.yaml').map(key).sort());
  // Without --namespace and --ingress-host: the project name, and <service>.example.com.
  expect(findDoc(docs, 'Namespace', 'shop').metadata.name).toBe('shop');
  expect(findDoc(docs, 'Ingress', 'web').spec.rules[0].host).toBe('web.example.com');
});

test('--stdout prints every object once, in wave order, and writes nothing', () => {
  expectOk(runs.stdout);
  expect(runs.stdout.stdout.split('\n')[0]).toBe(HEADER);
  const docs = parseYamlDocs(runs.stdout.stdout, 'stdout');
  expect(sortDocs(docs)).toEqual(distObjects());
  expect(docs[0].kind).toBe('Namespace');
  const firstApp = docs.findIndex((d) => d.metadata.name === 'api');
  expect(docs.findIndex((d) => d.kind === 'Deployment' && d.metadata.name === 'shop-db')).toBeLessThan(firstApp);
  expect(listFiles(scenarios.stdout.cwd)).toEqual(listFiles(REFERENCE));
  expect(stderrLines(runs.stdout, 'wrote')).toEqual([]);
});

describe('one file', () => {
  test('-o FILE.yaml writes the manifests into that file, and the runbook beside it', () => {
    expectOk(runs.oneFile);
    const dir = path.join(scenarios.oneFile.cwd, 'deploy');
    expect(listFiles(dir).filter((f) => !f.startsWith('golden-image/'))).toEqual(['RUNBOOK.md', 'all.yaml']);
    const text = fs.readFileSync(path.join(dir, 'all.yaml'), 'utf-8');
    expect(text.split('\n')[0]).toBe(HEADER);
    expect(sortDocs(parseYamlDocs(text, 'all.yaml'))).toEqual(distObjects());
    expect(fs.readFileSync(path.join(dir, 'RUNBOOK.md'), 'utf-8')).toContain('kubectl apply -f all.yaml\n');
    expect(stderrLines(runs.oneFile, 'wrote')).toEqual([
      `wrote ${listFiles(dir).length} files into deploy: all.yaml, ` +
        `golden-image/shop-vm/ (${listFiles(dir).filter((f) => f.startsWith('golden-image/shop-vm/')).length}), RUNBOOK.md`,
    ]);
  });

  test('--single-file -o DIR writes <namespace>.yaml', () => {
    expectOk(runs.singleFile);
    expect(listFiles(out('singleFile', 'k8s'))).toEqual(['RUNBOOK.md', 'shop.yaml']);
  });
});

test('--labels and --annotations reach every object and every pod template; --controller statefulset', () => {
  expectOk(runs.metadata);
  const docs = manifestDocs(out('metadata'));
  for (const doc of docs) {
    expect({
      doc: `${doc.kind}/${doc.metadata.name}`,
      labels: doc.metadata.labels,
      annotations: doc.metadata.annotations,
    }).toEqual({
      doc: `${doc.kind}/${doc.metadata.name}`,
      labels: expect.objectContaining({ 'team': 'shop', 'example.com/tier': 'web' }),
      annotations: expect.objectContaining({ owner: 'ops@example.com' }),
    });
  }
  const templates = podTemplates(docs);
  expect(templates.map((t) => `${t.doc.kind}/${t.doc.metadata.name}`)).toEqual(
    expect.arrayContaining(['CronJob/shop-db-backup', 'Job/migrate', 'Deployment/web']),
  );
  for (const template of templates) {
    expect(template.labels).toEqual(
      expect.objectContaining({ 'team': 'shop', 'example.com/tier': 'web', 'app': expect.any(String) }),
    );
    expect(
      template.doc.spec.template?.metadata?.annotations ??
        template.doc.spec.jobTemplate.spec.template.metadata.annotations,
    ).toEqual(expect.objectContaining({ owner: 'ops@example.com' }));
  }
  expect(
    findDocs(docs, 'StatefulSet')
      .map((d) => d.metadata.name)
      .sort(),
  ).toEqual(['redis', 'shop-db']);
  // Without --target, the reporting daemon runs as a container too.
  expect(
    findDocs(docs, 'Deployment')
      .map((d) => d.metadata.name)
      .sort(),
  ).toEqual(['api', 'reporting', 'web', 'worker']);
});

test('--quiet prints only the summary: the count of warnings by code, the verify line and what it wrote', () => {
  expectOk(runs.quiet);
  const lines = runs.quiet.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[0]).toBe(
    runs.kompose.stderr
      .trimEnd()
      .split('\n')
      .find((l) => /^\d+ warnings/.test(l)),
  );
  expect(lines[1]).toMatch(/^verify: \d+ expectations: /);
  expect(lines[2]).toMatch(/^wrote \d+ files into out: 0-namespace\/ /);
});

describe('the options for the opinionated parts', () => {
  test('--network-policies off, --ingress-class-name, --storage-class-name, --backup off, --quota with amounts, --default-limits, --volume-size and --copy-up off', () => {
    expectOk(runs.options);
    const docs = manifestDocs(out('options'));
    // --default-limits: the containers compose gives no limit (migrate, redis, shop-db, worker) get the default ones.
    for (const name of ['migrate', 'redis', 'shop-db', 'worker']) {
      const doc = docs.find((d) => ['Deployment', 'Job'].includes(d.kind) && d.metadata.name === name)!;
      expect(doc.spec.template.spec.containers[0].resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
    }
    expect(findDoc(docs, 'PersistentVolumeClaim', 'reports').spec.resources.requests.storage).toBe('10Gi');
    const initNames = findDocs(docs, 'Deployment').flatMap((d) =>
      (d.spec.template.spec.initContainers ?? []).map((c: any) => c.name),
    );
    expect(initNames.filter((n: string) => n.endsWith('-copy-up'))).toEqual([]);
    expect(
      findDocs(manifestDocs(out('kompose')), 'Deployment').flatMap((d) =>
        (d.spec.template.spec.initContainers ?? [])
          .map((c: any) => c.name)
          .filter((n: string) => n.endsWith('-copy-up')),
      ),
    ).not.toEqual([]);
    expect(findDocs(docs, 'NetworkPolicy')).toEqual([]);
    expect(findDocs(docs, 'CronJob')).toEqual([]);
    expect(findDocs(docs, 'Ingress').map((d) => d.spec.ingressClassName)).toEqual(['traefik', 'traefik']);
    const claims = findDocs(docs, 'PersistentVolumeClaim');
    expect(claims.length).toBeGreaterThan(0);
    expect(claims.filter((d) => d.spec.storageClassName !== 'fast-ssd')).toEqual([]);
    expect(findDoc(docs, 'ResourceQuota', 'namespace-quota').spec.hard).toMatchObject({
      'limits.memory': '32Gi',
      'persistentvolumeclaims': '20',
    });
    const runbook = fs.readFileSync(path.join(out('options'), 'RUNBOOK.md'), 'utf-8');
    expect(runbook).toContain('| 0 | `0-namespace/` | the Namespace and its ResourceQuota |');
    expect(runbook).not.toContain('the NetworkPolicies let traffic in');
  });

  test('--backup: by default only the database whose data compose keeps; on: the cache too', () => {
    expectOk(runs.cacheDefault);
    expectOk(runs.cacheBackupOn);
    const backups = (name: string) =>
      findDocs(manifestDocs(out(name)), 'CronJob')
        .map((d) => d.metadata.name)
        .sort();
    expect(backups('cacheDefault')).toEqual(['db-backup']);
    expect(backups('cacheBackupOn')).toEqual(['cache-backup', 'db-backup']);
  });

  test('--ingress-controller-namespace and its pod labels in the allow rule; --quota off; --backup on', () => {
    expectOk(runs.ingressController);
    const docs = manifestDocs(out('ingressController'));
    const web = findDoc(docs, 'NetworkPolicy', 'allow-web').spec.ingress.find((rule: any) =>
      rule.from?.some((p: any) => p.namespaceSelector),
    );
    expect(web.from).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'traefik' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'traefik' } },
      },
    ]);
    expect(findDocs(docs, 'ResourceQuota')).toEqual([]);
    expect(
      findDocs(docs, 'CronJob')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['redis-backup', 'shop-db-backup']);
    const runbook = fs.readFileSync(path.join(out('ingressController'), 'RUNBOOK.md'), 'utf-8');
    expect(runbook).toMatch(/^\| 0 \| `0-namespace\/` \| the Namespace and \d+ NetworkPolicies \|$/m);
    expect(runbook).toContain(
      "the NetworkPolicies let traffic in to them only from the ingress controller's pods in the namespace labelled " +
        '`kubernetes.io/metadata.name=traefik` (pods labelled `app.kubernetes.io/name=traefik`): if the controller runs elsewhere, ' +
        'convert again with --ingress-controller-namespace',
    );
  });
});

describe('loader options', () => {
  test('-f twice merges in override order; --env-file, --profile and -p', () => {
    expectOk(runs.merged);
    const docs = manifestDocs(out('merged'));
    const web = findDoc(docs, 'Deployment', 'web');
    expect(web.spec.replicas).toBe(3);
    expect(web.spec.template.spec.containers[0].image).toBe('nginx:1.27.2');
    expect(findDoc(docs, 'Deployment', 'debug').spec.template.spec.containers[0].args).toEqual(['sleep', '3600']);
    expect(findDoc(docs, 'Namespace', 'demo-prod').metadata.name).toBe('demo-prod');
  });

  test("without them: one file, no profile, the default tag, the folder's name", () => {
    expectOk(runs.plain);
    const docs = manifestDocs(out('plain'));
    expect(findDoc(docs, 'Deployment', 'web').spec.replicas).toBe(1);
    expect(findDoc(docs, 'Deployment', 'web').spec.template.spec.containers[0].image).toBe('nginx:1.25');
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).toEqual(['web']);
    expect(findDocs(docs, 'Namespace').map((d) => d.metadata.name)).toEqual(['demo']);
  });

  test('--image gives a build-only service its image; a secret outside the project is not read, and the runbook says how to create it', () => {
    expectOk(runs.outside);
    const docs = manifestDocs(out('outside'));
    expect(findDoc(docs, 'Deployment', 'api').spec.template.spec.containers[0].image).toBe(
      'registry.example.com/api:2.0',
    );
    expect(findDocs(docs, 'Secret')).toEqual([]);
    expect(stderrLines(runs.outside, 'warning: ')).toContain(
      'warning: compose.yaml:7:5: secrets.token: secret "token" reads ' +
        '"../token.txt", outside the project, which was not read: create the Secret "token" with the key "token" in namespace "app" before deploying',
    );
    const runbook = fs.readFileSync(path.join(out('outside'), 'RUNBOOK.md'), 'utf-8');
    expect(runbook).toContain('   kubectl create secret generic token --from-file=token=<TOKEN_FILE> -n app\n');
    expect(runbook).not.toContain('tok-3f9a2c71');
  });

  test('--allow-outside-project reads it', () => {
    expectOk(runs.outsideAllowed);
    const secret = findDoc(manifestDocs(out('outsideAllowed')), 'Secret', 'token');
    expect(Buffer.from(secret.data.token, 'base64').toString('utf-8')).toBe('tok-3f9a2c71\n');
  });
});

test('kompose labels: the honoured ones shape the output (expose, TLS, class, hpa, type, volume, controller, healthcheck), the others are reported', () => {
  expectOk(runs.labels);
  const docs = manifestDocs(out('labels'));
  const ingress = findDoc(docs, 'Ingress', 'web');
  expect(ingress.spec.ingressClassName).toBe('traefik');
  expect(ingress.spec.rules).toEqual([
    {
      host: 'shop.example.com',
      http: {
        paths: [{ path: '/app', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
      },
    },
  ]);
  expect(ingress.spec.tls).toEqual([{ hosts: ['shop.example.com'], secretName: 'shop-tls' }]);
  const hpa = findDoc(docs, 'HorizontalPodAutoscaler', 'web');
  expect([hpa.spec.minReplicas, hpa.spec.maxReplicas, hpa.spec.metrics[0].resource.target.averageUtilization]).toEqual([
    2, 4, 60,
  ]);
  expect(findDocs(docs, 'Service').find((s) => s.spec.type === 'NodePort')?.metadata.name).toMatch(/^resolver/);
  const claim = findDoc(docs, 'PersistentVolumeClaim', 'data');
  expect([claim.spec.resources.requests.storage, claim.spec.storageClassName]).toEqual(['3Gi', 'fast']);
  const files = findDoc(docs, 'StatefulSet', 'files');
  expect(files.spec.template.spec.containers[0].livenessProbe.httpGet).toEqual({
    path: '/health',
    port: 80,
    scheme: 'HTTP',
  });
  expect(stderrLines(runs.labels, 'warning: ').filter((w) => w.includes('kompose'))).toEqual([
    'warning: compose.yaml:18:5: services.files.labels["kompose.service.group"]: ignored label "kompose.service.group": this kompose label is not honoured',
    'warning: compose.yaml:18:5: services.files.labels["kompose.volume.type"]: ignored label "kompose.volume.type": this kompose label is not honoured',
  ]);
  const runbook = fs.readFileSync(path.join(out('labels'), 'RUNBOOK.md'), 'utf-8');
  expect(runbook).toContain('   kubectl create secret tls shop-tls --cert=<CERT_FILE> --key=<KEY_FILE> -n labels\n');
});
