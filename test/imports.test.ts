import { Testing } from 'cdk8s';
import { DataVolume, DataVolumeSpecPvcResourcesRequests } from '../imports/cdi-dv-cdi.kubevirt.io';
import {
  VirtualMachine,
  VirtualMachineSpecTemplateSpecDomainResourcesLimits as Limit,
  VirtualMachineSpecTemplateSpecDomainResourcesRequests as Request,
} from '../imports/kubevirt-vm-kubevirt.io';
import { checkConformance } from './support/k8s-rules';
import { expectNoProblems } from './support/problems';
import { expectValidManifests } from './support/validate';
import { findDoc, synthDocs } from './support/yaml-docs';

// Issue 2 §2: the generated classes carry every field the spec uses, and they reach the output at their exact paths.

function synthesize() {
  const chart = Testing.chart();
  new VirtualMachine(chart, 'vm', {
    metadata: { name: 'legacy-erp' },
    spec: {
      running: true,
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'legacy-erp' } },
        spec: {
          domain: {
            cpu: { cores: 2, sockets: 1, threads: 2 },
            memory: { hugepages: { pageSize: '2Mi' } },
            features: {
              acpi: {},
              apic: {},
              hyperv: { relaxed: {}, vapic: {}, spinlocks: { spinlocks: 8191 } },
            },
            resources: {
              requests: {
                'memory': Request.fromString('4Gi'),
                'cpu': Request.fromString('2'),
                'nvidia.com/gpu': Request.fromNumber(1),
              },
              limits: {
                'memory': Limit.fromString('4Gi'),
                'cpu': Limit.fromString('4'),
                'nvidia.com/gpu': Limit.fromNumber(1),
              },
            },
            devices: {
              disks: [
                { name: 'root', disk: { bus: 'virtio' }, cache: 'none', io: 'native' },
                { name: 'config', disk: { bus: 'sata' } },
                { name: 'cloudinit', disk: { bus: 'virtio' } },
              ],
              interfaces: [
                { name: 'default', bridge: {}, model: 'virtio' },
                { name: 'storage', bridge: {}, model: 'e1000e' },
              ],
              gpus: [{ name: 'gpu1', deviceName: 'nvidia.com/TU104GL_Tesla_T4' }],
            },
          },
          networks: [
            { name: 'default', pod: {} },
            { name: 'storage', multus: { networkName: 'storage-vlan' } },
          ],
          volumes: [
            { name: 'root', dataVolume: { name: 'legacy-erp-root' } },
            { name: 'config', configMap: { name: 'legacy-erp-config' } },
            { name: 'cloudinit', cloudInitNoCloud: { userData: '#cloud-config\nhostname: legacy-erp\n' } },
          ],
        },
      },
    },
  });
  new DataVolume(chart, 'root', {
    metadata: { name: 'legacy-erp-root' },
    spec: {
      source: { http: { url: 'https://images.example.com/legacy-erp.qcow2' } },
      pvc: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: DataVolumeSpecPvcResourcesRequests.fromString('20Gi') } },
      },
    },
  });
  return synthDocs(chart);
}

/** The value at a path like `spec.template.spec.volumes[2].cloudInitNoCloud.userData`; undefined when absent. */
function valueAt(doc: any, path: string): unknown {
  return path.split(/\.|(?=\[)/).reduce((value: any, segment) => {
    const index = /^\[(\d+)\]$/.exec(segment);
    return value?.[index ? Number(index[1]) : segment];
  }, doc);
}

describe('generated classes (imports/)', () => {
  const docs = synthesize();
  const vm = findDoc(docs, 'VirtualMachine', 'legacy-erp');
  const dv = findDoc(docs, 'DataVolume', 'legacy-erp-root');
  const vmi = 'spec.template.spec';
  const domain = `${vmi}.domain`;

  test.each([
    ['apiVersion', 'kubevirt.io/v1'],
    [`${domain}.devices.disks[0].name`, 'root'],
    [`${domain}.devices.disks[0].disk.bus`, 'virtio'],
    [`${domain}.devices.disks[0].cache`, 'none'],
    [`${domain}.devices.disks[0].io`, 'native'],
    [`${domain}.devices.disks[1].disk.bus`, 'sata'],
    [`${domain}.devices.interfaces[0].bridge`, {}],
    [`${domain}.devices.interfaces[0].model`, 'virtio'],
    [`${domain}.devices.interfaces[1].model`, 'e1000e'],
    [`${domain}.devices.gpus[0].name`, 'gpu1'],
    [`${domain}.devices.gpus[0].deviceName`, 'nvidia.com/TU104GL_Tesla_T4'],
    [`${domain}.resources.requests`, { 'memory': '4Gi', 'cpu': '2', 'nvidia.com/gpu': 1 }],
    [`${domain}.resources.limits`, { 'memory': '4Gi', 'cpu': '4', 'nvidia.com/gpu': 1 }],
    [`${domain}.cpu`, { cores: 2, sockets: 1, threads: 2 }],
    [`${domain}.memory.hugepages.pageSize`, '2Mi'],
    [`${domain}.features.acpi`, {}],
    [`${domain}.features.apic`, {}],
    [`${domain}.features.hyperv.relaxed`, {}],
    [`${domain}.features.hyperv.vapic`, {}],
    [`${domain}.features.hyperv.spinlocks.spinlocks`, 8191],
    [`${vmi}.networks[0]`, { name: 'default', pod: {} }],
    [`${vmi}.networks[1]`, { name: 'storage', multus: { networkName: 'storage-vlan' } }],
    [`${vmi}.volumes[0]`, { name: 'root', dataVolume: { name: 'legacy-erp-root' } }],
    [`${vmi}.volumes[1]`, { name: 'config', configMap: { name: 'legacy-erp-config' } }],
    [`${vmi}.volumes[2].cloudInitNoCloud.userData`, '#cloud-config\nhostname: legacy-erp\n'],
  ])('VirtualMachine %s', (path, expected) => {
    expect(valueAt(vm, path)).toEqual(expected);
  });

  test.each([
    ['apiVersion', 'cdi.kubevirt.io/v1beta1'],
    ['spec.source.http.url', 'https://images.example.com/legacy-erp.qcow2'],
    ['spec.pvc.accessModes', ['ReadWriteOnce']],
    ['spec.pvc.resources.requests.storage', '20Gi'],
  ])('DataVolume %s', (path, expected) => {
    expect(valueAt(dv, path)).toEqual(expected);
  });

  test('empty objects such as bridge: {} and pod: {} survive synthesis as {}, not dropped or null', () => {
    expect(JSON.stringify(vm.spec.template.spec.domain.devices.interfaces[0])).toBe(
      '{"bridge":{},"model":"virtio","name":"default"}',
    );
    expect(JSON.stringify(vm.spec.template.spec.networks[0])).toBe('{"name":"default","pod":{}}');
    expect(JSON.stringify(vm.spec.template.spec.domain.features)).toBe(
      '{"acpi":{},"apic":{},"hyperv":{"relaxed":{},"spinlocks":{"spinlocks":8191},"vapic":{}}}',
    );
  });

  test('both documents pass the schema validator and the Kubernetes rules', () => {
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'VirtualMachine/legacy-erp',
      'DataVolume/legacy-erp-root',
    ]);
    expectValidManifests(docs);
    expectNoProblems(checkConformance(docs), 'Kubernetes rules');
  });

  test('the validator catches a field the generated classes would silently drop', () => {
    const broken = structuredClone(vm);
    broken.spec.template.spec.domain.devices.disks[0].ioMode = 'native';
    expect(() => expectValidManifests([broken])).toThrow(
      'VirtualMachine/legacy-erp: spec.template.spec.domain.devices.disks[0].ioMode: unknown field "ioMode"',
    );
  });
});
