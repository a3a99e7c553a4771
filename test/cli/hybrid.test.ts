import * as fs from 'fs';
import * as path from 'path';
import { parseYamlDocs } from '../support/yaml-docs';
import { waitsOnLaterWaves, waveWaits } from '../support/wave-waits';
import {
  CORPUS,
  CliRun,
  ROOT,
  copyFolder,
  expectBuilt,
  inParallel,
  manifestDocs,
  removeTempDirs,
  runCli,
  tempDir,
} from './run-cli';

/**
 * `--target auto` on the apps of the issue: a mail suite (mailcow), a container manager (portainer), an SSO server
 * (authentik), a media server on the host network (plex) and a VPN (wireguard). Every reference across the split resolves by `verify`,
 * and no wait (init container, the VM's unit, Flux's dependsOn and health checks) points at a later sync wave.
 */

const IMAGES = 'https://images.example.com/vm';
const APPS: Record<string, string> = {
  mailcow: path.join(CORPUS, 'mailcow'),
  portainer: path.join(CORPUS, 'portainer'),
  plex: path.join(CORPUS, 'plex'),
  wireguard: path.join(CORPUS, 'wireguard'),
  authentik: path.join(ROOT, 'test', 'fixtures', 'hybrid', 'authentik'),
};
const AUTO = ['--target', 'auto', '--image-base-url', IMAGES];
// gitops/ (whose Flux Kustomizations the wave walk reads) is written only for a named repository.
const GITOPS = ['--gitops-repo', 'https://git.example.com/apps.git', '--gitops-path', 'k8s'];

const runs: Record<string, { convert: CliRun; verify: CliRun; dir: string }> = {};

beforeAll(async () => {
  expectBuilt();
  const into = tempDir('hybrid');
  await inParallel(Object.entries(APPS), 2, async ([name, from]) => {
    const dir = copyFolder(from, into, name);
    const convert = await runCli(['convert', ...AUTO, ...GITOPS, '-o', 'k8s'], { cwd: dir, timeoutMs: 120_000 });
    const verify = await runCli(['verify', ...AUTO, '--json'], { cwd: dir, timeoutMs: 120_000 });
    runs[name] = { convert, verify, dir };
  });
}, 300_000);

afterAll(removeTempDirs);

/** The VM units of the golden-image bundles, with their VM's name (the bundle's folder). */
function units(out: string): { vm: string; text: string }[] {
  const root = path.join(out, 'golden-image');
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      fs
        .readdirSync(path.join(root, d.name, 'systemd'))
        .map((file) => ({ vm: d.name, text: fs.readFileSync(path.join(root, d.name, 'systemd', file), 'utf-8') })),
    );
}

describe.each(Object.keys(APPS))('%s with --target auto', (name) => {
  const run = () => runs[name];
  const out = () => path.join(run().dir, 'k8s');

  test('converts and verifies with nothing broken', () => {
    expect(run().convert.stderr).not.toMatch(/^error/m);
    expect(run().convert.code).toBe(0);
    expect(run().verify.code).toBe(0);
    const report = JSON.parse(run().verify.stdout);
    expect(report.expectations.filter((e: any) => e.status === 'broken')).toEqual([]);
  });

  test('no wait points at a later wave', () => {
    const flux = parseYamlDocs(
      fs.readFileSync(path.join(out(), 'gitops', 'flux-kustomizations.yaml'), 'utf-8'),
      'flux-kustomizations.yaml',
    );
    const waits = waveWaits(manifestDocs(out()), units(out()), flux);
    expect(waits.length).toBeGreaterThan(0);
    expect(waitsOnLaterWaves(waits)).toEqual([]);
  });
});

test('authentik: the server moves with the worker, which drives the Docker engine; both reach the database and cache across the split', () => {
  const report = JSON.parse(runs.authentik.verify.stdout);
  const reach = report.expectations
    .filter((e: any) => e.check === 'reach')
    .map((e: any) => `${e.service}: ${e.subject}: ${e.status}`);
  expect(reach).toEqual([
    'server: postgresql → postgresql (services.server.environment.AUTHENTIK_POSTGRESQL__HOST): ok',
    'server: redis → redis (services.server.environment.AUTHENTIK_REDIS__HOST): ok',
    'worker: postgresql → postgresql (services.worker.environment.AUTHENTIK_POSTGRESQL__HOST): ok',
    'worker: redis → redis (services.worker.environment.AUTHENTIK_REDIS__HOST): ok',
  ]);
  const runbook = fs.readFileSync(path.join(runs.authentik.dir, 'k8s', 'RUNBOOK.md'), 'utf-8');
  expect(runbook).toContain(
    '- server: services.server.volumes: shares the bind "./custom-templates" with "worker", which runs in the VM: a ' +
      'VM and a pod cannot share one store, so they move together\n',
  );
  expect(runbook).toContain(
    '- worker: services.worker.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker ' +
      'engine, which a pod does not have\n',
  );
  expect(runbook).toContain(
    '- services.worker: service "worker" mounts the Docker socket, and in the VM it sees only the VM\'s own engine: ' +
      'the containers of server, worker, none of the 2 services that run as pods (postgresql, redis); what it does to ' +
      'containers (logs, scheduled jobs, restarts) does not reach those\n',
  );
  // One store, on one side: the bind directories are the VM's, and no claim or emptyDir stands in for them.
  const docs = manifestDocs(path.join(runs.authentik.dir, 'k8s'));
  expect(docs.filter((d) => d.kind === 'Deployment').map((d) => d.metadata.name)).toEqual(['postgresql', 'redis']);
});

test('mailcow: its cache stays a pod; the containers that wait for the VM come after it', () => {
  const docs = manifestDocs(path.join(runs.mailcow.dir, 'k8s'));
  const wave = (kind: string, name: string) =>
    docs.find((d) => d.kind === kind && d.metadata.name === name)?.metadata.annotations['argocd.argoproj.io/sync-wave'];
  expect(wave('Deployment', 'redis-mailcow')).toBe('4');
  expect(wave('VirtualMachine', 'mailcow-vm')).toBe('3');
  expect(wave('Deployment', 'unbound-mailcow')).toBe('2');
  const runbook = fs.readFileSync(path.join(runs.mailcow.dir, 'k8s', 'RUNBOOK.md'), 'utf-8');
  expect(runbook).toContain('  subgraph wave_4_after_vm ["4-after-vm"]\n');
  expect(runbook).toContain('Apply the services that wait for the VM:\n\n   ```sh\n   kubectl apply -f 4-after-vm/\n');
  expect(runs.mailcow.convert.stderr).toContain(
    'services.ofelia-mailcow.depends_on[1]: "dovecot-mailcow" waits for a service in the VM',
  );
});

describe('docs/vm.md, "Hybrid apps": the example is what it says', () => {
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'vm.md'), 'utf-8');
  const start = guide.indexOf('## Hybrid apps: containers and a VM');
  const end = guide.indexOf('\n## ', start + 1);
  const doc = guide.slice(start, end < 0 ? undefined : end);
  const fence = (lang: string) => {
    const found = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(doc);
    if (!found) {
      throw new Error(`docs/vm.md's "Hybrid apps" section has no ${lang} block`);
    }
    return found[1];
  };
  const ran: { dir: string; commands: CliRun[]; json?: CliRun } = { dir: '', commands: [] };

  beforeAll(async () => {
    ran.dir = path.join(tempDir('hybrid-doc'), 'hub');
    fs.mkdirSync(ran.dir);
    fs.writeFileSync(path.join(ran.dir, 'compose.yaml'), fence('yaml'));
    for (const line of fence('sh').trim().split('\n')) {
      const [bin, ...args] = line.split(' ');
      expect(bin).toBe('cdk8s-compose');
      ran.commands.push(await runCli(args, { cwd: ran.dir, timeoutMs: 120_000 }));
    }
    ran.json = await runCli(['verify', ...AUTO, '--json'], { cwd: ran.dir, timeoutMs: 120_000 });
  }, 300_000);

  test('its commands succeed, and verify reports the references it lists', () => {
    expect(ran.commands.map((r) => r.code)).toEqual([0, 0]);
    const reach = JSON.parse(ran.json!.stdout)
      .expectations.filter((e: any) => e.check === 'reach')
      .map((e: any) => `${e.service}: ${e.subject}: ${e.status}`);
    expect(reach).toEqual(fence('text').trim().split('\n'));
  });

  test('the agent is in the VM behind its Service on 9001, and the waves are those it names', () => {
    const out = path.join(ran.dir, 'k8s');
    expect(fs.readdirSync(out).filter((f) => /^\d-/.test(f))).toEqual([
      '0-namespace',
      '1-stateful',
      '3-vm',
      '4-after-vm',
    ]);
    const service = manifestDocs(out).find((d) => d.kind === 'Service' && d.metadata.name === 'agent')!;
    expect(service.spec.ports).toEqual([{ name: 'tcp-9001', port: 9001, targetPort: 9001 }]);
    expect(doc).toContain('its Service `agent` has port 9001 with targetPort 9001');
    const compose = fs.readFileSync(path.join(out, 'golden-image', 'hub-vm', 'app', 'compose.yaml'), 'utf-8');
    expect(compose).toContain('- 9001:9001/tcp');
  });
});
