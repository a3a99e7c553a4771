import { ApiObject, Chart, JsonPatch, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { CloudConfig, CloudInitPassword } from '../../lib/vm/cloud-init';
import { DiskSource } from '../../lib/vm/disk-source';
import { GoldenImageVm, GoldenImageVmProps } from '../../lib/vm/golden-image-vm';
import {
  DiskBus,
  DiskCache,
  DiskIo,
  EvictionStrategy,
  HugepageSize,
  InterfaceBinding,
  InterfaceModel,
  RunStrategy,
} from '../../lib/vm/vm-devices';
import { VmNetwork } from '../../lib/vm/vm-network';
import { VmVolume } from '../../lib/vm/vm-volume';
import { VmAccessMode } from '../../lib/vm/vm-root-disk';
import { expectConformance } from '../support/k8s-rules';
import { expectValidManifests } from '../support/validate';
import { cloudInitSchema } from './tools';

const IMAGE = DiskSource.fromGoldenImage(
  { imageFile: 'legacy.qcow2', diskSize: Size.gibibytes(20) },
  'https://images.example.com/vm',
);

function make(props: Partial<GoldenImageVmProps> = {}): { chart: Chart; vm: GoldenImageVm } {
  const chart = Testing.chart();
  const vm = new GoldenImageVm(chart, 'legacy', { name: 'legacy', image: IMAGE, ...props });
  return { chart, vm };
}

function synth(chart: Chart): any[] {
  const manifests = Testing.synth(chart);
  expectValidManifests(manifests);
  expectConformance(manifests);
  return manifests;
}

function pick(manifests: any[], kind: string, name?: string): any {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  expect(found).toHaveLength(1);
  return found[0];
}

/** Every field of the spec's VirtualMachine table. */
function fullVm(): { chart: Chart; vm: GoldenImageVm } {
  const { chart, vm } = make({
    rootDisk: { bus: DiskBus.VIRTIO, cache: DiskCache.WRITE_BACK, io: DiskIo.THREADS },
    disks: [{ name: 'data' }, { name: 'config', bus: DiskBus.SATA }],
    volumes: [VmVolume.persistentVolumeClaim('data', 'legacy-data'), VmVolume.configMap('config', 'legacy-config')],
    interfaces: [{ name: 'default' }, { name: 'storage', model: InterfaceModel.E1000E }],
    networks: [VmNetwork.pod(), VmNetwork.multus('storage', 'infra/storage-net')],
    gpus: [{ name: 'gpu1', deviceName: 'nvidia.com/TU104GL_Tesla_T4' }],
    resources: {
      requests: { memory: Size.gibibytes(8), cpu: kplus.Cpu.units(4), devices: { 'nvidia.com/TU104GL_Tesla_T4': 1 } },
      limits: { memory: Size.gibibytes(8), cpu: kplus.Cpu.millis(4500), devices: { 'nvidia.com/TU104GL_Tesla_T4': 1 } },
    },
    cpu: { cores: 4, sockets: 1, threads: 1 },
    hugepages: HugepageSize.SIZE_2MI,
    features: { acpi: true, apic: true, hyperv: { relaxed: true, vapic: true, spinlocks: 8191 } },
    userData: new CloudConfig({
      users: [{ name: 'ops', sudo: 'ALL=(ALL) NOPASSWD:ALL', shell: '/bin/bash' }],
      packages: ['htop'],
    }),
    labels: { 'network.cdk8s-compose.io/backend': 'true' },
    storageClassName: 'fast',
  });
  vm.exposeViaService({ ports: [{ port: 80, targetPort: 8080, name: 'http' }] });
  vm.exposeViaIngress('/', { host: 'legacy.example.com' });
  return { chart, vm };
}

describe('GoldenImageVm', () => {
  test('renders every field of the VirtualMachine table (snapshot)', () => {
    const manifests = synth(fullVm().chart);
    expect(manifests).toMatchSnapshot();
  });

  test('DataVolume: http source, ReadWriteOnce, storage in Gi large enough for the golden image', () => {
    const dv = pick(synth(make().chart), 'DataVolume', 'legacy-rootdisk');
    expect(dv.apiVersion).toBe('cdi.kubevirt.io/v1beta1');
    expect(dv.spec).toEqual({
      source: { http: { url: 'https://images.example.com/vm/legacy.qcow2' } },
      // 20 GiB of virtual disk over CDI's 5.5% file-system overhead.
      pvc: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '22Gi' } } },
    });
  });

  test('the VM volume references the DataVolume by its name', () => {
    const { chart, vm } = make();
    const manifests = synth(chart);
    const spec = pick(manifests, 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.volumes).toContainEqual({ name: 'rootdisk', dataVolume: { name: vm.dataVolume.name } });
  });

  test('defaults: running, the template label, one virtio disk, one masquerade interface on the pod network, 2Gi', () => {
    const vm = pick(synth(make().chart), 'VirtualMachine', 'legacy');
    expect(vm.spec.running).toBe(true);
    expect(vm.spec.runStrategy).toBeUndefined();
    expect(vm.spec.template.metadata.labels).toEqual({ 'kubevirt.io/vm': 'legacy' });
    expect(vm.spec.template.spec.domain).toEqual({
      devices: {
        disks: [{ name: 'rootdisk', disk: { bus: 'virtio' } }],
        interfaces: [{ name: 'default', masquerade: {}, model: 'virtio' }],
      },
      resources: { requests: { memory: '2Gi' } },
    });
    expect(vm.spec.template.spec.networks).toEqual([{ name: 'default', pod: {} }]);
    // ReadWriteOnce disks cannot follow a running VM: a drain stops it, and it starts again elsewhere.
    expect(vm.spec.template.spec.evictionStrategy).toBe('None');
    expect(vm.spec.template.spec.readinessProbe).toBeUndefined();
  });

  test('the DataVolumes are kept after CDI completes them (v1.56 would delete them, and GitOps recreate them)', () => {
    const manifests = synth(make({ dataDisk: Size.gibibytes(5) }).chart);
    for (const name of ['legacy-rootdisk', 'legacy-datadisk']) {
      expect(pick(manifests, 'DataVolume', name).metadata.annotations).toEqual({
        'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false',
      });
    }
  });

  test('a data disk: a blank DataVolume in the storage class, found by the guest through its serial', () => {
    const { chart, vm } = make({ dataDisk: Size.gibibytes(50), storageClassName: 'fast' });
    const manifests = synth(chart);
    expect(pick(manifests, 'DataVolume', 'legacy-datadisk').spec).toEqual({
      source: { blank: {} },
      pvc: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '50Gi' } }, storageClassName: 'fast' },
    });
    expect(pick(manifests, 'DataVolume', 'legacy-rootdisk').spec.pvc.storageClassName).toBe('fast');
    const spec = pick(manifests, 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.domain.devices.disks).toContainEqual({ name: 'datadisk', disk: { bus: 'virtio' }, serial: 'app-data' });
    expect(spec.volumes).toContainEqual({ name: 'datadisk', dataVolume: { name: vm.dataDisk!.name } });
  });

  test('ReadWriteMany disks let the VM live-migrate on a drain; an explicit strategy wins', () => {
    const rwx = synth(make({ accessMode: VmAccessMode.READ_WRITE_MANY, dataDisk: Size.gibibytes(5) }).chart);
    expect(pick(rwx, 'VirtualMachine', 'legacy').spec.template.spec.evictionStrategy).toBe('LiveMigrate');
    expect(pick(rwx, 'DataVolume', 'legacy-datadisk').spec.pvc.accessModes).toEqual(['ReadWriteMany']);
    expect(pick(rwx, 'DataVolume', 'legacy-rootdisk').spec.pvc.accessModes).toEqual(['ReadWriteMany']);
    const external = synth(make({ evictionStrategy: EvictionStrategy.EXTERNAL }).chart);
    expect(pick(external, 'VirtualMachine', 'legacy').spec.template.spec.evictionStrategy).toBe('External');
  });

  test('a readiness probe through the guest agent, and SSH keys from a Secret', () => {
    const spec = pick(
      synth(
        make({
          readinessProbe: { command: ['systemctl', 'is-active', 'app.service'], periodSeconds: 5 },
          sshKeys: [{ secretName: 'legacy-ssh', users: ['ops'] }],
        }).chart,
      ),
      'VirtualMachine',
      'legacy',
    ).spec.template.spec;
    expect(spec.readinessProbe).toEqual({
      exec: { command: ['systemctl', 'is-active', 'app.service'] },
      initialDelaySeconds: 30,
      periodSeconds: 5,
      timeoutSeconds: 10,
      failureThreshold: 3,
    });
    expect(spec.accessCredentials).toEqual([
      {
        sshPublicKey: {
          source: { secret: { secretName: 'legacy-ssh' } },
          propagationMethod: { qemuGuestAgent: { users: ['ops'] } },
        },
      },
    ]);
  });

  test('a Secret volume becomes a disk with its serial; a serial the guest cannot use fails', () => {
    const { chart } = make({
      disks: [{ name: 'keys', serial: 'app-keys' }],
      volumes: [VmVolume.secret('keys', 'legacy-keys')],
    });
    const spec = pick(synth(chart), 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.volumes).toContainEqual({ name: 'keys', secret: { secretName: 'legacy-keys' } });
    const bad = make({
      disks: [{ name: 'keys', serial: 'a serial far too long' }],
      volumes: [VmVolume.secret('keys', 'k')],
    });
    expect(() => Testing.synth(bad.chart)).toThrow(
      'VirtualMachine "legacy": disk "keys": serial is not usable (got "a serial far too long"). Allowed: 1 to 20 letters, digits, "-" or "_". Fix: shorten the serial.',
    );
  });

  test('empty objects reach the output: bridge, masquerade, pod, acpi, apic, relaxed, vapic', () => {
    const { chart } = make({
      interfaces: [{ name: 'default', binding: InterfaceBinding.MASQUERADE }, { name: 'lan' }],
      networks: [VmNetwork.pod(), VmNetwork.multus('lan', 'lan-net')],
      features: { acpi: true, apic: true, hyperv: { relaxed: true, vapic: true } },
    });
    const spec = pick(synth(chart), 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.domain.devices.interfaces).toEqual([
      { name: 'default', masquerade: {}, model: 'virtio' },
      { name: 'lan', bridge: {}, model: 'virtio' },
    ]);
    expect(spec.networks[0]).toEqual({ name: 'default', pod: {} });
    expect(spec.domain.features).toEqual({ acpi: {}, apic: {}, hyperv: { relaxed: {}, vapic: {} } });
  });

  test('runStrategy replaces running', () => {
    const vm = pick(synth(make({ runStrategy: RunStrategy.MANUAL }).chart), 'VirtualMachine', 'legacy');
    expect(vm.spec.runStrategy).toBe('Manual');
    expect('running' in vm.spec).toBe(false);
    const stopped = pick(synth(make({ running: false }).chart), 'VirtualMachine', 'legacy');
    expect(stopped.spec.running).toBe(false);
  });

  test('escape hatch: a JSON patch on the VirtualMachine reaches the output when it uses the TypeScript prop name', () => {
    const { chart, vm } = make();
    ApiObject.of(vm.virtualMachine).addJsonPatch(
      JsonPatch.add('/spec/template/spec/domain/devices/disks/0/dedicatedIoThread', true),
      JsonPatch.add('/spec/template/spec/evictionStrategy', 'LiveMigrate'),
      // The wire name of a renamed field is dropped by the generated class: only TypeScript names survive.
      JsonPatch.add('/spec/template/spec/domain/devices/autoattachVSOCK', true),
    );
    const spec = pick(synth(chart), 'VirtualMachine', 'legacy').spec.template.spec;
    expect(spec.domain.devices.disks[0].dedicatedIOThread).toBe(true);
    expect(spec.evictionStrategy).toBe('LiveMigrate');
    expect(spec.domain.devices.autoattachVSOCK).toBeUndefined();
  });

  test('escape hatch: a JSON patch on the DataVolume reaches the output', () => {
    const { chart, vm } = make();
    ApiObject.of(vm.dataVolume).addJsonPatch(JsonPatch.add('/spec/pvc/volumeMode', 'Block'));
    expect(pick(synth(chart), 'DataVolume').spec.pvc.volumeMode).toBe('Block');
  });

  test('generated names: VM, DataVolume and Service names come from the construct path, the label follows the VM', () => {
    const chart = Testing.chart();
    const vm = new GoldenImageVm(chart, 'legacy', { image: IMAGE });
    vm.exposeViaService({ ports: [{ port: 80 }] });
    const manifests = synth(chart);
    const rendered = pick(manifests, 'VirtualMachine');
    expect(rendered.metadata.name).toBe(vm.name);
    expect(rendered.spec.template.metadata.labels['kubevirt.io/vm']).toBe(vm.name);
    expect(pick(manifests, 'Service').spec.selector).toEqual({ 'kubevirt.io/vm': vm.name });
    expect(pick(manifests, 'DataVolume').metadata.name).toBe(vm.dataVolume.name);
  });

  test('a namespace reaches every object: VM, DataVolume, user data Secret, Services and Ingresses', () => {
    const password = CloudInitPassword.fromEnvironment('VM_PASSWORD', { VM_PASSWORD: 'ns-test-Pa55-word' });
    const { chart, vm } = make({
      namespace: 'shop',
      userData: new CloudConfig({ users: [{ name: 'ops', password }], sshPwauth: true }),
    });
    const service = vm.exposeViaService({ name: 'legacy', ports: [{ port: 80 }] });
    vm.exposeViaIngress('/', { name: 'legacy', service, host: 'legacy.example.com' });
    const manifests = synth(chart);
    expect(manifests.map((m) => `${m.kind}/${m.metadata.name} ${m.metadata.namespace}`).sort()).toEqual([
      'DataVolume/legacy-rootdisk shop',
      'Ingress/legacy shop',
      'Secret/legacy-cloudinitdisk shop',
      'Service/legacy shop',
      'VirtualMachine/legacy shop',
    ]);
  });

  describe('cloud-init', () => {
    test('user data without a secret is inline, and cloud-init accepts it', async () => {
      const userData = new CloudConfig({ users: [{ name: 'ops', sshAuthorizedKeys: ['ssh-ed25519 AAAAC3Nza ops'] }] });
      const vm = pick(synth(make({ userData }).chart), 'VirtualMachine', 'legacy');
      const volume = vm.spec.template.spec.volumes.find((v: any) => v.name === 'cloudinitdisk');
      expect(volume.cloudInitNoCloud.userData.startsWith('#cloud-config\n')).toBe(true);
      expect(vm.spec.template.spec.domain.devices.disks).toContainEqual({
        name: 'cloudinitdisk',
        disk: { bus: 'virtio' },
      });
      expect((await cloudInitSchema(volume.cloudInitNoCloud.userData)).ok).toBe(true);
    });

    test('user data with a password goes into a Secret referenced by secretRef, never inline', async () => {
      const password = 'Tr0ub4dor&3-legacy';
      const userData = new CloudConfig({
        users: [{ name: 'ops', password: CloudInitPassword.fromEnvironment('VM_PASSWORD', { VM_PASSWORD: password }) }],
        sshPwauth: true,
      });
      const { chart, vm } = make({ userData });
      const manifests = synth(chart);
      const volume = pick(manifests, 'VirtualMachine').spec.template.spec.volumes.find(
        (v: any) => v.name === 'cloudinitdisk',
      );
      expect(volume).toEqual({
        name: 'cloudinitdisk',
        cloudInitNoCloud: { secretRef: { name: 'legacy-cloudinitdisk' } },
      });
      const secret = pick(manifests, 'Secret', 'legacy-cloudinitdisk');
      expect(secret.type).toBe('Opaque');
      expect(vm.userDataSecret?.name).toBe('legacy-cloudinitdisk');
      const decoded = Buffer.from(secret.data.userdata, 'base64').toString('utf-8');
      expect(decoded).toContain(`password: ${password}`);
      expect((await cloudInitSchema(decoded)).ok).toBe(true);
      const outside = JSON.stringify(manifests.filter((m) => m.kind !== 'Secret'));
      expect(outside).not.toContain(password);
    });

    test('a password from a Secret is set through the guest agent (accessCredentials)', () => {
      const userData = new CloudConfig({
        users: [{ name: 'ops', password: CloudInitPassword.fromSecret('legacy-passwords') }],
        sshPwauth: true,
      });
      const spec = pick(synth(make({ userData }).chart), 'VirtualMachine').spec.template.spec;
      expect(spec.accessCredentials).toEqual([
        {
          userPassword: {
            source: { secret: { secretName: 'legacy-passwords' } },
            propagationMethod: { qemuGuestAgent: {} },
          },
        },
      ]);
      expect(spec.volumes.find((v: any) => v.name === 'cloudinitdisk').cloudInitNoCloud.userData).not.toContain(
        'legacy-passwords',
      );
    });

    test('user data from an existing Secret', () => {
      const { chart, vm } = make();
      vm.addDisk({ name: 'seed' });
      vm.addVolume(VmVolume.cloudInitNoCloudFromSecret('seed', 'legacy-seed'));
      const spec = pick(synth(chart), 'VirtualMachine').spec.template.spec;
      expect(spec.volumes).toContainEqual({ name: 'seed', cloudInitNoCloud: { secretRef: { name: 'legacy-seed' } } });
    });
  });

  describe('exposure', () => {
    test('a Service selects kubevirt.io/vm with ClusterIP or LoadBalancer and ports', () => {
      const { chart, vm } = make();
      const internal = vm.exposeViaService({
        name: 'legacy',
        ports: [
          { port: 80, targetPort: 8080, name: 'http' },
          { port: 9100, name: 'metrics' },
        ],
      });
      vm.exposeViaService({
        name: 'legacy-public',
        serviceType: kplus.ServiceType.LOAD_BALANCER,
        ports: [{ port: 443, targetPort: 8443 }],
      });
      expect(vm.service).toBe(internal);
      const manifests = synth(chart);
      expect(pick(manifests, 'Service', 'legacy').spec).toEqual({
        type: 'ClusterIP',
        selector: { 'kubevirt.io/vm': 'legacy' },
        externalIPs: [],
        ports: [
          { name: 'http', port: 80, targetPort: 8080 },
          { name: 'metrics', port: 9100, targetPort: 9100 },
        ],
      });
      expect(pick(manifests, 'Service', 'legacy-public').spec.type).toBe('LoadBalancer');
    });

    test('an Ingress routes a Prefix path to the Service with the rewrite-target annotation', () => {
      const { chart, vm } = make();
      const service = vm.exposeViaService({ name: 'legacy', ports: [{ port: 80, targetPort: 8080 }] });
      const ingress = vm.exposeViaIngress('/legacy', { host: 'apps.example.com' });
      expect(vm.ingress).toBe(ingress);
      const rendered = pick(synth(chart), 'Ingress');
      expect(rendered.apiVersion).toBe('networking.k8s.io/v1');
      expect(rendered.metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/rewrite-target': '/' });
      expect(rendered.spec.rules).toEqual([
        {
          host: 'apps.example.com',
          http: {
            paths: [
              {
                path: '/legacy',
                pathType: 'Prefix',
                backend: { service: { name: service.name, port: { number: 80 } } },
              },
            ],
          },
        },
      ]);
    });

    test("an Ingress with a class and the caller's annotations", () => {
      const { chart, vm } = make();
      vm.exposeViaService({ name: 'legacy', ports: [{ port: 80 }] });
      vm.exposeViaIngress('/', {
        className: 'nginx',
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '10m' },
      });
      const second = vm.exposeViaIngress('/admin');
      const manifests = synth(chart);
      const ingresses = manifests.filter((m) => m.kind === 'Ingress');
      expect(ingresses).toHaveLength(2);
      expect(ingresses[0].spec.ingressClassName).toBe('nginx');
      expect(ingresses[0].metadata.annotations).toEqual({ 'nginx.ingress.kubernetes.io/proxy-body-size': '10m' });
      expect(second.node.id).toBe('Ingress2');
    });

    test('network labels on the template let NetworkPolicies select the VM', () => {
      const { chart, vm } = make({ labels: { 'network.cdk8s-compose.io/frontend': 'true' } });
      vm.addTemplateLabel('network.cdk8s-compose.io/backend', 'true');
      expect(pick(synth(chart), 'VirtualMachine').spec.template.metadata.labels).toEqual({
        'kubevirt.io/vm': 'legacy',
        'network.cdk8s-compose.io/backend': 'true',
        'network.cdk8s-compose.io/frontend': 'true',
      });
      expect(vm.podLabels['kubevirt.io/vm']).toBe('legacy');
    });

    test("templateAnnotations reach the pod template, and the object's own metadata stays as it was", () => {
      const { chart, vm } = make({ templateAnnotations: { 'example.com/team': 'shop', 'example.com/owner': 'ops' } });
      vm.addTemplateAnnotation('example.com/tier', 'legacy');
      const rendered = pick(synth(chart), 'VirtualMachine');
      expect(rendered.spec.template.metadata).toEqual({
        labels: { 'kubevirt.io/vm': 'legacy' },
        annotations: { 'example.com/owner': 'ops', 'example.com/team': 'shop', 'example.com/tier': 'legacy' },
      });
      expect(rendered.metadata.annotations).toBeUndefined();
    });

    test('without templateAnnotations the pod template has no annotations key', () => {
      const rendered = pick(synth(make({ templateAnnotations: {} }).chart), 'VirtualMachine');
      expect(Object.keys(rendered.spec.template.metadata)).toEqual(['labels']);
    });
  });

  describe('fails when', () => {
    const synthError = (chart: Chart) => {
      try {
        Testing.synth(chart);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('synth did not fail');
    };

    test('both running and runStrategy are set', () => {
      expect(() => make({ running: true, runStrategy: RunStrategy.ALWAYS })).toThrow(
        'VirtualMachine "legacy": both running and runStrategy are set. ' +
          'Allowed: one of them: running (true or false) or runStrategy (Always, RerunOnFailure, Manual, Halted). ' +
          'Fix: remove running, or remove runStrategy.',
      );
    });

    test('a disk has no volume of the same name', () => {
      const { chart, vm } = make();
      vm.addDisk({ name: 'data' });
      expect(synthError(chart)).toContain(
        '[test/legacy] VirtualMachine "legacy": disk "data" has no volume named "data". ' +
          'Allowed: a disk name that is also a volume name (volumes: "rootdisk"). ' +
          'Fix: add a volume named "data" with addVolume(VmVolume.persistentVolumeClaim("data", ...)) or another VmVolume, or remove the disk.',
      );
    });

    test('an interface has no network of the same name', () => {
      const { chart } = make({ interfaces: [{ name: 'default' }, { name: 'storage' }] });
      expect(synthError(chart)).toContain(
        'VirtualMachine "legacy": interface "storage" has no network named "storage". ' +
          'Allowed: an interface name that is also a network name (networks: "default"). ' +
          'Fix: add a network named "storage" with addNetwork(VmNetwork.multus("storage", "<attachment>")) or VmNetwork.pod("storage"), or remove the interface.',
      );
    });

    test('two networks are the pod network', () => {
      const { chart } = make({
        interfaces: [{ name: 'a' }, { name: 'b' }],
        networks: [VmNetwork.pod('a'), VmNetwork.pod('b')],
      });
      expect(synthError(chart)).toContain(
        'VirtualMachine "legacy": networks "a", "b" are all the pod network. Allowed: at most one pod network. ' +
          'Fix: keep one VmNetwork.pod() and make the others VmNetwork.multus(name, networkName).',
      );
    });

    test('an enum value is unknown', () => {
      const { chart } = make({
        rootDisk: { bus: 'ide' as DiskBus },
        interfaces: [{ name: 'default', model: 'virtio-net' as InterfaceModel }],
      });
      const message = synthError(chart);
      expect(message).toContain(
        'VirtualMachine "legacy": disk "rootdisk": bus is not a known value (got "ide"). Allowed: "sata", "scsi", "usb", "virtio".',
      );
      expect(message).toContain(
        'VirtualMachine "legacy": interface "default": model is not a known value (got "virtio-net").',
      );
      expect(() => make({ runStrategy: 'Sometimes' as RunStrategy })).toThrow(
        'VirtualMachine "legacy": runStrategy is not a known value (got "Sometimes")',
      );
    });

    test('device counts disagree with the gpus', () => {
      const { chart } = make({
        gpus: [{ name: 'gpu1', deviceName: 'nvidia.com/gpu' }],
        resources: { limits: { devices: { 'nvidia.com/gpu': 2 } }, requests: { devices: { 'example.com/fpga': 1 } } },
      });
      const message = synthError(chart);
      expect(message).toContain(
        'VirtualMachine "legacy": resources.limits.devices["nvidia.com/gpu"] is 2 but 1 gpu(s) use that deviceName. ' +
          'Allowed: a device count equal to the number of gpus with that deviceName. Fix: set it to 1, or add or remove gpus with deviceName "nvidia.com/gpu".',
      );
      expect(message).toContain('resources.requests.devices["example.com/fpga"] is 1 but 0 gpu(s) use that deviceName');
    });

    test('the user data sets a password inline', () => {
      const userData = CloudConfig.fromText('#cloud-config\nusers:\n  - name: ops\n    plain_text_passwd: hunter2\n');
      expect(() => make({ userData })).toThrow(
        'VirtualMachine "legacy": volume "cloudinitdisk" (users[0].plain_text_passwd): the cloud-init user data sets a password inline. ' +
          'Allowed: a password supplied by the operator: CloudInitPassword.fromSecret("<secret>") (set by KubeVirt from an existing Secret) ' +
          'or CloudInitPassword.fromEnvironment("<VARIABLE>") (kept in a Secret). ' +
          'Fix: remove the password from the user data and give the user a password: CloudInitPassword.fromSecret(...).',
      );
    });

    test('masquerade is used on a Multus network', () => {
      const { chart } = make({
        interfaces: [{ name: 'default' }, { name: 'lan', binding: InterfaceBinding.MASQUERADE }],
        networks: [VmNetwork.pod(), VmNetwork.multus('lan', 'lan-net')],
      });
      expect(synthError(chart)).toContain(
        'VirtualMachine "legacy": interface "lan" uses masquerade on the Multus network "lan". Allowed: masquerade on the pod network only.',
      );
    });

    test('a name is used twice', () => {
      const { chart } = make({ disks: [{ name: 'rootdisk' }] });
      expect(synthError(chart)).toContain('VirtualMachine "legacy": disk "rootdisk" is defined twice.');
    });

    test('the user data gains a secret after it was attached', () => {
      const userData = new CloudConfig();
      const { chart } = make({ userData });
      userData.addFile({ path: '/opt/app/.env', content: 'TOKEN=x\n', sensitive: true });
      expect(synthError(chart)).toContain(
        'VirtualMachine "legacy": volume "cloudinitdisk": the cloud-init user data gained a secret after it was attached.',
      );
    });

    test('the memory is not a multiple of the huge page size', () => {
      expect(() =>
        make({ hugepages: HugepageSize.SIZE_1GI, resources: { requests: { memory: Size.mebibytes(1536) } } }),
      ).toThrow(
        'VirtualMachine "legacy": memory 1536Mi is not a whole number of 1Gi huge pages. Allowed: a multiple of 1Gi.',
      );
    });

    test('storage is too small for the golden image', () => {
      expect(() => make({ storage: Size.gibibytes(20) })).toThrow(
        'VirtualMachine "legacy": storage 20Gi is too small for the image. Allowed: at least 22Gi',
      );
    });

    test('cpu or spinlocks are out of range', () => {
      expect(() => make({ cpu: { cores: 0 } })).toThrow(
        'VirtualMachine "legacy": cpu.cores is not a positive whole number (got 0)',
      );
      expect(() => make({ features: { hyperv: { spinlocks: 100 } } })).toThrow(
        'VirtualMachine "legacy": features.hyperv.spinlocks is too small (got 100)',
      );
    });

    test('an Ingress has no Service, or a Service no port', () => {
      const { vm } = make();
      expect(() => vm.exposeViaIngress('/')).toThrow(
        'VirtualMachine "legacy": an Ingress needs a Service. Fix: call exposeViaService() first, or pass service.',
      );
      expect(() => vm.exposeViaService({ ports: [] })).toThrow(
        'VirtualMachine "legacy": a Service needs at least one port',
      );
    });

    test('the kubevirt.io/vm label is overridden', () => {
      expect(() => make({ labels: { 'kubevirt.io/vm': 'other' } })).toThrow(
        'VirtualMachine "legacy": the label kubevirt.io/vm is set by the construct (got "other")',
      );
    });
  });
});
