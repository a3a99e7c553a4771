import {
  VirtualMachineSpec,
  VirtualMachineSpecTemplateSpecDomainDevicesDisks,
  VirtualMachineSpecTemplateSpecDomainDevicesInterfaces,
  VirtualMachineSpecTemplateSpecDomainResourcesLimits,
  VirtualMachineSpecTemplateSpecDomainResourcesRequests,
  VirtualMachineSpecTemplateSpecVolumes,
} from '../../imports/kubevirt-vm-kubevirt.io';
import { sizeToQuantity } from '../base/sizes';
import { DiskBus, InterfaceBinding, InterfaceModel, VmDisk, VmInterface, VmResourceAmounts } from './vm-devices';
import { DEFAULT_MEMORY } from './vm-names';
import { VmSettings, VmTemplateParts } from './vm-rules';
import { VmVolume } from './vm-volume';

/** What the VirtualMachine's `spec` is rendered from, once the tree is finished. */
export interface VmSpecInput {
  readonly settings: VmSettings;
  readonly parts: VmTemplateParts;
  /** `spec.template.metadata`, rendered as given. */
  readonly templateMetadata: { readonly labels: Record<string, string>; readonly annotations?: Record<string, string> };
  /** The name of the Secret that holds a volume's user data, when it went into one. */
  readonly userDataSecretName: (volume: string) => string | undefined;
}

/** The VirtualMachine's `spec`: run state, pod template metadata, domain (cpu, memory, resources, devices), networks, volumes. */
export function renderVmSpec(input: VmSpecInput): VirtualMachineSpec {
  const { settings, parts } = input;
  const resources = settings.resources ?? {};
  const requests = renderAmounts(resources.requests, VirtualMachineSpecTemplateSpecDomainResourcesRequests);
  if (resources.requests?.memory === undefined && resources.limits?.memory === undefined) {
    requests.memory = VirtualMachineSpecTemplateSpecDomainResourcesRequests.fromString(sizeToQuantity(DEFAULT_MEMORY));
  }
  const limits = renderAmounts(resources.limits, VirtualMachineSpecTemplateSpecDomainResourcesLimits);
  const passwordSecrets = [...new Set(parts.volumes.flatMap((v) => v.userData?.passwordSecrets ?? []))].sort();
  const sshKeys = settings.sshKeys ?? [];

  return {
    running: settings.runStrategy === undefined ? (settings.running ?? true) : undefined,
    runStrategy: settings.runStrategy,
    template: {
      metadata: input.templateMetadata,
      spec: {
        accessCredentials:
          passwordSecrets.length + sshKeys.length > 0
            ? [
                ...sshKeys.map((key) => ({
                  sshPublicKey: {
                    source: { secret: { secretName: key.secretName } },
                    propagationMethod: { qemuGuestAgent: { users: [...key.users] } },
                  },
                })),
                ...passwordSecrets.map((secretName) => ({
                  userPassword: { source: { secret: { secretName } }, propagationMethod: { qemuGuestAgent: {} } },
                })),
              ]
            : undefined,
        evictionStrategy: settings.evictionStrategy,
        readinessProbe: settings.readinessProbe
          ? {
              exec: { command: [...settings.readinessProbe.command] },
              initialDelaySeconds: settings.readinessProbe.initialDelaySeconds ?? 30,
              periodSeconds: settings.readinessProbe.periodSeconds ?? 10,
              timeoutSeconds: settings.readinessProbe.timeoutSeconds ?? 10,
              failureThreshold: settings.readinessProbe.failureThreshold ?? 3,
            }
          : undefined,
        domain: {
          cpu: settings.cpu
            ? { cores: settings.cpu.cores, sockets: settings.cpu.sockets, threads: settings.cpu.threads }
            : undefined,
          memory: settings.hugepages ? { hugepages: { pageSize: settings.hugepages } } : undefined,
          resources: {
            requests: Object.keys(requests).length > 0 ? requests : undefined,
            limits: Object.keys(limits).length > 0 ? limits : undefined,
          },
          features: renderFeatures(settings),
          devices: {
            disks: parts.disks.map(renderDisk),
            interfaces: parts.interfaces.map(renderInterface),
            gpus:
              parts.gpus.length > 0 ? parts.gpus.map((g) => ({ name: g.name, deviceName: g.deviceName })) : undefined,
          },
        },
        networks: parts.networks.map((n) =>
          n.kind === 'pod' ? { name: n.name, pod: {} } : { name: n.name, multus: { networkName: n.networkName! } },
        ),
        volumes: parts.volumes.map((v) => renderVolume(v, input.userDataSecretName(v.name))),
      },
    },
  };
}

function renderFeatures(settings: VmSettings) {
  const features = settings.features ?? {};
  const hyperv = features.hyperv;
  if (!features.acpi && !features.apic && !hyperv) {
    return undefined;
  }
  return {
    acpi: features.acpi ? {} : undefined,
    apic: features.apic ? {} : undefined,
    hyperv: hyperv
      ? {
          relaxed: hyperv.relaxed ? {} : undefined,
          vapic: hyperv.vapic ? {} : undefined,
          spinlocks: hyperv.spinlocks !== undefined ? { spinlocks: hyperv.spinlocks } : undefined,
        }
      : undefined,
  };
}

function renderVolume(volume: VmVolume, secretName: string | undefined): VirtualMachineSpecTemplateSpecVolumes {
  switch (volume.kind) {
    case 'dataVolume':
      return { name: volume.name, dataVolume: { name: volume.reference! } };
    case 'persistentVolumeClaim':
      return { name: volume.name, persistentVolumeClaim: { claimName: volume.reference! } };
    case 'configMap':
      return { name: volume.name, configMap: { name: volume.reference! } };
    case 'secret':
      return { name: volume.name, secret: { secretName: volume.reference! } };
    case 'cloudInitNoCloudSecret':
      return { name: volume.name, cloudInitNoCloud: { secretRef: { name: volume.reference! } } };
    case 'cloudInitNoCloud':
      return secretName
        ? { name: volume.name, cloudInitNoCloud: { secretRef: { name: secretName } } }
        : { name: volume.name, cloudInitNoCloud: { userData: volume.userData!.render() } };
  }
}

function renderDisk(disk: VmDisk): VirtualMachineSpecTemplateSpecDomainDevicesDisks {
  return {
    name: disk.name,
    disk: { bus: disk.bus ?? DiskBus.VIRTIO },
    cache: disk.cache,
    io: disk.io,
    bootOrder: disk.bootOrder,
    serial: disk.serial,
  };
}

function renderInterface(iface: VmInterface): VirtualMachineSpecTemplateSpecDomainDevicesInterfaces {
  const binding = iface.binding ?? InterfaceBinding.BRIDGE;
  return {
    name: iface.name,
    bridge: binding === InterfaceBinding.BRIDGE ? {} : undefined,
    masquerade: binding === InterfaceBinding.MASQUERADE ? {} : undefined,
    model: iface.model ?? InterfaceModel.VIRTIO,
  };
}

interface QuantityClass<T> {
  fromString(value: string): T;
  fromNumber(value: number): T;
}

function renderAmounts<T>(amounts: VmResourceAmounts | undefined, cls: QuantityClass<T>): Record<string, T> {
  const out: Record<string, T> = {};
  if (!amounts) {
    return out;
  }
  if (amounts.cpu) {
    out.cpu = cls.fromString(amounts.cpu.amount);
  }
  if (amounts.memory) {
    out.memory = cls.fromString(sizeToQuantity(amounts.memory));
  }
  for (const [device, count] of Object.entries(amounts.devices ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    out[device] = cls.fromNumber(count);
  }
  return out;
}
