import { Lazy, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DataVolume } from '../../imports/cdi-dv-cdi.kubevirt.io';
import { KubeSecret } from '../../imports/k8s';
import { VirtualMachine } from '../../imports/kubevirt-vm-kubevirt.io';
import { ComposeError } from '../compose/errors';
import { CloudConfig, inlinePasswordError } from './cloud-init';
import { DiskSource } from './disk-source';
import {
  EvictionStrategy,
  HugepageSize,
  InterfaceBinding,
  RunStrategy,
  VmCpu,
  VmDisk,
  VmDiskOptions,
  VmFeatures,
  VmGpu,
  VmInterface,
  VmReadinessProbe,
  VmResources,
  VmSshKey,
} from './vm-devices';
import { VmExposure, VmIngressOptions, VmServiceOptions } from './vm-exposure';
import {
  CLOUD_INIT_DISK,
  DATA_DISK,
  DATA_DISK_SERIAL,
  DEFAULT_NETWORK,
  ROOT_DISK,
  VM_LABEL,
  objectMeta,
} from './vm-names';
import { VmNetwork } from './vm-network';
import { VmAccessMode, blankDataVolume, rootDiskDataVolume } from './vm-root-disk';
import { checkRunState, checkVmSettings, vmTemplateViolations } from './vm-rules';
import { renderVmSpec } from './vm-spec';
import { VmUserDataSecrets } from './vm-user-data';
import { VmVolume } from './vm-volume';
import { sortedRecord } from '../util/sort';

/** The devices of the pod template as the VM collects them. */
interface VmTemplateLists {
  readonly disks: VmDisk[];
  readonly volumes: VmVolume[];
  readonly interfaces: VmInterface[];
  readonly networks: VmNetwork[];
  readonly gpus: VmGpu[];
}

export {
  APP_SECRETS_DISK,
  APP_SECRETS_SERIAL,
  CLOUD_INIT_DISK,
  DATA_DISK,
  DATA_DISK_SERIAL,
  DEFAULT_NETWORK,
  ROOT_DISK,
  VM_LABEL,
} from './vm-names';
export { KEEP_DATA_VOLUME_ANNOTATION, VmAccessMode } from './vm-root-disk';
export type { VmIngressOptions, VmServiceOptions, VmServicePort } from './vm-exposure';

/** Props of {@link GoldenImageVm}. */
export interface GoldenImageVmProps {
  /** The disk image the root disk is imported from, e.g. `DiskSource.fromGoldenImage(bundle, baseUrl)`. */
  readonly image: DiskSource;
  /**
   * The VirtualMachine's name (`metadata.name`), also the value of its `kubevirt.io/vm` label and the name `virtctl` takes.
   * @default - generated from the construct path
   */
  readonly name?: string;
  /**
   * `metadata.namespace` of the VM, its DataVolume, user data Secret, Services and Ingresses.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * Size of the root disk's DataVolume (`pvc.resources.requests.storage`).
   * @default - the smallest size that holds the image when it is known (a golden image), otherwise 20Gi
   */
  readonly storage?: Size;
  /**
   * Storage class of the root disk's DataVolume.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Start the VM when it is created (`spec.running`). Mutually exclusive with `runStrategy`.
   * @default true, unless runStrategy is set
   */
  readonly running?: boolean;
  /**
   * How the VM's running state is managed (`spec.runStrategy`). Mutually exclusive with `running`.
   * @default - not set: `running` is used
   */
  readonly runStrategy?: RunStrategy;
  /**
   * Access mode of the root and data disks' claims. With `ReadWriteMany` the VM can live-migrate.
   * @default VmAccessMode.READ_WRITE_ONCE
   */
  readonly accessMode?: VmAccessMode;
  /**
   * A blank data disk of this size beside the root disk (DataVolume `<name>-datadisk`, disk `datadisk` with the
   * serial `DATA_DISK_SERIAL`), in the same storage class: data the guest keeps there survives a new root disk (a
   * new golden image).
   * @default - no data disk
   */
  readonly dataDisk?: Size;
  /**
   * What a node drain does to the VM.
   * @default - EvictionStrategy.LIVE_MIGRATE with ReadWriteMany disks, else EvictionStrategy.NONE (the VM stops and
   * starts again on another node: ReadWriteOnce disks cannot move while it runs)
   */
  readonly evictionStrategy?: EvictionStrategy;
  /**
   * A readiness probe in the guest.
   * @default - none: the VM's pod is ready once the VM runs
   */
  readonly readinessProbe?: VmReadinessProbe;
  /**
   * SSH public keys for guest users, from Secrets (`accessCredentials`, propagated by the qemu guest agent).
   * @default - none
   */
  readonly sshKeys?: readonly VmSshKey[];
  /**
   * Options of the root disk.
   * @default - bus virtio
   */
  readonly rootDisk?: VmDiskOptions;
  /**
   * More disks; each needs a volume of the same name.
   * @default - none
   */
  readonly disks?: VmDisk[];
  /**
   * More volumes.
   * @default - none
   */
  readonly volumes?: VmVolume[];
  /**
   * Network interfaces; each needs a network of the same name.
   * @default - one interface "default", masquerade binding (the VM behind the pod's address: what KubeVirt recommends
   * on the pod network, and what live migration needs), model virtio
   */
  readonly interfaces?: VmInterface[];
  /**
   * Networks.
   * @default - the pod network, named "default"
   */
  readonly networks?: VmNetwork[];
  /**
   * GPUs passed through.
   * @default - none
   */
  readonly gpus?: VmGpu[];
  /**
   * Resource requests and limits.
   * @default - requests.memory 2Gi
   */
  readonly resources?: VmResources;
  /**
   * CPU topology.
   * @default - KubeVirt's default: one core
   */
  readonly cpu?: VmCpu;
  /**
   * Back guest memory with huge pages of this size.
   * @default - ordinary pages
   */
  readonly hugepages?: HugepageSize;
  /**
   * Firmware features.
   * @default - none written
   */
  readonly features?: VmFeatures;
  /**
   * Cloud-init user data, attached as the disk and volume "cloudinitdisk".
   * @default - no cloud-init disk
   */
  readonly userData?: CloudConfig;
  /**
   * More labels on the VM's pods (`spec.template.metadata.labels`), e.g. the network labels that NetworkPolicies select.
   * @default - only `kubevirt.io/vm`
   */
  readonly labels?: Record<string, string>;
  /**
   * Annotations on the VM's pods (`spec.template.metadata.annotations`), e.g. the CLI's `--annotations`.
   * @default - none
   */
  readonly templateAnnotations?: Record<string, string>;
}

/**
 * A KubeVirt VirtualMachine booted from a golden image: a DataVolume (`cdi.kubevirt.io/v1beta1`) that imports the
 * image, and the VirtualMachine (`kubevirt.io/v1`) with its disks, interfaces, resources and cloud-init data. It is
 * exposed through the same Service and Ingress resources as a container.
 *
 * Rules over the finished VM are checked at synth: every disk has a volume and every interface a network of the
 * same name, at most one pod network, known enum values, device counts that agree with the gpus.
 */
export class GoldenImageVm extends Construct {
  /** The VirtualMachine. Escape-hatch patches on it use the TypeScript prop names (`dedicatedIoThread`), see README. */
  public readonly virtualMachine: VirtualMachine;
  /** The DataVolume of the root disk. */
  public readonly dataVolume: DataVolume;
  /** The DataVolume of the data disk, when there is one. */
  public readonly dataDisk?: DataVolume;
  /** The Secret holding the cloud-init user data, when it carries a secret. */
  public get userDataSecret(): KubeSecret | undefined {
    return this.userDataSecrets.first;
  }
  /** The first Service created by {@link exposeViaService}. */
  public get service(): kplus.Service | undefined {
    return this.exposure.service;
  }
  /** The first Ingress created by {@link exposeViaIngress}. */
  public get ingress(): kplus.Ingress | undefined {
    return this.exposure.ingress;
  }

  private readonly parts: VmTemplateLists = { disks: [], volumes: [], interfaces: [], networks: [], gpus: [] };
  private readonly templateLabels: Record<string, string> = {};
  private readonly templateAnnotations: Record<string, string> = {};
  private readonly userDataSecrets: VmUserDataSecrets;
  private readonly exposure: VmExposure;
  private readonly props: GoldenImageVmProps;

  constructor(scope: Construct, id: string, props: GoldenImageVmProps) {
    super(scope, id);
    this.props = props;

    this.virtualMachine = new VirtualMachine(this, 'Resource', {
      metadata: objectMeta(props.name, props.namespace),
      spec: Lazy.any({ produce: () => this.renderSpec() }),
    });
    checkRunState(this.name, props);
    this.dataVolume = rootDiskDataVolume(this, { ...props, vmName: props.name, displayName: this.name });
    if (props.dataDisk) {
      this.dataDisk = blankDataVolume(this, 'DataDisk', {
        name: props.name ? `${props.name}-${DATA_DISK}` : undefined,
        namespace: props.namespace,
        storage: props.dataDisk,
        storageClassName: props.storageClassName,
        accessMode: props.accessMode,
      });
    }
    this.userDataSecrets = new VmUserDataSecrets(this, { vmName: props.name, namespace: props.namespace });
    this.exposure = new VmExposure(this, { vmName: this.name, namespace: props.namespace });

    this.templateLabels[VM_LABEL] = this.name;
    for (const [key, value] of Object.entries(props.labels ?? {})) {
      this.addTemplateLabel(key, value);
    }
    for (const [key, value] of Object.entries(props.templateAnnotations ?? {})) {
      this.addTemplateAnnotation(key, value);
    }

    this.addDisk({ name: ROOT_DISK, ...props.rootDisk });
    this.addVolume(VmVolume.dataVolume(ROOT_DISK, this.dataVolume.name));
    if (this.dataDisk) {
      this.addDisk({ name: DATA_DISK, serial: DATA_DISK_SERIAL });
      this.addVolume(VmVolume.dataVolume(DATA_DISK, this.dataDisk.name));
    }
    if (props.userData) {
      this.addDisk({ name: CLOUD_INIT_DISK });
      this.addVolume(VmVolume.cloudInitNoCloud(CLOUD_INIT_DISK, props.userData));
    }
    (props.disks ?? []).forEach((d) => this.addDisk(d));
    (props.volumes ?? []).forEach((v) => this.addVolume(v));
    (props.interfaces ?? [{ name: DEFAULT_NETWORK, binding: InterfaceBinding.MASQUERADE }]).forEach((i) =>
      this.addInterface(i),
    );
    (props.networks ?? [VmNetwork.pod(DEFAULT_NETWORK)]).forEach((n) => this.addNetwork(n));
    (props.gpus ?? []).forEach((g) => this.addGpu(g));

    checkVmSettings(this.name, props);
    this.node.addValidation({
      validate: () =>
        vmTemplateViolations(
          this.name,
          props,
          this.parts,
          (volume) => this.userDataSecrets.secretOf(volume) !== undefined,
        ),
    });
  }

  /** The VirtualMachine's name. */
  public get name(): string {
    return this.virtualMachine.name;
  }

  /** The labels on the VM's pods; Services and NetworkPolicies select them. */
  public get podLabels(): Record<string, string> {
    return { ...this.templateLabels };
  }

  /** Adds a label to the VM's pods (`spec.template.metadata.labels`). */
  public addTemplateLabel(key: string, value: string): void {
    if (key === VM_LABEL && value !== this.name) {
      throw new ComposeError(`VirtualMachine "${this.name}": the label ${VM_LABEL} is set by the construct`, {
        value,
        allowed: `the VM's name "${this.name}"`,
        hint: 'leave the label out; Services select the VM by it',
      });
    }
    this.templateLabels[key] = value;
  }

  /** Adds an annotation to the VM's pods (`spec.template.metadata.annotations`). */
  public addTemplateAnnotation(key: string, value: string): void {
    this.templateAnnotations[key] = value;
  }

  /** Adds a disk; a volume of the same name must exist by synth. */
  public addDisk(disk: VmDisk): void {
    this.parts.disks.push(disk);
  }

  /** Adds a volume. User data that sets a password inline is refused. */
  public addVolume(volume: VmVolume): void {
    if (volume.kind === 'cloudInitNoCloud' && volume.userData) {
      const inline = volume.userData.inlinePasswordPaths();
      if (inline.length > 0) {
        throw inlinePasswordError(`volume "${volume.name}" (${inline.join(', ')})`, this.name);
      }
      if (volume.userData.carriesSecret) {
        this.userDataSecrets.add(volume);
      }
    }
    this.parts.volumes.push(volume);
  }

  /** Adds a network interface; a network of the same name must exist by synth. */
  public addInterface(iface: VmInterface): void {
    this.parts.interfaces.push(iface);
  }

  /** Adds a network. */
  public addNetwork(network: VmNetwork): void {
    this.parts.networks.push(network);
  }

  /** Adds a GPU. */
  public addGpu(gpu: VmGpu): void {
    this.parts.gpus.push(gpu);
  }

  /** The GPUs, in the order added. */
  public get gpuDevices(): readonly VmGpu[] {
    return [...this.parts.gpus];
  }

  /**
   * Exposes the VM through a Service that selects `kubevirt.io/vm: <name>`, like a container's Service.
   * @returns the Service
   */
  public exposeViaService(options: VmServiceOptions): kplus.Service {
    return this.exposure.exposeViaService(options);
  }

  /**
   * Routes an HTTP path to a Service of the VM through an Ingress (`pathType: Prefix`, rewrite-target `/`).
   * @returns the Ingress
   */
  public exposeViaIngress(path: string, options: VmIngressOptions = {}): kplus.Ingress {
    return this.exposure.exposeViaIngress(path, options);
  }

  private renderSpec() {
    const annotations =
      Object.keys(this.templateAnnotations).length > 0 ? sortedRecord(this.templateAnnotations) : undefined;
    const liveMigrates = (this.props.accessMode ?? VmAccessMode.READ_WRITE_ONCE) === VmAccessMode.READ_WRITE_MANY;
    return renderVmSpec({
      settings: {
        ...this.props,
        evictionStrategy:
          this.props.evictionStrategy ?? (liveMigrates ? EvictionStrategy.LIVE_MIGRATE : EvictionStrategy.NONE),
      },
      parts: this.parts,
      templateMetadata: { labels: sortedRecord(this.templateLabels), ...(annotations ? { annotations } : {}) },
      userDataSecretName: (volume) => this.userDataSecrets.secretOf(volume)?.name,
    });
  }
}
