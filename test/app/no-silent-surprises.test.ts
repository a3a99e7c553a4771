import { ApiObject, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { StatefulDependency } from '../../lib/stateful/stateful-dependency';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { modelOf, secretData, synthApp } from './app-fixture';

// Issue 28's silent cases: each one now works, warns naming the prop or flag, or fails at synth with the fix.

const warningsOf = (app: ComposeApp) => ComposeApp.warningsOf(app).join('\n');
const find = (docs: any[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

describe('ingressHost on a service without an HTTP port', () => {
  const API = `
services:
  api:
    image: example/api:1
    ports: ["5000:5000"]
`;

  test('warns that no Ingress uses the host, naming the http prop that makes one', () => {
    const { app, docs } = synthApp(API, { services: { api: { ingressHost: 'api.example.org' } } });
    expect(docs.filter((d) => d.kind === 'Ingress')).toEqual([]);
    expect(warningsOf(app)).toContain(
      'services["api"].ingressHost (--ingress-host api=HOST) names the host "api.example.org", but service "api" gets ' +
        'no Ingress: none of its published ports is its HTTP port (5000/tcp → LoadBalancer; HTTP ports are 80, 8080). ' +
        'Declare its HTTP port with services["api"].http: { port: 5000 } (x-cdk8s-compose.http.port), or expose: ' +
        'Exposure.INGRESS; or drop the host',
    );
  });

  test('with the HTTP port declared, the host gets its Ingress and nothing is said', () => {
    const { app, docs } = synthApp(API, {
      services: {
        api: { ingressHost: 'api.example.org', http: { port: 5000, livenessPath: '/', readinessPath: '/' } },
      },
    });
    expect(find(docs, 'Ingress', 'api').spec.rules[0].host).toBe('api.example.org');
    expect(warningsOf(app)).not.toContain('ingress-host');
    expect(warningsOf(app)).not.toContain('gets no Ingress');
  });
});

describe('http: true', () => {
  const WEB = `
services:
  web:
    image: example/web:1
    ports: ["8080:8080"]
`;

  test('warns that /health and /ready are made up, naming the props for the real paths', () => {
    const { app } = synthApp(WEB, { services: { web: { http: true } } });
    expect(warningsOf(app)).toContain(
      'service "web" is declared HTTP, so it gets a liveness probe GET /health (a pod that answers it with an error is ' +
        'restarted) and a readiness probe GET /ready (a pod that does not answer it gets no traffic) on port 8080, ' +
        'paths that compose never named: set the real ones with services["web"].http.livenessPath and ' +
        'services["web"].http.readinessPath (or x-cdk8s-compose.http.livenessPath/readinessPath)',
    );
  });

  test('names only the path not given, and nothing when both are', () => {
    const one = synthApp(WEB, { services: { web: { http: { livenessPath: '/livez' } } } });
    expect(warningsOf(one.app)).toContain('set the real ones with services["web"].http.readinessPath (or');
    const both = synthApp(WEB, { services: { web: { http: { livenessPath: '/livez', readinessPath: '/readyz' } } } });
    expect(warningsOf(both.app)).not.toContain('declared HTTP');
  });
});

describe('a password from an unset variable', () => {
  test('StatefulDependency fails at once, saying why and how to fix it', () => {
    const chart = new Chart(Testing.app(), 'test');
    const unset: string | undefined = process.env.CDK8S_COMPOSE_TEST_SURELY_UNSET;
    expect(
      () => new StatefulDependency(chart, 'db', { engine: DatabaseEngine.POSTGRES, credentials: { password: unset } }),
    ).toThrow(
      'test/db: credentials.password is undefined, so postgres would get no POSTGRES_PASSWORD and refuse to start',
    );
    expect(
      () => new StatefulDependency(chart, 'db2', { engine: DatabaseEngine.POSTGRES, credentials: { password: unset } }),
    ).toThrow(/leave out password to use none/);
  });

  test('persistent: false keeps the data in the pod, and refuses the props of a claim', () => {
    const chart = new Chart(Testing.app(), 'test');
    const cache = new StatefulDependency(chart, 'cache', { engine: DatabaseEngine.REDIS, persistent: false });
    expect(cache.dataClaim).toBeUndefined();
    expect(cache.backup).toBeUndefined();
    const docs = Testing.synth(chart);
    expect(docs.map((d) => d.kind).sort()).toEqual(['Deployment', 'Service']);
    expect(find(docs, 'Deployment', 'cache').spec.template.spec.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
    expect(
      () =>
        new StatefulDependency(new Chart(Testing.app(), 'x'), 'c', {
          engine: DatabaseEngine.REDIS,
          persistent: false,
          storageSize: Size.gibibytes(1),
        }),
    ).toThrow('x/c: persistent is false, so the data has no claim to size, mount or back up');
  });

  test('a password left out is no password, as before', () => {
    const chart = new Chart(Testing.app(), 'test');
    const db = new StatefulDependency(chart, 'db', { engine: DatabaseEngine.POSTGRES, credentials: {} });
    expect(db.credentials).toBeUndefined();
  });
});

describe('replicas changed by a JSON patch', () => {
  // A memory limit, so that the quota bounds limits.memory (it does only when every container has one).
  const WEB = `
services:
  web:
    image: example/web:1
    deploy:
      resources:
        limits:
          memory: 512m
`;

  const hard = (patched: boolean) => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model: modelOf(WEB) });
    if (patched) {
      ApiObject.of(app.service('web').deployment!).addJsonPatch(JsonPatch.replace('/spec/replicas', 6));
    }
    const docs = Testing.synth(chart);
    expect(find(docs, 'Deployment', 'web').spec.replicas).toBe(patched ? 6 : 1);
    return find(docs, 'ResourceQuota', 'namespace-quota').spec.hard;
  };

  test('the quota counts the patched replicas', () => {
    // 1 pod + 1 surge → 2 × 512Mi; 6 pods + 2 surge (25% of 6, rounded up) → 8 × 512Mi; plus 20% headroom.
    expect(hard(false)['limits.memory']).toBe('1280Mi');
    expect(hard(true)['limits.memory']).toBe('5Gi');
  });
});

describe('container.env.addVariable over a variable of the env Secret', () => {
  const APP = `
services:
  web:
    image: example/web:1
    environment:
      DATABASE_URL: postgres://shop:hunter2@db:5432/shop
      API_TOKEN: t0ken-of-the-app
`;

  test('the Secret drops the old key with its password, and keeps the others', () => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model: modelOf(APP) });
    const web = app.service('web');
    web.container.env.addVariable('DATABASE_URL', kplus.EnvValue.fromValue('postgres://managed.example.com/shop'));
    const docs = Testing.synth(chart);
    const secret = find(docs, 'Secret', 'web-env');
    expect(secretData(secret)).toEqual({ API_TOKEN: 't0ken-of-the-app' });
    expect(JSON.stringify(docs)).not.toContain(Buffer.from('postgres://shop:hunter2@db:5432/shop').toString('base64'));
    const env = find(docs, 'Deployment', 'web').spec.template.spec.containers[0].env;
    expect(env.find((e: any) => e.name === 'DATABASE_URL')).toEqual({
      name: 'DATABASE_URL',
      value: 'postgres://managed.example.com/shop',
    });
  });

  test('untouched, the Secret keeps every key', () => {
    const { docs } = synthApp(APP);
    expect(Object.keys(secretData(find(docs, 'Secret', 'web-env')))).toEqual(['API_TOKEN', 'DATABASE_URL']);
  });
});

describe('container.env.addVariable over a variable of the env ConfigMap', () => {
  const APP = `
services:
  web:
    image: example/web:1
    environment:
      UPSTREAM_URL: http://legacy.internal:8080
      LOG_LEVEL: info
`;

  test('the ConfigMap drops the old key, and keeps the others', () => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model: modelOf(APP) });
    app.service('web').container.env.addVariable('UPSTREAM_URL', kplus.EnvValue.fromValue('http://new.example.com'));
    const docs = Testing.synth(chart);
    expect(find(docs, 'ConfigMap', 'web-env').data).toEqual({ LOG_LEVEL: 'info' });
    expect(JSON.stringify(docs)).not.toContain('legacy.internal');
  });

  test('untouched, the ConfigMap keeps every key', () => {
    const { docs } = synthApp(APP);
    expect(Object.keys(find(docs, 'ConfigMap', 'web-env').data)).toEqual(['LOG_LEVEL', 'UPSTREAM_URL']);
  });
});

describe('redis:7 without a volume', () => {
  const CACHE = `
services:
  cache:
    image: redis:7
`;

  test('no claim, Secret or backup, and the warning promises none of them', () => {
    const { app, docs } = synthApp(CACHE);
    expect(docs.filter((d) => ['PersistentVolumeClaim', 'CronJob', 'Secret'].includes(d.kind))).toEqual([]);
    const volumes = find(docs, 'Deployment', 'cache').spec.template.spec.volumes;
    expect(volumes).toEqual([{ name: 'data', emptyDir: {} }]);
    expect(warningsOf(app)).toContain(
      'image "redis:7" runs as a redis stateful dependency: one pod, its data in the pod only, as compose keeps a ' +
        'cache without a volume (services["cache"].storageSize, a backup (--backup on) or a compose volume at its data ' +
        "path gives it a claim), the engine's readiness check; ",
    );
  });

  test('backup: true asks for the claim and its backup', () => {
    const { docs } = synthApp(CACHE, { backup: true });
    expect(find(docs, 'PersistentVolumeClaim', 'cache-data')).toBeDefined();
    expect(find(docs, 'CronJob', 'cache-backup')).toBeDefined();
  });

  test('storageSize asks for the claim, and the warning says so', () => {
    const { app, docs } = synthApp(CACHE, { services: { cache: { storageSize: Size.gibibytes(2) } } });
    expect(find(docs, 'PersistentVolumeClaim', 'cache-data').spec.resources.requests.storage).toBe('2Gi');
    expect(warningsOf(app)).toContain(
      'one pod, its data on a new 2Gi claim (compose keeps it in the container), the engine',
    );
  });

  test('postgres with a volume and a password: the claim, Secret and backup it promises all exist', () => {
    const { app, docs } = synthApp(`
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: hunter2
    volumes: [data:/var/lib/postgresql/data]
volumes:
  data: {}
`);
    expect(warningsOf(app)).toContain(
      'one pod, its data on the claim of its compose volume, the credentials Secret "db-credentials", the engine\'s ' +
        'readiness check, a backup CronJob "db-backup";',
    );
    expect(find(docs, 'Secret', 'db-credentials')).toBeDefined();
    expect(find(docs, 'CronJob', 'db-backup')).toBeDefined();
  });
});
