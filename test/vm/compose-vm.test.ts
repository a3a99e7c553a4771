import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
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
  return Buffer.from(pick(manifests, 'Secret', 'legacy-cloudinitdisk').data.userdata, 'base64').toString('utf-8');
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

  test('renders the VM, its DataVolume, the Services and the user data Secret (snapshot)', () => {
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
      ports: [{ name: 'tcp-80', port: 80, targetPort: 8080 }],
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
    expect(rendered.spec.template.spec.domain.resources).toEqual({ requests: { memory: '3Gi' } });
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

  test("the app's secrets reach the guest through the user data Secret, which cloud-init accepts", async () => {
    const userData = userDataOf(manifests);
    expect(userData).toContain('  - path: /opt/legacy/.env\n');
    expect(userData).toContain("API_TOKEN='tok-9f8e7d6c5b4a'");
    expect(userData).toContain("DATABASE_URL='postgres://app:s3cr3t-db-pass@db:5432/app'");
    expect(userData).toContain('  - path: /opt/legacy/secrets/db_password\n');
    expect(userData).toContain('fixture-db-password-7c1d');
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
