import { Size } from 'cdk8s';
import { Cpu } from 'cdk8s-plus-27';

/** How the VM's desired running state is managed (`spec.runStrategy`). */
export enum RunStrategy {
  /** Always running; restarted when it stops. */
  ALWAYS = 'Always',
  /** Restarted only when it fails. */
  RERUN_ON_FAILURE = 'RerunOnFailure',
  /** Started and stopped only by `virtctl start` / `virtctl stop`. */
  MANUAL = 'Manual',
  /** Stopped. */
  HALTED = 'Halted',
}

/** The bus a disk is attached to (`disk.bus`). */
export enum DiskBus {
  VIRTIO = 'virtio',
  SATA = 'sata',
  SCSI = 'scsi',
  USB = 'usb',
}

/** The host page cache mode of a disk (`cache`). */
export enum DiskCache {
  NONE = 'none',
  WRITE_THROUGH = 'writethrough',
  WRITE_BACK = 'writeback',
}

/** The QEMU I/O mode of a disk (`io`). */
export enum DiskIo {
  NATIVE = 'native',
  THREADS = 'threads',
  DEFAULT = 'default',
}

/** Options of a disk. */
export interface VmDiskOptions {
  /**
   * The bus.
   * @default DiskBus.VIRTIO
   */
  readonly bus?: DiskBus;
  /**
   * Host cache mode.
   * @default - KubeVirt's choice (none when the storage supports direct I/O)
   */
  readonly cache?: DiskCache;
  /**
   * I/O mode.
   * @default - KubeVirt's choice
   */
  readonly io?: DiskIo;
  /**
   * Boot order; lower boots first.
   * @default - none
   */
  readonly bootOrder?: number;
  /**
   * Serial number the guest sees (`/dev/disk/by-id/virtio-<serial>` on the virtio bus): how the guest finds a disk.
   * At most 20 letters, digits, "-" or "_".
   * @default - none
   */
  readonly serial?: string;
}

/** A disk of the VM (`domain.devices.disks[]`). Its data comes from the volume with the same name. */
export interface VmDisk extends VmDiskOptions {
  /** Name; a volume with the same name must exist. */
  readonly name: string;
}

/** How an interface connects to its network. */
export enum InterfaceBinding {
  /** The VM takes the pod's address (`bridge: {}`), as the migration spec shows. */
  BRIDGE = 'bridge',
  /** The VM sits behind NAT on the pod's address (`masquerade: {}`); pod network only. */
  MASQUERADE = 'masquerade',
}

/** The emulated network card (`model`). */
export enum InterfaceModel {
  VIRTIO = 'virtio',
  E1000 = 'e1000',
  E1000E = 'e1000e',
  NE2K_PCI = 'ne2k_pci',
  PCNET = 'pcnet',
  RTL8139 = 'rtl8139',
}

/** A network interface of the VM (`domain.devices.interfaces[]`). */
export interface VmInterface {
  /** Name; a network with the same name must exist. */
  readonly name: string;
  /**
   * Binding.
   * @default InterfaceBinding.BRIDGE
   */
  readonly binding?: InterfaceBinding;
  /**
   * Network card model.
   * @default InterfaceModel.VIRTIO
   */
  readonly model?: InterfaceModel;
}

/** A GPU passed through to the VM (`domain.devices.gpus[]`). */
export interface VmGpu {
  /** Name of the device in the VM. */
  readonly name: string;
  /** The resource name the device plugin advertises, e.g. `nvidia.com/TU104GL_Tesla_T4`. */
  readonly deviceName: string;
}

/** CPU topology (`domain.cpu`). */
export interface VmCpu {
  /**
   * Cores per socket.
   * @default - KubeVirt's default (1)
   */
  readonly cores?: number;
  /**
   * Sockets.
   * @default - KubeVirt's default (1)
   */
  readonly sockets?: number;
  /**
   * Threads per core.
   * @default - KubeVirt's default (1)
   */
  readonly threads?: number;
}

/** Resource amounts of a VM. */
export interface VmResourceAmounts {
  /**
   * Memory; the guest sees the request.
   * @default - none
   */
  readonly memory?: Size;
  /**
   * CPU.
   * @default - none
   */
  readonly cpu?: Cpu;
  /**
   * Device counts by resource name, e.g. `{ 'nvidia.com/gpu': 1 }`; each must equal the number of gpus with that deviceName.
   * @default - none
   */
  readonly devices?: Record<string, number>;
}

/** `domain.resources`. */
export interface VmResources {
  /**
   * Requests.
   * @default { memory: Size.gibibytes(2) }
   */
  readonly requests?: VmResourceAmounts;
  /**
   * Limits.
   * @default - none
   */
  readonly limits?: VmResourceAmounts;
}

/** Huge page size backing guest memory (`memory.hugepages.pageSize`). */
export enum HugepageSize {
  SIZE_2MI = '2Mi',
  SIZE_1GI = '1Gi',
}

/** Hyper-V enlightenments, for Windows guests. */
export interface VmHypervFeatures {
  /**
   * `relaxed: {}`.
   * @default false
   */
  readonly relaxed?: boolean;
  /**
   * `vapic: {}`.
   * @default false
   */
  readonly vapic?: boolean;
  /**
   * Spinlock retries (`spinlocks.spinlocks`), at least 4096.
   * @default - not set
   */
  readonly spinlocks?: number;
}

/** `domain.features`. */
export interface VmFeatures {
  /**
   * `acpi: {}`.
   * @default false - not written; KubeVirt enables ACPI anyway
   */
  readonly acpi?: boolean;
  /**
   * `apic: {}`.
   * @default false
   */
  readonly apic?: boolean;
  /**
   * Hyper-V enlightenments.
   * @default - none
   */
  readonly hyperv?: VmHypervFeatures;
}

/** What KubeVirt does with the VM when its node drains (`spec.template.spec.evictionStrategy`). */
export enum EvictionStrategy {
  /** Move the running VM to another node: needs every disk on ReadWriteMany storage. */
  LIVE_MIGRATE = 'LiveMigrate',
  /** Stop the VM (the guest shuts down); with `running: true` it starts again on another node. */
  NONE = 'None',
  /** Leave the eviction to an external controller (e.g. a cluster API provider). */
  EXTERNAL = 'External',
}

/**
 * A readiness probe run in the guest through the qemu guest agent (`readinessProbe.exec`): the VM's pod becomes
 * ready, and Services send it traffic, only while the command exits 0.
 */
export interface VmReadinessProbe {
  /** The command, run as root in the guest. */
  readonly command: readonly string[];
  /**
   * Seconds after the VM starts before the first probe.
   * @default 30
   */
  readonly initialDelaySeconds?: number;
  /**
   * Seconds between probes.
   * @default 10
   */
  readonly periodSeconds?: number;
  /**
   * Seconds a probe may take.
   * @default 10
   */
  readonly timeoutSeconds?: number;
  /**
   * Failed probes in a row before the VM is not ready.
   * @default 3
   */
  readonly failureThreshold?: number;
}

/** An SSH public key given to a guest user from a Secret (`accessCredentials[].sshPublicKey`, via the guest agent). */
export interface VmSshKey {
  /** The Secret in the VM's namespace; each of its keys holds one or more public keys. */
  readonly secretName: string;
  /** The guest users whose `authorized_keys` get the keys. */
  readonly users: readonly string[];
}
