import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Size, Testing } from 'cdk8s';
import { ComposeNetworkPolicies } from '../../lib/base/network-policy';
import { loadCompose, loadComposeFromString } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { CloudInitPassword } from '../../lib/vm/cloud-init';
import { ComposeVm, ComposeVmProps, MAINTENANCE_USER } from '../../lib/vm/compose-vm';
import { expectManifestsPass } from '../support/checks';
import { expectValidManifests } from '../support/validate';
import { cloudInitSchema, tempDir } from './tools';

const FIXTURE = path.join(__dirname, 'fixtures/legacy');
const MODEL: ComposeModel = loadCompose({ workingDir: FIXTURE, env: {} }).model;
const BASE_URL = 'https://images.example.com/vm';

function make(props: Partial<ComposeVmProps> = {}): { chart: Chart; vm: ComposeVm } {
  const chart = Testing.chart();
  const vm = new ComposeVm(chart, 'legacy', {
    model: MODEL,
    services: ['agent', 'app'],
    imageBaseUrl: BASE_URL,
    ...props,
  });
  return { chart, vm };
}

function pick(manifests: any[], kind: string, name: string): any {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

function userDataOf(manifests: any[]): string {
  return pick(manifests, 'VirtualMachine', 'legacy').spec.template.spec.volumes.find((v: any) => v.cloudInitNoCloud)
    .cloudInitNoCloud.userData;
}

/**
 * What the guest's unit writes into the app folder at a start of the VM: the VM's Secret as KubeVirt presents it
 * (one file per key), read by the image's load-secrets script, run here with bash on a copy of the disk's files.
 */
function guestInputs(vm: ComposeVm, manifests: any[], appDir: string): Record<string, string> {
  const disk = tempDir('secret-disk');
  const secret = pick(manifests, 'Secret', 'legacy-app-secrets');
  for (const [key, value] of Object.entries(secret.data as Record<string, string>)) {
    fs.writeFileSync(path.join(disk, key), Buffer.from(value, 'base64'));
  }
  const script = path.join(tempDir('script'), 'load-secrets.sh');
  fs.writeFileSync(script, vm.bundle.files().find((f) => f.path === 'scripts/load-secrets.sh')!.content);
  execFileSync('bash', [script, disk, appDir]);
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else {
        out[path.relative(appDir, full)] = fs.readFileSync(full, 'utf-8');
      }
    }
  };
  walk(appDir);
  return out;
}

describe('ComposeVm', () => {
  const { chart, vm } = make();
  // The VM next to the namespace's network policies, as ComposeApp renders them.
  new ComposeNetworkPolicies(chart, 'NetworkPolicies', {
    networks: MODEL.networks.map((n) => ({ name: n.name, internal: n.internal })),
    workloads: [vm.policyWorkload()],
  });
  const manifests = Testing.synth(chart);
  const schema = cloudInitSchema(userDataOf(manifests));

  test('renders the VM, its DataVolumes, the Services and the app Secret (snapshot)', () => {
    expect(manifests.filter((m) => m.kind !== 'NetworkPolicy')).toMatchSnapshot();
  });

  test('passes the schema, Kubernetes and safety checks, with no secret value in the bundle', () => {
    const texts = vm.bundle.files().map((f) => ({ name: f.path, content: f.content.toString('utf-8') }));
    expectManifestsPass(manifests, { texts });
  });

  test('one Service per compose service with ports: the container port in front of the VM port', () => {
    expect(pick(manifests, 'Service', 'app').spec).toEqual({
      type: 'ClusterIP',
      externalIPs: [],
      selector: { 'kubevirt.io/vm': 'legacy' },
      // 8081 was bound to 127.0.0.1 on the compose host: in the VM it listens where the pod network reaches it.
      ports: [
        { name: 'tcp-80', port: 80, targetPort: 8080 },
        { name: 'tcp-81', port: 81, targetPort: 8081 },
      ],
    });
    expect(pick(manifests, 'Service', 'agent').spec.ports).toEqual([
      { name: 'tcp-9100', port: 9100, targetPort: 9100 },
    ]);
    expect(Object.keys(vm.services)).toEqual(['agent', 'app']);
  });

  test('servicePorts sets the ports of a Service, and an empty list leaves the service without one', () => {
    const { chart } = make({
      servicePorts: { app: [{ name: 'tcp-6379', port: 6379, targetPort: 7654 }], agent: [] },
    });
    const docs = Testing.synth(chart);
    expect(pick(docs, 'Service', 'app').spec.ports).toEqual([{ name: 'tcp-6379', port: 6379, targetPort: 7654 }]);
    expect(docs.filter((d) => d.kind === 'Service').map((d) => d.metadata.name)).toEqual(['app']);
  });

  test("the VM boots the published golden image, sized from the services' limits", () => {
    const rendered = pick(manifests, 'VirtualMachine', 'legacy');
    expect(pick(manifests, 'DataVolume', 'legacy-rootdisk').spec.source.http.url).toBe(
      'https://images.example.com/vm/legacy.qcow2',
    );
    // Half a core per vCPU at least: KubeVirt's own default (100m per vCPU) lets a busy node starve the guest.
    expect(rendered.spec.template.spec.domain.resources).toEqual({ requests: { memory: '3Gi', cpu: '1000m' } });
    expect(rendered.spec.template.spec.domain.cpu).toEqual({ cores: 2 });
    expect(rendered.spec.template.metadata.labels).toEqual({
      'kubevirt.io/vm': 'legacy',
      'network.cdk8s-compose.io/default': 'true',
    });
  });

  test("templateLabels and templateAnnotations reach the VM's pod template; the network labels win a shared key", () => {
    const { chart: c } = make({
      templateLabels: { 'team': 'shop', 'network.cdk8s-compose.io/default': 'false' },
      templateAnnotations: { 'example.com/owner': 'ops' },
    });
    const metadata = pick(Testing.synth(c), 'VirtualMachine', 'legacy').spec.template.metadata;
    expect(metadata).toEqual({
      labels: { 'kubevirt.io/vm': 'legacy', 'network.cdk8s-compose.io/default': 'true', 'team': 'shop' },
      annotations: { 'example.com/owner': 'ops' },
    });
  });

  test("the app's secrets reach the guest through the VM's Secret, a disk the unit reads at every start", () => {
    const vmSpec = pick(manifests, 'VirtualMachine', 'legacy').spec.template.spec;
    expect(vmSpec.domain.devices.disks).toContainEqual({
      name: 'appsecrets',
      disk: { bus: 'virtio' },
      serial: 'app-secrets',
    });
    expect(vmSpec.volumes).toContainEqual({ name: 'appsecrets', secret: { secretName: 'legacy-app-secrets' } });
    const app = tempDir('app');
    const inputs = guestInputs(vm, manifests, app);
    expect(Object.keys(inputs).sort()).toEqual(['.env', 'secrets/db_password']);
    expect(inputs['.env']).toContain("API_TOKEN='tok-9f8e7d6c5b4a'\n");
    expect(inputs['.env']).toContain("DATABASE_URL='postgres://app:s3cr3t-db-pass@db:5432/app'\n");
    expect(inputs['secrets/db_password']).toContain('fixture-db-password-7c1d');
    expect(fs.statSync(path.join(app, '.env')).mode & 0o777).toBe(0o600);
    // Nothing of the app's secrets is in the user data any more: cloud-init runs once per instance.
    expect(userDataOf(manifests)).not.toContain('tok-9f8e7d6c5b4a');
  });

  test("the services' named volumes get a data disk (its size an option); without named volumes there is none", () => {
    const sized = make({ dataDiskSize: Size.gibibytes(40), storageClassName: 'fast' });
    const docs = Testing.synth(sized.chart);
    expect(pick(docs, 'DataVolume', 'legacy-datadisk').spec.pvc).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '40Gi' } },
      storageClassName: 'fast',
    });
    expect(sized.vm.bundle.dataDisk).toBe(true);
    // The agent alone mounts no named volume.
    const agent = make({ services: ['agent'] });
    expect(agent.vm.bundle.dataDisk).toBe(false);
    expect(Testing.synth(agent.chart).some((m) => m.metadata.name === 'legacy-datadisk')).toBe(false);
    expect(agent.vm.bundle.files().map((f) => f.path)).not.toContain('systemd/docker-app-data.conf');
  });

  test('the readiness probe checks the app in the guest; false leaves it out; the SSH key Secret goes to ops', () => {
    const probe = pick(manifests, 'VirtualMachine', 'legacy').spec.template.spec.readinessProbe;
    expect(probe.exec.command).toEqual([
      '/bin/bash',
      '-c',
      'systemctl is-active --quiet legacy.service && ! docker ps -q --filter label=com.docker.compose.project=legacy ' +
        '--filter health=unhealthy --filter health=starting | grep -q .',
    ]);
    const { chart: c } = make({ readinessProbe: false, sshKeySecret: 'legacy-keys' });
    const spec = pick(Testing.synth(c), 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.readinessProbe).toBeUndefined();
    expect(spec.accessCredentials).toEqual([
      {
        sshPublicKey: {
          source: { secret: { secretName: 'legacy-keys' } },
          propagationMethod: { qemuGuestAgent: { users: ['ops'] } },
        },
      },
    ]);
  });

  test('the user data, inline in the VM, passes cloud-init schema', async () => {
    const result = await schema;
    expect(result.output).toContain('Valid cloud-config');
    expect(result.ok).toBe(true);
  });

  test('the network policy of the VM admits its ports on the VM side', () => {
    const policy = pick(manifests, 'NetworkPolicy', 'allow-legacy');
    expect(policy.spec.podSelector).toEqual({ matchLabels: { 'kubevirt.io/vm': 'legacy' } });
    expect(JSON.stringify(policy.spec.ingress)).toContain('"port":8080');
  });

  test('without secret delivery the operator supplies them; without users there is no user data', () => {
    const plain = make({ deliverSecrets: false, users: [] });
    const rendered = Testing.synth(plain.chart);
    expectValidManifests(rendered);
    expect(rendered.some((m) => m.kind === 'Secret')).toBe(false);
    expect(plain.vm.userData).toBeUndefined();
    expect(plain.vm.bundle.operatorInputs.map((i) => `${i.kind}:${i.name}`)).toEqual([
      'env:API_TOKEN',
      'env:DATABASE_URL',
      'file:secrets/db_password',
    ]);
  });

  test('by default cloud-init creates the maintenance user ops, locked until an SSH key reaches it', () => {
    const plain = make({ deliverSecrets: false });
    expect(plain.vm.users).toEqual([MAINTENANCE_USER]);
    const userData = Testing.synth(plain.chart)
      .find((m) => m.kind === 'VirtualMachine')
      .spec.template.spec.volumes.find((v: any) => v.cloudInitNoCloud).cloudInitNoCloud.userData;
    expect(userData).toBe(
      '#cloud-config\nusers:\n  - name: ops\n    sudo: ALL=(ALL) NOPASSWD:ALL\n    shell: /bin/bash\n' +
        '    groups:\n      - docker\n      - systemd-journal\n',
    );
  });

  test('maintenance users with a password from a Secret, and Kubernetes Service names from the caller', () => {
    const { chart: c } = make({
      users: [{ name: 'ops', password: CloudInitPassword.fromSecret('legacy-passwords') }],
      serviceNames: { app: 'legacy-app' },
    });
    const rendered = Testing.synth(c);
    expect(pick(rendered, 'Service', 'legacy-app').spec.selector).toEqual({ 'kubevirt.io/vm': 'legacy' });
    expect(pick(rendered, 'VirtualMachine', 'legacy').spec.template.spec.accessCredentials).toHaveLength(1);
  });

  test('warnings name what the VM cannot carry over', () => {
    expect(vm.warnings.map((w) => `${w.code} ${w.at.path}`)).toEqual([
      'local-only-port services.app.ports[1]',
      'vm-dependency-outside services.app.depends_on.db',
    ]);
  });

  describe('GPUs', () => {
    const gpuModel = loadComposeFromString(
      `
name: ml
services:
  trainer:
    image: registry.example.com/trainer:1
    deploy:
      resources:
        reservations:
          devices: [{capabilities: [gpu], driver: nvidia, count: 2}]
`,
      { env: {}, projectDir: tempDir('gpu') },
    ).model;

    test("a GPU reservation becomes gpus with the cluster's device name", () => {
      const c = Testing.chart();
      const ml = new ComposeVm(c, 'ml', {
        model: gpuModel,
        imageBaseUrl: BASE_URL,
        gpuDeviceName: 'nvidia.com/TU104GL_Tesla_T4',
      });
      expect(pick(Testing.synth(c), 'VirtualMachine', 'ml').spec.template.spec.domain.devices.gpus).toEqual([
        { name: 'gpu1', deviceName: 'nvidia.com/TU104GL_Tesla_T4' },
        { name: 'gpu2', deviceName: 'nvidia.com/TU104GL_Tesla_T4' },
      ]);
      expect(ml.warnings.map((w) => w.code)).toEqual(['vm-gpu-driver']);
    });

    test('fails without the device name', () => {
      expect(() => new ComposeVm(Testing.chart(), 'ml', { model: gpuModel, imageBaseUrl: BASE_URL })).toThrow(
        'compose.yaml:9:21: services.trainer.deploy.resources.reservations.devices[0]: the service reserves a GPU, and the VM needs the device name to pass one through. ' +
          'Allowed: the resource name the cluster\'s GPU device plugin advertises. Fix: pass gpuDeviceName, e.g. "nvidia.com/TU104GL_Tesla_T4".',
      );
    });
  });

  test('the project name becomes a DNS label; a name that is not one fails', () => {
    const c = Testing.chart();
    const snake = new ComposeVm(c, 'vm', {
      model: { ...MODEL, name: 'legacy_shop' },
      services: ['agent'],
      imageBaseUrl: BASE_URL,
    });
    expect(snake.vm.name).toBe('legacy-shop');
    expect(snake.bundle.name).toBe('legacy-shop');
    expect(() => make({ name: 'Legacy_VM' })).toThrow('the VM name is not a DNS label (got "Legacy_VM")');
  });
});
