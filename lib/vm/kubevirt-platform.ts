import { Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { Cdiv1Beta1, Cdiv1Beta1SpecImagePullPolicy } from '../../imports/cdi-cdi-cdi.kubevirt.io';
import { KubeVirt } from '../../imports/kubevirt-kv-kubevirt.io';
import { ComposeError } from '../compose/errors';
import { GoldenImageVm } from './golden-image-vm';
import { RunbookStep, vmInstallSteps } from './install-steps';
import { KUBEVIRT_VERSION, cdiVersionFor, checkReleaseVersion } from './versions';

/** KubeVirt v0.59 feature gates the VM target uses (`developerConfiguration.featureGates`). */
export enum KubeVirtFeatureGate {
  /** GPU passthrough (`domain.devices.gpus`). */
  GPU = 'GPU',
  /** Host device passthrough (`domain.devices.hostDevices`). */
  HOST_DEVICES = 'HostDevices',
  /** VirtualMachineSnapshot objects (the runbook's snapshot, applied with kubectl). */
  SNAPSHOT = 'Snapshot',
  /** VirtualMachineExport (`virtctl vmexport`). */
  VM_EXPORT = 'VMExport',
  /** Hot-plugging volumes into running VMs. */
  HOTPLUG_VOLUMES = 'HotplugVolumes',
  /** Growing a VM disk when its PVC grows. */
  EXPAND_DISKS = 'ExpandDisks',
  /** Dedicated CPUs (`cpu.dedicatedCpuPlacement`). */
  CPU_MANAGER = 'CPUManager',
}

/** A PCI device KubeVirt may pass through (`permittedHostDevices.pciHostDevices[]`). */
export interface PermittedPciDevice {
  /** `vendor:device` in hex, e.g. `10DE:1EB8`. */
  readonly pciVendorSelector: string;
  /** The resource name VMs request as a gpu's `deviceName`, e.g. `nvidia.com/TU104GL_Tesla_T4`. */
  readonly resourceName: string;
  /**
   * The device plugin is the vendor's (e.g. the NVIDIA GPU operator), not KubeVirt's.
   * @default false
   */
  readonly externalResourceProvider?: boolean;
}

/** Props of {@link KubeVirtPlatform}. */
export interface KubeVirtPlatformProps {
  /**
   * The KubeVirt release.
   * @default KUBEVIRT_VERSION (v0.59.0)
   */
  readonly version?: string;
  /**
   * The CDI release.
   * @default - the release that pairs with `version` (v1.56.0 for v0.59.0)
   */
  readonly cdiVersion?: string;
  /**
   * Feature gates to turn on, besides those the app's VMs need.
   * @default - Snapshot and VMExport (the runbook's VirtualMachineSnapshot and `virtctl vmexport`); GPU is added when a VM
   * in the app has gpus
   */
  readonly featureGates?: KubeVirtFeatureGate[];
  /**
   * PCI devices that VMs may pass through; every gpu's deviceName must be one of their resource names.
   * @default - none
   */
  readonly permittedPciDevices?: PermittedPciDevice[];
  /**
   * Run VMs with software emulation on nodes without /dev/kvm: for test clusters only, many times slower.
   * @default false
   */
  readonly useEmulation?: boolean;
}

const DEFAULT_GATES = [KubeVirtFeatureGate.SNAPSHOT, KubeVirtFeatureGate.VM_EXPORT];
const PCI_SELECTOR = /^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}$/;

/**
 * The VM extension's custom resources: the KubeVirt CR (`kubevirt.io/v1` KubeVirt `kubevirt` in namespace
 * `kubevirt`) with the feature gates the app's VMs need, and the CDI CR (`cdi.kubevirt.io/v1beta1` CDI `cdi`) as
 * the release ships it. Apply them after the operators of the same releases ({@link installSteps}).
 */
export class KubeVirtPlatform extends Construct {
  /** The KubeVirt custom resource. */
  public readonly kubeVirt: KubeVirt;
  /** The CDI custom resource. */
  public readonly cdi: Cdiv1Beta1;
  /** The KubeVirt release. */
  public readonly version: string;
  /** The CDI release. */
  public readonly cdiVersion: string;

  private readonly props: KubeVirtPlatformProps;

  constructor(scope: Construct, id: string, props: KubeVirtPlatformProps = {}) {
    super(scope, id);
    this.props = props;
    this.version = checkReleaseVersion(props.version ?? KUBEVIRT_VERSION, 'KubeVirt');
    this.cdiVersion = cdiVersionFor(this.version, props.cdiVersion);
    for (const [index, device] of (props.permittedPciDevices ?? []).entries()) {
      if (!PCI_SELECTOR.test(device.pciVendorSelector)) {
        throw new ComposeError(
          `KubeVirt: permittedPciDevices[${index}].pciVendorSelector is not a PCI vendor:device pair`,
          {
            value: device.pciVendorSelector,
            allowed: 'four hex digits, ":", four hex digits, e.g. "10DE:1EB8"',
            hint: 'read it with lspci -nn on the node',
          },
        );
      }
    }
    const devices = props.permittedPciDevices ?? [];

    this.kubeVirt = new KubeVirt(this, 'KubeVirt', {
      metadata: { name: 'kubevirt', namespace: 'kubevirt' },
      spec: {
        imagePullPolicy: 'IfNotPresent',
        configuration: {
          developerConfiguration: {
            featureGates: Lazy.any({ produce: () => this.featureGates() }),
            useEmulation: props.useEmulation,
          },
          permittedHostDevices:
            devices.length > 0
              ? {
                  pciHostDevices: [...devices]
                    .sort((a, b) => a.resourceName.localeCompare(b.resourceName))
                    .map((d) => ({
                      pciVendorSelector: d.pciVendorSelector.toUpperCase(),
                      resourceName: d.resourceName,
                      externalResourceProvider: d.externalResourceProvider,
                    })),
                }
              : undefined,
        },
      },
    });

    this.cdi = new Cdiv1Beta1(this, 'Cdi', {
      metadata: { name: 'cdi' },
      spec: {
        config: { featureGates: ['HonorWaitForFirstConsumer'] },
        imagePullPolicy: Cdiv1Beta1SpecImagePullPolicy.IF_NOT_PRESENT,
        infra: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }],
        },
        workload: { nodeSelector: { 'kubernetes.io/os': 'linux' } },
      },
    });

    this.node.addValidation({ validate: () => [...this.validateScope(), ...this.validateGpus()] });
  }

  /** The feature gates, sorted: the ones given (or the defaults) plus GPU when a VM in the app passes one through. */
  public featureGates(): string[] {
    const gates = new Set<string>(this.props.featureGates ?? DEFAULT_GATES);
    if (this.vms().some((vm) => vm.gpuDevices.length > 0)) {
      gates.add(KubeVirtFeatureGate.GPU);
    }
    return [...gates].sort();
  }

  /** The install and check steps for these releases. */
  public installSteps(platformManifest?: string): RunbookStep[] {
    return vmInstallSteps({ kubevirtVersion: this.version, cdiVersion: this.cdiVersion, platformManifest });
  }

  private vms(): GoldenImageVm[] {
    return this.node.root.node.findAll().filter((c): c is GoldenImageVm => c instanceof GoldenImageVm);
  }

  /** CDI is cluster-scoped: a chart namespace would be stamped on it, and the API server would refuse it. */
  private validateScope(): string[] {
    const namespace = this.cdi.metadata.namespace;
    if (namespace === undefined) {
      return [];
    }
    return [
      new ComposeError(
        `KubeVirt: the CDI custom resource is cluster-scoped but its chart gives it the namespace "${namespace}"`,
        {
          allowed: 'a KubeVirtPlatform in a chart without a namespace',
          hint: "create the platform in a chart of its own, e.g. new KubeVirtPlatform(new Chart(app, 'platform'), 'platform')",
        },
      ).message,
    ];
  }

  private validateGpus(): string[] {
    const permitted = new Set((this.props.permittedPciDevices ?? []).map((d) => d.resourceName));
    const errors: string[] = [];
    for (const vm of this.vms()) {
      for (const gpu of vm.gpuDevices) {
        if (!permitted.has(gpu.deviceName)) {
          errors.push(
            new ComposeError(
              `KubeVirt: VirtualMachine "${vm.name}" passes through gpu "${gpu.name}" with deviceName "${gpu.deviceName}", which permittedPciDevices does not list`,
              {
                allowed:
                  permitted.size > 0
                    ? [...permitted]
                        .sort()
                        .map((p) => `"${p}"`)
                        .join(', ')
                    : 'no devices: permittedPciDevices is empty',
                hint: `add { pciVendorSelector: "<vendor:device>", resourceName: "${gpu.deviceName}" } to permittedPciDevices`,
              },
            ).message,
          );
        }
      }
    }
    return errors;
  }
}
