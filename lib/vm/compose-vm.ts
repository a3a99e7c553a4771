import { Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeNetworkPolicies, ExposedPolicyPort, PolicyWorkload } from '../base/network-policy';
import { ComposeError, ComposeWarning } from '../compose/errors';
import { ComposeModel, ComposeService } from '../compose/model';
import { KubeSecret } from '../../imports/k8s';
import { CloudConfig, CloudInitUser } from './cloud-init';
import { VmPublishedPort } from './compose-subset';
import { DiskSource } from './disk-source';
import { GoldenImageBundle, GoldenImageBundleProps } from './golden-image-bundle';
import { GoldenImageVm, VM_LABEL } from './golden-image-vm';
import {
  EvictionStrategy,
  HugepageSize,
  RunStrategy,
  VmCpu,
  VmFeatures,
  VmGpu,
  VmReadinessProbe,
  VmResources,
} from './vm-devices';
import { appSecret } from './vm-app-secret';
import { APP_SECRETS_DISK, APP_SECRETS_SERIAL } from './vm-names';
import { VmAccessMode } from './vm-root-disk';
import { VmVolume } from './vm-volume';
import { VmServicePort } from './vm-exposure';

const GIB = 1024 ** 3;
const DEFAULT_DATA_DISK = Size.gibibytes(10);
/**
 * CPU a VM requests per vCPU, at least: the guest schedules its work as if it had every vCPU, and KubeVirt's own
 * default (a tenth of a core per vCPU) lets a busy node starve it.
 */
const CPU_REQUEST_PER_VCPU_MILLIS = 500;
const DEFAULT_VM_MEMORY_GIB = 2;
/** Room for the guest OS and Docker beside the containers' memory limits. */
const OS_OVERHEAD_GIB = 1;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** The label CDI puts on its pods, `importer` on those that import a DataVolume's image. */
const CDI_COMPONENT_LABEL = 'cdi.kubevirt.io';

/** Options of the bundle built for a {@link ComposeVm}. */
export type ComposeVmBundleOptions = Omit<GoldenImageBundleProps, 'model' | 'services' | 'name'>;

/**
 * The VM's login for maintenance: cloud-init creates it with no password and no key, so nobody can log in until the
 * operator hands it an SSH public key from a Secret (KubeVirt's `accessCredentials`, propagated by the qemu guest agent
 * the golden image runs). Its groups read the journal and drive the app's compose project.
 */
export const MAINTENANCE_USER: CloudInitUser = {
  name: 'ops',
  sudo: 'ALL=(ALL) NOPASSWD:ALL',
  groups: ['docker', 'systemd-journal'],
};

/** Props of `ComposeVm`: the compose project, the services that run in the VM, and the VM's image and sizing. */
export interface ComposeVmProps {
  /** The loaded compose project, with env values already rewritten to Kubernetes Service names where needed. */
  readonly model: ComposeModel;
  /**
   * The services that run in the VM.
   * @default - every service of the project
   */
  readonly services?: string[];
  /**
   * Name of the VM, the bundle and the image: a DNS label.
   * @default - the project name, with "_" written as "-"
   */
  readonly name?: string;
  /** The folder URL where the operator publishes the converted image, e.g. `https://images.example.com/vm`. */
  readonly imageBaseUrl: string;
  /**
   * `metadata.namespace` of every object.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * Options of the golden image build.
   * @default - a Debian 12 image, 20 GiB disk
   */
  readonly bundle?: ComposeVmBundleOptions;
  /**
   * Kubernetes Service name per compose service.
   * @default - the compose name as a DNS label (`plausible_db` → `plausible-db`)
   */
  readonly serviceNames?: Record<string, string>;
  /**
   * The ports of each compose service's Service (port = the container port, targetPort = where it listens in the VM),
   * by compose name; a service listed with no ports gets no Service.
   * @default - the ports the bundle publishes on the VM (`ports`)
   */
  readonly servicePorts?: Readonly<Record<string, readonly VmServicePort[]>>;
  /**
   * Type of the Services.
   * @default kplus.ServiceType.CLUSTER_IP
   */
  readonly serviceType?: kplus.ServiceType;
  /**
   * Guest users (SSH keys, passwords from the operator) for maintenance logins.
   * @default - `MAINTENANCE_USER`: `ops`, in the `docker` and `systemd-journal` groups with passwordless sudo, its password
   * locked and no key; the operator gives it an SSH key from a Secret at run time (`accessCredentials` through the
   * guest agent), as the runbook shows. Pass `[]` for no user at all.
   */
  readonly users?: CloudInitUser[];
  /**
   * Deliver the app's `.env` (the values of its `${VAR}` references and its secret values) and secret files through
   * a Secret (`<name>-app-secrets`) that the VM reads as a disk: the image's unit writes them into the app folder at
   * every start, so a changed Secret reaches the app on the next restart. When false the operator supplies them
   * (see the bundle's README).
   * @default true
   */
  readonly deliverSecrets?: boolean;
  /**
   * Size of the data disk that holds docker's named volumes (when the bundle keeps them there: see
   * `GoldenImageBundleProps.dataDisk`), in `storageClassName`. A new golden image keeps the data.
   * @default Size.gibibytes(10)
   */
  readonly dataDiskSize?: Size;
  /**
   * Access mode of the root and data disks: `ReadWriteMany` lets the VM live-migrate on a node drain.
   * @default VmAccessMode.READ_WRITE_ONCE
   */
  readonly accessMode?: VmAccessMode;
  /**
   * What a node drain does to the VM.
   * @default - LiveMigrate with ReadWriteMany disks, else None (the VM stops, and starts again on another node)
   */
  readonly evictionStrategy?: EvictionStrategy;
  /**
   * The VM's readiness probe, or false for none.
   * @default - the app's unit is active and none of the project's containers is unhealthy or starting (through the
   * qemu guest agent), so Services and waits see the VM ready only once the app is up
   */
  readonly readinessProbe?: VmReadinessProbe | false;
  /**
   * A Secret in the VM's namespace holding SSH public keys for the first guest user (`ops` by default), given through
   * `accessCredentials` and the qemu guest agent. The Secret is not created: the operator creates it
   * (`kubectl create secret generic <name> --from-file=key1=id.pub`); the VM does not start without it.
   * @default - none: the runbook shows how to add one later
   */
  readonly sshKeySecret?: string;
  /**
   * The device plugin's resource name for GPUs, required when a service reserves a GPU
   * (`deploy.resources.reservations.devices` with capability `gpu`), e.g. `nvidia.com/TU104GL_Tesla_T4`.
   * @default - none
   */
  readonly gpuDeviceName?: string;
  /**
   * Resources of the VM.
   * @default - memory: the services' memory limits plus 1 GiB for the OS, at least 2 GiB; requests only
   */
  readonly resources?: VmResources;
  /**
   * CPU topology.
   * @default - cores: the services' CPU limits rounded up, at least 2
   */
  readonly cpu?: VmCpu;
  /**
   * Huge pages.
   * @default - none
   */
  readonly hugepages?: HugepageSize;
  /**
   * Firmware features.
   * @default - none
   */
  readonly features?: VmFeatures;
  /**
   * Size of the root disk's DataVolume.
   * @default - the smallest that holds the image
   */
  readonly storage?: Size;
  /**
   * Storage class of the DataVolume.
   * @default - the cluster's default
   */
  readonly storageClassName?: string;
  /**
   * Run strategy.
   * @default - `running: true`
   */
  readonly runStrategy?: RunStrategy;
  /**
   * More labels on the VM's pods (`spec.template.metadata.labels`), e.g. the CLI's `--labels`. The compose networks'
   * labels, which NetworkPolicies select, win over a label of the same key; `kubevirt.io/vm` is refused.
   * @default - only `kubevirt.io/vm` and the network labels
   */
  readonly templateLabels?: Readonly<Record<string, string>>;
  /**
   * Annotations on the VM's pods (`spec.template.metadata.annotations`), e.g. the CLI's `--annotations`.
   * @default - none
   */
  readonly templateAnnotations?: Readonly<Record<string, string>>;
}

/**
 * Compose services migrated to a VM: the golden image bundle that runs them, the VirtualMachine booted from the
 * published image, and one Service per compose service with ports, selecting `kubevirt.io/vm: <name>`, so other
 * workloads reach them by the same names as container Services. The VM's pods carry the compose networks' labels
 * ({@link ComposeNetworkPolicies.networkLabels}); {@link policyWorkload} describes it to `ComposeNetworkPolicies`.
 */
export class ComposeVm extends Construct {
  /** The golden image bundle; write it with `GoldenImageBundle.synthesizeAll(app)`. */
  public readonly bundle: GoldenImageBundle;
  /** The VM. */
  public readonly vm: GoldenImageVm;
  /** Services by compose service name (services without ports have none). */
  public readonly services: Readonly<Record<string, kplus.Service>>;
  /** The cloud-init user data, when there is any. */
  public readonly userData?: CloudConfig;
  /** The Secret the VM reads as a disk at every start: the app's `.env` and secret files. */
  public readonly appSecret?: KubeSecret;
  /** The guest users cloud-init creates (`MAINTENANCE_USER` by default). */
  public readonly users: readonly CloudInitUser[];

  private readonly warningList: ComposeWarning[] = [];
  private readonly imageUrl: string;

  constructor(scope: Construct, id: string, props: ComposeVmProps) {
    super(scope, id);
    const name = vmName(props);
    this.bundle = new GoldenImageBundle(this, 'GoldenImage', {
      ...props.bundle,
      model: props.model,
      services: props.services,
      name,
    });
    const chosen = props.model.services.filter((s) => this.bundle.services.includes(s.name));

    const users = props.users ?? [MAINTENANCE_USER];
    this.users = users;
    this.userData = users.length > 0 ? new CloudConfig({ users }) : undefined;

    const gpus = this.gpusFor(chosen, props.gpuDeviceName);
    const image = DiskSource.fromGoldenImage(this.bundle, props.imageBaseUrl);
    this.imageUrl = image.url;
    this.vm = new GoldenImageVm(this, 'VirtualMachine', {
      name,
      namespace: props.namespace,
      image,
      storage: props.storage,
      storageClassName: props.storageClassName,
      accessMode: props.accessMode,
      evictionStrategy: props.evictionStrategy,
      dataDisk: this.bundle.dataDisk ? (props.dataDiskSize ?? DEFAULT_DATA_DISK) : undefined,
      readinessProbe:
        props.readinessProbe === false
          ? undefined
          : (props.readinessProbe ?? { command: this.bundle.readinessCommand() }),
      sshKeys: props.sshKeySecret ? [{ secretName: props.sshKeySecret, users: [users[0]?.name ?? 'root'] }] : undefined,
      runStrategy: props.runStrategy,
      resources: props.resources ?? {
        requests: { memory: defaultMemory(chosen), cpu: vmCpuRequest(vcpus(props.cpu, chosen), 0) },
      },
      cpu: props.cpu ?? { cores: defaultCores(chosen) },
      hugepages: props.hugepages,
      features: props.features,
      gpus,
      userData: this.userData,
      labels: { ...props.templateLabels, ...ComposeNetworkPolicies.networkLabels(this.bundle.subset.networks) },
      templateAnnotations: props.templateAnnotations,
    });
    if (props.deliverSecrets ?? true) {
      this.appSecret = appSecret(this, {
        name: `${name}-app-secrets`,
        namespace: props.namespace,
        env: this.bundle.subset.secretEnv,
        files: this.bundle.subset.secretFiles,
      });
      if (this.appSecret) {
        this.vm.addDisk({ name: APP_SECRETS_DISK, serial: APP_SECRETS_SERIAL });
        this.vm.addVolume(VmVolume.secret(APP_SECRETS_DISK, this.appSecret.name));
      }
    }
    this.services = this.exposeServices(chosen, props);
  }

  /** What the bundle and this construct noted: build caveats, dropped dependencies, GPU drivers. */
  public get warnings(): readonly ComposeWarning[] {
    return [...this.bundle.warnings, ...this.warningList];
  }

  /** The ports published on the VM. */
  public get ports(): readonly VmPublishedPort[] {
    return this.bundle.ports;
  }

  /**
   * The VM as a workload of `ComposeNetworkPolicies`: its pods (`kubevirt.io/vm: <name>`), its compose networks, and
   * its ports as the pod sees them (the VM ports, which Services target).
   */
  public policyWorkload(exposedPorts: readonly ExposedPolicyPort[] = []): PolicyWorkload {
    return {
      name: this.vm.name,
      podLabels: { [VM_LABEL]: this.vm.name },
      networks: this.bundle.subset.networks,
      ports: this.bundle.ports.map((p) => ({ port: p.hostPort, protocol: p.protocol })),
      exposedPorts,
    };
  }

  /**
   * CDI's importer pods (`cdi.kubevirt.io: importer`) as a workload of `ComposeNetworkPolicies`: under a default deny
   * they need egress to the image server, on the port of `imageBaseUrl`, at any address (the server may be private).
   */
  public importerPolicyWorkload(): PolicyWorkload {
    const url = new URL(this.imageUrl);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    return {
      name: `${this.vm.name.slice(0, 54).replace(/-+$/, '')}-importer`,
      podLabels: { [CDI_COMPONENT_LABEL]: 'importer' },
      extraEgress: [
        { cidr: '0.0.0.0/0', ports: [{ port }] },
        { cidr: '::/0', ports: [{ port }] },
      ],
    };
  }

  /** One Service per compose service with ports, named by `serviceNames` or the compose name. */
  private exposeServices(chosen: readonly ComposeService[], props: ComposeVmProps): Record<string, kplus.Service> {
    const services: Record<string, kplus.Service> = {};
    for (const service of chosen) {
      const ports =
        props.servicePorts?.[service.name] ??
        this.bundle.ports
          .filter((p) => p.service === service.name)
          .map((p) => ({
            name: `${p.protocol}-${p.target}`,
            port: p.target,
            targetPort: p.hostPort,
            // TCP is the default; leaving it out keeps the Service like a container's.
            protocol: p.protocol === 'tcp' ? undefined : PROTOCOLS[p.protocol],
          }));
      if (ports.length === 0) {
        continue;
      }
      const serviceName = props.serviceNames?.[service.name] ?? toDnsLabel(service);
      services[service.name] = this.vm.exposeViaService({
        name: serviceName,
        serviceType: props.serviceType,
        ports: [...ports],
      });
    }
    return services;
  }

  private gpusFor(services: readonly ComposeService[], deviceName: string | undefined): VmGpu[] {
    const gpus: VmGpu[] = [];
    for (const service of services) {
      for (const device of service.deploy.reservations.devices) {
        if (!device.capabilities.includes('gpu')) {
          continue;
        }
        if (!deviceName) {
          throw new ComposeError('the service reserves a GPU, and the VM needs the device name to pass one through', {
            at: device.at,
            allowed: "the resource name the cluster's GPU device plugin advertises",
            hint: 'pass gpuDeviceName, e.g. "nvidia.com/TU104GL_Tesla_T4"',
          });
        }
        const count = typeof device.count === 'number' ? device.count : Math.max(1, device.deviceIds.length);
        if (device.count === 'all') {
          this.warningList.push({
            code: 'vm-gpu-count',
            message: 'count "all" gives the VM one GPU; set a number to pass through more',
            at: device.at,
          });
        }
        for (let i = 0; i < count; i++) {
          gpus.push({ name: `gpu${gpus.length + 1}`, deviceName });
        }
      }
    }
    if (gpus.length > 0) {
      this.warningList.push({
        code: 'vm-gpu-driver',
        message:
          'the golden image does not install the GPU driver or the NVIDIA container toolkit: add them to the image before the app can use the GPU',
        at: services[0].at,
      });
    }
    return gpus;
  }
}

const PROTOCOLS: Readonly<Record<string, kplus.Protocol>> = {
  udp: kplus.Protocol.UDP,
  sctp: kplus.Protocol.SCTP,
};

/** The VM's name: `name`, else the project name with "_" written as "-" (Kubernetes names may not hold "_"). */
function vmName(props: ComposeVmProps): string {
  const name = props.name ?? props.model.name.replace(/_/g, '-');
  if (!DNS_LABEL.test(name)) {
    throw new ComposeError('the VM name is not a DNS label', {
      at: props.model.at,
      value: name,
      allowed: 'lower-case letters, digits and "-", starting and ending with a letter or digit, at most 63 characters',
      hint: 'pass name',
    });
  }
  return name;
}

/**
 * The CPU request of a VM with `cores` vCPUs whose services request `requestedMillis` in all: that, and at least half
 * a core per vCPU.
 */
export function vmCpuRequest(cores: number, requestedMillis: number): kplus.Cpu {
  return kplus.Cpu.millis(Math.max(requestedMillis, cores * CPU_REQUEST_PER_VCPU_MILLIS));
}

function defaultMemory(services: readonly ComposeService[]): Size {
  const bytes = services.reduce((sum, s) => sum + (s.deploy.limits.memoryBytes ?? 0), 0);
  return Size.gibibytes(Math.max(DEFAULT_VM_MEMORY_GIB, Math.ceil(bytes / GIB) + OS_OVERHEAD_GIB));
}

/** The VM's vCPUs: cores × sockets × threads of `cpu`, else the default cores. */
function vcpus(cpu: VmCpu | undefined, services: readonly ComposeService[]): number {
  return cpu ? (cpu.cores ?? 1) * (cpu.sockets ?? 1) * (cpu.threads ?? 1) : defaultCores(services);
}

function defaultCores(services: readonly ComposeService[]): number {
  const cpus = services.reduce((sum, s) => sum + (s.deploy.limits.cpus ?? 0), 0);
  return Math.max(2, Math.ceil(cpus));
}

function toDnsLabel(service: ComposeService): string {
  const label = service.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  if (!label) {
    throw new ComposeError('the service name gives no usable Kubernetes name', {
      at: service.at,
      value: service.name,
      hint: 'pass serviceNames',
    });
  }
  return label;
}
