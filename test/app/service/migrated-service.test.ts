import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Duration, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../../lib/app/compose-app';
import { Exposure } from '../../../lib/app/settings';
import { loadComposeFromString } from '../../../lib/compose/load';
import { expectManifestsPass } from '../../support/checks';
import { model, port, service } from '../../support/model-builder';
import { findDoc, findDocs } from '../../support/yaml-docs';
import { checkSecretLeaks } from '../../support/safety-rules';
import { mainContainer, modelOf, podSpec, secretData, synthApp } from '../app-fixture';

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'Job', 'CronJob'];

/** Every container of every workload, init containers included. */
function allContainers(docs: any[]): any[] {
  return docs
    .filter((d) => WORKLOAD_KINDS.includes(d.kind))
    .flatMap((d) => [...(podSpec(d).initContainers ?? []), ...podSpec(d).containers]);
}

function codes(app: ComposeApp): string[] {
  return app.warnings.map((w) => w.code);
}

describe('services → Deployment + Service', () => {
  const { app, docs } = synthApp(`
name: shop
services:
  api:
    image: example/api:1.0
    entrypoint: ["/bin/app"]
    command: ["serve", "--since", "$$(date)"]
    working_dir: /srv
    ports: ["8080:80", "53:53/udp", "53:53/tcp"]
    expose: ["9000", "9001/udp"]
    deploy: { replicas: 3 }
  quiet:
    image: example/worker:1.0
`);

  test('all manifests pass the validator, the Kubernetes rules and the safety rules', () => {
    expectManifestsPass(docs);
  });

  test('the app label selects the pods everywhere, with no other selector label', () => {
    const deployment = findDoc(docs, 'Deployment', 'api');
    expect(deployment.spec.selector).toEqual({ matchLabels: { app: 'api' } });
    expect(deployment.spec.template.metadata.labels.app).toBe('api');
    expect(JSON.stringify(docs)).not.toContain('cdk8s.io/metadata.addr');
    expect(findDoc(docs, 'Service', 'api').spec.selector).toEqual({ app: 'api' });
  });

  test('replicas from deploy.replicas, else 1', () => {
    expect(findDoc(docs, 'Deployment', 'api').spec.replicas).toBe(3);
    expect(findDoc(docs, 'Deployment', 'quiet').spec.replicas).toBe(1);
  });

  test('entrypoint becomes command and command becomes args, with $( kept literal', () => {
    const container = mainContainer(findDoc(docs, 'Deployment', 'api'));
    expect(container).toMatchObject({
      name: 'api',
      image: 'example/api:1.0',
      command: ['/bin/app'],
      workingDir: '/srv',
    });
    expect(container.args).toEqual(['serve', '--since', '$$(date)']);
  });

  test('a ClusterIP Service with every port of ports and expose, named, UDP kept, TCP and UDP on one number', () => {
    const svc = findDoc(docs, 'Service', 'api');
    expect(svc.spec.type).toBe('ClusterIP');
    expect(svc.spec.ports).toEqual([
      { name: 'tcp-53', port: 53, targetPort: 53 },
      { name: 'udp-53', port: 53, targetPort: 53, protocol: 'UDP' },
      { name: 'tcp-80', port: 80, targetPort: 80 },
      { name: 'tcp-9000', port: 9000, targetPort: 9000 },
      { name: 'udp-9001', port: 9001, targetPort: 9001, protocol: 'UDP' },
    ]);
    expect(mainContainer(findDoc(docs, 'Deployment', 'api')).ports).toEqual([
      { containerPort: 53, name: 'tcp-53' },
      { containerPort: 53, name: 'udp-53', protocol: 'UDP' },
      { containerPort: 80, name: 'tcp-80' },
      { containerPort: 9000, name: 'tcp-9000' },
      { containerPort: 9001, name: 'udp-9001', protocol: 'UDP' },
    ]);
  });

  test('a service without ports gets no Service', () => {
    expect(findDocs(docs, 'Service').map((d) => d.metadata.name)).not.toContain('quiet');
    expect(app.service('quiet').service).toBeUndefined();
  });

  test('handles reach what was made', () => {
    const api = app.service('api');
    expect(api.deployment).toBeInstanceOf(kplus.Deployment);
    expect(api.service?.name).toBe('api');
    expect(api.envConfigMap).toBeUndefined();
    expect(() => app.service('nope')).toThrow('test/app: no compose service "nope". Allowed: api, quiet.');
  });

  test('the kplus defaults that break compose images are all replaced', () => {
    const deployment = findDoc(docs, 'Deployment', 'quiet');
    const container = mainContainer(deployment);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: false,
      runAsNonRoot: false,
    });
    expect(podSpec(deployment).securityContext.runAsNonRoot).toBe(false);
    expect(podSpec(deployment).automountServiceAccountToken).toBe(false);
    expect(container.startupProbe).toBeUndefined();
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    // kplus would limit to 1500m and 2Gi; compose sets no limit here, so there is none.
    expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' } });
  });
});

describe('ports', () => {
  test('one host port published to two container ports is an error', () => {
    const m = model({
      services: [
        service('dns', {
          ports: [
            port(53, { published: 53, protocol: 'udp', service: 'dns' }),
            port(5353, { published: 53, protocol: 'udp', index: 1, service: 'dns' }),
          ],
        }),
      ],
    });
    expect(() => synthApp(m)).toThrow(
      'compose.yaml: services.dns.ports[1]: host port 53/udp is published twice in service "dns", to container ports 53 ' +
        '(services.dns.ports[0]) and 5353 (got "53:5353/udp"). Allowed: each host port and protocol published once per ' +
        'host address. Fix: publish one of them on another host port.',
    );
  });

  test('the same container port on two host ports is two external ports, one container port', () => {
    const { docs } = synthApp('services: { app: { image: a:1, ports: ["5000:5000", "5001:5000"] } }');
    expect(mainContainer(findDoc(docs, 'Deployment', 'app')).ports).toEqual([
      { containerPort: 5000, name: 'tcp-5000' },
    ]);
    expect(findDoc(docs, 'Service', 'app-external').spec.ports).toEqual([
      { name: 'tcp-5000', port: 5000, targetPort: 5000 },
      { name: 'tcp-5001', port: 5001, targetPort: 5000 },
    ]);
  });
});

describe('resources', () => {
  const { docs } = synthApp(`
services:
  limited:
    image: a:1
    deploy: { resources: { limits: { cpus: "0.05", memory: 64M } } }
  reserved:
    image: a:1
    deploy: { resources: { reservations: { cpus: "2", memory: 1G } } }
  legacy:
    image: a:1
    cpus: 1.5
    mem_limit: 768m
    depends_on: [limited]
`);

  test('requests for cpu and memory on every container, init containers included; limits where compose sets them', () => {
    const all = allContainers(docs);
    expect(all.length).toBeGreaterThan(3);
    for (const container of all) {
      expect(Object.keys(container.resources.requests).sort()).toEqual(['cpu', 'memory']);
    }
    for (const name of ['limited', 'legacy']) {
      expect(Object.keys(mainContainer(findDoc(docs, 'Deployment', name)).resources.limits).sort()).toEqual([
        'cpu',
        'memory',
      ]);
    }
    expect(mainContainer(findDoc(docs, 'Deployment', 'reserved')).resources.limits).toBeUndefined();
  });

  test('a limit below the default request lowers the request; a reservation alone sets no limit', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'limited')).resources).toEqual({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { cpu: '50m', memory: '64Mi' },
    });
    expect(mainContainer(findDoc(docs, 'Deployment', 'reserved')).resources).toEqual({
      requests: { cpu: '2', memory: '1024Mi' },
    });
  });

  test('with defaultLimits, a request above the default limit raises the limit', () => {
    const { docs: limited } = synthApp(
      'services: { reserved: { image: a:1, deploy: { resources: { reservations: { cpus: "2", memory: 1G } } } } }',
      { defaultLimits: true },
    );
    expect(mainContainer(findDoc(limited, 'Deployment', 'reserved')).resources).toEqual({
      requests: { cpu: '2', memory: '1024Mi' },
      limits: { cpu: '2', memory: '1024Mi' },
    });
  });

  test('the legacy cpus and mem_limit keys are limits', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'legacy')).resources).toEqual({
      requests: { cpu: '100m', memory: '128Mi' },
      limits: { cpu: '1500m', memory: '768Mi' },
    });
  });

  test('overrides and defaults are props', () => {
    const { docs: overridden } = synthApp('services: { a: { image: a:1 }, b: { image: b:1 } }', {
      defaultResources: { cpuRequest: kplus.Cpu.millis(200), memoryLimit: Size.gibibytes(1) },
      services: { b: { resources: { cpu: { limit: kplus.Cpu.millis(300) } } } },
    });
    expect(mainContainer(findDoc(overridden, 'Deployment', 'a')).resources).toEqual({
      requests: { cpu: '200m', memory: '128Mi' },
      limits: { memory: '1024Mi' },
    });
    expect(mainContainer(findDoc(overridden, 'Deployment', 'b')).resources.limits.cpu).toBe('300m');
  });
});

describe('security context from the compose keys', () => {
  const { docs } = synthApp(`
services:
  hardened: { image: a:1, user: "1000:1000", read_only: true, cap_drop: [ALL], cap_add: [NET_BIND_SERVICE] }
  root: { image: a:1, user: "0" }
  named: { image: a:1, user: postgres }
  privileged: { image: a:1, privileged: true }
  admin: { image: a:1, cap_add: [SYS_ADMIN] }
`);

  test('a numeric non-root user is enforced, with read_only and capabilities', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'hardened')).securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsGroup: 1000,
      runAsNonRoot: true,
      runAsUser: 1000,
    });
  });

  test('root and images that pick their own user are not forced to non-root', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'root')).securityContext).toMatchObject({
      runAsUser: 0,
      runAsNonRoot: false,
    });
    expect(mainContainer(findDoc(docs, 'Deployment', 'named')).securityContext.runAsNonRoot).toBe(false);
    expect(mainContainer(findDoc(docs, 'Deployment', 'named')).securityContext.runAsUser).toBeUndefined();
  });

  test('privileged and SYS_ADMIN allow privilege escalation, as Kubernetes requires', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'privileged')).securityContext).toMatchObject({
      privileged: true,
      allowPrivilegeEscalation: true,
    });
    expect(mainContainer(findDoc(docs, 'Deployment', 'admin')).securityContext).toMatchObject({
      allowPrivilegeEscalation: true,
    });
    expectManifestsPass(docs, { allowPrivileged: ['privileged', 'admin', 'hardened'] });
  });
});

describe('probes', () => {
  const { app, docs } = synthApp(`
services:
  exec:
    image: a:1
    expose: ["5432"]
    healthcheck: { test: ["CMD", "pg_isready", "-U", "app"], interval: 5s, timeout: 2s, retries: 7, start_period: 30s, start_interval: 2s }
  shell:
    image: a:1
    healthcheck: { test: ["CMD-SHELL", "curl -fs http://localhost/ || exit 1"] }
  declared:
    image: a:1
    ports: ["8080:3000"]
    x-cdk8s-compose: { http: true }
  tcp:
    image: a:1
    expose: ["6379"]
  timings:
    image: a:1
    expose: ["80"]
    healthcheck: { interval: 10s }
`);

  test('CMD becomes an exec argv, with interval, timeout, retries; start_period a startupProbe', () => {
    const container = mainContainer(findDoc(docs, 'Deployment', 'exec'));
    const exec = {
      exec: { command: ['pg_isready', '-U', 'app'] },
      periodSeconds: 5,
      timeoutSeconds: 2,
      failureThreshold: 7,
    };
    expect(container.readinessProbe).toEqual(exec);
    expect(container.livenessProbe).toEqual(exec);
    expect(container.startupProbe).toEqual({
      exec: { command: ['pg_isready', '-U', 'app'] },
      periodSeconds: 2,
      timeoutSeconds: 2,
      failureThreshold: 15,
    });
  });

  test("CMD-SHELL runs through sh -c, with compose's default timings", () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'shell')).readinessProbe).toEqual({
      exec: { command: ['sh', '-c', 'curl -fs http://localhost/ || exit 1'] },
      periodSeconds: 30,
      timeoutSeconds: 30,
      failureThreshold: 3,
    });
  });

  test('a service declared HTTP gets httpGet liveness /health and readiness /ready on its port', () => {
    const container = mainContainer(findDoc(docs, 'Deployment', 'declared'));
    const probe = (path: string) => ({
      httpGet: { path, port: 3000, scheme: 'HTTP' },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      failureThreshold: 3,
    });
    expect(container.livenessProbe).toEqual(probe('/health'));
    expect(container.readinessProbe).toEqual(probe('/ready'));
  });

  test('otherwise a tcpSocket readiness probe on the first port', () => {
    const container = mainContainer(findDoc(docs, 'Deployment', 'tcp'));
    expect(container.readinessProbe).toEqual({ tcpSocket: { port: 6379 }, periodSeconds: 10, failureThreshold: 3 });
    expect(container.livenessProbe).toBeUndefined();
  });

  test('a healthcheck with only timings is reported and falls back to tcpSocket', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'timings')).readinessProbe.tcpSocket).toEqual({ port: 80 });
    expect(codes(app)).toContain('healthcheck-inherited');
  });

  test('HTTP on a port the service does not listen on is an error', () => {
    expect(() =>
      synthApp('services:\n  web:\n    image: a:1\n    expose: ["80"]\n', {
        services: { web: { http: { port: 8080 } } },
      }),
    ).toThrow(
      'compose.yaml:3:5: services.web: service "web" is declared HTTP on port 8080, which it does not listen on (got 8080). ' +
        'Allowed: one of its TCP ports: 80. Fix: add the port to ports or expose, or give http.port.',
    );
  });
});

describe('ports → external access', () => {
  const { app, docs } = synthApp(`
services:
  web: { image: nginx:1.27, ports: ["8080:80"] }
  game: { image: a:1, ports: ["25565:25565", "19132:19132/udp"] }
  admin: { image: a:1, ports: ["127.0.0.1:9000:9000"] }
  db: { image: postgres:16, ports: ["5432:5432"], environment: { POSTGRES_PASSWORD: example-pw } }
`);

  test('an HTTP port goes through an Ingress with host, path, Prefix, backend and the rewrite annotation', () => {
    expect(findDoc(docs, 'Ingress', 'web')).toMatchObject({
      metadata: { annotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } },
      spec: {
        ingressClassName: 'nginx',
        rules: [
          {
            host: 'web.example.com',
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
            },
          },
        ],
      },
    });
  });

  test('other published ports go through a LoadBalancer Service, UDP included', () => {
    const external = findDoc(docs, 'Service', 'game-external');
    expect(external.spec.type).toBe('LoadBalancer');
    expect(external.spec.selector).toEqual({ app: 'game' });
    expect(external.spec.ports).toEqual([
      { name: 'udp-19132', port: 19132, targetPort: 19132, protocol: 'UDP' },
      { name: 'tcp-25565', port: 25565, targetPort: 25565 },
    ]);
    expect(findDoc(docs, 'Service', 'game').spec.type).toBe('ClusterIP');
  });

  test('a port bound to 127.0.0.1 stays internal, with a warning', () => {
    expect(findDocs(docs, 'Service').map((d) => d.metadata.name)).not.toContain('admin-external');
    expect(app.warnings).toContainEqual({
      code: 'local-only-port',
      message:
        'port 9000 is bound to 127.0.0.1 in compose, so it stays inside the cluster (reach it with kubectl port-forward svc/admin 9000)',
      at: expect.objectContaining({ path: 'services.admin.ports[0]' }),
    });
  });

  test("a database's published port stays internal, with a warning", () => {
    expect(findDocs(docs, 'Service').map((d) => d.metadata.name)).not.toContain('db-external');
    expect(codes(app)).toContain('database-port-internal');
  });

  test('the host and the choice are props', () => {
    const { docs: chosen } = synthApp(
      'services: { web: { image: nginx:1.27, ports: ["8080:80"] }, api: { image: a:1, ports: ["3000:3000"] } }',
      {
        services: {
          web: { expose: Exposure.LOAD_BALANCER },
          api: { expose: Exposure.INGRESS, ingressHost: 'api.shop.test' },
        },
      },
    );
    expect(findDoc(chosen, 'Service', 'web-external').spec.type).toBe('LoadBalancer');
    expect(findDoc(chosen, 'Ingress', 'api').spec.rules[0].host).toBe('api.shop.test');
  });

  test('two services on one Ingress host and path fail validation naming both', () => {
    const chart = new Chart(Testing.app(), 'test');
    new ComposeApp(chart, 'app', {
      model: modelOf('services:\n  a: { image: a:1, ports: ["80:80"] }\n  b: { image: b:1, ports: ["81:80"] }\n'),
      services: { a: { ingressHost: 'shop.test' }, b: { ingressHost: 'shop.test' } },
    });
    expect(() => Testing.synth(chart)).toThrow(
      '[test/app] compose.yaml:3:28: services.b.ports[0]: services "a" and "b" both route shop.test/ through an Ingress. ' +
        'Allowed: one service per Ingress host and path. Fix: give one of them another ingressHost or ingressPath in services["b"].',
    );
  });
});

describe('environment → ConfigMap + Secret (rule 3)', () => {
  const { app, docs } = synthApp(
    `
services:
  api:
    image: a:1
    environment:
      LOG_LEVEL: debug
      DB_PASSWORD: env-pass-1
      GITHUB_TOKEN: ghp_fake_token_1
      DATABASE_URL: postgres://app:url-pass-2@db:5432/app
      PLAIN_URL: http://search:9200
      SAME_AS_PASSWORD: env-pass-1
      LICENSE_KEY: lic-3
      POSTGRES_PASSWORD_FILE: /run/secrets/db
`,
    { services: { api: { sensitiveEnv: ['LICENSE_KEY'] } } },
  );
  const container = mainContainer(findDoc(docs, 'Deployment', 'api'));
  const envOf = (name: string) => container.env.find((e: any) => e.name === name);

  test('sensitive values go into an Opaque Secret (data, base64) and are referenced with secretKeyRef', () => {
    const secret = findDoc(docs, 'Secret', 'api-env');
    expect(secret.type).toBe('Opaque');
    expect(secretData(secret)).toEqual({
      DATABASE_URL: 'postgres://app:url-pass-2@db:5432/app',
      DB_PASSWORD: 'env-pass-1',
      GITHUB_TOKEN: 'ghp_fake_token_1',
      LICENSE_KEY: 'lic-3',
      SAME_AS_PASSWORD: 'env-pass-1',
    });
    expect(envOf('DB_PASSWORD')).toEqual({
      name: 'DB_PASSWORD',
      valueFrom: { secretKeyRef: { name: 'api-env', key: 'DB_PASSWORD' } },
    });
  });

  test('everything else goes into a ConfigMap', () => {
    expect(findDoc(docs, 'ConfigMap', 'api-env').data).toEqual({
      LOG_LEVEL: 'debug',
      PLAIN_URL: 'http://search:9200',
      POSTGRES_PASSWORD_FILE: '/run/secrets/db',
    });
    expect(envOf('LOG_LEVEL')).toEqual({
      name: 'LOG_LEVEL',
      valueFrom: { configMapKeyRef: { name: 'api-env', key: 'LOG_LEVEL' } },
    });
  });

  test('no secret value appears outside a Secret, nor in a warning', () => {
    const values = ['env-pass-1', 'ghp_fake_token_1', 'url-pass-2', 'lic-3'];
    expect(checkSecretLeaks(docs, { secretValues: values, minSecretLength: 1 })).toEqual([]);
    for (const value of values) {
      expect(JSON.stringify(app.warnings)).not.toContain(value);
    }
  });

  test('the name patterns are a prop', () => {
    const { docs: custom } = synthApp('services: { a: { image: a:1, environment: { MY_PIN: "1234" } } }', {
      sensitiveNamePatterns: ['PIN'],
    });
    expect(secretData(findDoc(custom, 'Secret', 'a-env'))).toEqual({ MY_PIN: '1234' });
  });
});

describe('secrets, configs and bind-mounted files', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-app-'));
  fs.mkdirSync(path.join(dir, 'conf'));
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'db_password.txt'), 'file-secret-7\n');
  fs.writeFileSync(path.join(dir, 'conf', 'nginx.conf'), 'upstream app { server backend_app:8000; }\n');
  fs.writeFileSync(path.join(dir, 'conf', 'app.ini'), '[db]\npassword = file-secret-7\n');
  fs.writeFileSync(path.join(dir, 'settings.yml'), 'level: info\n');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = `
services:
  web:
    image: nginx:1.27
    volumes:
      - ./conf/nginx.conf:/etc/nginx/nginx.conf:ro
      - ./conf/app.ini:/etc/app.ini
      - ./data:/var/lib/data
      - /var/run/docker.sock:/var/run/docker.sock
    secrets:
      - db_password
      - source: api_key
        target: /etc/keys/api.key
        mode: 0440
    configs:
      - source: settings
        target: /etc/app/settings.yml
  backend_app:
    image: a:1
    expose: ["8000"]
secrets:
  db_password: { file: ./db_password.txt }
  api_key: { external: true }
configs:
  settings: { file: ./settings.yml }
`;
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', {
    model: loadComposeFromString(text, { env: {}, projectDir: dir }).model,
    namespace: 'test',
  });
  const docs = Testing.synth(chart);
  const container = mainContainer(findDoc(docs, 'Deployment', 'web'));
  const mount = (mountPath: string) => container.volumeMounts.find((m: any) => m.mountPath === mountPath);
  const volume = (name: string) =>
    podSpec(findDoc(docs, 'Deployment', 'web')).volumes.find((v: any) => v.name === name);

  test('a compose secret becomes a Secret mounted at /run/secrets/<name>', () => {
    expect(secretData(findDoc(docs, 'Secret', 'db-password'))).toEqual({ db_password: 'file-secret-7\n' });
    expect(mount('/run/secrets/db_password')).toEqual({
      mountPath: '/run/secrets/db_password',
      name: 'secret-db-password',
      subPath: 'db_password',
      readOnly: true,
    });
    expect(volume('secret-db-password')).toEqual({ name: 'secret-db-password', secret: { secretName: 'db-password' } });
  });

  test('an external secret is referenced, not created, with a warning; the long-syntax target and mode are kept', () => {
    expect(findDocs(docs, 'Secret').map((d) => d.metadata.name)).not.toContain('api-key');
    expect(mount('/etc/keys/api.key')).toMatchObject({ name: 'secret-api-key', subPath: 'api_key', readOnly: true });
    expect(volume('secret-api-key')).toEqual({
      name: 'secret-api-key',
      secret: { secretName: 'api-key', defaultMode: 0o440 },
    });
    expect(app.warnings).toContainEqual(
      expect.objectContaining({
        code: 'external-secret',
        message:
          'secret "api_key" is external: create the Secret "api-key" with the key "api_key" in namespace "test" before deploying',
      }),
    );
  });

  test('configs and single-file binds become ConfigMap keys mounted read-only with subPath at the same path', () => {
    expect(findDoc(docs, 'ConfigMap', 'settings').data).toEqual({ settings: 'level: info\n' });
    expect(mount('/etc/app/settings.yml')).toMatchObject({
      name: 'config-settings',
      subPath: 'settings',
      readOnly: true,
    });
    expect(findDoc(docs, 'ConfigMap', 'web-files').data).toEqual({
      'nginx.conf': 'upstream app { server backend_app:8000; }\n',
    });
    expect(mount('/etc/nginx/nginx.conf')).toEqual({
      mountPath: '/etc/nginx/nginx.conf',
      name: 'files',
      subPath: 'nginx.conf',
      readOnly: true,
    });
  });

  test('a file holding a secret value is mounted from a Secret instead', () => {
    expect(secretData(findDoc(docs, 'Secret', 'web-files'))).toEqual({ 'app.ini': '[db]\npassword = file-secret-7\n' });
    expect(mount('/etc/app.ini')).toMatchObject({ name: 'files-secret', subPath: 'app.ini', readOnly: true });
    expect(checkSecretLeaks(docs, { secretValues: ['file-secret-7'] })).toEqual([]);
  });

  test('an empty directory bound read-write is a claim (docker keeps what is written there); a host path is reported and not mounted', () => {
    expect(mount('/var/lib/data')).toEqual({ mountPath: '/var/lib/data', name: 'data', readOnly: false });
    expect(volume('data')).toEqual({ name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: false } });
    expect(findDoc(docs, 'PersistentVolumeClaim', 'data').metadata.annotations).toMatchObject({
      'cdk8s-compose.io/compose-source': 'bind:./data',
    });
    expect(mount('/var/run/docker.sock')).toBeUndefined();
    expect(codes(app)).toEqual(expect.arrayContaining(['host-path', 'bind-read-only']));
  });

  test('names in a file that need rewriting are reported', () => {
    expect(app.warnings).toContainEqual(
      expect.objectContaining({
        code: 'file-host-reference',
        message:
          'the bound file "./conf/nginx.conf" refers to "backend_app", which is the Service "backend-app" in Kubernetes; edit the file',
      }),
    );
  });

  test('the output names no absolute path of this machine', () => {
    expect(JSON.stringify(docs)).not.toContain(dir);
    expectManifestsPass(docs);
  });
});

describe('a directory bind of certificates', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-certs-'));
  fs.mkdirSync(path.join(dir, 'certs', 'ca'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'certs', 'server.crt'),
    '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  );
  fs.writeFileSync(path.join(dir, 'certs', 'ca', 'root.der'), Buffer.from([0x30, 0x82, 0x00, 0xff]));
  fs.mkdirSync(path.join(dir, 'big'));
  fs.writeFileSync(path.join(dir, 'big', 'blob.bin'), Buffer.alloc(1024 * 1024 + 1, 7));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const text = `
services:
  web:
    image: nginx:1.27
    volumes:
      - ./certs:/etc/certs:ro
      - ./big:/srv/big
`;
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', {
    model: loadComposeFromString(text, { env: {}, projectDir: dir }).model,
    namespace: 'test',
  });
  const docs = Testing.synth(chart);
  const container = mainContainer(findDoc(docs, 'Deployment', 'web'));

  test('its files become ConfigMap keys (binaryData for binary ones), each mounted at its path', () => {
    const files = findDoc(docs, 'ConfigMap', 'web-files');
    expect(files.data).toEqual({ 'server.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' });
    expect(files.binaryData).toEqual({ 'ca_root.der': Buffer.from([0x30, 0x82, 0x00, 0xff]).toString('base64') });
    expect(container.volumeMounts).toEqual(
      expect.arrayContaining([
        { mountPath: '/etc/certs/ca/root.der', name: 'files', subPath: 'ca_root.der', readOnly: true },
        { mountPath: '/etc/certs/server.crt', name: 'files', subPath: 'server.crt', readOnly: true },
      ]),
    );
  });

  test('a read-write directory over 1 MiB is a claim that starts empty, with a warning that names move-data', () => {
    expect(container.volumeMounts).toContainEqual({ mountPath: '/srv/big', name: 'big', readOnly: false });
    expect(findDocs(docs, 'ConfigMap').map((d) => d.metadata.name)).not.toContain('big-seed');
    expect(app.warnings).toContainEqual(
      expect.objectContaining({
        code: 'move-data',
        message:
          'the bound folder "./big" holds more than a ConfigMap can (1 MiB, 256 files; 1048577 bytes counted), so its ' +
          'claim "big" starts empty: bring its files with `cdk8s-compose move-data` before starting the app',
      }),
    );
  });
});

describe('depends_on → init containers (rule 1)', () => {
  const { app, docs } = synthApp(
    `
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    depends_on:
      api: { condition: service_healthy }
  api:
    image: a:1
    expose: ["8000"]
    depends_on:
      db: { condition: service_healthy }
      migrate: { condition: service_completed_successfully }
      worker: { condition: service_started }
  worker:
    image: a:1
  migrate:
    image: a:1
    command: ["migrate"]
    depends_on: [db]
  db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: wait-pass-1 }
`,
    { waitTimeout: Duration.seconds(120) },
  );
  const initNames = (name: string, kind = 'Deployment') =>
    (podSpec(findDoc(docs, kind, name)).initContainers ?? []).map((c: any) => c.name);

  test('every dependent has a wait for each dependency, databases first', () => {
    expect(initNames('web')).toEqual(['wait-for-api']);
    expect(initNames('api')).toEqual(['wait-for-db', 'wait-for-migrate', 'wait-for-worker']);
    expect(initNames('migrate', 'Job')).toEqual(['wait-for-db']);
    expect(initNames('worker')).toEqual([]);
  });

  test("a TCP wait on the dependency's Service, bounded, with clear log lines", () => {
    const wait = podSpec(findDoc(docs, 'Deployment', 'api')).initContainers[0];
    expect(wait).toMatchObject({
      image: 'busybox:1.36',
      resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
    });
    expect(wait.command[2]).toBe(
      [
        'echo "waiting up to 120s for db:5432 (compose service db) to accept connections"',
        'deadline=$(($(date +%s) + 120))',
        'until nc -z -w 2 db 5432; do',
        '  if [ "$(date +%s)" -ge "$deadline" ]; then echo "gave up: db:5432 did not accept connections within 120s" >&2; exit 1; fi',
        '  sleep 2',
        'done',
        'echo "db:5432 is ready"',
      ].join('\n'),
    );
  });

  test('service_completed_successfully runs the dependency as a Job', () => {
    const job = findDoc(docs, 'Job', 'migrate');
    expect(podSpec(job).restartPolicy).toBe('OnFailure');
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).not.toContain('migrate');
    expect(app.service('migrate').job).toBeInstanceOf(kplus.Job);
  });

  test('dependents wait for the Job through a least-privilege service account', () => {
    const spec = podSpec(findDoc(docs, 'Deployment', 'api'));
    expect(spec.serviceAccountName).toBe('api-wait');
    expect(spec.automountServiceAccountToken).toBe(true);
    expect(spec.initContainers[1]).toMatchObject({
      image: 'registry.k8s.io/kubectl:v1.28.15',
      args: ['wait', '--namespace=test', '--for=condition=complete', '--timeout=120s', 'job/migrate'],
    });
    expect(findDoc(docs, 'Role', 'api-wait').rules).toEqual([
      { apiGroups: ['batch'], resources: ['jobs'], resourceNames: ['migrate'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['worker'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(findDoc(docs, 'RoleBinding', 'api-wait')).toMatchObject({
      roleRef: { kind: 'Role', name: 'api-wait' },
      subjects: [{ kind: 'ServiceAccount', name: 'api-wait', namespace: 'test' }],
    });
    expect(findDoc(docs, 'ServiceAccount', 'api-wait').automountServiceAccountToken).toBe(false);
  });

  test('pods without an API wait get no token', () => {
    for (const name of ['web', 'worker', 'db']) {
      expect(podSpec(findDoc(docs, 'Deployment', name)).automountServiceAccountToken).toBe(false);
    }
    expectManifestsPass(docs, { allowServiceAccountToken: ['api'] });
  });

  test('a database that waits for a Job gets the service account and token too', () => {
    const { docs: seeded } = synthApp(`
services:
  db: { image: postgres:16, depends_on: { fetch: { condition: service_completed_successfully } } }
  fetch: { image: a:1 }
`);
    const spec = podSpec(findDoc(seeded, 'Deployment', 'db'));
    expect(spec).toMatchObject({ serviceAccountName: 'db-wait', automountServiceAccountToken: true });
    expect(spec.initContainers.map((c: any) => c.name)).toEqual(['wait-for-fetch']);
  });

  test('a dependency on no shared network is awaited through the API, as its Service is out of reach', () => {
    const { docs: apart } = synthApp(`
services:
  a: { image: a:1, depends_on: [b], networks: [one] }
  b: { image: b:1, expose: ["80"], networks: [two] }
networks: { one: {}, two: {} }
`);
    expect(podSpec(findDoc(apart, 'Deployment', 'a')).initContainers[0].args).toEqual([
      'wait',
      '--namespace=test',
      '--for=condition=available',
      '--timeout=300s',
      'deployment/b',
    ]);
  });
});

describe('keys without a direct Kubernetes field', () => {
  const { app, docs } = synthApp(`
services:
  llm:
    image: ollama/ollama:0.3.12
    deploy:
      resources:
        reservations:
          devices: [{ driver: nvidia, count: 2, capabilities: [gpu] }]
    labels: { kompose.service.group: llm, traefik.enable: "true" }
    sysctls: { net.ipv4.ip_unprivileged_port_start: "0", net.core.somaxconn: "1024" }
    extra_hosts: ["host.docker.internal:host-gateway", "legacy:10.0.0.5"]
    stop_grace_period: 1m
`);
  const deployment = findDoc(docs, 'Deployment', 'llm');

  test('GPU reservations become an nvidia.com/gpu limit (a patch that reaches the output)', () => {
    expect(mainContainer(deployment).resources.limits).toEqual({ 'nvidia.com/gpu': 2 });
    expectManifestsPass(docs);
    const { docs: limited } = synthApp(`
services:
  llm:
    image: a:1
    mem_limit: 1g
    deploy: { resources: { reservations: { devices: [{ capabilities: [gpu], count: 1 }] } } }
`);
    expect(mainContainer(findDoc(limited, 'Deployment', 'llm')).resources.limits).toEqual({
      'memory': '1024Mi',
      'nvidia.com/gpu': 1,
    });
  });

  test('safe sysctls, host aliases with addresses and the grace period are kept; the rest reported', () => {
    expect(podSpec(deployment).securityContext.sysctls).toEqual([
      { name: 'net.ipv4.ip_unprivileged_port_start', value: '0' },
    ]);
    expect(podSpec(deployment).hostAliases).toEqual([{ ip: '10.0.0.5', hostnames: ['legacy'] }]);
    expect(podSpec(deployment).terminationGracePeriodSeconds).toBe(60);
    expect(app.warnings.map((w) => w.message)).toEqual(
      expect.arrayContaining([
        'ignored label "kompose.service.group": this kompose label is not honoured',
        'ignored labels "traefik.enable": compose labels are not copied to Kubernetes objects',
        'sysctl "net.core.somaxconn" is not set: Kubernetes rejects unsafe sysctls unless the kubelet allows them (--allowed-unsafe-sysctls)',
        'extra host "host.docker.internal:host-gateway" is not kept: "host-gateway" is not an address a pod can use',
      ]),
    );
  });
});

describe('kompose labels', () => {
  test('a restart: "no" service with kompose.cronjob.schedule is a CronJob, as kompose makes it', () => {
    const { app, docs } = synthApp(`
services:
  report:
    image: example/report:2.1
    command: ["report", "--send"]
    restart: "no"
    depends_on: [db]
    labels:
      kompose.cronjob.schedule: "30 2 * * MON-FRI"
      kompose.cronjob.concurrency_policy: replace
      kompose.cronjob.backoff_limit: "2"
  db: { image: postgres:16, environment: { POSTGRES_PASSWORD: cron-db-pass-1 } }
  web: { image: nginx:1.27, depends_on: [report] }
`);
    const cron = findDoc(docs, 'CronJob', 'report');
    expect(cron.spec).toMatchObject({
      schedule: '30 2 * * MON-FRI',
      concurrencyPolicy: 'Replace',
      startingDeadlineSeconds: 600,
    });
    expect(cron.spec.jobTemplate.spec.backoffLimit).toBe(2);
    expect(podSpec(cron).restartPolicy).toBe('Never');
    expect(mainContainer(cron).args).toEqual(['report', '--send']);
    expect(cron.spec.jobTemplate.spec.template.metadata.labels).toEqual({
      'app': 'report',
      'network.cdk8s-compose.io/default': 'true',
    });
    expect(podSpec(cron).initContainers.map((c: any) => c.name)).toEqual(['wait-for-db']);
    expect(app.service('report').cronJob).toBeInstanceOf(kplus.CronJob);
    expect(app.service('report').kind).toBe('CronJob');
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).toEqual(['db', 'web']);
    // Nothing to wait for: the dependent says so instead of waiting for a run.
    expect(podSpec(findDoc(docs, 'Deployment', 'web')).initContainers).toBeUndefined();
    expect(app.warnings.find((w) => w.code === 'scheduled-dependency')).toEqual({
      code: 'scheduled-dependency',
      message: 'does not wait for "report": it runs on a schedule (a CronJob), so there is nothing to wait for',
      at: expect.objectContaining({ path: 'services.web.depends_on[0]' }),
    });
    expect(findDoc(docs, 'NetworkPolicy', 'allow-report').spec.podSelector).toEqual({ matchLabels: { app: 'report' } });
    expectManifestsPass(docs);
  });

  test("a scheduled service that waits through the API gets its service account on the CronJob's pod template", () => {
    const { docs } = synthApp(`
services:
  sync:
    image: example/sync:1
    depends_on: { seed: { condition: service_completed_successfully } }
    labels: { kompose.cronjob.schedule: "@hourly" }
  seed: { image: example/seed:1 }
`);
    const spec = podSpec(findDoc(docs, 'CronJob', 'sync'));
    expect(findDoc(docs, 'CronJob', 'sync').spec.schedule).toBe('0 * * * *');
    expect(spec).toMatchObject({
      serviceAccountName: 'sync-wait',
      automountServiceAccountToken: true,
      restartPolicy: 'Never',
    });
    expect(spec.initContainers[0].args).toEqual([
      'wait',
      '--namespace=test',
      '--for=condition=complete',
      '--timeout=300s',
      'job/seed',
    ]);
    expectManifestsPass(docs, { allowServiceAccountToken: ['sync'] });
  });

  test("restart: on-failure restarts a CronJob's pod on failure; restart: always is reported", () => {
    const { app, docs } = synthApp(`
services:
  a: { image: a:1, restart: on-failure, labels: { kompose.cronjob.schedule: "0 * * * *" } }
  b: { image: b:1, restart: always, labels: { kompose.cronjob.schedule: "0 * * * *" } }
`);
    expect(podSpec(findDoc(docs, 'CronJob', 'a')).restartPolicy).toBe('OnFailure');
    expect(podSpec(findDoc(docs, 'CronJob', 'b')).restartPolicy).toBe('OnFailure');
    expect(findDoc(docs, 'CronJob', 'a').spec.concurrencyPolicy).toBe('Forbid');
    expect(app.warnings.map((w) => w.message)).toContain(
      'restart "always" is not kept: the service runs on its kompose.cronjob.schedule, ' +
        "and a CronJob's pods restart only on failure",
    );
  });

  test('a schedule on a service others wait to complete is an error', () => {
    expect(() =>
      synthApp(`
services:
  seed: { image: a:1, labels: { kompose.cronjob.schedule: "@daily" } }
  app: { image: b:1, depends_on: { seed: { condition: service_completed_successfully } } }
`),
    ).toThrow(
      'compose.yaml:3:9: services.seed.labels["kompose.cronjob.schedule"]: service "seed" is awaited with ' +
        'service_completed_successfully, so it runs once as a Job, and kompose.cronjob.schedule would run it on a schedule. ' +
        "Fix: remove the schedule label, or the dependents' service_completed_successfully condition.",
    );
  });

  test('kompose.controller.type: statefulset makes a StatefulSet named by its Service; a database one runs on a StatefulSet', () => {
    const { app, docs } = synthApp(`
services:
  queue: { image: example/queue:3, expose: ["5672"], deploy: { replicas: 3 }, labels: { kompose.controller.type: statefulset } }
  db: { image: postgres:16, environment: { POSTGRES_PASSWORD: sts-pass-77 }, labels: { kompose.controller.type: statefulset } }
  worker: { image: w:1, depends_on: [queue, db] }
`);
    const sts = findDoc(docs, 'StatefulSet', 'queue');
    expect(sts.spec).toMatchObject({ serviceName: 'queue', replicas: 3, selector: { matchLabels: { app: 'queue' } } });
    expect(findDoc(docs, 'Service', 'queue').spec.selector).toEqual({ app: 'queue' });
    expect(app.service('queue').statefulSet).toBeDefined();
    expect(app.service('queue').kind).toBe('StatefulSet');
    expect(findDoc(docs, 'StatefulSet', 'db').spec.serviceName).toBe('db');
    expect(app.service('db').statefulSet).toBe(app.service('db').statefulDependency!.workload);
    expect(podSpec(findDoc(docs, 'Deployment', 'worker')).initContainers.map((c: any) => c.name)).toEqual([
      'wait-for-db',
      'wait-for-queue',
    ]);
    expectManifestsPass(docs);
  });

  test('replicationcontroller, and statefulset without ports, are reported and the service runs as a Deployment', () => {
    const { app, docs } = synthApp(`
services:
  old: { image: b:1, labels: { kompose.controller.type: replicationcontroller } }
  q: { image: q:1, labels: { kompose.controller.type: statefulset } }
`);
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).toEqual(['old', 'q']);
    expect(app.warnings.filter((w) => w.code === 'unsupported-label').map((w) => `${w.at.path}: ${w.message}`)).toEqual(
      [
        'services.old.labels["kompose.controller.type"]: kompose.controller.type "replicationcontroller" is not supported: the service ' +
          "runs as a Deployment (a ReplicationController is the Deployment's deprecated predecessor)",
        'services.q.labels["kompose.controller.type"]: kompose.controller.type "statefulset" is not kept: the service has no ports, and a ' +
          'StatefulSet needs a Service to name its pods, so it runs as a Deployment (give it a port with expose to get one)',
      ],
    );
  });

  test('external-traffic-policy reaches the LoadBalancer Service; the init container runs after the waits', () => {
    const { app, docs } = synthApp(`
services:
  dns:
    image: coredns/coredns:1.11.1
    ports: ["53:53/udp"]
    labels: { kompose.service.external-traffic-policy: local }
  web:
    image: nginx:1.25
    ports: ["80:80"]
    depends_on: [db]
    labels:
      kompose.service.external-traffic-policy: local
      kompose.init.containers.name: migrate
      kompose.init.containers.image: example/migrate:2.1
      kompose.init.containers.command: '["migrate", "up"]'
  db:
    image: postgres:16.2
    environment: { POSTGRES_PASSWORD: example-password }
`);
    expect(findDoc(docs, 'Service', 'dns-external').spec).toMatchObject({
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
    });
    // web's port 80 goes through the Ingress: no LoadBalancer Service to set it on.
    expect(findDocs(docs, 'Service').map((d) => d.metadata.name)).toEqual(['db', 'dns', 'dns-external', 'web']);
    expect(app.warnings.filter((w) => w.code === 'unsupported-label').map((w) => `${w.at.path}: ${w.message}`)).toEqual(
      [
        'services.web.labels["kompose.service.external-traffic-policy"]: ignored kompose.service.external-traffic-policy "local": the service ' +
          'has no LoadBalancer or NodePort Service (its published ports go through the Ingress, or stay internal)',
      ],
    );
    const pod = podSpec(findDoc(docs, 'Deployment', 'web'));
    expect(pod.initContainers.map((c: any) => c.name)).toEqual(['wait-for-db', 'migrate']);
    const migrate = pod.initContainers[1];
    expect(migrate).toMatchObject({
      image: 'example/migrate:2.1',
      command: ['migrate', 'up'],
      imagePullPolicy: 'IfNotPresent',
    });
    expect(migrate.resources).toEqual(pod.containers[0].resources);
    expect(migrate.securityContext).toEqual(pod.containers[0].securityContext);
    expect(app.service('web').workload.initContainers.map((c) => c.name)).toEqual(['wait-for-db', 'migrate']);
    expectManifestsPass(docs);
  });

  test("kompose.serviceaccount-name: the pod runs as that account, with its token; the waits' Role is bound to it", () => {
    const { app, docs } = synthApp(`
services:
  sync:
    image: example/sync:1.0
    labels: { kompose.serviceaccount-name: sync-operator }
  report:
    image: example/report:1.0
    depends_on: { sync: { condition: service_completed_successfully } }
    labels: { kompose.serviceaccount-name: reporter }
`);
    const sync = podSpec(findDoc(docs, 'Job', 'sync'));
    expect(sync).toMatchObject({ serviceAccountName: 'sync-operator', automountServiceAccountToken: true });
    const report = podSpec(findDoc(docs, 'Deployment', 'report'));
    expect(report).toMatchObject({ serviceAccountName: 'reporter', automountServiceAccountToken: true });
    // No account of ours: the Role of the wait is bound to the named one.
    expect(findDocs(docs, 'ServiceAccount')).toEqual([]);
    expect(findDoc(docs, 'RoleBinding', 'report-wait').subjects).toEqual([
      { apiGroup: '', kind: 'ServiceAccount', name: 'reporter', namespace: 'test' },
    ]);
    expect(app.service('report').serviceAccountName).toBe('reporter');
    expect(
      app.warnings.filter((w) => w.code === 'external-service-account').map((w) => `${w.at.path}: ${w.message}`),
    ).toEqual([
      'services.report.labels["kompose.serviceaccount-name"]: the pod runs as service account "reporter", with its token mounted: ' +
        'create it in namespace "test" before applying (cdk8s-compose does not)',
      'services.sync.labels["kompose.serviceaccount-name"]: the pod runs as service account "sync-operator", with its token mounted: ' +
        'create it in namespace "test" before applying (cdk8s-compose does not)',
    ]);
    expectManifestsPass(docs, { allowServiceAccountToken: ['sync', 'report'] });
    expect(() =>
      synthApp('services:\n  x: { image: a:1, labels: { kompose.serviceaccount-name: My_Account } }\n'),
    ).toThrow('services.x.labels["kompose.serviceaccount-name"]: invalid service account name (got "My_Account")');
  });

  test("an init container named as the service's container is an error", () => {
    expect(() =>
      synthApp(`
services:
  web:
    image: nginx:1.25
    labels: { kompose.init.containers.name: web, kompose.init.containers.image: busybox:1.36 }
`),
    ).toThrow(
      'compose.yaml:4:5: services.web.labels["kompose.init.containers.name"]: the init container "web" has the name of the service\'s ' +
        'container (got "web"). Fix: name it otherwise with kompose.init.containers.name.',
    );
  });

  test('deploy.mode global and kompose.controller.type daemonset run as a DaemonSet: one pod on every node', () => {
    const { app, docs } = synthApp(`
services:
  agent:
    image: grafana/agent:v0.40.0
    deploy: { mode: global, replicas: 2 }
    expose: ["12345"]
    volumes: ["agentdata:/data"]
  exporter:
    image: prom/node-exporter:v1.8.0
    labels: { kompose.controller.type: daemonset, kompose.hpa.cpu: "50" }
  db:
    image: postgres:16.2
    environment: { POSTGRES_PASSWORD: example-password }
    labels: { kompose.controller.type: daemonset }
  web:
    image: nginx:1.25
    depends_on: [agent, exporter]
volumes:
  agentdata: {}
`);
    expect(findDocs(docs, 'DaemonSet').map((d) => d.metadata.name)).toEqual(['agent', 'exporter']);
    const agent = findDoc(docs, 'DaemonSet', 'agent');
    expect(agent.spec.replicas).toBeUndefined();
    expect(agent.spec.selector).toEqual({ matchLabels: { app: 'agent' } });
    expect(agent.spec.template.metadata.labels.app).toBe('agent');
    expect(findDoc(docs, 'Service', 'agent').spec.selector).toEqual({ app: 'agent' });
    expect(app.service('agent').daemonSet).toBe(app.service('agent').workload);
    expect(app.service('agent').kind).toBe('DaemonSet');
    expect(app.service('agent').replicas).toBe(1);
    expect(findDocs(docs, 'HorizontalPodAutoscaler')).toEqual([]);
    // A database keeps its one pod.
    expect(findDocs(docs, 'Deployment').map((d) => d.metadata.name)).toEqual(['db', 'web']);
    // The agent has a port: a TCP wait; the exporter has none: kubectl rollout status, allowed by a Role on it only.
    const waits = podSpec(findDoc(docs, 'Deployment', 'web')).initContainers;
    expect(waits.map((c: any) => c.name)).toEqual(['wait-for-agent', 'wait-for-exporter']);
    expect(waits[1].args).toEqual(['rollout', 'status', '--namespace=test', '--timeout=300s', 'daemonset/exporter']);
    expect(findDoc(docs, 'Role', 'web-wait').rules).toEqual([
      { apiGroups: ['apps'], resources: ['daemonsets'], resourceNames: ['exporter'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(
      app.warnings.map((w) => `${w.code} ${w.at.path}: ${w.message}`).filter((w) => !w.startsWith('unpinned')),
    ).toEqual(
      expect.arrayContaining([
        'unsupported-key services.agent.deploy.replicas: deploy.replicas 2 is not kept: a DaemonSet runs one pod on every node',
        'unsupported-key services.exporter: ignored the autoscaling of a service that runs as a DaemonSet: it is not scaled',
        'unsupported-label services.db.labels["kompose.controller.type"]: kompose.controller.type "daemonset" is not kept: a database ' +
          'or cache runs as a stateful dependency with one pod',
        'shared-volume volumes.agentdata: volume "agentdata" is mounted by service "agent", a DaemonSet with a pod on every node: a ' +
          'ReadWriteOnce claim attaches to one node, so the pods on other nodes stay Pending (use a ReadWriteMany ' +
          'class with --shared-volumes rwx, or run it as a Deployment)',
      ]),
    );
    expect(app.warnings.some((w) => w.message.includes('deploy.mode'))).toBe(false);
    expectManifestsPass(docs, { allowServiceAccountToken: ['web'] });
  });

  test('healthcheck labels replace the probe they name; timings fall back to the compose healthcheck', () => {
    const { docs } = synthApp(`
services:
  api:
    image: example/api:1
    expose: ["8000"]
    healthcheck: { test: ["CMD", "api", "check"], interval: 15s, timeout: 4s, retries: 4 }
    labels:
      kompose.service.healthcheck.readiness.http_get_path: /ready
      kompose.service.healthcheck.readiness.start_period: 20s
      kompose.service.healthcheck.liveness.tcp_port: "8000"
      kompose.service.healthcheck.liveness.retries: "9"
`);
    const container = mainContainer(findDoc(docs, 'Deployment', 'api'));
    expect(container.readinessProbe).toEqual({
      httpGet: { path: '/ready', port: 8000, scheme: 'HTTP' },
      initialDelaySeconds: 20,
      periodSeconds: 15,
      timeoutSeconds: 4,
      failureThreshold: 4,
    });
    expect(container.livenessProbe).toEqual({
      tcpSocket: { port: 8000 },
      periodSeconds: 15,
      timeoutSeconds: 4,
      failureThreshold: 9,
    });
    expect(container.startupProbe).toBeUndefined();
  });

  test("disable turns a probe off, a database's readiness check included; timings without a check take the healthcheck test", () => {
    const { docs } = synthApp(`
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    labels: { kompose.service.healthcheck.readiness.disable: "true" }
  cache:
    image: redis:7
    labels: { kompose.service.healthcheck.readiness.disable: "true" }
  job:
    image: example/worker:1
    healthcheck: { test: ["CMD-SHELL", "worker ping"] }
    labels: { kompose.service.healthcheck.liveness.interval: 1m }
`);
    expect(mainContainer(findDoc(docs, 'Deployment', 'web')).readinessProbe).toBeUndefined();
    expect(mainContainer(findDoc(docs, 'Deployment', 'cache')).readinessProbe).toBeUndefined();
    expect(mainContainer(findDoc(docs, 'Deployment', 'job')).livenessProbe).toEqual({
      exec: { command: ['sh', '-c', 'worker ping'] },
      periodSeconds: 60,
      failureThreshold: 3,
    });
  });

  test('labels that set timings without any check are an error naming them', () => {
    expect(() =>
      synthApp('services: { w: { image: w:1, labels: { kompose.service.healthcheck.liveness.timeout: 5s } } }'),
    ).toThrow(
      'compose.yaml:1:16: services.w.labels["kompose.service.healthcheck.liveness"]: the liveness labels set timings but no check, and the compose ' +
        'healthcheck has no test. Allowed: kompose.service.healthcheck.liveness.test, .http_get_path or .tcp_port. Fix: add one of them, or a healthcheck test.',
    );
  });

  test('kompose.service.expose with hosts and paths: one rule per host, TLS for all of them, the ingress class', () => {
    const { app, docs } = synthApp(`
services:
  shop:
    image: example/shop:1
    ports: ["8000:8000"]
    labels:
      kompose.service.expose: shop.example.com, www.shop.example.com/store
      kompose.service.expose.tls-secret: shop-tls
      kompose.service.expose.ingress-class-name: traefik
`);
    const ingress = findDoc(docs, 'Ingress', 'shop');
    expect(ingress.spec.ingressClassName).toBe('traefik');
    expect(
      ingress.spec.rules.map(
        (r: any) => `${r.host}${r.http.paths[0].path} → ${r.http.paths[0].backend.service.port.number}`,
      ),
    ).toEqual(['shop.example.com/ → 8000', 'www.shop.example.com/store → 8000']);
    expect(ingress.spec.tls).toEqual([{ hosts: ['shop.example.com', 'www.shop.example.com'], secretName: 'shop-tls' }]);
    expect(app.service('shop').ingressRules.map((r) => r.host)).toEqual(['shop.example.com', 'www.shop.example.com']);
    expectManifestsPass(docs);
  });

  test('the TLS secret or ingress class of a service that gets no Ingress is an error', () => {
    expect(() =>
      synthApp(
        'services: { db: { image: example/db:1, expose: ["5432"], labels: { kompose.service.expose.tls-secret: db-tls } } }',
      ),
    ).toThrow(
      'compose.yaml:1:17: services.db.labels["kompose.service.expose.tls-secret"]: kompose.service.expose.tls-secret configures an Ingress, and service "db" gets none. ' +
        'Allowed: a service with a published HTTP port, or the label kompose.service.expose. ' +
        'Fix: add kompose.service.expose: "true" (or a host name), or remove kompose.service.expose.tls-secret.',
    );
  });

  test('kompose.service.nodeport.port sets the node port of the one published port', () => {
    const { docs } = synthApp(`
services:
  game: { image: example/game:1, ports: ["7777:7777/udp"], labels: { kompose.service.type: nodeport, kompose.service.nodeport.port: "30777" } }
`);
    expect(findDoc(docs, 'Service', 'game-external').spec).toMatchObject({
      type: 'NodePort',
      ports: [{ name: 'udp-7777', port: 7777, targetPort: 7777, protocol: 'UDP', nodePort: 30777 }],
    });
  });

  test("image pull policy and secret, and the pod's fsGroup", () => {
    const { docs } = synthApp(`
services:
  app:
    image: registry.example.com/app:1
    labels: { kompose.image-pull-policy: Always, kompose.image-pull-secret: regcred, kompose.security-context.fsgroup: "2000" }
  db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: pull-pass-5 }
    labels: { kompose.image-pull-secret: regcred, kompose.image-pull-policy: Never }
`);
    for (const [name, policy] of [
      ['app', 'Always'],
      ['db', 'Never'],
    ]) {
      const spec = podSpec(findDoc(docs, 'Deployment', name));
      expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
      expect(spec.containers[0].imagePullPolicy).toBe(policy);
    }
    expect(podSpec(findDoc(docs, 'Deployment', 'app')).securityContext.fsGroup).toBe(2000);
  });

  test('every kompose label not honoured is reported once, on services and on volumes', () => {
    const { app } = synthApp(`
services:
  app:
    image: a:1
    volumes: ["data:/data"]
    labels: { kompose.service.group: g, kompose.volume.sub-path: sub, kompose.volume.size: 2Gi }
volumes:
  data: { labels: { kompose.volume.type: emptyDir, kompose.volume.storage-class-name: fast } }
`);
    expect(app.warnings.filter((w) => w.code === 'unsupported-label').map((w) => `${w.at.path}: ${w.message}`)).toEqual(
      [
        'services.app.labels["kompose.service.group"]: ignored label "kompose.service.group": this kompose label is not honoured',
        'services.app.labels["kompose.volume.sub-path"]: ignored label "kompose.volume.sub-path": this kompose label is not honoured',
        'volumes.data.labels["kompose.volume.type"]: ignored label "kompose.volume.type": this kompose label is not honoured',
      ],
    );
  });
});

test('a Service added to a migrated workload with kplus selects its pods by their app label', () => {
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', {
    model: modelOf('services:\n  web:\n    image: nginx:1.27\n    expose: ["80"]\n'),
  });
  app.service('web').deployment!.exposeViaService({ name: 'web-admin', ports: [{ port: 8080, targetPort: 80 }] });
  const docs = Testing.synth(chart);
  expect(findDoc(docs, 'Service', 'web-admin').spec.selector).toEqual({ app: 'web' });
  expect(findDoc(docs, 'Deployment', 'web').spec.template.metadata.labels).toMatchObject({ app: 'web' });
  expect(JSON.stringify(docs)).not.toContain('cdk8s.io/metadata.addr');
});
