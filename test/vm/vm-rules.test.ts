import { DiskBus, InterfaceBinding } from '../../lib/vm/vm-devices';
import { VmNetwork } from '../../lib/vm/vm-network';
import { checkVmSettings, vmTemplateViolations } from '../../lib/vm/vm-rules';
import { VmVolume } from '../../lib/vm/vm-volume';

const EMPTY = { disks: [], volumes: [], interfaces: [], networks: [], gpus: [] };

describe('vm-rules', () => {
  test('a consistent template breaks no rule', () => {
    expect(
      vmTemplateViolations(
        'legacy',
        {},
        {
          ...EMPTY,
          disks: [{ name: 'data', bus: DiskBus.SCSI }],
          volumes: [VmVolume.persistentVolumeClaim('data', 'legacy-data')],
          interfaces: [{ name: 'default' }, { name: 'storage' }],
          networks: [VmNetwork.pod(), VmNetwork.multus('storage', 'infra/storage-net')],
        },
        () => false,
      ),
    ).toEqual([]);
  });

  test('every broken rule is reported at once, each naming the VM', () => {
    const violations = vmTemplateViolations(
      'legacy',
      { resources: { requests: { devices: { 'nvidia.com/T4': 2 } } } },
      {
        ...EMPTY,
        disks: [{ name: 'data' }],
        interfaces: [{ name: 'storage', binding: InterfaceBinding.MASQUERADE }],
        networks: [VmNetwork.pod(), VmNetwork.pod('second'), VmNetwork.multus('storage', 'infra/storage-net')],
      },
      () => false,
    );
    expect(violations.map((v) => v.split(' (')[0].split('. ')[0])).toEqual([
      'VirtualMachine "legacy": disk "data" has no volume named "data"',
      'VirtualMachine "legacy": interface "storage" uses masquerade on the Multus network "storage"',
      'VirtualMachine "legacy": networks "default", "second" are all the pod network',
      'VirtualMachine "legacy": resources.requests.devices["nvidia.com/T4"] is 2 but 0 gpu(s) use that deviceName',
    ]);
  });

  test('checkVmSettings throws on a CPU count that is not a positive whole number', () => {
    expect(() => checkVmSettings('legacy', { cpu: { cores: 0 } })).toThrow(
      'VirtualMachine "legacy": cpu.cores is not a positive whole number',
    );
    expect(() => checkVmSettings('legacy', { cpu: { cores: 2 } })).not.toThrow();
  });
});
