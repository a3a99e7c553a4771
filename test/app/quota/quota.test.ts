import { ApiObject, Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import {
  Container,
  IntOrString,
  KubeCronJob,
  KubeDeployment,
  KubeJob,
  KubePersistentVolumeClaim,
  KubePod,
  KubeStatefulSet,
  Quantity,
} from '../../../imports/k8s';
import { ServiceAutoscaler } from '../../../lib/app/service/autoscaler';
import { NamespaceQuota } from '../../../lib/app/quota/quota';
import { quotaDocument } from '../../../lib/app/quota/quota-figures';
import { COUNTED_KINDS, namespaceNeeds } from '../../../lib/app/quota/quota-needs';
import { WorkloadController } from '../../../lib/stateful/workload-controller';
import { synthApp } from '../app-fixture';
import { expectValidManifests } from '../../support/validate';

const NS = 'shop';

function resources(requests: Record<string, string> | undefined, limits: Record<string, string> | undefined) {
  const quantities = (r?: Record<string, string>) =>
    r ? Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Quantity.fromString(v)])) : undefined;
  return { requests: quantities(requests), limits: quantities(limits) };
}

function container(name: string, requests?: Record<string, string>, limits?: Record<string, string>): Container {
  return { name, image: 'busybox', resources: resources(requests, limits) };
}

function deployment(
  scope: Chart,
  name: string,
  options: {
    replicas?: number;
    strategy?: any;
    namespace?: string;
    containers: Container[];
    initContainers?: Container[];
  },
): KubeDeployment {
  return new KubeDeployment(scope, name, {
    metadata: { name, namespace: options.namespace ?? NS },
    spec: {
      replicas: options.replicas,
      strategy: options.strategy,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: options.containers, initContainers: options.initContainers },
      },
    },
  });
}

/** The app of the main scenario; see the expected numbers in the first test. */
function shop(chart: Chart): void {
  deployment(chart, 'web', {
    replicas: 2,
    containers: [
      container('web', { cpu: '250m', memory: '256Mi' }, { cpu: '500m', memory: '512Mi' }),
      container('proxy', { cpu: '100m', memory: '64Mi' }, { cpu: '200m', memory: '128Mi' }),
    ],
    initContainers: [container('wait-for-api', { cpu: '50m', memory: '32Mi' }, { cpu: '100m', memory: '64Mi' })],
  });
  deployment(chart, 'api', {
    strategy: { type: 'Recreate' },
    containers: [container('api', undefined, { cpu: '1', memory: '1Gi' })],
    initContainers: [container('migrate', { cpu: '2', memory: '2Gi' }, { cpu: '2', memory: '2Gi' })],
  });
  new ServiceAutoscaler(chart, 'ApiAutoscaler', {
    target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
    namespace: NS,
    minReplicas: 2,
    maxReplicas: 4,
  });
  new KubeStatefulSet(chart, 'db', {
    metadata: { name: 'db', namespace: NS },
    spec: {
      replicas: 1,
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db' } },
        spec: { containers: [container('db', { cpu: '500m', memory: '1Gi' }, { cpu: '500m', memory: '1Gi' })] },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: Quantity.fromString('1Gi') } } },
        },
      ],
    },
  });
  new KubeCronJob(chart, 'backup', {
    metadata: { name: 'backup', namespace: NS },
    spec: {
      schedule: '0 3 * * *',
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: 'OnFailure',
              containers: [container('backup', { cpu: '100m', memory: '128Mi' }, { cpu: '200m', memory: '256Mi' })],
            },
          },
        },
      },
    },
  });
  new KubeJob(chart, 'migrate', {
    metadata: { name: 'migrate', namespace: NS },
    spec: {
      parallelism: 2,
      completions: 1,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [container('migrate', { cpu: '100m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' })],
        },
      },
    },
  });
  for (const name of ['uploads', 'cache']) {
    new KubePersistentVolumeClaim(chart, name, {
      metadata: { name, namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: Quantity.fromString('1Gi') } } },
    });
  }
  // Another namespace: not counted.
  deployment(chart, 'elsewhere', {
    namespace: 'other',
    replicas: 50,
    containers: [container('x', { cpu: '8', memory: '64Gi' }, { cpu: '8', memory: '64Gi' })],
  });
}

function synth(chart: Chart): any[] {
  const manifests = Testing.synth(chart);
  expectValidManifests(manifests);
  return manifests;
}

function quotaDoc(manifests: any[], name = 'namespace-quota'): any {
  const found = manifests.filter((m) => m.kind === 'ResourceQuota' && m.metadata.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

describe('NamespaceQuota', () => {
  test('computes the peak need of the namespace plus 20% headroom, rounded to clean amounts', () => {
    // Peak pods: web 2 + 1 surge = 3; api Recreate at the autoscaler's max 4; db 1; backup 1; migrate min(2, 1) = 1.
    // Per pod: web 350m/320Mi requests, 700m/640Mi limits; api max(app, init) = 2 cores/2Gi both (its app container
    // requests its limits); db 500m/1Gi; backup 100m/128Mi requests, 200m/256Mi limits; migrate 100m/64Mi.
    // requests.cpu 1050 + 8000 + 500 + 100 + 100 = 9750m, +20% = 11700m → 12
    // requests.memory 960 + 8192 + 1024 + 128 + 64 = 10368Mi, +20% = 12441.6Mi → 12544Mi (a multiple of 256Mi)
    // limits.cpu 2100 + 8000 + 500 + 200 + 100 = 10900m, +20% = 13080m → 13500m
    // limits.memory 1920 + 8192 + 1024 + 256 + 64 = 11456Mi, +20% = 13747.2Mi → 13824Mi
    // claims: 2 PVCs + 1 volumeClaimTemplate × 1 replica = 3
    const chart = Testing.chart();
    shop(chart);
    new NamespaceQuota(chart, 'Quota', { namespace: NS });
    expect(quotaDoc(synth(chart))).toEqual({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'namespace-quota', namespace: NS },
      spec: {
        hard: {
          'requests.cpu': '12',
          'requests.memory': '12544Mi',
          'limits.cpu': '13500m',
          'limits.memory': '13824Mi',
          'persistentvolumeclaims': '3',
        },
      },
    });
  });

  test('reports the need per workload', () => {
    const chart = Testing.chart();
    shop(chart);
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS });
    const needs = quota.computeNeeds();
    expect(needs.workloads.map((w) => `${w.workload} ${w.pods}`)).toEqual([
      'CronJob/backup 1',
      'Deployment/api 4',
      'Deployment/web 3',
      'Job/migrate 1',
      'StatefulSet/db 1',
    ]);
    expect(needs.workloads.find((w) => w.workload === 'Deployment/api')!.perPod).toEqual({
      requestsCpuMillicores: 2000,
      requestsMemoryBytes: 2 * 1024 ** 3,
      limitsCpuMillicores: 2000,
      limitsMemoryBytes: 2 * 1024 ** 3,
    });
    expect(needs.requestsCpuMillicores).toBe(9750);
    expect(needs.persistentVolumeClaims).toBe(3);
    expect(needs.unlimited).toEqual({ cpu: [], memory: [] });
  });

  test('headroom 0 gives the need, rounded up to clean steps', () => {
    const chart = Testing.chart();
    shop(chart);
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS, headroomPercent: 0 });
    expect(quota.computeHard()).toEqual({
      'requests.cpu': '10',
      'requests.memory': '10496Mi',
      'limits.cpu': '11',
      'limits.memory': '11520Mi',
      'persistentvolumeclaims': '3',
    });
  });

  test('counts the rolling-update surge: 25% rounded up by default, or as given', () => {
    const chart = Testing.chart();
    deployment(chart, 'one', {
      replicas: 1,
      containers: [container('c', { cpu: '100m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' })],
    });
    deployment(chart, 'ten', {
      replicas: 10,
      containers: [container('c', { cpu: '100m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' })],
    });
    deployment(chart, 'fixed', {
      replicas: 3,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: IntOrString.fromNumber(2) } },
      containers: [container('c', { cpu: '100m', memory: '64Mi' }, { cpu: '100m', memory: '64Mi' })],
    });
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS });
    expect(quota.computeNeeds().workloads.map((w) => `${w.workload} ${w.pods}`)).toEqual([
      'Deployment/fixed 5',
      'Deployment/one 2',
      'Deployment/ten 13',
    ]);
  });

  test('counts a kplus Deployment under a ServiceAutoscaler at the autoscaler maximum', () => {
    const chart = new Chart(Testing.app(), 'test', { namespace: NS });
    const web = new kplus.Deployment(chart, 'Web', {
      metadata: { name: 'web' },
      replicas: 2,
      containers: [
        {
          image: 'nginx',
          securityContext: { ensureNonRoot: false },
          resources: {
            cpu: { request: kplus.Cpu.millis(200), limit: kplus.Cpu.millis(400) },
            memory: { request: Size.mebibytes(128), limit: Size.mebibytes(256) },
          },
        },
      ],
    });
    new ServiceAutoscaler(chart, 'WebAutoscaler', { target: web, maxReplicas: 6 });
    const quota = new NamespaceQuota(chart, 'Quota');
    const manifests = synth(chart);
    // 6 pods + 2 surge (25% of 6, rounded up) = 8; 8 × 200m = 1600m, +20% = 1920m → 2
    expect(quota.computeNeeds().workloads).toEqual([
      {
        workload: 'Deployment/web',
        pods: 8,
        perPod: {
          requestsCpuMillicores: 200,
          requestsMemoryBytes: 128 * 1024 ** 2,
          limitsCpuMillicores: 400,
          limitsMemoryBytes: 256 * 1024 ** 2,
        },
      },
    ]);
    expect(quotaDoc(manifests).spec.hard['requests.cpu']).toBe('2');
    expect(quotaDoc(manifests).metadata.namespace).toBe(NS);
  });

  test('counts objects of the namespace in other charts of the app', () => {
    const app = Testing.app();
    const a = new Chart(app, 'a', { namespace: NS });
    const b = new Chart(app, 'b', { namespace: NS });
    const c = new Chart(app, 'c', { namespace: 'other' });
    for (const chart of [b, c]) {
      new KubePod(chart, 'pod', {
        metadata: { name: 'solo' },
        spec: { containers: [container('c', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] },
      });
    }
    const quota = new NamespaceQuota(a, 'Quota', { headroomPercent: 0 });
    expect(quota.computeHard()['requests.cpu']).toBe('1');
    expect(quota.computeNeeds().workloads.map((w) => w.workload)).toEqual(['Pod/solo']);
  });

  test('uses explicit amounts as given and computes the rest', () => {
    const chart = Testing.chart();
    shop(chart);
    new NamespaceQuota(chart, 'Quota', {
      namespace: NS,
      name: 'shop-quota',
      hard: { limitsCpu: kplus.Cpu.millis(16000), limitsMemory: Size.gibibytes(16), persistentVolumeClaims: 10 },
    });
    expect(quotaDoc(synth(chart), 'shop-quota').spec.hard).toEqual({
      'requests.cpu': '12',
      'requests.memory': '12544Mi',
      'limits.cpu': '16',
      'limits.memory': '16Gi',
      'persistentvolumeclaims': '10',
    });
  });

  test('fails when the app does not fit an explicit amount, naming the key, the need and the allowance', () => {
    const chart = Testing.chart();
    shop(chart);
    new NamespaceQuota(chart, 'Quota', {
      namespace: NS,
      hard: { limitsCpu: kplus.Cpu.units(4), requestsMemory: Size.gibibytes(8), persistentVolumeClaims: 2 },
    });
    expect(() => Testing.synth(chart)).toThrow(
      'Validation failed with the following errors:\n' +
        '  [test/Quota] the app does not fit the quota: requests.memory needs 10368Mi at its peak ' +
        '(Deployment/api 4 × 2Gi, StatefulSet/db 1 × 1Gi, Deployment/web 3 × 320Mi), the quota allows 8Gi. ' +
        'Fix: raise requests.memory in the quota, or lower replicas, maxReplicas or the memory requests.\n' +
        '  [test/Quota] the app does not fit the quota: limits.cpu needs 10900m at its peak ' +
        '(Deployment/api 4 × 2, Deployment/web 3 × 700m, StatefulSet/db 1 × 500m), the quota allows 4. ' +
        'Fix: raise limits.cpu in the quota, or lower replicas, maxReplicas or the cpu limits.\n' +
        '  [test/Quota] the app does not fit the quota: persistentvolumeclaims needs 3, the quota allows 2. ' +
        'Fix: raise persistentVolumeClaims in the quota, or share volumes between services.',
    );
  });

  test('synthesizes when the app fits its explicit amounts exactly or with room', () => {
    // requests.memory needs 10368Mi, which fits 12Gi; limits.cpu needs exactly 10900m.
    const chart = Testing.chart();
    shop(chart);
    new NamespaceQuota(chart, 'Quota', {
      namespace: NS,
      hard: { requestsMemory: Size.gibibytes(12), limitsCpu: kplus.Cpu.millis(10900) },
    });
    expect(() => synth(chart)).not.toThrow();
  });

  test('bounds a limit only when every container has it: requests always, limits.cpu left out here', () => {
    const chart = Testing.chart();
    deployment(chart, 'web', {
      strategy: { type: 'Recreate' },
      containers: [container('web', { cpu: '100m', memory: '64Mi' }, { memory: '64Mi' })],
      initContainers: [container('wait', { cpu: '10m', memory: '16Mi' }, { cpu: '100m', memory: '32Mi' })],
    });
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS, headroomPercent: 0 });
    expect(quota.computeNeeds().unlimited).toEqual({ cpu: ['Deployment/web: container "web"'], memory: [] });
    expect(quotaDoc(synth(chart)).spec.hard).toEqual({
      'requests.cpu': '100m',
      'requests.memory': '64Mi',
      'limits.memory': '64Mi',
      'persistentvolumeclaims': '0',
    });
  });

  test('without any limit, the quota bounds requests and claims only', () => {
    const chart = Testing.chart();
    deployment(chart, 'web', {
      strategy: { type: 'Recreate' },
      containers: [container('web', { cpu: '250m', memory: '256Mi' }, undefined)],
    });
    new NamespaceQuota(chart, 'Quota', { namespace: NS, headroomPercent: 0 });
    expect(Object.keys(quotaDoc(synth(chart)).spec.hard)).toEqual([
      'persistentvolumeclaims',
      'requests.cpu',
      'requests.memory',
    ]);
  });

  test('fails for containers without a limit the quota is given, init containers included', () => {
    const chart = Testing.chart();
    deployment(chart, 'web', {
      containers: [container('web', { cpu: '100m', memory: '64Mi' }, { memory: '64Mi' })],
      initContainers: [container('wait', undefined, undefined)],
    });
    new NamespaceQuota(chart, 'Quota', { namespace: NS, hard: { limitsCpu: kplus.Cpu.units(2) } });
    expect(() => Testing.synth(chart)).toThrow(
      'Validation failed with the following errors:\n' +
        '  [test/Quota] Deployment/web: container "wait" has no cpu limit; the ResourceQuota bounds limits.cpu, so it rejects the pod. ' +
        'Fix: set a cpu limit on every container, init containers included, or leave limits.cpu out of the quota.\n' +
        '  [test/Quota] Deployment/web: container "web" has no cpu limit; the ResourceQuota bounds limits.cpu, so it rejects the pod. ' +
        'Fix: set a cpu limit on every container, init containers included, or leave limits.cpu out of the quota.',
    );
  });

  test('fails when two quotas cover one namespace', () => {
    const chart = Testing.chart();
    new NamespaceQuota(chart, 'A', { namespace: NS });
    new NamespaceQuota(chart, 'B', { namespace: NS, name: 'second' });
    new NamespaceQuota(chart, 'C', { namespace: 'other' });
    expect(() => Testing.synth(chart)).toThrow(
      'Validation failed with the following errors:\n' +
        '  [test/A] 2 NamespaceQuotas cover namespace "shop" (got "test/A, test/B"). Allowed: one NamespaceQuota per namespace. Fix: remove all but one.',
    );
  });

  test('counts claims of StatefulSets at peak replicas, DataVolumes and VM dataVolumeTemplates', () => {
    const chart = Testing.chart();
    new KubeStatefulSet(chart, 'db', {
      metadata: { name: 'db', namespace: NS },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [container('db', { cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] },
        },
        volumeClaimTemplates: ['data', 'wal'].map((name) => ({
          metadata: { name },
          spec: { accessModes: ['ReadWriteOnce'] },
        })),
      },
    });
    new ApiObject(chart, 'dv', {
      apiVersion: 'cdi.kubevirt.io/v1beta1',
      kind: 'DataVolume',
      metadata: { name: 'disk', namespace: NS },
    });
    new ApiObject(chart, 'vm', {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: { name: 'vm', namespace: NS },
      spec: { dataVolumeTemplates: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] },
    });
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS });
    expect(quota.computeNeeds().persistentVolumeClaims).toBe(3 * 2 + 1 + 2);
  });

  test('an empty namespace gets a quota of zero', () => {
    const chart = Testing.chart();
    new NamespaceQuota(chart, 'Quota', { namespace: NS });
    expect(quotaDoc(synth(chart)).spec.hard).toEqual({
      'requests.cpu': '0',
      'requests.memory': '0',
      'limits.cpu': '0',
      'limits.memory': '0',
      'persistentvolumeclaims': '0',
    });
  });

  test.each<[string, any, string]>([
    [
      'a negative headroom',
      { headroomPercent: -5 },
      'test/Quota: invalid headroomPercent (got -5). Allowed: a percentage, 0 or more.',
    ],
    [
      'a fractional claim count',
      { hard: { persistentVolumeClaims: 1.5 } },
      'test/Quota: invalid quota persistentvolumeclaims (got 1.5). Allowed: a whole number of claims, 0 or more.',
    ],
    [
      'a bad cpu amount',
      { hard: { requestsCpu: kplus.Cpu.units(-1) } },
      'test/Quota: invalid cpu quantity (got "-1").',
    ],
    ['no nodes', { nodeCount: 0 }, 'test/Quota: invalid nodeCount (got 0). Allowed: a whole number, 1 or more.'],
  ])('throws for %s', (_what, props, message) => {
    expect(() => new NamespaceQuota(Testing.chart(), 'Quota', props)).toThrow(message);
  });
});

describe('the quota is computed for each synthesis', () => {
  test('a workload added between two syntheses is counted in the second, and rendering alone counts it too', () => {
    const chart = new Chart(Testing.app(), 'test');
    const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS, headroomPercent: 0 });
    deployment(chart, 'one', {
      replicas: 1,
      strategy: { type: 'Recreate' },
      containers: [container('c', undefined, { cpu: '1', memory: '1Gi' })],
    });
    const hard = () => Testing.synth(chart).find((d) => d.kind === 'ResourceQuota')!.spec.hard;
    expect(hard()).toMatchObject({ 'limits.cpu': '1', 'limits.memory': '1Gi' });
    deployment(chart, 'two', {
      replicas: 1,
      strategy: { type: 'Recreate' },
      containers: [container('c', undefined, { cpu: '1', memory: '1Gi' })],
    });
    expect(hard()).toMatchObject({ 'limits.cpu': '2', 'limits.memory': '2Gi' });
    // Without a validation first (a bare toJson), the amounts are computed on the spot.
    expect(quota.resourceQuota.toJson().spec.hard).toMatchObject({ 'limits.cpu': '2', 'limits.memory': '2Gi' });
  });
});

test('what a validation alone computed does not outlive it', async () => {
  const chart = new Chart(Testing.app(), 'test');
  const quota = new NamespaceQuota(chart, 'Quota', { namespace: NS, headroomPercent: 0 });
  deployment(chart, 'one', {
    replicas: 1,
    strategy: { type: 'Recreate' },
    containers: [container('c', undefined, { cpu: '1', memory: '1Gi' })],
  });
  expect(quota.node.validate()).toEqual([]);
  await Promise.resolve();
  deployment(chart, 'two', {
    replicas: 1,
    strategy: { type: 'Recreate' },
    containers: [container('c', undefined, { cpu: '1', memory: '1Gi' })],
  });
  expect(quota.resourceQuota.toJson().spec.hard).toMatchObject({ 'limits.cpu': '2', 'limits.memory': '2Gi' });
});

describe("the quota reads the workloads' own figures", () => {
  // Exact (not whole-MiB) sizes, a sidecar, hooks, waits, a database, a cron job, a one-shot job, an autoscaler,
  // replicas and a rolling update's surge: every path the figures take.
  const compose = `
services:
  web:
    image: nginx:1.27
    ports: ['8080:80']
    mem_limit: 10000000
    mem_reservation: 5000000
    cpus: 0.5
    deploy: { replicas: 3 }
    depends_on: { db: { condition: service_healthy }, migrate: { condition: service_completed_successfully } }
    pre_start: [{ command: ['sh', '-c', 'true'] }]
  proxy:
    image: envoyproxy/envoy:v1.31.0
    network_mode: service:web
    deploy: { resources: { limits: { memory: 100M, cpus: '0.25' } } }
  api:
    image: example/api:1.0
    labels: { kompose.hpa.replicas.max: '5', kompose.hpa.cpu: '60' }
    deploy: { resources: { limits: { memory: 1G }, reservations: { memory: 500M, cpus: '0.1' } } }
  report:
    image: example/report:1.0
    labels: { kompose.cronjob.schedule: '0 3 * * *' }
  migrate:
    image: example/migrate:1.0
    restart: 'no'
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: example }
    volumes: [data:/var/lib/postgresql/data]
volumes:
  data: {}
`;

  test('each counted object reads the same from its figures as from its manifest', () => {
    const { app, chart } = synthApp(compose, { controller: WorkloadController.STATEFUL_SET });
    const counted = chart.node
      .findAll()
      .filter((c): c is ApiObject => ApiObject.isApiObject(c) && COUNTED_KINDS.has(c.kind));
    expect(new Set(counted.map((o) => o.kind))).toEqual(
      new Set(['Deployment', 'StatefulSet', 'CronJob', 'Job', 'HorizontalPodAutoscaler', 'PersistentVolumeClaim']),
    );
    const rendered = counted.map((o) => o.toJson());
    const figures = counted.map(quotaDocument);
    // The figures are not renderings (a rendered workload carries its labels; the figures only what the quota reads).
    expect(figures.filter((doc, i) => doc.spec !== undefined && doc.spec === rendered[i].spec)).toEqual([]);
    expect(namespaceNeeds(figures, 3)).toEqual(namespaceNeeds(rendered, 3));
    counted.forEach((_object, i) => {
      expect(namespaceNeeds([figures[i]], 3)).toEqual(namespaceNeeds([rendered[i]], 3));
    });
    expect(app.quota!.computeNeeds()).toEqual(namespaceNeeds(rendered, 3));
    // The exact sizes reach the figures: 10000000 bytes, not the 10Mi cdk8s-plus writes before the patch.
    const web = app.service('web').workload;
    expect(namespaceNeeds([quotaDocument(ApiObject.of(web))], 3).workloads[0].perPod.limitsMemoryBytes).toBe(
      10000000 + 100 * 1024 ** 2,
    );
  });
});

describe('no limit compose did not set', () => {
  const compose = `
services:
  web:
    image: nginx:1.27
    ports: ['8080:80']
  kafka:
    image: example/kafka:3.7
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: example }
    volumes: [data:/var/lib/postgresql/data]
  limited:
    image: example/api:1.0
    deploy: { resources: { limits: { memory: 1G, cpus: '0.5' } } }
volumes:
  data: {}
`;
  const workload = (docs: any[], name: string) =>
    docs.find((d) => ['Deployment', 'StatefulSet'].includes(d.kind) && d.metadata.name === name)!;
  const mainResources = (docs: any[], name: string) => workload(docs, name).spec.template.spec.containers[0].resources;

  test('a service without compose limits gets requests and no limits; one with limits keeps them', () => {
    const { docs } = synthApp(compose);
    for (const name of ['web', 'kafka', 'db']) {
      expect(mainResources(docs, name)).toEqual({ requests: { cpu: '100m', memory: '128Mi' } });
    }
    expect(mainResources(docs, 'limited')).toEqual({
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '500m', memory: '1024Mi' },
    });
  });

  test('the quota then bounds requests and claims, and no limits.* key', () => {
    const { docs } = synthApp(compose);
    const hard = quotaDoc(docs).spec.hard;
    expect(Object.keys(hard).filter((k) => k.startsWith('limits.'))).toEqual([]);
    expect(Object.keys(hard).sort()).toEqual(['persistentvolumeclaims', 'requests.cpu', 'requests.memory']);
  });

  test('defaultLimits brings the default limits back, and the quota bounds them', () => {
    const { docs } = synthApp(compose, { defaultLimits: true });
    for (const name of ['web', 'kafka', 'db']) {
      expect(mainResources(docs, name)).toEqual({
        requests: { cpu: '100m', memory: '128Mi' },
        limits: { cpu: '1', memory: '512Mi' },
      });
    }
    expect(mainResources(docs, 'limited').limits).toEqual({ cpu: '500m', memory: '1024Mi' });
    expect(Object.keys(quotaDoc(docs).spec.hard).sort()).toEqual([
      'limits.cpu',
      'limits.memory',
      'persistentvolumeclaims',
      'requests.cpu',
      'requests.memory',
    ]);
  });

  test('a limit named in defaultResources applies to every container compose gives none', () => {
    const { docs } = synthApp(compose, { defaultResources: { memoryLimit: Size.gibibytes(2) } });
    expect(mainResources(docs, 'web')).toEqual({
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { memory: '2048Mi' },
    });
    expect(Object.keys(quotaDoc(docs).spec.hard)).not.toContain('limits.cpu');
  });
});
