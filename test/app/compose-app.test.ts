import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Cron, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../lib/app/compose-app';
import { WorkloadKind } from '../../lib/app/service/migrated-service';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { WorkloadController } from '../../lib/stateful/stateful-dependency';
import { expectManifestsPass } from '../support/checks';
import { findDoc, findDocs } from '../support/yaml-docs';
import { mainContainer, modelOf, podSpec, secretData, synthApp } from './app-fixture';

describe('stateful dependencies', () => {
  const { app, docs } = synthApp(
    `
services:
  db:
    image: postgres:16.4
    environment: { POSTGRES_USER: shop, POSTGRES_PASSWORD: stateful-pass-3 }
    volumes: [pgdata:/var/lib/postgresql/data]
  cache:
    image: redis:7.4
  search:
    image: example/search:1
    volumes: [idx:/index]
volumes: { pgdata: {}, idx: {} }
`,
    { services: { search: { engine: DatabaseEngine.generic({ name: 'search', port: 7700, dataPath: '/index' }) } } },
  );

  test('databases and caches are detected from the image and run by a StatefulDependency', () => {
    expect(app.service('db').kind).toBe(WorkloadKind.STATEFUL);
    expect(app.service('cache').statefulDependency?.engine).toBe(DatabaseEngine.REDIS);
    expect(app.service('search').statefulDependency?.port).toBe(7700);
  });

  test('one replica, Recreate, the compose volume at the data path with PGDATA in a subdirectory', () => {
    const deployment = findDoc(docs, 'Deployment', 'db');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    const container = mainContainer(deployment);
    expect(container.env).toContainEqual({ name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' });
    expect(container.volumeMounts).toContainEqual({ mountPath: '/var/lib/postgresql/data', name: 'data' });
    expect(podSpec(deployment).volumes).toContainEqual({
      name: 'data',
      persistentVolumeClaim: { claimName: 'pgdata', readOnly: false },
    });
    expect(container.readinessProbe.exec.command).toEqual([
      'sh',
      '-c',
      'pg_isready -h 127.0.0.1 -p 5432 -U "${POSTGRES_USER:-postgres}"',
    ]);
  });

  test("a volume above the data path (postgres 18: pgdata:/var/lib/postgresql) is the data claim, mounted there, PGDATA the image's", () => {
    const pg18 = synthApp(`
services:
  db:
    image: postgres:18
    environment: { POSTGRES_PASSWORD: stateful-pass-18 }
    volumes: [pgdata:/var/lib/postgresql]
volumes: { pgdata: {} }
`);
    const deployment = findDoc(pg18.docs, 'Deployment', 'db');
    const container = mainContainer(deployment);
    // The image's PGDATA (/var/lib/postgresql/18/docker) is a folder of the compose volume: data moved from it is used.
    expect(container.env.map((e: any) => e.name)).not.toContain('PGDATA');
    expect(container.volumeMounts).toEqual([{ mountPath: '/var/lib/postgresql', name: 'data' }]);
    expect(podSpec(deployment).volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'pgdata', readOnly: false } },
    ]);
    expect(podSpec(deployment).initContainers).toBeUndefined();
    expect(
      findDocs(pg18.docs, 'PersistentVolumeClaim')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['db-backup', 'pgdata']);
    expect(pg18.app.warnings.find((w) => w.code === 'engine-default')?.message).toContain(
      'its data on the claim of its compose volume',
    );
  });

  test('a database whose data compose keeps in a volume gets a daily backup CronJob and its claim', () => {
    expect(findDoc(docs, 'CronJob', 'db-backup').spec.schedule).toBe('0 3 * * *');
    expect(findDoc(docs, 'PersistentVolumeClaim', 'db-backup').spec.resources.requests.storage).toBe('10Gi');
  });

  test('a cache without a compose volume keeps its data in the pod, as compose does: no claim, no backup', () => {
    expect(findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.name)).not.toContain('cache-data');
    expect(findDoc(docs, 'Deployment', 'cache').spec.template.spec.volumes).toContainEqual({
      name: 'data',
      emptyDir: {},
    });
    expect(app.service('cache').statefulDependency?.backup).toBeUndefined();
    expect(findDocs(docs, 'PersistentVolumeClaim').map((d) => d.metadata.name)).not.toContain('cache-backup');
  });

  test('a generic engine without a dump command gets no backup', () => {
    expect(findDocs(docs, 'CronJob').map((d) => d.metadata.name)).toEqual(['db-backup']);
  });

  test("backup: true backs up every stateful dependency, false none; a service's own setting wins", () => {
    const compose = `
services:
  db: { image: postgres:16.4, environment: { POSTGRES_PASSWORD: backup-pass-1 }, volumes: [pgdata:/var/lib/postgresql/data] }
  cache: { image: redis:7.4 }
  legacy: { image: mysql:8.4, environment: { MYSQL_ROOT_PASSWORD: backup-pass-2 }, volumes: [./mysql:/var/lib/mysql] }
volumes: { pgdata: {} }
`;
    const cronJobs = (props: Parameters<typeof synthApp>[1]) =>
      findDocs(synthApp(compose, props).docs, 'CronJob').map((d) => d.metadata.name);
    // A bind mount at the data path keeps data too (the claim replaces it, and a backup is how the data comes back).
    expect(cronJobs({})).toEqual(['db-backup', 'legacy-backup']);
    // Asking for backups asks for the claim a volume-less cache otherwise does without.
    expect(cronJobs({ backup: true })).toEqual(['cache-backup', 'db-backup', 'legacy-backup']);
    expect(cronJobs({ backup: { schedule: Cron.schedule({ minute: '0', hour: '1' }) } })).toEqual([
      'cache-backup',
      'db-backup',
      'legacy-backup',
    ]);
    expect(cronJobs({ backup: false })).toEqual([]);
    expect(cronJobs({ backup: false, services: { cache: { backup: true } } })).toEqual(['cache-backup']);
  });

  test('the credentials Secret holds the password and the connection string only', () => {
    expect(secretData(findDoc(docs, 'Secret', 'db-credentials'))).toEqual({
      password: 'stateful-pass-3',
      uri: 'postgresql://shop:stateful-pass-3@db:5432/shop',
    });
    expectManifestsPass(docs);
  });

  test('the controller option makes a StatefulSet', () => {
    const { docs: sts } = synthApp(
      'services: { db: { image: mysql:8.0, environment: { MYSQL_ROOT_PASSWORD: sts-pass-4 } } }',
      { controller: WorkloadController.STATEFUL_SET },
    );
    expect(findDoc(sts, 'StatefulSet', 'db').spec.serviceName).toBe('db');
    expect(findDoc(sts, 'Service', 'db').spec.selector).toEqual({ app: 'db' });
    expectManifestsPass(sts);
  });

  test('engine: false keeps a database image a plain Deployment', () => {
    const { app: plain } = synthApp('services: { db: { image: postgres:16 } }', {
      services: { db: { engine: false } },
    });
    expect(plain.service('db').kind).toBe(WorkloadKind.DEPLOYMENT);
  });
});

describe('autoscaling, network policies and quota', () => {
  const { docs } = synthApp(`
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    networks: [front]
    labels: { kompose.hpa.replicas.min: "2", kompose.hpa.replicas.max: "6", kompose.hpa.cpu: "60" }
  db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: quota-pass-5 }
    volumes: [db-data:/var/lib/postgresql/data]
    networks: [back]
networks: { front: {}, back: { internal: true } }
volumes: { db-data: {} }
`);

  test('kompose.hpa labels give an autoscaling/v2 HPA', () => {
    expect(findDoc(docs, 'HorizontalPodAutoscaler', 'web').spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      ],
    });
  });

  test('network policies: default deny, and pods labelled with their networks', () => {
    expect(findDoc(docs, 'NetworkPolicy', 'default-deny').spec).toEqual({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    });
    expect(findDoc(docs, 'Deployment', 'web').spec.template.metadata.labels).toEqual({
      'app': 'web',
      'network.cdk8s-compose.io/front': 'true',
    });
    expect(findDoc(docs, 'CronJob', 'db-backup').spec.jobTemplate.spec.template.metadata.labels).toEqual({
      'app': 'db-backup',
      'network.cdk8s-compose.io/back': 'true',
    });
    expect(findDoc(docs, 'NetworkPolicy', 'allow-db-backup')).toBeDefined();
  });

  test('one ResourceQuota computed from the app: requests and claims, no limits compose did not set', () => {
    expect(Object.keys(findDoc(docs, 'ResourceQuota', 'namespace-quota').spec.hard).sort()).toEqual([
      'persistentvolumeclaims',
      'requests.cpu',
      'requests.memory',
    ]);
    expectManifestsPass(docs);
  });

  test('a quota too small fails validation', () => {
    const chart = new Chart(Testing.app(), 'test');
    new ComposeApp(chart, 'app', {
      model: modelOf('services: { web: { image: nginx:1.27, deploy: { resources: { limits: { cpus: "2" } } } } }'),
      quota: { hard: { limitsCpu: kplus.Cpu.millis(500) } },
    });
    expect(() => Testing.synth(chart)).toThrow(
      '[test/app/Quota] the app does not fit the quota: limits.cpu needs 4 at its peak ' +
        '(Deployment/web 2 × 2), the quota allows 500m. Fix: raise limits.cpu in the quota, or lower replicas, maxReplicas or the cpu limits.',
    );
  });
});

describe('options for the opinionated parts', () => {
  const compose = `
services:
  web: { image: nginx:1.27, ports: ["8080:80"], volumes: [static:/usr/share/nginx/html] }
  db: { image: postgres:16.4, environment: { POSTGRES_PASSWORD: options-pass-1 }, volumes: [pgdata:/var/lib/postgresql/data] }
volumes: { static: {}, pgdata: {} }
`;
  const ingressFrom = (docs: any[]) =>
    findDoc(docs, 'NetworkPolicy', 'allow-web').spec.ingress.find((rule: any) =>
      rule.from?.some((peer: any) => peer.namespaceSelector),
    )?.from;

  test("by default: NetworkPolicies, Ingress traffic from the ingress-nginx namespace, class nginx, the cluster's storage class, a quota", () => {
    const { app, docs } = synthApp(compose);
    expect(ingressFrom(docs)).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ]);
    expect(findDoc(docs, 'Ingress', 'web').spec.ingressClassName).toBe('nginx');
    expect(findDocs(docs, 'PersistentVolumeClaim').map((d) => d.spec.storageClassName)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(app.networkPolicies).toBeDefined();
    expect(app.quota).toBeDefined();
    expect(findDocs(docs, 'ResourceQuota')).toHaveLength(1);
  });

  test('ingressControllerNamespace and ingressControllerPodLabels set who may reach the Ingress ports', () => {
    const { docs } = synthApp(compose, {
      ingressControllerNamespace: 'traefik',
      ingressControllerPodLabels: { 'app.kubernetes.io/name': 'traefik' },
    });
    expect(ingressFrom(docs)).toEqual([
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'traefik' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'traefik' } },
      },
    ]);
  });

  test('ingressClassName and storageClassName reach every Ingress and claim', () => {
    const { docs } = synthApp(compose, { ingressClassName: 'traefik', storageClassName: 'fast-ssd' });
    expect(findDoc(docs, 'Ingress', 'web').spec.ingressClassName).toBe('traefik');
    expect(
      findDocs(docs, 'PersistentVolumeClaim').map((d) => `${d.metadata.name}: ${d.spec.storageClassName}`),
    ).toEqual(['pgdata: fast-ssd', 'static: fast-ssd', 'db-backup: fast-ssd']);
  });

  test('networkPolicies: false and quota: false leave them out; true is the default', () => {
    const { app, docs } = synthApp(compose, { networkPolicies: false, quota: false });
    expect(findDocs(docs, 'NetworkPolicy')).toEqual([]);
    expect(findDocs(docs, 'ResourceQuota')).toEqual([]);
    expect(app.networkPolicies).toBeUndefined();
    expect(app.quota).toBeUndefined();
    const defaults = synthApp(compose).docs;
    expect(synthApp(compose, { networkPolicies: true, quota: true }).docs).toEqual(defaults);
  });

  test('a quota given with hard amounts', () => {
    const { docs } = synthApp(compose, {
      defaultLimits: true,
      quota: { hard: { limitsMemory: Size.gibibytes(16), persistentVolumeClaims: 10 } },
    });
    expect(findDoc(docs, 'ResourceQuota', 'namespace-quota').spec.hard).toMatchObject({
      'limits.memory': '16Gi',
      'persistentvolumeclaims': '10',
    });
  });

  test('throws for an ingress controller namespace or pod label Kubernetes would refuse', () => {
    expect(() => synthApp(compose, { ingressControllerNamespace: 'Ingress_Nginx' })).toThrow(
      'ingressControllerNamespace is not a namespace name',
    );
    expect(() => synthApp(compose, { ingressControllerPodLabels: { app: 'has space' } })).toThrow(
      'ingressControllerPodLabels has a label Kubernetes does not accept',
    );
  });
});

describe('warnings for library users', () => {
  test('ComposeApp.warningsOf(app) gives the grouped lines the CLI prints, from the construct metadata', () => {
    const app = Testing.app();
    const composeApp = new ComposeApp(new Chart(app, 'test'), 'app', {
      model: modelOf(`
x-common: &common
  image: example/worker:1
  volumes: [/srv/shared:/shared]
services:
  api: *common
  worker: *common
  web: { image: nginx:1.27, volumes: [/srv/site:/usr/share/nginx/html] }
`),
    });
    const lines = ComposeApp.warningsOf(app);
    expect(composeApp.warnings.filter((w) => w.code === 'host-path')).toHaveLength(3);
    expect(lines.filter((l) => l.includes('/srv/shared'))).toEqual([
      'compose.yaml:4:13: services.*.volumes[0] (api, worker): bind mount of the host path "/srv/shared" is not migrated: a pod does not ' +
        "see its node's files. Run this service on a VM (GoldenImageVm) if it needs the host",
    ]);
    expect(lines.filter((l) => l.includes('/srv/site'))).toEqual([
      expect.stringMatching(/^compose\.yaml:\d+:\d+: services\.web\.volumes\[0\]: /),
    ]);
    expect(composeApp.node.metadata.filter((m) => m.type === 'cdk8s-compose:warning').map((m) => m.data)).toEqual(
      lines,
    );
  });
});

describe('pods that start', () => {
  test('FOO: "" and an unset ${X} are plain empty values, never a reference to a ConfigMap key that is not there', () => {
    const { docs } = synthApp(
      'services: { app: { image: a:1, environment: { FOO: "", BAR: "${UNSET_X}", LEVEL: info } } }',
    );
    const app = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'app')!;
    expect(app.spec.template.spec.containers[0].env).toEqual([
      { name: 'BAR', value: '' },
      { name: 'FOO', value: '' },
      { name: 'LEVEL', valueFrom: { configMapKeyRef: { key: 'LEVEL', name: 'app-env' } } },
    ]);
    expect(docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'app-env')!.data).toEqual({ LEVEL: 'info' });
  });

  test('redis with replicas: 6 and a custom command runs as a Deployment with 6 replicas and that command, reported', () => {
    const { app, docs } = synthApp(`
services:
  cache:
    image: redis:7.4
    command: ["redis-server", "--port", "6380", "--cluster-enabled", "yes"]
    expose: ["6380"]
    deploy: { replicas: 6 }
`);
    const cache = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'cache')!;
    expect(cache.spec.replicas).toBe(6);
    expect(cache.spec.template.spec.containers[0].args).toEqual([
      'redis-server',
      '--port',
      '6380',
      '--cluster-enabled',
      'yes',
    ]);
    expect(app.service('cache').kind).toBe('Deployment');
    expect(app.warnings.filter((w) => w.code === 'engine-default').map((w) => w.message)).toEqual([
      'image "redis:7.4" looks like redis, but the service asks for 6 replicas, so it runs as a Deployment with them (a ' +
        'stateful dependency has one pod); set x-cdk8s-compose.engine to run it as one',
    ]);
  });

  test("network_mode: service:vpn puts the service into vpn's pod as a second container, its ports on vpn's Service", () => {
    const { app, docs } = synthApp(`
services:
  vpn:
    image: registry.example.com/vpn:1.0
    expose: ["1194"]
  torrent:
    image: registry.example.com/torrent:1.0
    network_mode: "service:vpn"
    ports: ["9091:9091"]
    environment: { LEVEL: debug }
`);
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).toEqual(['vpn']);
    const pod = podSpec(findDoc(docs, 'Deployment', 'vpn'));
    expect(pod.containers.map((c: any) => [c.name, (c.ports ?? []).map((p: any) => p.containerPort)])).toEqual([
      ['vpn', [1194]],
      ['torrent', [9091]],
    ]);
    expect(findDoc(docs, 'Service', 'vpn').spec.ports.map((p: any) => p.port)).toEqual([1194, 9091]);
    expect(findDoc(docs, 'Service', 'torrent-external').spec.selector).toEqual({ app: 'vpn' });
    expect(app.service('torrent').kind).toBe(WorkloadKind.SIDECAR);
    expect(app.service('torrent').sidecarOf).toBe('vpn');
    expect(app.warnings.filter((w) => w.code === 'shared-pod').map((w) => w.message)).toEqual([
      'runs as a second container in the pod of "vpn" (network_mode "service:vpn"): they reach each other on localhost, and its ports are on the Service "vpn"',
    ]);
    expect(app.verify().broken).toBe(0);
  });
});

test("a sidecar of a database: the references that reach the pod on the sidecar's port leave the engine its own port", () => {
  const { app, docs } = synthApp(`
services:
  db:
    image: postgres:16
    volumes: [data:/var/lib/postgresql/data]
  exporter:
    image: registry.example.com/pg-exporter:1.0
    network_mode: "service:db"
    expose: ["9187"]
  app:
    image: registry.example.com/app:1.0
    environment: { METRICS: "http://db:9187/metrics" }
volumes: { data: {} }
`);
  expect(podSpec(findDoc(docs, 'Deployment', 'db')).containers.map((c: any) => [c.name, c.ports])).toEqual([
    ['db', [{ containerPort: 5432, name: 'tcp-5432' }]],
    ['exporter', [{ containerPort: 9187, name: 'tcp-9187' }]],
  ]);
  expect(findDoc(docs, 'Service', 'db').spec.ports.map((p: any) => p.port)).toEqual([5432, 9187]);
  expect(app.verify().broken).toBe(0);
});

describe('images built from source', () => {
  test('registry: the build-only services of composeFile run HOST[/PATH]/<project>-<service>', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'registry-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'compose.yaml'),
        'name: shop\nservices:\n  api:\n    build: ./api\n    ports: ["8080:8080"]\n',
      );
      const chart = new Chart(Testing.app(), 'test');
      const app = new ComposeApp(chart, 'app', {
        composeFile: 'compose.yaml',
        loadOptions: { workingDir: dir, env: {} },
        registry: 'registry.example.com/team',
      });
      expect(mainContainer(findDoc(Testing.synth(chart), 'Deployment', 'api')).image).toBe(
        'registry.example.com/team/shop-api',
      );
      expect(app.warnings.map((w) => w.code)).toContain('build-image');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('registry with a model is refused: the model was loaded already', () => {
    expect(
      () =>
        new ComposeApp(new Chart(Testing.app(), 'test'), 'app', {
          model: modelOf('services:\n  a:\n    build: .\n'),
          registry: 'r.example.com',
        }),
    ).toThrow(
      'test/app: registry applies when the app loads composeFile (got "r.example.com"). Fix: pass registry to loadCompose, which made the model.',
    );
  });
});
