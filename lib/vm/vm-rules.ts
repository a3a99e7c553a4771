import { Size } from 'cdk8s';
import { ComposeError } from '../compose/errors';
import { sizeToKibibytes, sizeToQuantity } from '../base/sizes';
import {
  DiskBus,
  DiskCache,
  DiskIo,
  EvictionStrategy,
  HugepageSize,
  InterfaceBinding,
  InterfaceModel,
  RunStrategy,
  VmCpu,
  VmDisk,
  VmFeatures,
  VmGpu,
  VmInterface,
  VmReadinessProbe,
  VmResources,
  VmSshKey,
} from './vm-devices';
import { DEFAULT_MEMORY } from './vm-names';
import { VmNetwork } from './vm-network';
import { VmVolume } from './vm-volume';

const MIN_SPINLOCKS = 4096;

/** The sizing and firmware settings of a VM, as `GoldenImageVmProps` holds and documents them (defaults there). */
export interface VmSettings {
  readonly evictionStrategy?: EvictionStrategy;
  readonly readinessProbe?: VmReadinessProbe;
  readonly sshKeys?: readonly VmSshKey[];
  readonly running?: boolean;
  readonly runStrategy?: RunStrategy;
  readonly resources?: VmResources;
  readonly cpu?: VmCpu;
  readonly hugepages?: HugepageSize;
  readonly features?: VmFeatures;
}

/** The devices of a VM's pod template, in the order added. */
export interface VmTemplateParts {
  readonly disks: readonly VmDisk[];
  readonly volumes: readonly VmVolume[];
  readonly interfaces: readonly VmInterface[];
  readonly networks: readonly VmNetwork[];
  readonly gpus: readonly VmGpu[];
}

/** The guest memory the VM asks for: the request, else the limit, else 2Gi. */
export function memoryRequest(settings: VmSettings): Size {
  const resources = settings.resources ?? {};
  return resources.requests?.memory ?? resources.limits?.memory ?? DEFAULT_MEMORY;
}

/** Throws when both `running` and `runStrategy` are set. */
export function checkRunState(vmName: string, settings: VmSettings): void {
  if (settings.running !== undefined && settings.runStrategy !== undefined) {
    throw new ComposeError(`VirtualMachine "${vmName}": both running and runStrategy are set`, {
      allowed: 'one of them: running (true or false) or runStrategy (Always, RerunOnFailure, Manual, Halted)',
      hint: 'remove running, or remove runStrategy',
    });
  }
}

/** Rules on the sizing and firmware settings alone, checked when the VM is created: throws the first one broken. */
export function checkVmSettings(vmName: string, settings: VmSettings): void {
  const cpu = settings.cpu ?? {};
  for (const key of ['cores', 'sockets', 'threads'] as const) {
    const value = cpu[key];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new ComposeError(`VirtualMachine "${vmName}": cpu.${key} is not a positive whole number`, {
        value,
        allowed: '1 or more',
      });
    }
  }
  const spinlocks = settings.features?.hyperv?.spinlocks;
  if (spinlocks !== undefined && (!Number.isInteger(spinlocks) || spinlocks < MIN_SPINLOCKS)) {
    throw new ComposeError(`VirtualMachine "${vmName}": features.hyperv.spinlocks is too small`, {
      value: spinlocks,
      allowed: `a whole number of at least ${MIN_SPINLOCKS}`,
    });
  }
  if (settings.runStrategy !== undefined) {
    throwIfUnknown(vmName, 'runStrategy', settings.runStrategy, RunStrategy);
  }
  if (settings.hugepages !== undefined) {
    throwIfUnknown(vmName, 'hugepages', settings.hugepages, HugepageSize);
    const memory = memoryRequest(settings);
    const page = Size.mebibytes(settings.hugepages === HugepageSize.SIZE_1GI ? 1024 : 2);
    if (sizeToKibibytes(memory) % sizeToKibibytes(page) !== 0) {
      throw new ComposeError(
        `VirtualMachine "${vmName}": memory ${sizeToQuantity(memory)} is not a whole number of ${settings.hugepages} huge pages`,
        {
          allowed: `a multiple of ${settings.hugepages}`,
          hint: 'round the memory request to the page size',
        },
      );
    }
  }
}

/**
 * Rules over the finished VM, run at synth (`node.addValidation`): names unique, every disk with its volume and every
 * interface with its network, known enum values, at most one pod network, device counts that agree with the gpus.
 * @param hasUserDataSecret whether the volume's user data went into a Secret when it was attached
 */
export function vmTemplateViolations(
  vmName: string,
  settings: VmSettings,
  parts: VmTemplateParts,
  hasUserDataSecret: (volume: string) => boolean,
): string[] {
  const errors: string[] = [];
  const vm = `VirtualMachine "${vmName}"`;
  const fail = (problem: string, details: ConstructorParameters<typeof ComposeError>[1]) =>
    errors.push(new ComposeError(problem, details).message);
  const enumCheck = (item: string, value: unknown, allowed: Record<string, string>) => {
    const message = enumMessage(vmName, item, value, allowed);
    if (message) {
      fail(message.problem, message.details);
    }
  };
  const { disks, volumes, interfaces, networks, gpus } = parts;

  const volumeNames = volumes.map((v) => v.name);
  const networkNames = networks.map((n) => n.name);
  duplicates(disks.map((d) => d.name)).forEach((n) =>
    fail(`${vm}: disk "${n}" is defined twice`, { hint: 'give each disk its own name' }),
  );
  duplicates(volumeNames).forEach((n) =>
    fail(`${vm}: volume "${n}" is defined twice`, { hint: 'give each volume its own name' }),
  );
  duplicates(interfaces.map((i) => i.name)).forEach((n) =>
    fail(`${vm}: interface "${n}" is defined twice`, { hint: 'give each interface its own name' }),
  );
  duplicates(networkNames).forEach((n) =>
    fail(`${vm}: network "${n}" is defined twice`, { hint: 'give each network its own name' }),
  );
  duplicates(gpus.map((g) => g.name)).forEach((n) =>
    fail(`${vm}: gpu "${n}" is defined twice`, { hint: 'give each gpu its own name' }),
  );

  for (const disk of disks) {
    if (!volumeNames.includes(disk.name)) {
      fail(`${vm}: disk "${disk.name}" has no volume named "${disk.name}"`, {
        allowed: `a disk name that is also a volume name (volumes: ${quoteList(volumeNames)})`,
        hint: `add a volume named "${disk.name}" with addVolume(VmVolume.persistentVolumeClaim("${disk.name}", ...)) or another VmVolume, or remove the disk`,
      });
    }
    enumCheck(`disk "${disk.name}": bus`, disk.bus ?? DiskBus.VIRTIO, DiskBus);
    if (disk.cache !== undefined) {
      enumCheck(`disk "${disk.name}": cache`, disk.cache, DiskCache);
    }
    if (disk.io !== undefined) {
      enumCheck(`disk "${disk.name}": io`, disk.io, DiskIo);
    }
    if (disk.serial !== undefined && !/^[A-Za-z0-9_-]{1,20}$/.test(disk.serial)) {
      fail(`${vm}: disk "${disk.name}": serial is not usable`, {
        value: disk.serial,
        allowed: '1 to 20 letters, digits, "-" or "_"',
        hint: 'shorten the serial',
      });
    }
  }

  for (const iface of interfaces) {
    const network = networks.find((n) => n.name === iface.name);
    if (!network) {
      fail(`${vm}: interface "${iface.name}" has no network named "${iface.name}"`, {
        allowed: `an interface name that is also a network name (networks: ${quoteList(networkNames)})`,
        hint: `add a network named "${iface.name}" with addNetwork(VmNetwork.multus("${iface.name}", "<attachment>")) or VmNetwork.pod("${iface.name}"), or remove the interface`,
      });
    }
    enumCheck(`interface "${iface.name}": binding`, iface.binding ?? InterfaceBinding.BRIDGE, InterfaceBinding);
    enumCheck(`interface "${iface.name}": model`, iface.model ?? InterfaceModel.VIRTIO, InterfaceModel);
    if (network && network.kind !== 'pod' && iface.binding === InterfaceBinding.MASQUERADE) {
      fail(`${vm}: interface "${iface.name}" uses masquerade on the Multus network "${network.name}"`, {
        allowed: 'masquerade on the pod network only',
        hint: 'use InterfaceBinding.BRIDGE for Multus networks',
      });
    }
  }

  for (const volume of volumes) {
    if (volume.kind === 'cloudInitNoCloud' && volume.userData?.carriesSecret && !hasUserDataSecret(volume.name)) {
      fail(`${vm}: volume "${volume.name}": the cloud-init user data gained a secret after it was attached`, {
        allowed: 'user data that is complete when it is passed to the VM',
        hint: 'add the password or sensitive file to the CloudConfig before passing it as userData',
      });
    }
  }

  const podNetworks = networks.filter((n) => n.kind === 'pod').map((n) => n.name);
  if (podNetworks.length > 1) {
    fail(`${vm}: networks ${quoteList(podNetworks)} are all the pod network`, {
      allowed: 'at most one pod network',
      hint: 'keep one VmNetwork.pod() and make the others VmNetwork.multus(name, networkName)',
    });
  }

  const resources = settings.resources ?? {};
  for (const [which, amounts] of [
    ['requests', resources.requests],
    ['limits', resources.limits],
  ] as const) {
    for (const [device, count] of Object.entries(amounts?.devices ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      const used = gpus.filter((g) => g.deviceName === device).length;
      if (count !== used) {
        fail(`${vm}: resources.${which}.devices["${device}"] is ${count} but ${used} gpu(s) use that deviceName`, {
          allowed: 'a device count equal to the number of gpus with that deviceName',
          hint: `set it to ${used}, or add or remove gpus with deviceName "${device}"`,
        });
      }
    }
  }
  return errors;
}

function throwIfUnknown(vmName: string, item: string, value: unknown, allowed: Record<string, string>): void {
  const message = enumMessage(vmName, item, value, allowed);
  if (message) {
    throw new ComposeError(message.problem, message.details);
  }
}

function enumMessage(vmName: string, item: string, value: unknown, allowed: Record<string, string>) {
  const values = Object.values(allowed);
  if (values.includes(value as string)) {
    return undefined;
  }
  return {
    problem: `VirtualMachine "${vmName}": ${item} is not a known value`,
    details: { value, allowed: quoteList([...values].sort()), hint: 'use the enum member, e.g. DiskBus.VIRTIO' },
  };
}

function duplicates(names: string[]): string[] {
  return [...new Set(names.filter((n, i) => names.indexOf(n) !== i))].sort();
}

function quoteList(names: readonly string[]): string {
  return names.length === 0
    ? 'none'
    : [...names]
        .sort()
        .map((n) => `"${n}"`)
        .join(', ');
}
