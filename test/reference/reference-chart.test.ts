import * as fs from 'fs';
import * as path from 'path';
import { App, Testing } from 'cdk8s';
import { ReferenceChart, referenceAppDir } from '../../lib/reference-chart';
import { ReferencePlatformChart } from '../../lib/reference-platform-chart';
import { GoldenImageBundle } from '../../lib/vm/golden-image-bundle';
import { expectManifestsPass } from '../support/checks';
import { checkSecretLeaks } from '../support/safety-rules';
import { findDoc, findDocs } from '../support/yaml-docs';
import {
  ToolResult,
  cloudInitSchema,
  composeConfig,
  listFiles,
  packerValidate,
  systemdVerify,
  tempDir,
} from '../vm/tools';

const chart = new ReferenceChart(Testing.app(), 'shop');
const docs = Testing.synth(chart);
const app = chart.app;
const bundle = app.vm!.bundle;
const bundleTexts = bundle
  .files()
  .map((f) => ({ name: `golden-image/shop-vm/${f.path}`, content: f.content.toString('utf-8') }));
const WORKLOADS = ['Deployment', 'StatefulSet', 'Job', 'CronJob'];
const DIST = path.join(referenceAppDir(), '..', '..', 'dist');

function podSpec(doc: any): any {
  return doc.kind === 'CronJob' ? doc.spec.jobTemplate.spec.template.spec : doc.spec.template.spec;
}

/** The fake secret values of the reference app, from its .env and secret files. */
function demoSecrets(): string[] {
  const dir = referenceAppDir();
  const fromEnv = fs
    .readFileSync(path.join(dir, '.env'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => line.slice(line.indexOf('=') + 1));
  const fromFiles = fs
    .readdirSync(path.join(dir, 'secrets'))
    .map((f) => fs.readFileSync(path.join(dir, 'secrets', f), 'utf8').trim());
  return [...fromEnv, ...fromFiles];
}

/** What `npm run synth` writes (main.ts: the two charts, then the bundles), into a fresh folder. */
function freshSynth(): string {
  const outdir = tempDir('reference-dist');
  const fresh = new App({ outdir });
  new ReferenceChart(fresh, 'shop');
  new ReferencePlatformChart(fresh, 'platform');
  fresh.synth();
  GoldenImageBundle.synthesizeAll(fresh);
  return outdir;
}

const fresh = freshSynth();
const tools: Record<string, Promise<ToolResult>> = {};
beforeAll(async () => {
  const appDir = tempDir('reference-app');
  fs.cpSync(path.join(DIST, 'golden-image', 'shop-vm', 'app'), appDir, { recursive: true });
  tools.packer = packerValidate(path.join(DIST, 'golden-image', 'shop-vm'));
  tools.systemd = systemdVerify(
    'shop-vm.service',
    fs.readFileSync(path.join(DIST, 'golden-image/shop-vm/systemd/shop-vm.service'), 'utf-8'),
    '/opt/shop-vm',
  );
  tools.compose = composeConfig(
    appDir,
    Object.fromEntries(Object.keys(bundle.subset.secretEnv).map((k) => [k, 'operator-value'])),
  );
  tools.cloudInit = cloudInitSchema(
    findDoc(docs, 'VirtualMachine', 'shop-vm').spec.template.spec.volumes.find((v: any) => v.cloudInitNoCloud)
      .cloudInitNoCloud.userData,
  );
  await Promise.all(Object.values(tools));
});

test('the reference app synthesizes to the committed snapshot', () => {
  expect(docs).toMatchSnapshot();
});

test('dist/ holds exactly, byte for byte, what a fresh synth writes: the manifests and the golden image bundle', () => {
  const files = listFiles(DIST);
  expect(files).toEqual(listFiles(fresh));
  expect(files).toEqual([
    'golden-image/shop-vm/README.md',
    'golden-image/shop-vm/app/.env.example',
    'golden-image/shop-vm/app/compose.yaml',
    'golden-image/shop-vm/http/preseed.cfg',
    'golden-image/shop-vm/packer.json',
    'golden-image/shop-vm/scripts/cleanup.sh',
    'golden-image/shop-vm/scripts/install-runtime.sh',
    'golden-image/shop-vm/scripts/load-secrets.sh',
    'golden-image/shop-vm/systemd/docker-app-data.conf',
    'golden-image/shop-vm/systemd/shop-vm.service',
    'platform.k8s.yaml',
    'shop.k8s.yaml',
  ]);
  for (const file of files) {
    expect(`${file}: ${fs.readFileSync(path.join(DIST, file), 'utf-8')}`).toBe(
      `${file}: ${fs.readFileSync(path.join(fresh, file), 'utf-8')}`,
    );
  }
});

test('synthesis is byte-stable', () => {
  const again = new ReferenceChart(Testing.app(), 'shop');
  expect(JSON.stringify(Testing.synth(again))).toBe(JSON.stringify(docs));
  expect(again.app.vm!.bundle.files().map((f) => f.content.toString('base64'))).toEqual(
    bundle.files().map((f) => f.content.toString('base64')),
  );
});

test('every manifest passes the validator, the Kubernetes rules and the safety rules; the bundle holds no secret', () => {
  expectManifestsPass(docs, {
    allowServiceAccountToken: ['api', 'worker'],
    secretValues: demoSecrets(),
    texts: bundleTexts,
  });
});

test('every row of the mapping table is there, and the VM target beside the container target', () => {
  const kinds = new Set(docs.map((d) => d.kind));
  for (const kind of [
    'Namespace',
    'Deployment',
    'Service',
    'NetworkPolicy',
    'PersistentVolumeClaim',
    'ConfigMap',
    'Secret',
    'Ingress',
    'HorizontalPodAutoscaler',
    'ResourceQuota',
    'CronJob',
    'Job',
    'VirtualMachine',
    'DataVolume',
  ]) {
    expect(kinds).toContain(kind);
  }
  expect(findDoc(docs, 'Service', 'api-external').spec.type).toBe('LoadBalancer');
  expect(findDoc(docs, 'Ingress', 'web').spec.rules[0].host).toBe('shop.example.com');
  expect(findDoc(docs, 'Ingress', 'reporting').spec.rules[0].host).toBe('reports.shop.example.com');
});

test('the legacy reporting daemon runs in the VM, because it drives the Docker engine', () => {
  expect(app.vmServices.map((s) => `${s.composeName}: ${s.reasons.join('; ')}`)).toEqual([
    'reporting: services.reporting.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have',
  ]);
  expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).not.toContain('reporting');
  expect(findDoc(docs, 'Service', 'reporting').spec).toMatchObject({
    selector: { 'kubevirt.io/vm': 'shop-vm' },
    ports: [{ name: 'tcp-8500', port: 8500, targetPort: 8500 }],
  });
  expect(findDoc(docs, 'DataVolume', 'shop-vm-rootdisk').spec.source.http.url).toBe(
    'https://images.example.com/shop/shop-vm.qcow2',
  );
  // The report archive is a volume of the VM's compose project, on the VM's disk: no claim in Kubernetes.
  expect(findDocs(docs, 'PersistentVolumeClaim').map((c) => c.metadata.name)).not.toContain('report-archive');
  expect(bundle.subset.composeFile).toContain('- report-archive:/var/lib/reports');
});

test("rule 2 both ways: the API reaches the VM's Service, the VM reaches the database's Service", () => {
  expect(findDoc(docs, 'ConfigMap', 'api-env').data.REPORTS_URL).toBe('http://reporting:8500/api');
  expect(bundle.subset.secretEnv.DATABASE_URL).toBe('postgresql://shop:demo-db-password-not-real@shop-db:5432/shop');
  expect(bundle.subset.composeFile).toContain('DATABASE_URL: ${DATABASE_URL:?set DATABASE_URL in /opt/shop-vm/.env}');
});

describe('the golden image bundle passes the real tools', () => {
  test.each(['packer', 'systemd', 'compose', 'cloudInit'])('%s accepts it', async (tool) => {
    expect(await tools[tool]).toMatchObject({ ok: true });
  });
});

test('no secret value appears outside a Secret, nor in a warning, nor in the bundle', () => {
  const secrets = demoSecrets();
  expect(secrets).toHaveLength(6);
  expect(checkSecretLeaks(docs, { secretValues: secrets, texts: bundleTexts })).toEqual([]);
  const warnings = JSON.stringify(app.warnings);
  for (const secret of secrets) {
    expect(warnings).not.toContain(secret);
  }
});

test("every selector matches its pod labels, the VM's included", () => {
  for (const workload of docs.filter((d) => ['Deployment', 'StatefulSet'].includes(d.kind))) {
    const labels = workload.spec.template.metadata.labels;
    for (const [key, value] of Object.entries(workload.spec.selector.matchLabels)) {
      expect(labels[key]).toBe(value);
    }
  }
  const pods = [
    ...docs
      .filter((d) => WORKLOADS.includes(d.kind))
      .map((d) =>
        d.kind === 'CronJob' ? d.spec.jobTemplate.spec.template.metadata.labels : d.spec.template.metadata.labels,
      ),
    ...findDocs(docs, 'VirtualMachine').map((vm) => vm.spec.template.metadata.labels),
  ];
  for (const service of findDocs(docs, 'Service')) {
    const matches = pods.filter((labels) => Object.entries(service.spec.selector).every(([k, v]) => labels[k] === v));
    expect(`${service.metadata.name}: ${matches.length}`).toBe(`${service.metadata.name}: 1`);
  }
});

test("every dependent has its wait, the VM's unit included", () => {
  const expected: Record<string, string[]> = {
    api: ['wait-for-redis', 'wait-for-shop-db', 'wait-for-migrate'],
    migrate: ['wait-for-shop-db'],
    web: ['wait-for-api'],
    worker: ['wait-for-redis', 'wait-for-shop-db', 'wait-for-migrate'],
  };
  for (const service of app.services) {
    const doc = docs.find((d) => WORKLOADS.includes(d.kind) && d.metadata.name === service.name)!;
    // The claims' init containers (copy-up of the worker's reports volume) are not waits.
    const waits = (podSpec(doc).initContainers ?? [])
      .map((c: any) => c.name)
      .filter((n: string) => !/-(copy-up|seed)$/.test(n));
    expect(waits).toEqual(expected[service.composeName] ?? []);
    expect(waits).toHaveLength(app.model.services.find((s) => s.name === service.composeName)!.dependsOn.length);
  }
  const unit = bundle
    .files()
    .find((f) => f.path === 'systemd/shop-vm.service')!
    .content.toString();
  expect(unit.split('\n').filter((l) => l.startsWith('ExecStartPre='))).toEqual([
    'ExecStartPre=/bin/bash /usr/local/lib/cdk8s-compose/shop-vm-load-secrets.sh',
    "ExecStartPre=/bin/bash -c 'for i in $$(seq 1 150); do (exec 3<>/dev/tcp/shop-db/5432) 2>/dev/null && exit 0; sleep 2; done; " +
      'echo "shop-db:5432 did not accept connections within 300 s" >&2; exit 1\'',
  ]);
});

/** The containers with limits: compose's own, and this library's helpers (waits, backups). */
const LIMITED_CONTAINERS: string[] = [
  'api/wait-for-redis: cpu,memory',
  'api/wait-for-shop-db: cpu,memory',
  'api/wait-for-migrate: cpu,memory',
  'api/api: cpu,memory',
  'migrate/wait-for-shop-db: cpu,memory',
  'redis-backup/backup: cpu,memory',
  'shop-db-backup/backup: cpu,memory',
  'web/wait-for-api: cpu,memory',
  'web/web: cpu,memory',
  'worker/wait-for-redis: cpu,memory',
  'worker/wait-for-shop-db: cpu,memory',
  'worker/wait-for-migrate: cpu,memory',
];

test('every container requests cpu and memory; limits only where compose sets them or on helpers; the VM has both', () => {
  const limited: string[] = [];
  for (const doc of docs.filter((d) => WORKLOADS.includes(d.kind))) {
    for (const container of [...(podSpec(doc).initContainers ?? []), ...podSpec(doc).containers]) {
      expect(`${doc.metadata.name}/${container.name}: ${Object.keys(container.resources.requests).sort()}`).toBe(
        `${doc.metadata.name}/${container.name}: cpu,memory`,
      );
      if (container.resources.limits !== undefined) {
        limited.push(`${doc.metadata.name}/${container.name}: ${Object.keys(container.resources.limits).sort()}`);
      }
    }
  }
  expect(limited).toEqual(LIMITED_CONTAINERS);
  // Without a limit on every container, the quota bounds requests only.
  expect(Object.keys(findDoc(docs, 'ResourceQuota', 'namespace-quota').spec.hard).sort()).toEqual([
    'persistentvolumeclaims',
    'requests.cpu',
    'requests.memory',
  ]);
  expect(findDoc(docs, 'VirtualMachine', 'shop-vm').spec.template.spec.domain.resources).toEqual({
    // Half a core per vCPU at least.
    requests: { cpu: '1000m', memory: '3Gi' },
    limits: { cpu: '2', memory: '3Gi' },
  });
});

test('a pod that mounts a ReadWriteOnce claim is on Recreate', () => {
  const rwo = new Set(
    findDocs(docs, 'PersistentVolumeClaim')
      .filter((c) => c.spec.accessModes.includes('ReadWriteOnce'))
      .map((c) => c.metadata.name),
  );
  const withClaims = findDocs(docs, 'Deployment').filter((d) =>
    (podSpec(d).volumes ?? []).some((v: any) => rwo.has(v.persistentVolumeClaim?.claimName)),
  );
  expect(withClaims.map((d) => d.metadata.name)).toEqual(['redis', 'shop-db', 'worker']);
  for (const deployment of withClaims) {
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  }
});

test('the findings of the migration are collected, not printed', () => {
  expect(app.warnings.map((w) => `${w.code} ${w.at.path}`)).toEqual([
    'vm-target services.reporting',
    'host-rewrite services.api.environment.DATABASE_URL',
    'host-rewrite services.api.environment.REDIS_URL',
    'local-only-port services.api.ports[1]',
    'host-rewrite services.migrate.environment.DATABASE_URL',
    // Said once the dependency exists, naming what it made.
    'engine-default services.redis',
    'engine-default services.shop_db',
    'host-rewrite services.worker.environment.DATABASE_URL',
    'host-rewrite services.worker.environment.REDIS_HOST',
    'copy-up services.worker.volumes[0]',
    'host-rewrite services.reporting.environment.DATABASE_URL',
    'vm-dependency-outside services.reporting.depends_on.shop_db',
    'vm-docker-socket services.reporting',
    'alias-service configs.api_config',
  ]);
});
