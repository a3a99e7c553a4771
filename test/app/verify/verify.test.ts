import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../../lib/app/compose-app';
import {
  VerifyCheck,
  VerifyReport,
  VerifyStatus,
  verifyManifests,
  verifySummary,
} from '../../../lib/app/verify/verify';
import { isComposeError } from '../../../lib/compose/errors';
import { loadComposeFromString } from '../../../lib/compose/load';
import { Manifest } from '../../support/problems';
import { readmeCount } from '../../support/readme';
import { SHARED_DIR } from '../../support/shared';
import { findDoc } from '../../support/yaml-docs';
import { HYBRID, HYBRID_PROPS, synthApp } from '../app-fixture';

const broken = (report: VerifyReport) =>
  report.expectations
    .filter((e) => e.status === VerifyStatus.BROKEN)
    .map((e) => `${e.service} ${e.check} ${e.subject}: ${e.detail}`);

const THREE = `
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    configs: [{source: nginx_conf, target: /etc/nginx/conf.d/default.conf}]
    environment:
      API_URL: http://api:8000/v1
      FOO: ""
    depends_on: [api]
  api:
    image: registry.example.com/api:1.0
    environment:
      BROKER: amqp://guest:guest@mq:5672/
  worker:
    image: registry.example.com/worker:1.0
  rabbit:
    image: rabbitmq:3.13
    networks: {default: {aliases: [mq]}}
configs:
  nginx_conf:
    content: |
      server { location / { proxy_pass http://worker:9000; } }
`;

describe("the issue's 3-service app", () => {
  const { app, docs } = synthApp(THREE);
  const report = app.verify();

  test('no expectation is broken, and the references, env, files and waits are all checked', () => {
    expect(broken(report)).toEqual([]);
    const subjects = report.expectations.map((e) => `${e.service} ${e.check} ${e.subject} ${e.status}`);
    expect(subjects).toEqual(
      expect.arrayContaining([
        'web reach api:8000 → api (services.web.environment.API_URL) ok',
        'web reach worker:9000 → worker (config "nginx_conf") ok',
        'api reach mq:5672 → rabbit (services.api.environment.BROKER) ok',
        'web env FOO ok',
        'web file /etc/nginx/conf.d/default.conf (config nginx_conf) ok',
        'web depends_on api (service_started) ok',
        'web network shared networks: api, rabbit, worker ok',
      ]),
    );
    expect(verifySummary(report)).toBe(
      `verify: ${report.expectations.length} expectations: ${report.ok} hold, 0 reported, 0 broken`,
    );
  });

  test('the method and the function agree', () => {
    expect(verifyManifests(app, docs)).toEqual(report);
  });

  // Each mutation breaks one promise; verify must see it.
  const mutated = (change: (docs: Manifest[]) => void): string[] => {
    const copy: Manifest[] = JSON.parse(JSON.stringify(docs));
    change(copy);
    return broken(verifyManifests(app, copy));
  };
  const find = (d: Manifest[], kind: string, name: string) =>
    d.find((x) => x.kind === kind && x.metadata.name === name)!;

  test('fails when a Service is missing or lacks the port', () => {
    expect(mutated((d) => d.splice(d.indexOf(find(d, 'Service', 'worker')), 1))).toEqual([
      'web reach worker:9000 → worker (config "nginx_conf"): no Service "worker" selects the pods of "worker"',
    ]);
    expect(
      mutated((d) => {
        find(d, 'Service', 'api').spec.ports[0].port = 8001;
      }),
    ).toEqual([
      'web reach api:8000 → api (services.web.environment.API_URL): the Service "api" has no port 8000: it has 8001',
    ]);
  });

  test('fails when no NetworkPolicy admits the client', () => {
    const errors = mutated((d) => {
      find(d, 'NetworkPolicy', 'allow-api').spec.ingress = [];
    });
    expect(errors).toContain(
      'web reach api:8000 → api (services.web.environment.API_URL): Service "api" port 8000, but no NetworkPolicy admits "web" into "api" on port 8000',
    );
    expect(errors).toContain(
      'web network shared networks: api, rabbit, worker: api:8000 not admitted on a shared network',
    );
  });

  test("fails when the client's egress shuts a pair, or a pair without a shared network is admitted", () => {
    // The egress side: web may no longer go out to anyone; the ingress side of every server still lets it in.
    expect(
      mutated((d) => {
        find(d, 'NetworkPolicy', 'allow-web').spec.egress = [];
      }).filter((e) => e.startsWith('web network')),
    ).toEqual([
      'web network shared networks: api, rabbit, worker: api:8000 not admitted on a shared network; rabbit:5672 not admitted on a shared network; worker:9000 not admitted on a shared network',
    ]);
    // rabbit alone on its own network: the others no longer share one with it, yet every policy lets them through.
    const isolated = synthApp(
      `${THREE.replace('networks: {default: {aliases: [mq]}}', 'networks: [back]')}networks:\n  back: {}\n`,
    );
    const open: Manifest[] = JSON.parse(JSON.stringify(isolated.docs));
    for (const policy of open.filter((x) => x.kind === 'NetworkPolicy')) {
      policy.spec.ingress = [{}];
      policy.spec.egress = [{}];
    }
    const isolation = broken(verifyManifests(isolated.app, open)).filter((e) => e.includes(' no shared network'));
    expect(isolation).toEqual([
      'api network no shared network: rabbit: rabbit:5672,15672 admitted without a shared network',
      'rabbit network no shared network: api, web, worker: api:8000 admitted without a shared network; web:80 admitted without a shared network; worker:9000 admitted without a shared network',
      'web network no shared network: rabbit: rabbit:5672,15672 admitted without a shared network',
      'worker network no shared network: rabbit: rabbit:5672,15672 admitted without a shared network',
    ]);
  });

  test('fails when an env value differs or its key is missing', () => {
    expect(
      mutated((d) => {
        find(d, 'ConfigMap', 'web-env').data.API_URL = 'http://elsewhere:8000/v1';
      }),
    ).toEqual(["web env API_URL: differs from compose's value (from a ConfigMap)"]);
    expect(
      mutated((d) => {
        delete find(d, 'ConfigMap', 'web-env').data.API_URL;
      }),
    ).toEqual(['web env API_URL: the ConfigMap "web-env" has no key "API_URL"']);
  });

  test("fails when a file's bytes differ, or a wait is missing", () => {
    expect(
      mutated((d) => {
        find(d, 'ConfigMap', 'nginx-conf').data.nginx_conf = 'changed';
      }),
    ).toEqual(['web file /etc/nginx/conf.d/default.conf (config nginx_conf): the mounted bytes differ from the file']);
    expect(
      mutated((d) => {
        find(d, 'Deployment', 'web').spec.template.spec.initContainers = [];
      }),
    ).toEqual(['web depends_on api (service_started): no init container wait-for-api']);
  });
});

test("network_mode: service: shares the partner's networks; isolation between networks holds", () => {
  const { app } = synthApp(`
services:
  vpn:
    image: registry.example.com/vpn:1.0
    networks: [front]
    expose: ["1194"]
  client:
    image: registry.example.com/client:1.0
    network_mode: "service:vpn"
  db:
    image: postgres:16
    networks: [back]
networks:
  front: {}
  back: {}
`);
  const report = app.verify();
  expect(broken(report)).toEqual([]);
  expect(
    report.expectations
      .filter((e) => e.check === VerifyCheck.NETWORK)
      .map((e) => `${e.service} ${e.subject} ${e.status}`),
  ).toEqual(
    expect.arrayContaining([
      'vpn no shared network: db ok',
      'client no shared network: db ok',
      'db no shared network: vpn ok',
    ]),
  );
});

test('redis with replicas: 6 and a custom command, a password in command and healthcheck, a certificates directory', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'verify-'));
  try {
    fs.mkdirSync(path.join(dir, 'certs'));
    fs.writeFileSync(path.join(dir, 'certs', 'tls.crt'), 'cert\n');
    fs.writeFileSync(path.join(dir, 'certs', 'tls.key'), Buffer.from([0, 1, 2, 3]));
    const text = `
services:
  app:
    image: registry.example.com/app:1.0
    environment:
      REDIS_URL: redis://:s3cret-pass@cache:6380/0
    volumes: ["./certs:/etc/certs:ro"]
  cache:
    image: redis:7.4
    command: ["redis-server", "--port", "6380", "--requirepass", "s3cret-pass"]
    deploy: { replicas: 6 }
    healthcheck:
      test: ["CMD", "redis-cli", "-p", "6380", "-a", "s3cret-pass", "ping"]
`;
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', {
      model: loadComposeFromString(text, { env: {}, projectDir: dir, projectName: 'test' }).model,
    });
    const report = app.verify();
    expect(broken(report)).toEqual([]);
    expect(
      report.expectations.filter((e) => e.check === VerifyCheck.FILE).map((e) => `${e.subject} ${e.status}`),
    ).toEqual(['/etc/certs/tls.crt (bind ./certs/tls.crt) ok', '/etc/certs/tls.key (bind ./certs/tls.key) ok']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** The peers' compose files: kompose's fixtures and compose-go's test files. */
const PEERS = path.join(SHARED_DIR, 'peers');
const walk = (d: string): string[] =>
  fs
    .readdirSync(d, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
const PEER_FILES = fs.existsSync(PEERS)
  ? [
      ...walk(path.join(PEERS, 'kompose', 'script', 'test', 'fixtures')).filter((f) =>
        /compose[^/]*\.ya?ml$/.test(path.basename(f)),
      ),
      ...walk(path.join(PEERS, 'compose-go')).filter((f) => /\.ya?ml$/.test(f) && /compose/i.test(path.basename(f))),
    ]
      .map((f) => path.relative(PEERS, f))
      .sort()
  : [];

if (PEER_FILES.length === 0) {
  test.skip(`the peers' compose files: ${PEERS} is absent (the shared folder is not beside the project)`, () =>
    undefined);
} else {
  describe.each(PEER_FILES)('peer file %s', (file) => {
    test('verify finds no broken expectation when it converts', () => {
      let report: VerifyReport | undefined;
      try {
        const app = new ComposeApp(new Chart(Testing.app(), 'peer'), 'app', {
          composeFile: path.basename(file),
          loadOptions: { workingDir: path.join(PEERS, path.dirname(file)), env: {} },
        });
        report = app.verify();
      } catch (err) {
        // A file the loader or the app refuses converts to nothing; its message is tested elsewhere.
        expect(isComposeError(err) || String(err).includes('Validation failed')).toBe(true);
        return;
      }
      expect(broken(report)).toEqual([]);
    });
  });

  test('most kompose fixtures convert, and verify checks them; the README states how many', () => {
    let converted = 0;
    let expectations = 0;
    for (const file of PEER_FILES) {
      try {
        expectations += new ComposeApp(new Chart(Testing.app(), 'peer'), 'app', {
          composeFile: path.basename(file),
          loadOptions: { workingDir: path.join(PEERS, path.dirname(file)), env: {} },
        }).verify().expectations.length;
        converted++;
      } catch {
        // counted as not converting
      }
    }
    expect(converted).toBeGreaterThanOrEqual(70);
    expect([readmeCount('peer compose files that convert'), readmeCount('expectations in them')]).toEqual([
      converted,
      expectations,
    ]);
  });
}

describe('verify across the split: containers → VM services and VM services → container Services', () => {
  // The web front end reaches the agent in the VM, and the agent reaches the database, a pod.
  const { app, docs } = synthApp(HYBRID, HYBRID_PROPS);
  const reach = (report: VerifyReport) =>
    report.expectations
      .filter((e) => e.check === VerifyCheck.REACH)
      .map((e) => `${e.service}: ${e.subject}: ${e.status}: ${e.detail}`);
  const edited = (edit: (doc: Manifest) => Manifest) =>
    verifyManifests(
      app,
      docs.map((d) => edit(structuredClone(d))),
    );

  test('both directions are checked, and hold', () => {
    expect(reach(app.verify())).toEqual([
      'agent: db:5432 → db (services.agent.environment.DATABASE_URL): ok: Service "db" port 5432',
      'reports: web:80 → web (services.reports.environment.WEB): ok: Service "web" port 80',
      'web: agent:9001 → agent (services.web.environment.AGENT_URL): ok: Service "agent" port 9001',
    ]);
    expect(findDoc(docs, 'Service', 'agent').spec).toMatchObject({
      selector: { 'kubevirt.io/vm': 'hub-vm' },
      ports: [{ name: 'tcp-9001', port: 9001, targetPort: 9001 }],
      type: 'ClusterIP',
    });
  });

  test('a Service port the VM does not publish is broken', () => {
    const report = edited((d) => {
      if (d.kind === 'Service' && d.metadata.name === 'agent') {
        d.spec.ports[0].targetPort = 9002;
      }
      return d;
    });
    expect(broken(report)).toEqual([
      'web reach agent:9001 → agent (services.web.environment.AGENT_URL): Service "agent" port 9001, but the VM\'s ' +
        'compose file does not publish "agent" port 9001 on port 9002 of the VM\'s address (it publishes ' +
        '9001:9001/tcp), so the pod network reaches nothing there',
    ]);
  });

  test('a Service that does not select the VM is broken', () => {
    const report = edited((d) => {
      if (d.kind === 'Service' && d.metadata.name === 'agent') {
        d.spec.selector = { 'kubevirt.io/vm': 'other-vm' };
      }
      return d;
    });
    expect(broken(report)).toEqual([
      'web reach agent:9001 → agent (services.web.environment.AGENT_URL): no Service "agent" selects the pods of "agent"',
    ]);
  });

  test("the VM's egress closed to the database is broken", () => {
    const report = edited((d) =>
      d.kind === 'NetworkPolicy' && d.metadata.name === 'allow-hub-vm' ? { ...d, spec: { ...d.spec, egress: [] } } : d,
    );
    expect(broken(report)).toEqual([
      expect.stringMatching(
        /^agent reach db:5432 → db \(services\.agent\.environment\.DATABASE_URL\): Service "db" port 5432, but /,
      ),
    ]);
  });
});
