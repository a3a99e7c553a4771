import * as fs from 'fs';
import * as path from 'path';
import { findDoc } from '../support/yaml-docs';
import { CliRun, expectBuilt, inParallel, manifestDocs, removeTempDirs, runCli, tempDir } from './run-cli';

/** `convert --external SERVICE=HOST[:PORT]` and `--external-cidr`: a managed endpoint in place of a service. */

const COMPOSE = `services:
  web:
    image: shop/web:1
    ports: ["8080:8080"]
    environment:
      DATABASE_URL: postgres://shop:hunter2@db:5432/shop
    depends_on: [db]
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: hunter2
    volumes: [data:/var/lib/postgresql/data]
volumes:
  data: {}
`;

const runs: Record<string, CliRun> = {};
const dirs: Record<string, string> = {};

beforeAll(async () => {
  expectBuilt();
  const tasks: [string, string[]][] = [
    ['ip', ['convert', '-o', 'k8s', '--external', 'db=10.1.2.3:6543']],
    ['host', ['convert', '-o', 'k8s', '--external', 'db=db.example.com', '--external-cidr', 'db=10.9.0.0/16']],
    ['verify', ['verify', '--external', 'db=10.1.2.3:6543']],
    ['unknown', ['convert', '--stdout', '--external', 'cache=10.1.2.3']],
    ['cidr-alone', ['convert', '--stdout', '--external-cidr', 'db=10.9.0.0/16']],
  ];
  await inParallel(tasks, 2, async ([name, args]) => {
    dirs[name] = tempDir('external');
    fs.writeFileSync(path.join(dirs[name], 'compose.yaml'), COMPOSE);
    runs[name] = await runCli(args, { cwd: dirs[name] });
  });
}, 90_000);

afterAll(removeTempDirs);

test('an IP: the Service db and its EndpointSlice; no workload, claim, backup or wait for db', () => {
  expect(runs.ip.code).toBe(0);
  const docs = manifestDocs(path.join(dirs.ip, 'k8s'));
  expect(findDoc(docs, 'Service', 'db').spec.ports).toEqual([
    { name: 'tcp-5432', port: 5432, protocol: 'TCP', targetPort: 6543 },
  ]);
  expect(findDoc(docs, 'EndpointSlice', 'db-external').endpoints[0].addresses).toEqual(['10.1.2.3']);
  expect(
    docs.filter((d) => /^(db|data)/.test(d.metadata.name) && d.kind !== 'Service' && d.kind !== 'EndpointSlice'),
  ).toEqual([]);
  expect(findDoc(docs, 'Deployment', 'web').spec.template.spec.initContainers).toBeUndefined();
  const runbook = fs.readFileSync(path.join(dirs.ip, 'k8s', 'RUNBOOK.md'), 'utf8');
  expect(runbook).toContain('**Managed services in place of compose services** (1).');
  expect(runbook).toContain("Put the endpoint's credentials into web.DATABASE_URL");
  expect(runbook).not.toContain('hunter2');
});

test('a host name: an ExternalName Service, and the egress to --external-cidr', () => {
  expect(runs.host.code).toBe(0);
  const docs = manifestDocs(path.join(dirs.host, 'k8s'));
  expect(findDoc(docs, 'Service', 'db').spec).toMatchObject({ type: 'ExternalName', externalName: 'db.example.com' });
  expect(findDoc(docs, 'NetworkPolicy', 'allow-web').spec.egress).toContainEqual({
    ports: [{ port: 5432, protocol: 'TCP' }],
    to: [{ ipBlock: { cidr: '10.9.0.0/16' } }],
  });
});

test('verify: the reference to db holds through the external endpoint', () => {
  expect(runs.verify.code).toBe(0);
  expect(runs.verify.stdout).toMatch(
    /reach +ok +db:5432 → db .*Service "db" port 5432 → external endpoint 10\.1\.2\.3:6543/,
  );
});

test('usage errors: an unknown service, and --external-cidr without --external', () => {
  expect(runs.unknown.code).toBe(2);
  expect(runs.unknown.stderr).toContain('--external cache=…: the project has no service "cache"');
  expect(runs['cidr-alone'].code).toBe(2);
  expect(runs['cidr-alone'].stderr).toContain(
    '--external-cidr db=…: "db" is not external; give --external db=HOST[:PORT] too',
  );
});
