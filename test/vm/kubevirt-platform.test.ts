import { Chart, Size, Testing } from 'cdk8s';
import { DiskSource } from '../../lib/vm/disk-source';
import { GoldenImageVm } from '../../lib/vm/golden-image-vm';
import { KubeVirtFeatureGate, KubeVirtPlatform } from '../../lib/vm/kubevirt-platform';
import { CDI_VERSION, KUBEVIRT_VERSION, cdiVersionFor } from '../../lib/vm/versions';
import { expectConformance } from '../support/k8s-rules';
import { expectValidManifests } from '../support/validate';

function synth(chart: Chart): any[] {
  const manifests = Testing.synth(chart);
  expectValidManifests(manifests);
  expectConformance(manifests);
  return manifests;
}

function pick(manifests: any[], kind: string): any {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
}

const GPU = 'nvidia.com/TU104GL_Tesla_T4';

function gpuVm(chart: Chart): GoldenImageVm {
  return new GoldenImageVm(chart, 'vm', {
    name: 'ml',
    image: DiskSource.fromHttp('https://images.example.com/ml.qcow2', { virtualSize: Size.gibibytes(10) }),
    gpus: [{ name: 'gpu1', deviceName: GPU }],
  });
}

describe('KubeVirtPlatform', () => {
  test('the KubeVirt CR in namespace kubevirt and the CDI CR, as the releases ship them', () => {
    const chart = Testing.chart();
    const platform = new KubeVirtPlatform(chart, 'platform');
    const manifests = synth(chart);
    expect(pick(manifests, 'KubeVirt')).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'KubeVirt',
      metadata: { name: 'kubevirt', namespace: 'kubevirt' },
      spec: {
        imagePullPolicy: 'IfNotPresent',
        configuration: { developerConfiguration: { featureGates: ['Snapshot', 'VMExport'] } },
      },
    });
    expect(pick(manifests, 'CDI')).toEqual({
      apiVersion: 'cdi.kubevirt.io/v1beta1',
      kind: 'CDI',
      metadata: { name: 'cdi' },
      spec: {
        config: { featureGates: ['HonorWaitForFirstConsumer'] },
        imagePullPolicy: 'IfNotPresent',
        infra: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
        },
        workload: { nodeSelector: { 'kubernetes.io/os': 'linux' } },
      },
    });
    expect(platform.version).toBe('v0.59.0');
    expect(platform.cdiVersion).toBe('v1.56.0');
  });

  test('turns the GPU gate on when a VM in the app passes a GPU through, and permits the device', () => {
    const app = Testing.app();
    const platformChart = new Chart(app, 'platform');
    new KubeVirtPlatform(platformChart, 'platform', {
      featureGates: [KubeVirtFeatureGate.SNAPSHOT],
      permittedPciDevices: [{ pciVendorSelector: '10de:1eb8', resourceName: GPU, externalResourceProvider: true }],
    });
    gpuVm(new Chart(app, 'apps'));
    const kv = pick(synth(platformChart), 'KubeVirt');
    expect(kv.spec.configuration.developerConfiguration.featureGates).toEqual(['GPU', 'Snapshot']);
    expect(kv.spec.configuration.permittedHostDevices).toEqual({
      pciHostDevices: [{ pciVendorSelector: '10DE:1EB8', resourceName: GPU, externalResourceProvider: true }],
    });
  });

  test('emulation for clusters without /dev/kvm', () => {
    const chart = Testing.chart();
    new KubeVirtPlatform(chart, 'platform', { useEmulation: true });
    expect(pick(synth(chart), 'KubeVirt').spec.configuration.developerConfiguration.useEmulation).toBe(true);
  });

  test('install steps for its releases', () => {
    const platform = new KubeVirtPlatform(Testing.chart(), 'platform');
    const commands = platform.installSteps('dist/platform.k8s.yaml').flatMap((s) => s.commands);
    expect(commands).toContain(
      'kubectl apply -f https://github.com/kubevirt/kubevirt/releases/download/v0.59.0/kubevirt-operator.yaml',
    );
    expect(commands).toContain('kubectl apply -f dist/platform.k8s.yaml');
    expect(commands).toContain(
      'kubectl apply -f https://github.com/kubevirt/containerized-data-importer/releases/download/v1.56.0/cdi-operator.yaml',
    );
  });

  describe('versions', () => {
    test('v0.59.0 pairs with CDI v1.56.0', () => {
      expect(KUBEVIRT_VERSION).toBe('v0.59.0');
      expect(CDI_VERSION).toBe('v1.56.0');
      expect(cdiVersionFor('v0.59.0')).toBe('v1.56.0');
      expect(cdiVersionFor('v1.0.0', 'v1.57.0')).toBe('v1.57.0');
    });

    test('fails on a release without a known CDI partner, or a malformed version', () => {
      expect(() => cdiVersionFor('v1.0.0')).toThrow(
        'no CDI release is known to pair with this KubeVirt release (got "v1.0.0"). ' +
          'Allowed: a KubeVirt release with a known CDI partner (v0.59.0), or an explicit CDI release.',
      );
      expect(() => new KubeVirtPlatform(Testing.chart(), 'p', { version: '0.59' })).toThrow(
        'KubeVirt version is not a release version (got "0.59"). Allowed: v<major>.<minor>.<patch>, for example "v0.59.0".',
      );
    });
  });

  describe('fails when', () => {
    test('a VM passes through a GPU the platform does not permit', () => {
      const chart = Testing.chart();
      new KubeVirtPlatform(chart, 'platform');
      gpuVm(chart);
      expect(() => Testing.synth(chart)).toThrow(
        `KubeVirt: VirtualMachine "ml" passes through gpu "gpu1" with deviceName "${GPU}", which permittedPciDevices does not list. ` +
          'Allowed: no devices: permittedPciDevices is empty. ' +
          `Fix: add { pciVendorSelector: "<vendor:device>", resourceName: "${GPU}" } to permittedPciDevices.`,
      );
    });

    test('the chart has a namespace, which the cluster-scoped CDI cannot take', () => {
      const chart = new Chart(Testing.app(), 'platform', { namespace: 'apps' });
      new KubeVirtPlatform(chart, 'platform');
      expect(() => Testing.synth(chart)).toThrow(
        'KubeVirt: the CDI custom resource is cluster-scoped but its chart gives it the namespace "apps". ' +
          'Allowed: a KubeVirtPlatform in a chart without a namespace.',
      );
    });

    test('a PCI selector is malformed', () => {
      expect(
        () =>
          new KubeVirtPlatform(Testing.chart(), 'p', {
            permittedPciDevices: [{ pciVendorSelector: '10de', resourceName: GPU }],
          }),
      ).toThrow('KubeVirt: permittedPciDevices[0].pciVendorSelector is not a PCI vendor:device pair (got "10de")');
    });
  });
});
