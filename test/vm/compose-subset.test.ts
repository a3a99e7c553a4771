import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, isSensitiveName } from '../../lib/compose/sensitive';
import { loadComposeFromString } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { ComposeSubset, ComposeSubsetOptions, composeSubset } from '../../lib/vm/compose-subset';
import { tempDir } from './tools';

const PROJECT = tempDir('subset-project');
fs.mkdirSync(path.join(PROJECT, 'conf'));
fs.writeFileSync(path.join(PROJECT, 'conf/app.ini'), '[server]\nport = 80\n');
fs.writeFileSync(path.join(PROJECT, 'conf/creds.ini'), 'token = tok-1234567890\n');
fs.mkdirSync(path.join(PROJECT, 'html'));

function load(text: string): ComposeModel {
  return loadComposeFromString(text, { env: {}, projectDir: PROJECT }).model;
}

const OPTIONS: Omit<ComposeSubsetOptions, 'services'> = {
  isSensitive: (env) => isSensitiveName(env.name, DEFAULT_SENSITIVE_NAME_PATTERNS),
  containsSecret: (text) => text.includes('tok-1234567890'),
};

function subset(text: string, services: string[]): ComposeSubset {
  return composeSubset(load(text), '/opt/shop', { ...OPTIONS, services });
}

function composeOf(result: ComposeSubset): any {
  return parse(result.composeFile);
}

describe('composeSubset', () => {
  test('keeps only the chosen services and what they use', () => {
    const result = subset(
      `
services:
  web:
    image: nginx:1.25
    networks: [front]
    volumes: [cache:/cache]
  db:
    image: postgres:16
    networks: [back]
    volumes: [data:/var/lib/postgresql/data]
networks:
  front: {}
  back: {internal: true}
volumes:
  cache: {}
  data: {}
`,
      ['web'],
    );
    const doc = composeOf(result);
    // The project keeps its name, so label filters on com.docker.compose.project still match.
    expect(doc.name).toBe(path.basename(PROJECT).toLowerCase());
    expect(Object.keys(doc.services)).toEqual(['web']);
    expect(doc.networks).toEqual({ front: {} });
    expect(doc.volumes).toEqual({ cache: {} });
    expect(result.networks).toEqual(['front']);
    expect(result.images).toEqual(['nginx:1.25']);
  });

  test('secret env values become .env references; other values keep their text with $ escaped', () => {
    const result = subset(
      `
services:
  app:
    image: app:1
    environment:
      DB_PASSWORD: pa55-word
      GREETING: "cost: $$5"
      MODE: "yes"
`,
      ['app'],
    );
    expect(composeOf(result).services.app.environment).toEqual({
      DB_PASSWORD: '${DB_PASSWORD:?set DB_PASSWORD in /opt/shop/.env}',
      GREETING: 'cost: $$5',
      MODE: 'yes',
    });
    expect(result.composeFile).toContain('MODE: "yes"');
    expect(result.composeFile).not.toContain('pa55-word');
    expect(result.secretEnv).toEqual({ DB_PASSWORD: 'pa55-word' });
    expect(result.operatorInputs).toEqual([
      { kind: 'env', name: 'DB_PASSWORD', usedBy: ['services.app.environment.DB_PASSWORD'] },
    ]);
  });

  test("env values keep compose's ${VAR} references; the variables they read go into .env, whatever their names", () => {
    const model = loadComposeFromString(
      `
services:
  app:
    image: app:1
    environment:
      REDISPASS: \${REDISPASS}
      URL: redis://:\${REDISPASS}@cache:6379/0
      TZ: \${TZ}
      UNSET: \${NOT_SET}
      NET: \${IPV4_NETWORK:-172.22.1}
      LITERAL_IN_TEMPLATE: postgres://u:literal-pw-1@\${DB_HOST}
`,
      { env: { REDISPASS: 'canary-redis-7d8e', TZ: 'Europe/Berlin', DB_HOST: 'db' }, projectDir: PROJECT },
    ).model;
    const result = composeSubset(model, '/opt/shop', { ...OPTIONS, services: ['app'] });
    const env = composeOf(result).services.app.environment;
    expect(env).toMatchObject({
      REDISPASS: '${REDISPASS}',
      URL: 'redis://:${REDISPASS}@cache:6379/0',
      TZ: '${TZ}',
      UNSET: '${NOT_SET}',
      NET: '${IPV4_NETWORK:-172.22.1}',
    });
    // A literal password inside the written text: the value is written resolved, its password a reference to .env.
    expect(env.LITERAL_IN_TEMPLATE).toBe('postgres://u:${SECRET_1:?set SECRET_1 in /opt/shop/.env}@db');
    expect(result.composeFile).not.toContain('canary-redis-7d8e');
    expect(result.composeFile).not.toContain('literal-pw-1');
    // A bare reference left unset reads "" in the VM as on the host; one with a default stays unset.
    expect(result.secretEnv).toEqual({
      NOT_SET: '',
      REDISPASS: 'canary-redis-7d8e',
      SECRET_1: 'literal-pw-1',
      TZ: 'Europe/Berlin',
    });
    // Without the references, the name rule decides, as before.
    const resolved = composeSubset(model, '/opt/shop', { ...OPTIONS, services: ['app'], keepReferences: false });
    expect(composeOf(resolved).services.app.environment.TZ).toBe('Europe/Berlin');
  });

  test('a value a rewrite changed after loading (a host to its Service name) is written resolved', () => {
    const model = loadComposeFromString(
      'services:\n  app:\n    image: app:1\n    environment:\n      DB: ${DB_HOST}\n',
      {
        env: { DB_HOST: 'shop_db' },
        projectDir: PROJECT,
      },
    ).model;
    const rewritten = {
      ...model,
      services: model.services.map((svc) => ({
        ...svc,
        environment: svc.environment.map((e) => ({ ...e, value: 'shop-db' })),
      })),
    };
    const result = composeSubset(rewritten, '/opt/shop', { ...OPTIONS, services: ['app'] });
    expect(composeOf(result).services.app.environment.DB).toBe('shop-db');
    expect(result.secretEnv).toEqual({});
  });

  test('a secret name with different values in two services gets one variable per service', () => {
    const result = subset(
      `
services:
  api:
    image: api:1
    environment: {API_TOKEN: one-token-value, SHARED_SECRET: same-value}
  worker-1:
    image: worker:1
    environment: {API_TOKEN: two-token-value, SHARED_SECRET: same-value}
`,
      ['api', 'worker-1'],
    );
    const doc = composeOf(result);
    expect(doc.services.api.environment.API_TOKEN).toBe('${API_API_TOKEN:?set API_API_TOKEN in /opt/shop/.env}');
    expect(doc.services['worker-1'].environment.API_TOKEN).toBe(
      '${WORKER_1_API_TOKEN:?set WORKER_1_API_TOKEN in /opt/shop/.env}',
    );
    expect(doc.services.api.environment.SHARED_SECRET).toBe('${SHARED_SECRET:?set SHARED_SECRET in /opt/shop/.env}');
    expect(result.secretEnv).toEqual({
      API_API_TOKEN: 'one-token-value',
      SHARED_SECRET: 'same-value',
      WORKER_1_API_TOKEN: 'two-token-value',
    });
  });

  test('every container port is published on every address of the VM, a host-bound one too (with a warning)', () => {
    const result = subset(
      `
services:
  web:
    image: nginx:1.25
    ports: ["8080:80", "443:443/tcp", "127.0.0.1:9000:9000", "53:53/udp"]
    expose: ["9113"]
  db:
    image: postgres:16
    expose: ["5432"]
`,
      ['db', 'web'],
    );
    const doc = composeOf(result);
    expect(doc.services.web.ports).toEqual([
      '53:53/udp',
      '8080:80/tcp',
      '443:443/tcp',
      '9000:9000/tcp',
      '9113:9113/tcp',
    ]);
    expect(doc.services.db.ports).toEqual(['5432:5432/tcp']);
    expect(result.ports).toEqual([
      { service: 'db', target: 5432, hostPort: 5432, protocol: 'tcp', origin: 'expose' },
      { service: 'web', target: 53, hostPort: 53, protocol: 'udp', origin: 'ports' },
      { service: 'web', target: 80, hostPort: 8080, protocol: 'tcp', origin: 'ports' },
      { service: 'web', target: 443, hostPort: 443, protocol: 'tcp', origin: 'ports' },
      { service: 'web', target: 9000, hostPort: 9000, protocol: 'tcp', origin: 'ports' },
      { service: 'web', target: 9113, hostPort: 9113, protocol: 'tcp', origin: 'expose' },
    ]);
    expect(result.warnings.map((w) => `${w.code} ${w.at.path}`)).toEqual(['local-only-port services.web.ports[2]']);
  });

  test('host networking publishes the container ports as they are', () => {
    const result = subset(
      `
services:
  agent:
    image: agent:1
    network_mode: host
    expose: ["9100"]
`,
      ['agent'],
    );
    expect(composeOf(result).services.agent).toEqual({ image: 'agent:1', network_mode: 'host' });
    expect(result.ports).toEqual([
      { service: 'agent', target: 9100, hostPort: 9100, protocol: 'tcp', origin: 'expose' },
    ]);
    expect(result.networks).toEqual([]);
  });

  test('a dependency outside the VM is dropped with a warning; one inside keeps its condition', () => {
    const result = subset(
      `
services:
  app:
    image: app:1
    depends_on:
      db: {condition: service_healthy}
      cache: {condition: service_started, required: false}
  cache:
    image: redis:7
  db:
    image: postgres:16
`,
      ['app', 'cache'],
    );
    expect(composeOf(result).services.app.depends_on).toEqual({
      cache: { condition: 'service_started', required: false },
    });
    expect(result.warnings.map((w) => w.code)).toEqual(['vm-dependency-outside']);
    expect(result.warnings[0].message).toBe(
      '"db" runs outside the VM: it is reached through its Service, and start order is not enforced',
    );
    const awaited = composeSubset(
      load(`
services:
  app: { image: app:1, depends_on: { db: { condition: service_healthy } } }
  db: { image: postgres:16 }
`),
      '/opt/shop',
      { ...OPTIONS, services: ['app'], awaited: { db: 'db:5432' } },
    );
    expect(awaited.warnings[0].message).toBe(
      '"db" runs outside the VM: it is reached through its Service, and the app\'s unit waits until ' +
        'db:5432 accepts connections before it starts the app',
    );
  });

  test('binds: files are written at their compose path, folders created, secret-bearing files left to the operator', () => {
    const result = subset(
      `
services:
  app:
    image: app:1
    volumes:
      - ./conf/app.ini:/etc/app/app.ini:ro
      - ./conf/creds.ini:/etc/app/creds.ini:ro
      - ./html:/usr/share/html
      - ./logs:/var/log/app
      - /var/run/docker.sock:/var/run/docker.sock
`,
      ['app'],
    );
    expect(composeOf(result).services.app.volumes).toEqual([
      './conf/app.ini:/etc/app/app.ini:ro',
      './conf/creds.ini:/etc/app/creds.ini:ro',
      './html:/usr/share/html',
      './logs:/var/log/app',
      '/var/run/docker.sock:/var/run/docker.sock',
    ]);
    expect(result.files).toEqual([{ path: 'conf/app.ini', text: '[server]\nport = 80\n', binary: false }]);
    expect(result.directories).toEqual(['html', 'logs']);
    expect(result.secretFiles['conf/creds.ini'].text).toBe('token = tok-1234567890\n');
    expect(result.operatorInputs).toEqual([
      { kind: 'file', name: 'conf/creds.ini', usedBy: ['services.app.volumes (services.app.volumes[1])'] },
    ]);
    expect(result.warnings.map((w) => w.code)).toEqual(['vm-bind-directory']);
  });

  test('the subset compose file is YAML that round-trips to the same services', () => {
    const result = subset(
      `
services:
  app:
    image: app:1
    command: ["sh", "-c", "echo $$HOME"]
    healthcheck:
      test: ["CMD-SHELL", "curl -f http://localhost/ || exit 1"]
      interval: 1m30s
      timeout: 500ms
    ulimits: {nofile: {soft: 1024, hard: 2048}, nproc: 512}
    extra_hosts: ["host.docker.internal:host-gateway"]
    stop_grace_period: 1m
    cap_add: [NET_ADMIN]
    tmpfs: [/run]
    deploy:
      resources:
        limits: {cpus: "0.5", memory: 512M}
        reservations:
          devices: [{capabilities: [gpu], driver: nvidia, count: 1}]
`,
      ['app'],
    );
    expect(composeOf(result).services.app).toEqual({
      image: 'app:1',
      command: ['sh', '-c', 'echo $$HOME'],
      volumes: [{ type: 'tmpfs', target: '/run' }],
      healthcheck: { test: ['CMD-SHELL', 'curl -f http://localhost/ || exit 1'], interval: '90s', timeout: '500ms' },
      cap_add: ['NET_ADMIN'],
      ulimits: { nofile: { soft: 1024, hard: 2048 }, nproc: 512 },
      extra_hosts: ['host.docker.internal:host-gateway'],
      stop_grace_period: '60s',
      deploy: {
        resources: {
          limits: { cpus: '0.5', memory: '512m' },
          reservations: { devices: [{ capabilities: ['gpu'], driver: 'nvidia', count: 1 }] },
        },
      },
    });
  });

  describe('fails when', () => {
    test('two services need the same VM port', () => {
      expect(() =>
        subset(
          `
services:
  a: {image: a:1, ports: ["80:80"]}
  b: {image: b:1, expose: ["80"]}
`,
          ['a', 'b'],
        ),
      ).toThrow(
        'compose.yaml: services.b.expose[0]: services.a.ports[0] and services.b.expose[0] both need port 80/tcp on the VM. ' +
          'Allowed: one service per VM port and protocol. Fix: publish one of them on another host port in the compose file, e.g. "8081:80".',
      );
    });

    test('a service joins the network of a service outside the VM', () => {
      expect(() =>
        subset(
          `
services:
  vpn: {image: vpn:1}
  app: {image: app:1, network_mode: "service:vpn"}
`,
          ['app'],
        ),
      ).toThrow(
        'network_mode "service:vpn" needs service "vpn" in the same VM. ' +
          'Allowed: a service that shares a network namespace runs in the same VM as the service it joins. Fix: add "vpn" to the golden image\'s services.',
      );
    });

    test('a service is not in the project', () => {
      expect(() => subset('services:\n  app: {image: app:1}\n', ['app', 'ghost'])).toThrow(
        'the golden image names services that the compose project does not have: "ghost". Allowed: "app". Fix: name services of the compose project.',
      );
    });
  });
});
