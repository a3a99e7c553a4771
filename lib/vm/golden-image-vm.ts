import { Lazy, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { DataVolume, DataVolumeSpecPvcResourcesRequests } from '../../imports/cdi-dv-cdi.kubevirt.io';
import { KubeSecret } from '../../imports/k8s';
import {
  VirtualMachine,
  VirtualMachineSpec,
  VirtualMachineSpecTemplateSpecDomainDevicesDisks,
  VirtualMachineSpecTemplateSpecDomainDevicesInterfaces,
  VirtualMachineSpecTemplateSpecDomainResourcesLimits,
  VirtualMachineSpecTemplateSpecDomainResourcesRequests,
  VirtualMachineSpecTemplateSpecVolumes,
} from '../../imports/kubevirt-vm-kubevirt.io';
import { ComposeError } from '../compose/errors';
import { CloudConfig, inlinePasswordError } from './cloud-init';
import { DiskSource } from './disk-source';
import { sizeToKibibytes, sizeToQuantity } from '../base/sizes';
import {
  DiskBus,
  DiskCache,
  DiskIo,
  HugepageSize,
  InterfaceBinding,
  InterfaceModel,
  RunStrategy,
  VmCpu,
  VmDisk,
  VmDiskOptions,
  VmFeatures,
  VmGpu,
  VmInterface,
  VmResourceAmounts,
  VmResources,
} from './vm-devices';
import { VmNetwork } from './vm-network';
import { VmVolume } from './vm-volume';
import { sortedRecord } from '../util/sort';

/** The label that ties a VM's pods to Services and NetworkPolicies (`spec.template.metadata.labels`). */
export const VM_LABEL = 'kubevirt.io/vm';
/** The root disk and its volume. */
export const ROOT_DISK = 'rootdisk';
/** The cloud-init disk and its volume. */
export const CLOUD_INIT_DISK = 'cloudinitdisk';
/** The default interface and its network. */
export const DEFAULT_NETWORK = 'default';

const DEFAULT_MEMORY = Size.gibibytes(2);
const DEFAULT_STORAGE = Size.gibibytes(20);
const MIN_SPINLOCKS = 4096;

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
   * @default - one interface "default", bridge binding, model virtio
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
   * Annotations on the VM's pods (`spec.template.metadata.annotations`).
   * @default - none
   */
  readonly templateAnnotations?: Readonly<Record<string, string>>;
}

/** A port of a Service in front of a VM. */
export interface VmServicePort {
  /** The Service port. */
  readonly port: number;
  /**
   * The port in the guest.
   * @default - the same as port
   */
  readonly targetPort?: number;
  /**
   * Port name; required by Kubernetes when a Service has several ports.
   * @default - none
   */
  readonly name?: string;
  /**
   * Protocol.
   * @default kplus.Protocol.TCP
   */
  readonly protocol?: kplus.Protocol;
}

/** Options for {@link GoldenImageVm.exposeViaService}. */
export interface VmServiceOptions {
  /**
   * The Service name; also its construct id, so each Service of a VM needs its own.
   * @default - generated from the construct path (construct id "Service")
   */
  readonly name?: string;
  /** Ports. */
  readonly ports: VmServicePort[];
  /**
   * Service type.
   * @default kplus.ServiceType.CLUSTER_IP
   */
  readonly serviceType?: kplus.ServiceType;
}

/** Options for {@link GoldenImageVm.exposeViaIngress}. */
export interface VmIngressOptions {
  /**
   * The Ingress name.
   * @default - generated from the construct path
   */
  readonly name?: string;
  /**
   * Host name of the rule.
   * @default - any host
   */
  readonly host?: string;
  /**
   * The Service to route to.
   * @default - the VM's first Service (exposeViaService must have been called)
   */
  readonly service?: kplus.Service;
  /**
   * The Service port to route to.
   * @default - the Service's first port
   */
  readonly port?: number;
  /**
   * The IngressClass.
   * @default - the cluster's default class
   */
  readonly className?: string;
  /**
   * Annotations of the Ingress.
   * @default { 'nginx.ingress.kubernetes.io/rewrite-target': '/' }
   */
  readonly annotations?: Record<string, string>;
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
  /** The Secret holding the cloud-init user data, when it carries a secret. */
  public get userDataSecret(): KubeSecret | undefined {
    return this.firstUserDataSecret;
  }
  /** The first Service created by {@link exposeViaService}. */
  public get service(): kplus.Service | undefined {
    return this.firstService;
  }
  /** The first Ingress created by {@link exposeViaIngress}. */
  public get ingress(): kplus.Ingress | undefined {
    return this.firstIngress;
  }

  private firstUserDataSecret?: KubeSecret;
  private firstService?: kplus.Service;
  private firstIngress?: kplus.Ingress;

  private readonly disks: VmDisk[] = [];
  private readonly volumes: VmVolume[] = [];
  private readonly interfaces: VmInterface[] = [];
  private readonly networks: VmNetwork[] = [];
  private readonly gpus: VmGpu[] = [];
  private readonly templateLabels: Record<string, string> = {};
  private readonly secretsByVolume = new Map<string, KubeSecret>();
  private ingressCount = 0;
  private readonly props: GoldenImageVmProps;

  constructor(scope: Construct, id: string, props: GoldenImageVmProps) {
    super(scope, id);
    this.props = props;

    this.virtualMachine = new VirtualMachine(this, 'Resource', {
      metadata: objectMeta(props.name, props.namespace),
      spec: Lazy.any({ produce: () => this.renderSpec() }),
    });
    if (props.running !== undefined && props.runStrategy !== undefined) {
      throw new ComposeError(`VirtualMachine "${this.name}": both running and runStrategy are set`, {
        allowed: 'one of them: running (true or false) or runStrategy (Always, RerunOnFailure, Manual, Halted)',
        hint: 'remove running, or remove runStrategy',
      });
    }

    const storage = props.storage ?? props.image.minimumStorage ?? DEFAULT_STORAGE;
    if (props.image.minimumStorage && sizeToKibibytes(storage) < sizeToKibibytes(props.image.minimumStorage)) {
      throw new ComposeError(`VirtualMachine "${this.name}": storage ${sizeToQuantity(storage)} is too small for the image`, {
        allowed: `at least ${sizeToQuantity(props.image.minimumStorage)} (the image's virtual size plus CDI's file-system overhead)`,
        hint: 'raise storage, or leave it out to get the smallest size that fits',
      });
    }
    this.dataVolume = new DataVolume(this, 'DataVolume', {
      metadata: objectMeta(props.name ? `${props.name}-${ROOT_DISK}` : undefined, props.namespace),
      spec: {
        source: props.image.kind === 'http'
          ? { http: { url: props.image.url, certConfigMap: props.image.certConfigMap } }
          : { registry: { url: props.image.url } },
        pvc: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: DataVolumeSpecPvcResourcesRequests.fromString(sizeToQuantity(storage)) } },
          storageClassName: props.storageClassName,
        },
      },
    });

    this.templateLabels[VM_LABEL] = this.name;
    for (const [key, value] of Object.entries(props.labels ?? {})) {
      this.addTemplateLabel(key, value);
    }

    this.addDisk({ name: ROOT_DISK, ...props.rootDisk });
    this.addVolume(VmVolume.dataVolume(ROOT_DISK, this.dataVolume.name));
    if (props.userData) {
      this.addDisk({ name: CLOUD_INIT_DISK });
      this.addVolume(VmVolume.cloudInitNoCloud(CLOUD_INIT_DISK, props.userData));
    }
    (props.disks ?? []).forEach((d) => this.addDisk(d));
    (props.volumes ?? []).forEach((v) => this.addVolume(v));
    (props.interfaces ?? [{ name: DEFAULT_NETWORK }]).forEach((i) => this.addInterface(i));
    (props.networks ?? [VmNetwork.pod(DEFAULT_NETWORK)]).forEach((n) => this.addNetwork(n));
    (props.gpus ?? []).forEach((g) => this.addGpu(g));

    this.checkProps();
    this.node.addValidation({ validate: () => this.validateVm() });
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

  /** Adds a disk; a volume of the same name must exist by synth. */
  public addDisk(disk: VmDisk): void {
    this.disks.push(disk);
  }

  /** Adds a volume. User data that sets a password inline is refused. */
  public addVolume(volume: VmVolume): void {
    if (volume.kind === 'cloudInitNoCloud' && volume.userData) {
      const inline = volume.userData.inlinePasswordPaths();
      if (inline.length > 0) {
        throw inlinePasswordError(`volume "${volume.name}" (${inline.join(', ')})`, this.name);
      }
      if (volume.userData.carriesSecret) {
        this.addUserDataSecret(volume);
      }
    }
    this.volumes.push(volume);
  }

  /** Adds a network interface; a network of the same name must exist by synth. */
  public addInterface(iface: VmInterface): void {
    this.interfaces.push(iface);
  }

  /** Adds a network. */
  public addNetwork(network: VmNetwork): void {
    this.networks.push(network);
  }

  /** Adds a GPU. */
  public addGpu(gpu: VmGpu): void {
    this.gpus.push(gpu);
  }

  /** The GPUs, in the order added. */
  public get gpuDevices(): readonly VmGpu[] {
    return [...this.gpus];
  }

  /**
   * Exposes the VM through a Service that selects `kubevirt.io/vm: <name>`, like a container's Service.
   * @returns the Service
   */
  public exposeViaService(options: VmServiceOptions): kplus.Service {
    if (options.ports.length === 0) {
      throw new ComposeError(`VirtualMachine "${this.name}": a Service needs at least one port`, {
        hint: 'pass ports: [{ port: 80 }]',
      });
    }
    const service = new kplus.Service(this, options.name ?? 'Service', {
      metadata: objectMeta(options.name, this.props.namespace),
      type: options.serviceType ?? kplus.ServiceType.CLUSTER_IP,
      ports: options.ports.map((p) => ({
        port: p.port,
        targetPort: p.targetPort ?? p.port,
        name: p.name,
        protocol: p.protocol,
      })),
    });
    service.selectLabel(VM_LABEL, this.name);
    this.firstService = this.firstService ?? service;
    return service;
  }

  /**
   * Routes an HTTP path to a Service of the VM through an Ingress (`pathType: Prefix`, rewrite-target `/`).
   * @returns the Ingress
   */
  public exposeViaIngress(path: string, options: VmIngressOptions = {}): kplus.Ingress {
    const service = options.service ?? this.service;
    if (!service) {
      throw new ComposeError(`VirtualMachine "${this.name}": an Ingress needs a Service`, {
        hint: 'call exposeViaService() first, or pass service',
      });
    }
    if (!path.startsWith('/')) {
      throw new ComposeError(`VirtualMachine "${this.name}": the Ingress path must begin with "/"`, { value: path });
    }
    this.ingressCount += 1;
    const ingress = new kplus.Ingress(this, this.ingressCount === 1 ? 'Ingress' : `Ingress${this.ingressCount}`, {
      metadata: objectMeta(options.name, this.props.namespace),
      className: options.className,
    });
    const annotations = options.annotations ?? { 'nginx.ingress.kubernetes.io/rewrite-target': '/' };
    for (const [key, value] of Object.entries(annotations).sort(([a], [b]) => a.localeCompare(b))) {
      ingress.metadata.addAnnotation(key, value);
    }
    const backend = kplus.IngressBackend.fromService(service, { port: options.port ?? service.ports[0].port });
    if (options.host) {
      ingress.addHostRule(options.host, path, backend, kplus.HttpIngressPathType.PREFIX);
    } else {
      ingress.addRule(path, backend, kplus.HttpIngressPathType.PREFIX);
    }
    this.firstIngress = this.firstIngress ?? ingress;
    return ingress;
  }

  private addUserDataSecret(volume: VmVolume): void {
    const id = volume.name === CLOUD_INIT_DISK ? 'UserData' : `UserData-${volume.name}`;
    const userData = volume.userData!;
    const secret = new KubeSecret(this, id, {
      metadata: objectMeta(this.props.name ? `${this.props.name}-${volume.name}` : undefined, this.props.namespace),
      type: 'Opaque',
      data: Lazy.any({ produce: () => ({ userdata: Buffer.from(userData.render(), 'utf-8').toString('base64') }) }),
    });
    this.firstUserDataSecret = this.firstUserDataSecret ?? secret;
    this.secretsByVolume.set(volume.name, secret);
  }

  /** Rules on the props alone, checked at once. */
  private checkProps(): void {
    const cpu = this.props.cpu ?? {};
    for (const key of ['cores', 'sockets', 'threads'] as const) {
      const value = cpu[key];
      if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
        throw new ComposeError(`VirtualMachine "${this.name}": cpu.${key} is not a positive whole number`, {
          value,
          allowed: '1 or more',
        });
      }
    }
    const spinlocks = this.props.features?.hyperv?.spinlocks;
    if (spinlocks !== undefined && (!Number.isInteger(spinlocks) || spinlocks < MIN_SPINLOCKS)) {
      throw new ComposeError(`VirtualMachine "${this.name}": features.hyperv.spinlocks is too small`, {
        value: spinlocks,
        allowed: `a whole number of at least ${MIN_SPINLOCKS}`,
      });
    }
    if (this.props.runStrategy !== undefined) {
      this.checkEnum('runStrategy', this.props.runStrategy, RunStrategy);
    }
    if (this.props.hugepages !== undefined) {
      this.checkEnum('hugepages', this.props.hugepages, HugepageSize);
      const memory = this.memoryRequest();
      const page = Size.mebibytes(this.props.hugepages === HugepageSize.SIZE_1GI ? 1024 : 2);
      if (sizeToKibibytes(memory) % sizeToKibibytes(page) !== 0) {
        throw new ComposeError(`VirtualMachine "${this.name}": memory ${sizeToQuantity(memory)} is not a whole number of ${this.props.hugepages} huge pages`, {
          allowed: `a multiple of ${this.props.hugepages}`,
          hint: 'round the memory request to the page size',
        });
      }
    }
  }

  private memoryRequest(): Size {
    const resources = this.props.resources ?? {};
    return resources.requests?.memory ?? resources.limits?.memory ?? DEFAULT_MEMORY;
  }

  private checkEnum(item: string, value: unknown, allowed: Record<string, string>): void {
    const message = enumMessage(this.name, item, value, allowed);
    if (message) {
      throw new ComposeError(message.problem, message.details);
    }
  }

  /** Rules over the finished VM, run at synth. */
  private validateVm(): string[] {
    const errors: string[] = [];
    const vm = `VirtualMachine "${this.name}"`;
    const fail = (problem: string, details: ConstructorParameters<typeof ComposeError>[1]) =>
      errors.push(new ComposeError(problem, details).message);
    const enumCheck = (item: string, value: unknown, allowed: Record<string, string>) => {
      const message = enumMessage(this.name, item, value, allowed);
      if (message) {
        fail(message.problem, message.details);
      }
    };

    const volumeNames = this.volumes.map((v) => v.name);
    const networkNames = this.networks.map((n) => n.name);
    duplicates(this.disks.map((d) => d.name)).forEach((n) => fail(`${vm}: disk "${n}" is defined twice`, { hint: 'give each disk its own name' }));
    duplicates(volumeNames).forEach((n) => fail(`${vm}: volume "${n}" is defined twice`, { hint: 'give each volume its own name' }));
    duplicates(this.interfaces.map((i) => i.name)).forEach((n) => fail(`${vm}: interface "${n}" is defined twice`, { hint: 'give each interface its own name' }));
    duplicates(networkNames).forEach((n) => fail(`${vm}: network "${n}" is defined twice`, { hint: 'give each network its own name' }));
    duplicates(this.gpus.map((g) => g.name)).forEach((n) => fail(`${vm}: gpu "${n}" is defined twice`, { hint: 'give each gpu its own name' }));

    for (const disk of this.disks) {
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
    }

    for (const iface of this.interfaces) {
      const network = this.networks.find((n) => n.name === iface.name);
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

    for (const volume of this.volumes) {
      if (volume.kind === 'cloudInitNoCloud' && volume.userData?.carriesSecret && !this.secretsByVolume.has(volume.name)) {
        fail(`${vm}: volume "${volume.name}": the cloud-init user data gained a secret after it was attached`, {
          allowed: 'user data that is complete when it is passed to the VM',
          hint: 'add the password or sensitive file to the CloudConfig before passing it as userData',
        });
      }
    }

    const podNetworks = this.networks.filter((n) => n.kind === 'pod').map((n) => n.name);
    if (podNetworks.length > 1) {
      fail(`${vm}: networks ${quoteList(podNetworks)} are all the pod network`, {
        allowed: 'at most one pod network',
        hint: 'keep one VmNetwork.pod() and make the others VmNetwork.multus(name, networkName)',
      });
    }

    const resources = this.props.resources ?? {};
    for (const [which, amounts] of [['requests', resources.requests], ['limits', resources.limits]] as const) {
      for (const [device, count] of Object.entries(amounts?.devices ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
        const gpus = this.gpus.filter((g) => g.deviceName === device).length;
        if (count !== gpus) {
          fail(`${vm}: resources.${which}.devices["${device}"] is ${count} but ${gpus} gpu(s) use that deviceName`, {
            allowed: 'a device count equal to the number of gpus with that deviceName',
            hint: `set it to ${gpus}, or add or remove gpus with deviceName "${device}"`,
          });
        }
      }
    }
    return errors;
  }

  private renderSpec(): VirtualMachineSpec {
    const props = this.props;
    const resources = props.resources ?? {};
    const requests = renderAmounts(resources.requests, VirtualMachineSpecTemplateSpecDomainResourcesRequests);
    if (resources.requests?.memory === undefined && resources.limits?.memory === undefined) {
      requests.memory = VirtualMachineSpecTemplateSpecDomainResourcesRequests.fromString(sizeToQuantity(DEFAULT_MEMORY));
    }
    const limits = renderAmounts(resources.limits, VirtualMachineSpecTemplateSpecDomainResourcesLimits);
    const features = props.features ?? {};
    const hyperv = features.hyperv;
    const passwordSecrets = [...new Set(this.volumes.flatMap((v) => v.userData?.passwordSecrets ?? []))].sort();

    return {
      running: props.runStrategy === undefined ? props.running ?? true : undefined,
      runStrategy: props.runStrategy,
      template: {
        metadata: {
          labels: sortedRecord(this.templateLabels),
          annotations: props.templateAnnotations ? sortedRecord(props.templateAnnotations) : undefined,
        },
        spec: {
          accessCredentials: passwordSecrets.length > 0
            ? passwordSecrets.map((secretName) => ({
              userPassword: { source: { secret: { secretName } }, propagationMethod: { qemuGuestAgent: {} } },
            }))
            : undefined,
          domain: {
            cpu: props.cpu ? { cores: props.cpu.cores, sockets: props.cpu.sockets, threads: props.cpu.threads } : undefined,
            memory: props.hugepages ? { hugepages: { pageSize: props.hugepages } } : undefined,
            resources: {
              requests: Object.keys(requests).length > 0 ? requests : undefined,
              limits: Object.keys(limits).length > 0 ? limits : undefined,
            },
            features: features.acpi || features.apic || hyperv
              ? {
                acpi: features.acpi ? {} : undefined,
                apic: features.apic ? {} : undefined,
                hyperv: hyperv
                  ? {
                    relaxed: hyperv.relaxed ? {} : undefined,
                    vapic: hyperv.vapic ? {} : undefined,
                    spinlocks: hyperv.spinlocks !== undefined ? { spinlocks: hyperv.spinlocks } : undefined,
                  }
                  : undefined,
              }
              : undefined,
            devices: {
              disks: this.disks.map(renderDisk),
              interfaces: this.interfaces.map(renderInterface),
              gpus: this.gpus.length > 0 ? this.gpus.map((g) => ({ name: g.name, deviceName: g.deviceName })) : undefined,
            },
          },
          networks: this.networks.map((n) => (n.kind === 'pod'
            ? { name: n.name, pod: {} }
            : { name: n.name, multus: { networkName: n.networkName! } })),
          volumes: this.volumes.map((v) => this.renderVolume(v)),
        },
      },
    };
  }

  private renderVolume(volume: VmVolume): VirtualMachineSpecTemplateSpecVolumes {
    switch (volume.kind) {
      case 'dataVolume':
        return { name: volume.name, dataVolume: { name: volume.reference! } };
      case 'persistentVolumeClaim':
        return { name: volume.name, persistentVolumeClaim: { claimName: volume.reference! } };
      case 'configMap':
        return { name: volume.name, configMap: { name: volume.reference! } };
      case 'cloudInitNoCloudSecret':
        return { name: volume.name, cloudInitNoCloud: { secretRef: { name: volume.reference! } } };
      case 'cloudInitNoCloud': {
        const secret = this.secretsByVolume.get(volume.name);
        return secret
          ? { name: volume.name, cloudInitNoCloud: { secretRef: { name: secret.name } } }
          : { name: volume.name, cloudInitNoCloud: { userData: volume.userData!.render() } };
      }
    }
  }
}

function renderDisk(disk: VmDisk): VirtualMachineSpecTemplateSpecDomainDevicesDisks {
  return {
    name: disk.name,
    disk: { bus: disk.bus ?? DiskBus.VIRTIO },
    cache: disk.cache,
    io: disk.io,
    bootOrder: disk.bootOrder,
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
  return names.length === 0 ? 'none' : [...names].sort().map((n) => `"${n}"`).join(', ');
}


/** Metadata with only the keys given: an explicit `name: undefined` would stop cdk8s from generating the name. */
function objectMeta(name: string | undefined, namespace: string | undefined): { name?: string; namespace?: string } {
  return { ...(name !== undefined ? { name } : {}), ...(namespace !== undefined ? { namespace } : {}) };
}
