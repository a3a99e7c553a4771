import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseDotenv } from '../../lib/compose/dotenv';
import { findDoc } from '../support/yaml-docs';
import { CORPUS, CliRun, expectBuilt, listFiles, manifestFiles, removeTempDirs, runCli, tempDir } from './run-cli';

/**
 * The guest side of a hybrid app, on the mail suite (mailcow) with `--target auto`: no secret in the golden image,
 * a rotation that reaches the guest through the VM's Secret and leaves the image as it was, the data disk in the
 * storage class, and the operator's VM (probe, masquerade, eviction, CPU, SSH key) with the runbook to run it.
 */

const IMAGES = 'https://images.example.com/vm';
const CANARY = {
  DBPASS: 'canary-dbpass-1f2e3d',
  DBROOT: 'canary-dbroot-4a5b6c',
  REDISPASS: 'canary-redis-7d8e9f',
};
const ROTATED = 'canary-redis-rotated-0b1c2d';
const FLAGS = [
  'convert',
  '--target',
  'auto',
  '--image-base-url',
  IMAGES,
  '--storage-class-name',
  'fast',
  '--vm-data-size',
  '50Gi',
  '--vm-ssh-key-secret',
  'ops-keys',
];

function dotenv(values: Record<string, string>): string {
  return Object.entries({ MAILCOW_HOSTNAME: 'mail.example.com', TZ: 'Europe/Berlin', ...values })
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

let project: string;
const runs: Record<string, CliRun> = {};

beforeAll(async () => {
  expectBuilt();
  project = path.join(tempDir('vm-guest'), 'mail');
  fs.mkdirSync(project);
  fs.copyFileSync(path.join(CORPUS, 'mailcow', 'compose.yaml'), path.join(project, 'compose.yaml'));
  // redis moves for a sysctl no more (a weak reason on a cache); pinned to the VM here, it brings its named volume and
  // its local-only port, which the data disk and the listening rule are about.
  fs.writeFileSync(
    path.join(project, 'compose.override.yaml'),
    'services:\n  redis-mailcow:\n    x-cdk8s-compose:\n      target: vm\n',
  );
  fs.writeFileSync(path.join(project, '.env'), `${dotenv(CANARY)}\n`);
  runs.first = await runCli([...FLAGS, '-o', 'first'], { cwd: project });
  // The rotation: a new REDISPASS in .env, converted again.
  fs.writeFileSync(path.join(project, '.env'), `${dotenv({ ...CANARY, REDISPASS: ROTATED })}\n`);
  runs.rotated = await runCli([...FLAGS, '-o', 'rotated'], { cwd: project });
}, 120_000);

afterAll(removeTempDirs);

const out = (name: string) => path.join(project, name);
const docsOf = (name: string) => manifestFiles(out(name)).flatMap((f) => f.docs);
const bundleOf = (name: string): Record<string, string> => {
  const dir = path.join(out(name), 'golden-image', 'mail-vm');
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf-8')]));
};

/**
 * What the guest's unit writes into the app folder at a start: the VM's Secret as KubeVirt presents it (one file per
 * key), read by the bundle's load-secrets script, run with bash on a copy of that disk.
 */
function guestEnv(name: string, appDir: string): Record<string, string> {
  const secret = findDoc(docsOf(name), 'Secret', 'mail-vm-app-secrets');
  const disk = tempDir('secret-disk');
  for (const [key, value] of Object.entries(secret.data as Record<string, string>)) {
    fs.writeFileSync(path.join(disk, key), Buffer.from(value, 'base64'));
  }
  const script = path.join(out(name), 'golden-image', 'mail-vm', 'scripts', 'load-secrets.sh');
  execFileSync('bash', [script, disk, appDir]);
  const text = fs.readFileSync(path.join(appDir, '.env'), 'utf-8');
  return Object.fromEntries(parseDotenv(text, '.env', () => undefined).map((e) => [e.name, e.value ?? '']));
}

test('the conversions succeed', () => {
  expect(runs.first.code).toBe(0);
  expect(runs.rotated.code).toBe(0);
});

test('a canary secret in .env appears nowhere in golden-image/, nor in the runbook: only in Secrets', () => {
  const canaries = [...Object.values(CANARY), ROTATED];
  for (const name of ['first', 'rotated']) {
    const leaks: string[] = [];
    for (const file of listFiles(out(name))) {
      const text = fs.readFileSync(path.join(out(name), file), 'utf-8');
      if (canaries.some((c) => text.includes(c)) && !/-secret\.yaml$/.test(file)) {
        leaks.push(file);
      }
    }
    expect(leaks).toEqual([]);
  }
  // The bundle's compose file keeps compose's own references, whatever the variables are called.
  const compose = bundleOf('first')['app/compose.yaml'];
  expect(compose).toContain('      REDISPASS: ${REDISPASS}\n');
  expect(compose).toContain('      DBROOT: ${DBROOT}\n');
  expect(compose).toContain('      TZ: ${TZ}\n');
});

test("a rotation reaches the guest's inputs through the VM's Secret, and the golden image stays as it was", () => {
  const first = guestEnv('first', tempDir('app'));
  expect(first).toMatchObject({ REDISPASS: CANARY.REDISPASS, DBROOT: CANARY.DBROOT, TZ: 'Europe/Berlin' });
  // The same guest, restarted on the rotated Secret: the unit writes the new .env over the old one.
  const app = tempDir('app');
  guestEnv('first', app);
  expect(guestEnv('rotated', app)).toMatchObject({ REDISPASS: ROTATED, DBROOT: CANARY.DBROOT });
  expect(bundleOf('rotated')).toEqual(bundleOf('first'));
  // The VM reads the Secret as a disk, found by its serial, at every start.
  const vm = findDoc(docsOf('first'), 'VirtualMachine', 'mail-vm').spec.template.spec;
  expect(vm.domain.devices.disks).toContainEqual({
    name: 'appsecrets',
    disk: { bus: 'virtio' },
    serial: 'app-secrets',
  });
  expect(vm.volumes).toContainEqual({ name: 'appsecrets', secret: { secretName: 'mail-vm-app-secrets' } });
  expect(bundleOf('first')['systemd/mail-vm.service']).toContain(
    'ExecStartPre=/bin/bash /usr/local/lib/cdk8s-compose/mail-vm-load-secrets.sh\n',
  );
  // The runbook's rotation restarts the VM for its Secret.
  const runbook = fs.readFileSync(path.join(out('first'), 'RUNBOOK.md'), 'utf-8');
  const rotation = runbook.slice(runbook.indexOf('### Read and rotate a secret'));
  expect(rotation).toContain('mail-vm-app-secrets');
  expect(rotation).toContain('virtctl restart mail-vm -n mail');
});

test("the VM's volumes are on their own disk, in the storage class; every DataVolume survives CDI's clean-up", () => {
  const docs = docsOf('first');
  const data = findDoc(docs, 'DataVolume', 'mail-vm-datadisk');
  expect(data.metadata.annotations).toMatchObject({ 'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false' });
  expect(data.spec).toEqual({
    source: { blank: {} },
    pvc: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } }, storageClassName: 'fast' },
  });
  const root = findDoc(docs, 'DataVolume', 'mail-vm-rootdisk');
  expect(root.spec.pvc.storageClassName).toBe('fast');
  expect(root.metadata.annotations).toMatchObject({ 'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false' });
  const vm = findDoc(docs, 'VirtualMachine', 'mail-vm').spec.template.spec;
  expect(vm.domain.devices.disks).toContainEqual({ name: 'datadisk', disk: { bus: 'virtio' }, serial: 'app-data' });
  // In the guest, docker's volumes live on that disk, mounted before docker starts.
  const bundle = bundleOf('first');
  expect(JSON.parse(bundle['packer.json']).provisioners.find((p: any) => p.inline).inline).toContain(
    "echo '/dev/disk/by-id/virtio-app-data /var/lib/docker/volumes ext4 defaults,x-systemd.makefs,x-systemd.device-timeout=2min 0 2' >> /etc/fstab",
  );
  expect(bundle['systemd/docker-app-data.conf']).toContain('RequiresMountsFor=/var/lib/docker/volumes\n');
});

test("an operator's VM: readiness probe, masquerade, eviction, CPU requests, the SSH key Secret", () => {
  const vm = findDoc(docsOf('first'), 'VirtualMachine', 'mail-vm').spec.template.spec;
  expect(vm.readinessProbe.exec.command.join(' ')).toContain('systemctl is-active --quiet mail-vm.service');
  expect(vm.domain.devices.interfaces).toEqual([{ name: 'default', masquerade: {}, model: 'virtio' }]);
  expect(vm.evictionStrategy).toBe('None');
  const cores = vm.domain.cpu.cores as number;
  expect(parseInt(vm.domain.resources.requests.cpu, 10)).toBeGreaterThanOrEqual(cores * 500);
  expect(vm.accessCredentials).toEqual([
    {
      sshPublicKey: {
        source: { secret: { secretName: 'ops-keys' } },
        propagationMethod: { qemuGuestAgent: { users: ['ops'] } },
      },
    },
  ]);
});

test("the VM's compose keeps the project name, and redis listens where the pod network reaches it", () => {
  const compose = bundleOf('first')['app/compose.yaml'];
  expect(compose).toMatch(/^name: mail$/m);
  // compose bound it to 127.0.0.1:7654 on the host.
  expect(compose).toContain('    ports:\n      - 7654:6379/tcp\n');
  expect(compose).not.toContain('127.0.0.1:');
});

test('the runbook turns on the feature gates, exports through a port-forward, and names the Packer plugin', () => {
  const runbook = fs.readFileSync(path.join(out('first'), 'RUNBOOK.md'), 'utf-8');
  expect(runbook).toContain(
    `kubectl patch kv kubevirt -n kubevirt --type merge -p '{"spec":{"configuration":{"developerConfiguration":{"featureGates":["Snapshot","VMExport"]}}}}'`,
  );
  expect(runbook).toContain('kubectl port-forward service/virt-export-mail-vm-export 8443:443 -n mail &');
  expect(runbook).toContain('-o mail-vm-datadisk.img.gz');
  expect(runbook).toContain('-o mail-vm-rootdisk.img.gz');
  expect(runbook).toContain('packer plugins install github.com/hashicorp/qemu');
  expect(runbook).toContain('kind: VirtualMachineRestore');
  // The SSH key Secret exists before the VM starts: a VM whose credential Secret is missing does not start.
  const create = runbook.indexOf('kubectl create secret generic ops-keys --from-file=key1=<PUBLIC_KEY_FILE> -n mail');
  expect(create).toBeGreaterThan(0);
  expect(create).toBeLessThan(runbook.indexOf('kubectl apply -f 3-vm/'));
});

test("docs/vm.md shows only commands that run: this test's conversion, or lines of the mail suite's runbook", () => {
  // The sections on secrets, the data disk and the operator's VM; the workflow above them has tests of its own.
  const guide = fs.readFileSync(path.join(__dirname, '../../docs/vm.md'), 'utf-8');
  const doc = guide.slice(guide.indexOf('## Secrets and rotation'));
  const runbook = fs.readFileSync(path.join(out('first'), 'RUNBOOK.md'), 'utf-8');
  const lines = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) =>
    m[1]
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
  );
  expect(lines.length).toBeGreaterThan(4);
  for (const line of lines) {
    if (line.startsWith('cdk8s-compose ')) {
      expect(line).toBe(`cdk8s-compose ${FLAGS.join(' ')} -o first`);
    } else {
      expect(runbook.split('\n').map((l) => l.trim())).toContain(line);
    }
  }
});
