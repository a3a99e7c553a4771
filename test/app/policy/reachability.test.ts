import { Reachability, reachabilityEdges } from '../../../lib/app/policy/reachability';
import { wellKnownPorts } from '../../../lib/app/service/well-known-ports';
import { Manifest } from '../../support/problems';
import { modelOf, synthApp } from '../app-fixture';

const THREE = `
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    configs: [{source: nginx_conf, target: /etc/nginx/conf.d/default.conf}]
    environment:
      API_URL: http://api:8000/v1
  api:
    image: registry.example.com/api:1.0
  worker:
    image: registry.example.com/worker:1.0
configs:
  nginx_conf:
    content: |
      server { location / { proxy_pass http://worker:9000; } }
`;

const servicePorts = (docs: Manifest[], name: string) =>
  docs.find((d) => d.kind === 'Service' && d.metadata.name === name)?.spec.ports.map((p: any) => p.port);

describe('a 3-service app whose port-less services are reached from an env var and a config', () => {
  const { app, docs } = synthApp(THREE);

  test('api:8000 from API_URL and worker:9000 from proxy_pass each get a Service port', () => {
    expect(servicePorts(docs, 'api')).toEqual([8000]);
    expect(servicePorts(docs, 'worker')).toEqual([9000]);
  });

  test('the edges say who reaches whom on which port', () => {
    expect(app.reachability.edges()).toEqual([
      { client: 'web', server: 'api', port: 8000 },
      { client: 'web', server: 'worker', port: 9000 },
    ]);
    expect(reachabilityEdges(modelOf(THREE))).toEqual(app.reachability.edges());
  });

  test('each inferred port is reported with the key that names it', () => {
    expect(app.warnings.filter((w) => w.code === 'inferred-port').map((w) => w.message)).toEqual([
      'service "api" gets the Service port 8000, which compose does not declare: 8000: services.web.environment.API_URL reaches "api:8000"',
      'service "worker" gets the Service port 9000, which compose does not declare: 9000: config "nginx_conf" reaches "worker:9000"',
    ]);
  });

  test('an inferred port gets no readiness probe, and the NetworkPolicy admits web on it', () => {
    const api = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'api')!;
    expect(api.spec.template.spec.containers[0].readinessProbe).toBeUndefined();
    expect(api.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 8000, name: 'tcp-8000' }]);
    const policy = docs.find((d) => d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-api')!;
    expect(JSON.stringify(policy.spec.ingress)).toContain('"port":8000');
  });
});

describe('names other than the service name', () => {
  const text = `
services:
  app:
    image: registry.example.com/app:1.0
    environment:
      BROKER_URL: amqp://guest:guest@mq:5672/
    command: ["wait-for", "search:9200", "--", "app"]
  rabbit:
    image: rabbitmq:3.13
    networks: {default: {aliases: [mq]}}
  elastic:
    image: elasticsearch:8.15.0
    container_name: search
`;
  const { app, docs } = synthApp(text);

  test('an alias mq in an AMQP URI resolves: the env value names the Service, the port is the one it names', () => {
    const env = docs.find((d) => d.kind === 'Secret' && d.metadata.name === 'app-env')!;
    expect(Buffer.from(env.data.BROKER_URL, 'base64').toString()).toBe('amqp://guest:guest@rabbit:5672/');
    // The URI names 5672, so the image's other port (15672) is not added: nothing reaches it.
    expect(servicePorts(docs, 'rabbit')).toEqual([5672]);
  });

  test('a container_name used in a command gets its own Service with the same selector', () => {
    const alias = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'search')!;
    expect(alias.spec.selector).toEqual({ app: 'elastic' });
    expect(alias.spec.ports.map((p: any) => p.port)).toEqual([9200]);
    expect(app.aliasServices.search).toBeDefined();
  });
});

test('a service named as a host with no port to find is reported with the key and the fix', () => {
  const { app } = synthApp(`
services:
  app:
    image: registry.example.com/app:1.0
    environment:
      CACHE_HOST: cachy
  cachy:
    image: registry.example.com/cachy:1.0
`);
  expect(app.warnings.filter((w) => w.code === 'unreachable-service').map((w) => w.message)).toEqual([
    'services.app.environment.CACHE_HOST uses "cachy" as a host, but service "cachy" declares no port and none can be ' +
      'inferred, so the name does not resolve in Kubernetes: add the port it listens on to services.cachy.expose (expose: ["<port>"])',
  ]);
});

test('a *_HOST variable takes its port from the *_PORT sibling, a DSN from port=; networks scope names', () => {
  const reach = Reachability.of(
    modelOf(`
services:
  app:
    image: registry.example.com/app:1.0
    networks: [front]
    environment:
      DB_HOST: store
      DB_PORT: "7000"
      OTHER: http://hidden:81
      DSN: "host=pg port=6432 dbname=x"
  store:
    image: registry.example.com/store:1.0
    networks: [front]
  pg:
    image: registry.example.com/pg:1.0
    networks: [front]
  hidden:
    image: registry.example.com/hidden:1.0
    networks: [back]
networks:
  front: {}
  back: {}
`),
  );
  expect(reach.edges()).toEqual([
    { client: 'app', server: 'pg', port: 6432 },
    { client: 'app', server: 'store', port: 7000 },
  ]);
  expect(reach.inferredPorts('hidden')).toEqual([]);
});

test('well-known images: the repository is read through registries, tags and digests', () => {
  expect(wellKnownPorts('docker.io/library/postgres:16@sha256:abc')).toEqual([5432]);
  expect(wellKnownPorts('mcr.microsoft.com/mssql/server:2022-latest')).toEqual([1433]);
  expect(wellKnownPorts('postgres:16')).toEqual([5432]);
  expect(wellKnownPorts('docker.elastic.co/elasticsearch/elasticsearch:8.15.0')).toEqual([9200, 9300]);
  expect(wellKnownPorts('registry.example.com/app:1.0')).toEqual([]);
});

test('image references are not host:port: image: redis:7, FROM postgres:16.4, redis:7-alpine', () => {
  const reach = Reachability.of(
    modelOf(`
services:
  app:
    image: registry.example.com/app:1.0
    configs: [{source: build, target: /etc/build.txt}]
  redis:
    image: registry.example.com/redis:1.0
  postgres:
    image: registry.example.com/postgres:1.0
configs:
  build:
    content: |
      image: redis:7
      FROM postgres:16.4
      cache redis:7-alpine
      the real one: redis:6380
`),
  );
  expect(reach.edges()).toEqual([{ client: 'app', server: 'redis', port: 6380 }]);
});

test('a bare name is a host only in a variable that says so', () => {
  const reach = Reachability.of(
    modelOf(`
services:
  app:
    image: registry.example.com/app:1.0
    environment:
      POSTGRES_USER: worker
      QUEUE_HOST: worker
  worker:
    image: registry.example.com/worker:1.0
`),
  );
  expect(reach.references.map((r) => r.what)).toEqual(['services.app.environment.QUEUE_HOST']);
});

test("a port the project names wins over the image's default: no wait on a port nothing listens on", () => {
  const { docs } = synthApp(`
services:
  app:
    image: registry.example.com/app:1.0
    environment: { CACHE_URL: "redis://cache:6380/0" }
    depends_on: [cache]
  cache:
    image: registry.example.com/tools/redis:7
    command: ["redis-server", "--port", "6380"]
  queue:
    image: rabbitmq:3.13
`);
  expect(servicePorts(docs, 'cache')).toEqual([6380]);
  expect(servicePorts(docs, 'queue')).toEqual([5672, 15672]);
  const app = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'app')!;
  expect(JSON.stringify(app.spec.template.spec.initContainers)).toContain('cache 6380');
});

describe('the user of a URL is not a host', () => {
  test('postgres://reports:pw@database names database, even when a service is called reports', () => {
    const model = modelOf(`
services:
  reports:
    image: registry.example.com/reports:1
    environment:
      DATABASE_URL: postgres://reports:s3cret@database:5432/shop
      REPLICA_URL: postgres://reports@replica/shop
  db:
    image: postgres:16
    networks: { default: { aliases: [database, replica] } }
`);
    const reachability = Reachability.of(model);
    expect(reachability.references.map((r) => `${r.client}->${r.name}:${r.port}`)).toEqual([
      'reports->database:5432',
      'reports->replica:5432',
    ]);
    expect(reachability.inferredPorts('reports')).toEqual([]);
  });
});
