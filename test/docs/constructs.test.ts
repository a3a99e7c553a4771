import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { PolicyEvaluator } from '../../lib/app/policy/policy-evaluator';
import { parseYamlDocs } from '../support/yaml-docs';

/**
 * docs/constructs.md, as a reader runs it: its compose file is written into a project folder, every ```ts block
 * marked `<!-- example: NAME -->` is type-checked against the package's declarations (build/lib, `import … from
 * 'cdk8s-compose'`) and run there as a cdk8s app, and every `cdk8s-compose` command of its ```sh blocks runs with the
 * built CLI. Each example's output is checked for what the text says it does. The snapshot example runs on several
 * "machines" (shell variables, a .env file, neither) and must record the same bytes, without a password.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const DOC = path.join(ROOT, 'docs', 'constructs.md');
const DECLARATIONS = path.join(ROOT, 'build', 'lib', 'index.d.ts');
const CLI = path.join(ROOT, 'bin', 'cdk8s-compose');

const text = fs.readFileSync(DOC, 'utf-8');
const compose = /^```yaml\n([\s\S]*?)^```$/m.exec(text)![1];
const examples = new Map(
  [...text.matchAll(/^<!-- example: ([a-z-]+) -->\n```ts\n([\s\S]*?)^```$/gm)].map((m) => [m[1], m[2]] as const),
);
const commands = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .flatMap((m) => m[1].split('\n'))
  .filter((line) => line.startsWith('cdk8s-compose '));

function example(name: string): string {
  const code = examples.get(name);
  if (code === undefined) {
    throw new Error(`docs/constructs.md has no example "${name}" (<!-- example: ${name} --> before a \`\`\`ts block)`);
  }
  return code;
}

let project: string;
const saved = { ...process.env };

beforeAll(() => {
  expect(fs.existsSync(DECLARATIONS)).toBe(true);
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-external-'));
  fs.writeFileSync(path.join(project, 'compose.yaml'), compose);
});

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

afterEach(() => {
  for (const key of Object.keys(process.env)) {
    if (!(key in saved)) {
      delete process.env[key];
    }
  }
  Object.assign(process.env, saved);
  fs.rmSync(path.join(project, '.env'), { force: true });
});

/** What the snapshot example's `expect(…).toMatchSnapshot()` was given, one entry per call. */
let recorded: string[] = [];

/** Runs a ```ts block as a module of the project folder, `cdk8s-compose` being this repository's library. */
function runBlock(code: string): void {
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true },
  }).outputText;
  const load = (id: string) => (id === 'cdk8s-compose' ? require('../../lib/index') : require(id));
  const module = { exports: {} };
  const testFn = (_name: string, fn: () => void) => fn();
  const expectFn = (value: unknown) => ({ toMatchSnapshot: () => recorded.push(JSON.stringify(value)) });
  new Function('require', 'module', 'exports', '__dirname', 'test', 'expect', 'console', js)(
    load,
    module,
    module.exports,
    project,
    testFn,
    expectFn,
    { log: () => undefined },
  );
}

const NAMES = [
  'props',
  'subclass',
  'tls',
  'sidecar',
  'network',
  'drop',
  'external-host',
  'external-ip',
  'snapshot',
  'stateful',
  'vm',
  'fail-on',
];

test('the page has its compose file, its runnable examples and two commands', () => {
  expect(compose).toContain('db:');
  expect([...examples.keys()].sort()).toEqual([...NAMES].sort());
  expect(commands).toHaveLength(2);
});

test('every runnable example compiles against the declarations the package ships', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'docs', '.examples-'));
  try {
    const files = NAMES.map((name) => {
      const file = path.join(dir, `${name}.ts`);
      fs.writeFileSync(file, example(name));
      return file;
    });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      esModuleInterop: true,
      types: ['node', 'jest'],
      typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      baseUrl: ROOT,
      paths: { 'cdk8s-compose': [path.relative(ROOT, DECLARATIONS)] },
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(problems).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

/** Runs an example as a cdk8s app in the project folder; the documents of the file it wrote. */
function synthExample(name: string, file = 'shop.k8s.yaml'): any[] {
  const out = path.join(project, `dist-${name}`);
  process.env.CDK8S_OUTDIR = out;
  runBlock(example(name));
  return parseYamlDocs(fs.readFileSync(path.join(out, file), 'utf-8'), file);
}

function find(docs: any[], kind: string, name: string): any {
  const found = docs.find((d) => d.kind === kind && d.metadata?.name === name);
  if (!found) {
    throw new Error(`no ${kind} ${name} among ${docs.map((d) => `${d.kind}/${d.metadata?.name}`).join(', ')}`);
  }
  return found;
}

test('props: replicas, resources, the Ingress host and the volume size reach the manifests', () => {
  const docs = synthExample('props');
  const web = find(docs, 'Deployment', 'web');
  expect(web.metadata.namespace).toBe('shop');
  expect(web.spec.replicas).toBe(3);
  expect(web.spec.template.spec.containers[0].resources).toEqual({
    limits: { cpu: '1', memory: '512Mi' },
    requests: { cpu: '250m', memory: '256Mi' },
  });
  expect(web.spec.template.spec.containers[0].readinessProbe.httpGet.path).toBe('/healthz');
  expect(find(docs, 'Ingress', 'web').spec.rules[0].host).toBe('shop.example.com');
  expect(docs.filter((d) => d.kind === 'Ingress').map((d) => d.metadata.name)).toEqual(['web']);
  const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name.includes('db-data'));
  expect(claim.spec).toMatchObject({ storageClassName: 'fast-ssd', resources: { requests: { storage: '20Gi' } } });
});

test('subclass: the annotation and the variables added to the handles are in the Deployment, and no stale key', () => {
  process.env.DB_PASSWORD = 'pw-of-the-subclass-test'; // so that compose's DATABASE_URL is a secret
  const docs = synthExample('subclass');
  const web = find(docs, 'Deployment', 'web');
  expect(web.spec.template.metadata.annotations['prometheus.io/scrape']).toBe('true');
  expect(web.spec.template.spec.containers[0].env).toContainEqual({ name: 'FEATURE_FLAGS', value: 'checkout-v2' });
  const url = web.spec.template.spec.containers[0].env.filter((e: any) => e.name === 'DATABASE_URL');
  expect(url).toEqual([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { key: 'uri', name: 'db-credentials' } } }]);
  expect(find(docs, 'Secret', 'web-env').data ?? {}).not.toHaveProperty('DATABASE_URL');
});

test('tls: the Ingress has the TLS section and the cert-manager annotation', () => {
  const ingress = find(synthExample('tls'), 'Ingress', 'web');
  expect(ingress.spec.tls).toEqual([{ hosts: ['shop.example.com'], secretName: 'shop-tls' }]);
  expect(ingress.metadata.annotations['cert-manager.io/cluster-issuer']).toBe('letsencrypt');
});

test("sidecar: the second container runs in web's pod, and the quota counts it", () => {
  const docs = synthExample('sidecar');
  const containers = find(docs, 'Deployment', 'web').spec.template.spec.containers;
  expect(containers.map((c: any) => c.name)).toContain('log-shipper');
  const without = synthExample('props');
  const quota = (all: any[]) => all.find((d) => d.kind === 'ResourceQuota').spec.hard;
  expect(quota(docs)['requests.memory']).not.toEqual(quota(without)['requests.memory']);
});

test('network: the added pod reaches db through the policies allowTo makes, and is held back without them', () => {
  const docs = synthExample('network');
  const exporter = docs.find((d) => d.kind === 'Deployment' && d.metadata.name.includes('pg-exporter'));
  expect(exporter.metadata.namespace).toBe('shop');
  const from = { name: 'exporter', labels: exporter.spec.template.metadata.labels };
  const db = { name: 'db', labels: find(docs, 'Deployment', 'db').spec.template.metadata.labels };
  // cdk8s-plus names the pod's own namespace in each peer (`namespaceSelector` on kubernetes.io/metadata.name): the
  // same namespace, which the evaluator knows as a bare podSelector.
  const policies = docs
    .filter((d) => d.kind === 'NetworkPolicy')
    .map((d) =>
      JSON.parse(JSON.stringify(d), (key, value) =>
        key === 'namespaceSelector' && value?.matchLabels?.['kubernetes.io/metadata.name'] === 'shop'
          ? undefined
          : value,
      ),
    );
  expect(new PolicyEvaluator(policies).admits(from, db, 5432)).toBe(true);
  // The app's own policies alone: default-deny holds the exporter back.
  const appOnly = policies.filter(
    (p) => !p.metadata.name.startsWith('allowegress') && !p.metadata.name.startsWith('allowingress'),
  );
  expect(appOnly.length).toBeLessThan(policies.length);
  expect(new PolicyEvaluator(appOnly).admits(from, db, 5432)).toMatch(/no NetworkPolicy/);
});

test('drop: adminer is gone, the rest is there', () => {
  const docs = synthExample('drop');
  expect(docs.filter((d) => d.metadata?.name === 'adminer')).toEqual([]);
  expect(find(docs, 'Deployment', 'web')).toBeDefined();
});

test('stateful: the engine reads the Secret you manage, the API its connection string, and no password is written', () => {
  const docs = synthExample('stateful', 'orders.k8s.yaml');
  expect(docs.filter((d) => d.kind === 'Secret')).toEqual([]);
  expect(find(docs, 'Service', 'orders-db').metadata.namespace).toBe('orders');
  const api = docs.find((d) => d.kind === 'Deployment' && d.metadata.name.includes('orders-api'));
  const url = api.spec.template.spec.containers[0].env.find((e: any) => e.name === 'DATABASE_URL');
  expect(JSON.stringify(url)).toContain('orders-db-credentials');
  expect(docs.some((d) => d.kind === 'CronJob')).toBe(true);
});

test('vm: a DataVolume imports the image, the VirtualMachine boots it, and the Service selects it', () => {
  const docs = synthExample('vm', 'legacy.k8s.yaml');
  const vm = find(docs, 'VirtualMachine', 'reports');
  expect(vm.metadata.namespace).toBe('legacy');
  expect(JSON.stringify(docs.find((d) => d.kind === 'DataVolume'))).toContain(
    'https://images.example.com/reports-2024.qcow2',
  );
  expect(find(docs, 'Service', 'reports').spec.selector).toEqual({ 'kubevirt.io/vm': 'reports' });
  expect(JSON.stringify(vm)).toContain('reports.service');
});

test('fail-on: the build stops on the empty password and the placeholder Ingress hosts, naming them, and writes nothing', () => {
  const out = path.join(project, 'dist-fail-on');
  process.env.CDK8S_OUTDIR = out;
  expect(() => runBlock(example('fail-on'))).toThrow(
    /^not shipped:\n.*POSTGRES_PASSWORD is empty.*\n.*services\.adminer: .*placeholder host.*\n.*services\.web: /,
  );
  expect(fs.existsSync(path.join(out, 'shop.k8s.yaml'))).toBe(false);
});

test('the external database example: the Service db resolves to the endpoint, and db has no workload', () => {
  const docs = synthExample('external-host');
  const db = docs.filter((d) => d.metadata?.name === 'db');
  expect(db.map((d) => d.kind)).toEqual(['Service']);
  expect(db[0].spec).toMatchObject({ type: 'ExternalName', externalName: 'shop.abc123.eu-west-1.rds.amazonaws.com' });
  expect(
    docs.filter((d) => d.kind === 'CronJob' || (d.kind === 'PersistentVolumeClaim' && d.metadata.name.includes('db'))),
  ).toEqual([]);
});

test('the IP example: an EndpointSlice maps 5432 to 6543, and web may leave to 10.20.0.7/32', () => {
  const docs = synthExample('external-ip');
  expect(find(docs, 'Service', 'db').spec.ports).toEqual([
    { name: 'tcp-5432', port: 5432, targetPort: 6543, protocol: 'TCP' },
  ]);
  expect(find(docs, 'EndpointSlice', 'db-external').endpoints).toEqual([
    { addresses: ['10.20.0.7'], conditions: { ready: true } },
  ]);
  expect(find(docs, 'NetworkPolicy', 'allow-web').spec.egress).toContainEqual({
    to: [{ ipBlock: { cidr: '10.20.0.7/32' } }],
    ports: [{ protocol: 'TCP', port: 6543 }],
  });
});

test('the snapshot example records the same bytes on every machine, and no password', () => {
  const machines: [Record<string, string>, string | undefined][] = [
    [{}, undefined],
    [{ DB_PASSWORD: 's3cret-from-the-shell' }, undefined],
    [{}, 'DB_PASSWORD=s3cret-from-dotenv\n'],
    [{ DB_PASSWORD: 's3cret-again', COMPOSE_PROJECT_NAME: 'elsewhere' }, 'DB_PASSWORD=s3cret-too\n'],
  ];
  recorded = [];
  for (const [shell, dotenv] of machines) {
    Object.assign(process.env, shell);
    if (dotenv !== undefined) {
      fs.writeFileSync(path.join(project, '.env'), dotenv);
    }
    runBlock(example('snapshot'));
    fs.rmSync(path.join(project, '.env'), { force: true });
    for (const key of Object.keys(shell)) {
      delete process.env[key];
    }
  }
  expect(recorded).toHaveLength(machines.length);
  expect(new Set(recorded).size).toBe(1);
  expect(recorded[0]).not.toMatch(/s3cret|elsewhere/);
  expect(recorded[0]).toContain('"externalName":"shop.abc123.eu-west-1.rds.amazonaws.com"');
  expect(recorded[0]).toContain('"namespace":"shop"');
});

test('the commands run with the built CLI and succeed', () => {
  expect(fs.existsSync(path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js'))).toBe(true);
  for (const command of commands) {
    const args = command.split(' ').slice(1);
    const run = spawnSync(process.execPath, [CLI, ...args], {
      cwd: project,
      encoding: 'utf-8',
      env: { PATH: process.env.PATH },
    });
    expect({ command, status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({
      command,
      status: 0,
      stderr: '',
    });
  }
  expect(fs.existsSync(path.join(project, 'k8s', '2-app', 'db-service.yaml'))).toBe(true);
}, 60_000);
