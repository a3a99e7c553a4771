import { ApiObject, Duration, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret, Quantity } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { isUnpinnedImage } from '../compose/image';
import { ComposeLocation, ComposeService, EnvVar, FileContent, Healthcheck, PortMapping, VolumeMount } from '../compose/model';
import { DatabaseCredentials, DatabaseEngine } from '../stateful/engine';
import { StatefulDependency, WorkloadController } from '../stateful/stateful-dependency';
import { DatabaseBackupOptions } from '../stateful/database-backup';
import { AutoscalingSettings, ServiceAutoscaler } from './autoscaler';
import {
  DependencyWait, WAIT_VERBS, WaitKind, WaitSettings, needsApi, waitContainer, waitContainerName, waitResource,
} from './dependency-wait';
import { HostRewriter } from './host-rewrite';
import { NameRegistry, joinDnsLabel, toDnsLabel } from '../base/naming';
import {
  POD_SECURITY_CONTEXT, capability, pullPolicyFor,
} from '../base/pod-defaults';
import {
  LabelledCronJob, LabelledDaemonSet, LabelledDeployment, LabelledJob, LabelledStatefulSet,
} from '../base/labelled-workloads';
import {
  ContainerProbes, HttpProbeSettings, healthcheckCommand, httpProbes, probeSeconds, probesFromHealthcheck, tcpReadiness,
} from './probes';
import { coresToMillicores, cpuFromMillicores, cpuToMillicores, sizeFromBytes, sizeToBytes } from '../base/quantities';
import { keepExactSizes } from './exact-sizes';
import { addLifecycleHooks } from './lifecycle-hooks';
import { SecretValues, hasEmbeddedPassword, isSensitiveName } from '../compose/sensitive';
import { SecretVariable, argvWithSecretVariables, healthcheckWithSecretVariables, holdsSecret } from './secret-references';
import { claimSize } from '../base/sizes';
import {
  KomposeControllerType, KomposeCronJob, KomposeInitContainer, KomposeProbeCheck, KomposeProbeLabels, KomposeServiceLabels, checkIngressLabels,
  isHonouredKomposeLabel, labelAt,
} from './kompose-labels';
import { PortAccess, portAccess, setExternalTrafficPolicy } from './exposure';
import { Exposure, KomposeLabel, KomposeServiceType } from './settings';

/** How a compose service runs; the values are what `MigratedService.kind` reports. */
export enum WorkloadKind {
  DEPLOYMENT = 'Deployment',
  /** A one-shot service that others wait for with `service_completed_successfully`. */
  JOB = 'Job',
  /** A database or cache, run by a `StatefulDependency`. */
  STATEFUL = 'StatefulDependency',
  /** A service under `kompose.controller.type: statefulset`. */
  STATEFUL_SET = 'StatefulSet',
  /** A service with a `kompose.cronjob.schedule`: it runs on that schedule. */
  CRON_JOB = 'CronJob',
  /** A service under `deploy.mode: global` or `kompose.controller.type: daemonset`: one pod on every node. */
  DAEMON_SET = 'DaemonSet',
  /** A service routed to the app's golden-image VM (`VmMigratedService`). */
  VM = 'VirtualMachine',
  /** A service under `network_mode: service:X`: a second container in X's pod, its ports on X's Service. */
  SIDECAR = 'Sidecar',
}

/** One port of a workload: container port = Service port = targetPort. */
export interface WorkloadPort {
  readonly port: number;
  readonly protocol: kplus.Protocol;
  /** `tcp-5432`, `udp-53`. */
  readonly name: string;
  /**
   * True for a port compose does not declare but the service listens on (`Reachability.inferredPorts`): it gets a
   * Service port, and no readiness probe.
   */
  readonly inferred?: boolean;
  /** On a pod that holds sidecars: the compose name of the sidecar whose container listens on it. */
  readonly via?: string;
}

export { PortAccess } from './exposure';

/** The external access of one published compose port. */
export interface PublishedPort {
  readonly mapping: PortMapping;
  readonly access: PortAccess;
}

/** What the app decided for a service before any object exists; dependents read their dependencies' plans. */
export interface ServicePlan {
  readonly service: ComposeService;
  /** The Kubernetes name of the workload and its Service. */
  readonly name: string;
  readonly kind: WorkloadKind;
  readonly engine?: DatabaseEngine;
  /** Container ports from `ports` and `expose`, sorted by port then protocol. */
  readonly ports: readonly WorkloadPort[];
  /** True when the service gets a ClusterIP Service (it has ports and is not a Job). */
  readonly hasService: boolean;
  /** The controller of a stateful dependency. */
  readonly controller?: WorkloadController;
  /** The VM's name, for a service routed to the VM. */
  readonly vm?: string;
  /** The service's kompose labels, checked. */
  readonly labels: KomposeServiceLabels;
  /** For a `WorkloadKind.SIDECAR`: the compose name of the service whose pod it joins. */
  readonly sidecarOf?: string;
}

/** One Ingress rule of a service: host and path prefix. */
export interface IngressRuleSettings {
  readonly host: string;
  readonly path: string;
}

/** Everything a service needs after the app's defaults and the overrides are applied. */
export interface ServiceSettings {
  readonly replicas: number;
  readonly image: string;
  readonly http?: HttpProbeSettings;
  readonly expose?: Exposure;
  readonly komposeServiceType?: KomposeServiceType;
  /** `kompose.service.nodeport.port`: the node port of the one published port. */
  readonly nodePort?: number;
  /** `kompose.service.external-traffic-policy`, for the LoadBalancer or NodePort Service. */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  /** `kompose.init.containers.*`: a container run after the dependency waits, before the service's own. */
  readonly initContainer?: KomposeInitContainer;
  /** `kompose.serviceaccount-name`: the pod runs as this existing service account, with its token. */
  readonly serviceAccountName?: string;
  /** The Ingress rules, at least one; the first one's host is the service's own. */
  readonly ingressRules: readonly IngressRuleSettings[];
  readonly ingressClassName: string;
  readonly ingressAnnotations: Readonly<Record<string, string>>;
  readonly ingressTlsSecret?: string;
  /** Container ports that count as HTTP for the exposure rule. */
  readonly httpPorts: readonly number[];
  readonly resources: ResolvedResources;
  readonly sensitiveNamePatterns: readonly string[];
  readonly sensitiveEnv: readonly string[];
  readonly allowPrivilegeEscalation?: boolean;
  readonly controller: WorkloadController;
  readonly storageClassName?: string;
  readonly stateStorageBytes: number;
  /** `true` or options: a backup; `false`: none; undefined: a backup when compose keeps the engine's data. */
  readonly backup?: DatabaseBackupOptions | boolean;
  readonly autoscaling?: AutoscalingSettings;
  /** The `kompose.service.healthcheck.*` labels. */
  readonly readinessLabels?: KomposeProbeLabels;
  readonly livenessLabels?: KomposeProbeLabels;
  /** `kompose.cronjob.*`: run on a schedule. */
  readonly cronJob?: KomposeCronJob;
  /** How a CronJob's pods restart: `Never` for compose's `restart: no` (as kompose does), else `OnFailure`. */
  readonly restartPolicy: kplus.RestartPolicy;
  readonly imagePullPolicy?: kplus.ImagePullPolicy;
  readonly imagePullSecret?: string;
  readonly fsGroup?: number;
}

/** Requests and limits as numbers, so that they can be compared. */
export interface ResolvedResources {
  readonly cpuRequestMillis: number;
  readonly cpuLimitMillis: number;
  readonly memoryRequestBytes: number;
  readonly memoryLimitBytes: number;
}

/** Where a mounted compose secret or config lives in Kubernetes. */
export interface MountedFileSource {
  readonly kind: 'ConfigMap' | 'Secret';
  readonly name: string;
  readonly key: string;
}

/** What the app shares with each of its services. */
export interface MigrationContext {
  readonly namespace: string;
  readonly plans: ReadonlyMap<string, ServicePlan>;
  readonly hosts: HostRewriter;
  readonly secretValues: SecretValues;
  readonly names: NameRegistry;
  readonly wait: WaitSettings;
  /** The claim of a top-level named volume (created once, on first use). */
  claimFor(volume: string, user: ServicePlan, at: ComposeLocation): kplus.IPersistentVolumeClaim;
  /** The object holding a compose secret; undefined when it cannot be mounted (reported). */
  secretSource(name: string, user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined;
  /** The text of a compose secret whose content is known (for a database's credentials). */
  secretContent(name: string): string | undefined;
  /** The object holding a compose config; undefined when it cannot be mounted (reported). */
  configSource(name: string, user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined;
  /** Records a warning. */
  warn(code: string, message: string, at: ComposeLocation): void;
  /** A service already migrated, by compose name (a sidecar's host is migrated before it). */
  migrated(composeName: string): MigratedService | undefined;
}

/** Props of `MigratedService`: one compose service's plan, its resolved settings, and the app it belongs to. */
export interface MigratedServiceProps {
  /** The compose service, as the app planned it (names, ports, waits). */
  readonly plan: ServicePlan;
  /** The service's settings: the compose values with the app's overrides applied. */
  readonly settings: ServiceSettings;
  /** What the service needs from its app (names, objects of other services, warnings). */
  readonly context: MigrationContext;
}

/** One ingress rule this app renders, for the collision check over the whole app. */
export interface IngressRule {
  readonly host: string;
  readonly path: string;
  readonly at: ComposeLocation;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
// Sysctls Kubernetes allows without a kubelet allow-list (1.27).
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports',
];

/**
 * One compose service as Kubernetes objects: its workload (Deployment, Job, or a StatefulDependency), Service,
 * env ConfigMap and Secret, file ConfigMap, external access, and the waits for its dependencies. Created by
 * `ComposeApp`; reach it with `app.service('<compose name>')` to extend what it made.
 */
export class MigratedService extends Construct {
  /** The compose service name. */
  public readonly composeName: string;
  /** Where the compose service is declared. */
  public readonly at: ComposeLocation;
  /** The Kubernetes name of the workload and its Service. */
  public readonly name: string;
  public readonly kind: WorkloadKind;
  /** The workload: a kplus Deployment, StatefulSet, DaemonSet, Job or CronJob. */
  public readonly workload: kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob;
  /** The Deployment, when the service runs as one (also for a stateful dependency on a Deployment). */
  public readonly deployment?: kplus.Deployment;
  /** The Job of a one-shot service. */
  public readonly job?: kplus.Job;
  /** The CronJob of a service with a `kompose.cronjob.schedule`. */
  public readonly cronJob?: kplus.CronJob;
  /** The StatefulSet of a service under `kompose.controller.type: statefulset` (or a stateful dependency on one). */
  public readonly statefulSet?: kplus.StatefulSet;
  /** The DaemonSet of a service under `deploy.mode: global` or `kompose.controller.type: daemonset`. */
  public readonly daemonSet?: kplus.DaemonSet;
  /** The stateful dependency, for databases and caches. */
  public readonly statefulDependency?: StatefulDependency;
  /** The main container. */
  public readonly container: kplus.Container;
  /** The ClusterIP Service other services reach it by; none when the service has no ports. */
  public readonly service?: kplus.Service;
  /** The LoadBalancer (or NodePort) Service for published non-HTTP ports. */
  public readonly externalService?: kplus.Service;
  /** The Ingress for the published HTTP port. */
  public readonly ingress?: kplus.Ingress;
  /** The ConfigMap of non-sensitive environment (`<name>-env`). */
  public readonly envConfigMap?: kplus.ConfigMap;
  /** The Secret of sensitive environment (`<name>-env`, Opaque, `data`). */
  public readonly envSecret?: KubeSecret;
  /** The ConfigMap of bind-mounted files (`<name>-files`). */
  public readonly filesConfigMap?: kplus.ConfigMap;
  /** The Secret of bind-mounted files that hold a secret value (`<name>-files`). */
  public readonly filesSecret?: KubeSecret;
  /** The claims the pod mounts, by volume name in the pod. */
  public readonly claims: Readonly<Record<string, kplus.IPersistentVolumeClaim>>;
  /**
   * The service account of the API waits (`<name>-wait`), when the pod waits for a Job or a portless workload; the
   * one `kompose.serviceaccount-name` names instead (a reference: the cluster has it), when it is set.
   */
  public readonly waitServiceAccount?: kplus.IServiceAccount;
  /** The service account the pod runs as with its token mounted: the wait's, or `kompose.serviceaccount-name`'s. */
  public readonly serviceAccountName?: string;
  /** The Role of the API waits: get/list/watch on the awaited objects only. */
  public readonly waitRole?: kplus.Role;
  /** The waits, in the order the init containers run. */
  public readonly waits: readonly DependencyWait[];
  /** Every published compose port and how it is reached. */
  public readonly publishedPorts: readonly PublishedPort[];
  /** The workload's ports. */
  public readonly ports: readonly WorkloadPort[];
  /** The ingress rules rendered, for the app's collision check. */
  public readonly ingressRules: readonly IngressRule[];
  /** The HorizontalPodAutoscaler, where asked for. */
  public readonly autoscaler?: ServiceAutoscaler;
  /** The replicas the workload was given (1 for Jobs; 1 for a DaemonSet, which runs one pod per node). */
  public readonly replicas: number;
  /** The compose networks the service is on (for network policies). */
  public readonly networks: readonly string[];
  /** Under `network_mode: service:X`: X, whose pod (workload, Service) this service's container runs in. */
  public readonly sidecarOf?: string;

  private readonly plan: ServicePlan;
  private readonly settings: ServiceSettings;
  private readonly context: MigrationContext;
  private readonly labels: Record<string, string>;
  /** The compose healthcheck, unless disabled, with its secrets read from their variables. */
  private readonly healthcheck?: Healthcheck;

  constructor(scope: Construct, id: string, props: MigratedServiceProps) {
    super(scope, id);
    const { plan, settings, context } = props;
    this.plan = plan;
    this.settings = settings;
    this.context = context;
    const service = plan.service;
    this.composeName = service.name;
    this.at = service.at;
    this.name = plan.name;
    this.kind = plan.kind;
    this.ports = plan.ports;
    this.networks = service.networks.map((n) => n.name);
    this.sidecarOf = plan.sidecarOf;
    const host = plan.sidecarOf !== undefined ? context.migrated(plan.sidecarOf) : undefined;
    if (plan.sidecarOf !== undefined && !host) {
      throw new ComposeError(`service "${service.name}" joins the pod of "${plan.sidecarOf}", which is not migrated yet`, { at: service.at });
    }
    // A sidecar's objects belong to its host's pod: they carry the host's app label, and its Services select it.
    this.labels = { app: host?.name ?? this.name };
    this.replicas = host ? host.replicas : plan.kind === WorkloadKind.JOB || plan.kind === WorkloadKind.CRON_JOB || plan.kind === WorkloadKind.DAEMON_SET
      ? 1 : settings.replicas;

    checkPublishedPorts(service);
    this.warnUnmappedKeys();

    // Secret values in the command, entrypoint or healthcheck are read from the env Secret (rule 3).
    const healthcheckWords = service.healthcheck?.test?.command ?? [];
    const inCommands = this.context.secretValues.valuesIn([...service.entrypoint ?? [], ...service.command ?? [], ...healthcheckWords].join('\n'));
    const env = this.buildEnvironment(inCommands);
    const used = new Set<string>();
    this.healthcheck = service.healthcheck && !service.healthcheck.disabled
      ? healthcheckWithSecretVariables(service.healthcheck, env.secretVariables, used) ?? service.healthcheck : undefined;
    this.envConfigMap = env.configMap;
    this.envSecret = env.secret;

    const mounts = this.planMounts();
    this.filesConfigMap = mounts.filesConfigMap;
    this.filesSecret = mounts.filesSecret;
    this.claims = mounts.claims;

    this.waits = this.planWaits();
    const probes = this.probes();
    const command = service.entrypoint ? argvWithSecretVariables(escapeExpansion(service.entrypoint), env.secretVariables, used) : undefined;
    const args = service.command ? argvWithSecretVariables(escapeExpansion(service.command), env.secretVariables, used) : undefined;
    if (used.size > 0) {
      const where = [
        holdsSecret((service.entrypoint ?? []).join(' '), env.secretVariables) && 'entrypoint',
        holdsSecret((service.command ?? []).join(' '), env.secretVariables) && 'command',
        this.healthcheck !== service.healthcheck && 'healthcheck',
      ].filter((w) => w);
      this.warn('secret-reference', `a secret value in the ${where.join(' and ')} is read from the Secret "${env.secret?.metadata.name}" through ${[...used].sort().map((v) => `$(${v})`).join(', ')}`
        + `${this.healthcheck !== service.healthcheck ? ' (the probe runs through sh -c to read it)' : ''}`, service.at);
    }
    const resources = toContainerResources(settings.resources);
    const securityContext = this.securityContext();
    // The service's container, in its own pod or in the pod of the service whose network it shares.
    const containerProps = (ports: readonly WorkloadPort[]): kplus.ContainerProps => ({
      name: this.name,
      image: settings.image,
      imagePullPolicy: settings.imagePullPolicy ?? pullPolicyFor(settings.image),
      command,
      args,
      workingDir: service.workingDir,
      ports: ports.map((p) => ({ number: p.port, protocol: explicitProtocol(p.protocol), name: p.name })),
      envVariables: env.values,
      resources,
      securityContext,
      readiness: probes.readiness,
      liveness: probes.liveness,
      startup: probes.startup,
    });

    if (plan.kind === WorkloadKind.STATEFUL) {
      const engine = plan.engine!;
      const dataClaim = mounts.engineDataClaim;
      const enginePort = plan.ports.find((p) => p.port === engine.port && p.protocol === kplus.Protocol.TCP)
        ?? plan.ports.find((p) => p.protocol === kplus.Protocol.TCP);
      const dependency = new StatefulDependency(this, 'Stateful', {
        engine,
        image: settings.image,
        name: this.name,
        namespace: context.namespace,
        port: enginePort?.port ?? engine.port,
        controller: settings.controller,
        credentials: this.engineCredentials(engine),
        env: env.values,
        command,
        args,
        resources,
        securityContext,
        readiness: probes.readinessOff ? false : probes.readiness,
        liveness: probes.liveness,
        startup: probes.startup,
        imagePullPolicy: settings.imagePullPolicy,
        imagePullSecret: settings.imagePullSecret,
        fsGroup: settings.fsGroup,
        dataClaim,
        storageSize: dataClaim ? undefined : claimSize(settings.stateStorageBytes).size,
        storageClassName: settings.storageClassName,
        // A cache whose data compose does not keep (no volume at its data path) has nothing worth a backup.
        backup: settings.backup === undefined ? (mounts.engineDataKept ? {} : false)
          : settings.backup === true ? {} : settings.backup,
        terminationGracePeriod: gracePeriod(service),
      });
      this.warnStatefulPodKeys();
      this.statefulDependency = dependency;
      this.workload = dependency.workload;
      if (dependency.workload instanceof kplus.Deployment) {
        this.deployment = dependency.workload;
      } else {
        this.statefulSet = dependency.workload;
      }
      this.container = dependency.container;
      this.service = dependency.service;
      for (const port of plan.ports) {
        if (port.port !== dependency.port || port.protocol !== kplus.Protocol.TCP) {
          if (port.via === undefined) {
            this.container.addPort({ number: port.port, protocol: explicitProtocol(port.protocol), name: port.name });
          }
          this.service.bind(port.port, { targetPort: port.port, protocol: explicitProtocol(port.protocol), name: port.name });
        }
      }
    } else if (host) {
      // network_mode: service:X: the container joins X's pod, so they share its network namespace (localhost).
      this.workload = host.workload;
      this.deployment = host.deployment;
      this.statefulSet = host.statefulSet;
      this.daemonSet = host.daemonSet;
      this.service = host.service;
      // Its ports on the pod: those the host's plan gives it (a port the host declares is the host container's).
      this.container = host.workload.addContainer(containerProps(host.ports.filter((p) => p.via === service.name)));
    } else {
      const podProps = {
        metadata: this.metadata(this.name),
        podMetadata: { labels: this.labels },
        automountServiceAccountToken: false,
        securityContext: { ...POD_SECURITY_CONTEXT, sysctls: this.sysctls(), fsGroup: settings.fsGroup },
        hostAliases: this.hostAliases(),
        terminationGracePeriod: gracePeriod(service),
        dockerRegistryAuth: settings.imagePullSecret ? kplus.Secret.fromSecretName(this, 'ImagePullSecret', settings.imagePullSecret) : undefined,
        containers: [containerProps(plan.ports.filter((p) => p.via === undefined))],
      };
      if (plan.kind === WorkloadKind.JOB) {
        this.job = new LabelledJob(this, 'Job', {
          ...podProps,
          restartPolicy: kplus.RestartPolicy.ON_FAILURE,
          backoffLimit: 6,
        });
        this.workload = this.job;
      } else if (plan.kind === WorkloadKind.CRON_JOB) {
        const cron = settings.cronJob!;
        this.cronJob = new LabelledCronJob(this, 'CronJob', {
          ...podProps,
          schedule: cron.schedule,
          // One run at a time unless the label allows more (the quota counts one run).
          concurrencyPolicy: cron.concurrencyPolicy ?? kplus.ConcurrencyPolicy.FORBID,
          // kplus's 10 s would skip a run whenever the controller is briefly late.
          startingDeadline: Duration.minutes(10),
          backoffLimit: cron.backoffLimit,
          restartPolicy: settings.restartPolicy,
        });
        this.workload = this.cronJob;
      } else if (plan.kind === WorkloadKind.STATEFUL_SET) {
        this.service = this.clusterService();
        this.statefulSet = new LabelledStatefulSet(this, 'StatefulSet', {
          ...podProps,
          replicas: this.replicas,
          service: this.service,
        });
        this.workload = this.statefulSet;
      } else if (plan.kind === WorkloadKind.DAEMON_SET) {
        this.daemonSet = new LabelledDaemonSet(this, 'DaemonSet', podProps);
        this.workload = this.daemonSet;
      } else {
        const mountsRwoClaim = Object.keys(mounts.claims).length > 0;
        this.deployment = new LabelledDeployment(this, 'Deployment', {
          ...podProps,
          replicas: this.replicas,
          // Two pods cannot hold one ReadWriteOnce claim on different nodes during a rolling update.
          strategy: mountsRwoClaim ? kplus.DeploymentStrategy.recreate() : undefined,
        });
        this.workload = this.deployment;
      }
      this.container = this.workload.containers[0];
      if (plan.hasService && !this.service) {
        this.service = this.clusterService();
      }
    }

    if (settings.autoscaling && host) {
      this.warn('unsupported-key', `ignored the autoscaling of a service in the pod of "${host.composeName}": it scales with that pod`, service.at);
    } else if (settings.autoscaling) {
      if (this.workload instanceof kplus.Job || this.workload instanceof kplus.CronJob || this.workload instanceof kplus.DaemonSet) {
        this.warn('unsupported-key', `ignored the autoscaling of a service that runs as a ${plan.kind}: it is not scaled`, service.at);
      } else {
        this.autoscaler = new ServiceAutoscaler(this, 'Autoscaler', {
          ...settings.autoscaling,
          target: this.workload,
          namespace: context.namespace,
          labels: this.labels,
          at: service.at,
        });
      }
    }

    for (const mount of mounts.mounts) {
      this.container.mount(mount.path, mount.volume, { subPath: mount.subPath, readOnly: mount.readOnly });
    }
    this.applyDevices();
    const access = this.addWaits();
    this.waitServiceAccount = access?.account;
    this.waitRole = access?.role;
    this.serviceAccountName = settings.serviceAccountName ?? access?.account.name;
    if (settings.serviceAccountName !== undefined) {
      this.warn('external-service-account', `the pod runs as service account "${settings.serviceAccountName}", with its token mounted: `
        + `create it in namespace "${context.namespace}" before applying (cdk8s-compose does not)`,
      labelAt(service, KomposeLabel.SERVICE_ACCOUNT_NAME));
      if (!access) {
        ApiObject.of(this.workload).addJsonPatch(
          JsonPatch.add(`${this.podTemplatePath}/spec/serviceAccountName`, settings.serviceAccountName),
          JsonPatch.add(`${this.podTemplatePath}/spec/automountServiceAccountToken`, true));
      }
    }
    if (settings.initContainer) {
      const init = settings.initContainer;
      if (this.workload.containers.some((c) => c.name === init.name)) {
        throw new ComposeError(`the init container "${init.name}" has the name of the service's container`, {
          at: labelAt(service, KomposeLabel.INIT_CONTAINER_NAME),
          value: init.name,
          hint: `name it otherwise with ${KomposeLabel.INIT_CONTAINER_NAME}`,
        });
      }
      if (isUnpinnedImage(init.image)) {
        this.warn('unpinned-image', `image "${init.image}" of the init container is not pinned (no tag, or :latest): `
          + 'each node may pull a different image; pin a version tag or a digest', init.at);
      }
      // The service's own resources and security context: a ResourceQuota rejects containers without resources.
      this.workload.addInitContainer({
        name: init.name,
        image: init.image,
        imagePullPolicy: pullPolicyFor(init.image),
        command: init.command ? [...init.command] : undefined,
        resources,
        securityContext,
      });
    }

    addLifecycleHooks({
      service,
      workload: this.workload,
      container: this.container,
      podTemplatePath: this.podTemplatePath,
      resources,
      securityContext,
      isSecret: (name, value) => isSensitiveName(name, this.settings.sensitiveNamePatterns) || this.settings.sensitiveEnv.includes(name)
        || hasEmbeddedPassword(value) || this.context.secretValues.foundIn(value),
      warn: (code, message, at) => this.warn(code, message, at),
    });
    keepExactSizes({
      workload: this.workload,
      podTemplatePath: this.podTemplatePath,
      resources,
      memoryRequestBytes: settings.resources.memoryRequestBytes,
      memoryLimitBytes: settings.resources.memoryLimitBytes,
      tmpfs: mounts.mounts.flatMap((m) => {
        const tmpfs = service.volumes.find((v) => v.type === 'tmpfs' && v.target === m.path && v.sizeBytes !== undefined);
        return tmpfs ? [{ volume: m.volume, bytes: tmpfs.sizeBytes! }] : [];
      }),
    });

    const exposure = this.expose();
    this.publishedPorts = exposure.published;
    this.ingress = exposure.ingress;
    this.externalService = exposure.external;
    setExternalTrafficPolicy(this.externalService, settings.externalTrafficPolicy,
      labelAt(service, KomposeLabel.EXTERNAL_TRAFFIC_POLICY), (code, message, at) => this.warn(code, message, at));
    this.ingressRules = exposure.rules;
  }

  private metadata(name: string) {
    return { name, namespace: this.context.namespace, labels: this.labels };
  }

  /** Where the pod template sits: one level deeper in a CronJob. */
  private get podTemplatePath(): string {
    return this.plan.kind === WorkloadKind.CRON_JOB ? '/spec/jobTemplate/spec/template' : '/spec/template';
  }

  /** The ClusterIP Service other services reach this one by (`None` under `kompose.service.type: headless`). */
  private clusterService(): kplus.Service {
    const service = new kplus.Service(this, 'Service', {
      metadata: this.metadata(this.name),
      type: kplus.ServiceType.CLUSTER_IP,
      clusterIP: this.settings.komposeServiceType === 'headless' ? 'None' : undefined,
      ports: this.plan.ports.map((p) => ({ port: p.port, targetPort: p.port, protocol: explicitProtocol(p.protocol), name: p.name })),
    });
    service.selectLabel('app', this.name);
    return service;
  }

  private atKey(suffix: string): ComposeLocation {
    return { ...this.plan.service.at, path: `${this.plan.service.at.path}.${suffix}` };
  }

  private warn(code: string, message: string, at: ComposeLocation = this.plan.service.at): void {
    this.context.warn(code, message, at);
  }

  /** Model keys this library does not turn into Kubernetes fields get one warning each. */
  private warnUnmappedKeys(): void {
    const s = this.plan.service;
    if (s.ulimits.length > 0) {
      this.warn('unsupported-key', 'ignored ulimits: Kubernetes has no per-pod ulimits; they come from the node\'s container runtime', this.atKey('ulimits'));
    }
    if (s.devices.length > 0) {
      this.warn('unsupported-key', `ignored devices ${s.devices.map((d) => `"${d}"`).join(', ')}: a pod cannot map host devices; `
        + 'run this service on a VM (GoldenImageVm) or use a device plugin', this.atKey('devices'));
    }
    if (this.plan.sidecarOf !== undefined) {
      this.warn('shared-pod', `runs as a second container in the pod of "${this.plan.sidecarOf}" (network_mode "${s.networkMode}"): `
        + `they reach each other on localhost, and its ports are on the Service "${this.labels.app}"`, this.atKey('network_mode'));
    } else if (s.networkMode !== undefined) {
      this.warn('unsupported-key', `ignored network_mode "${s.networkMode}": the pod gets its own network namespace and is `
        + 'reached through its Service', this.atKey('network_mode'));
    }
    if (this.plan.kind === WorkloadKind.CRON_JOB) {
      if (s.restart === 'always' || s.restart === 'unless-stopped') {
        this.warn('unsupported-key', `restart "${s.restart}" is not kept: the service runs on its ${KomposeLabel.CRON_SCHEDULE}, `
          + 'and a CronJob\'s pods restart only on failure', this.atKey('restart'));
      }
    } else if (s.restart === 'no' || s.restart === 'on-failure') {
      if (this.plan.kind !== WorkloadKind.JOB) {
        this.warn('unsupported-key', `restart "${s.restart}" is not kept: a ${this.plan.kind === WorkloadKind.STATEFUL_SET || this.plan.kind === WorkloadKind.DAEMON_SET ? this.plan.kind : 'Deployment'} `
          + `always restarts its containers (add ${KomposeLabel.CRON_SCHEDULE} to run it on a schedule)`, this.atKey('restart'));
      }
    }
    if (s.deploy.mode === 'global' && this.plan.kind !== WorkloadKind.DAEMON_SET) {
      this.warn('unsupported-key', `deploy.mode "global" is not kept: the service runs as a ${this.plan.kind === WorkloadKind.STATEFUL
        ? 'stateful dependency' : this.plan.kind}, not one pod per node`, this.atKey('deploy.mode'));
    }
    if (this.plan.kind === WorkloadKind.DAEMON_SET && s.deploy.replicas !== undefined) {
      this.warn('unsupported-key', `deploy.replicas ${s.deploy.replicas} is not kept: a DaemonSet runs one pod on every node`, this.atKey('deploy.replicas'));
    }
    if (s.deploy.restartPolicy !== undefined) {
      this.warn('unsupported-key', 'ignored deploy.restart_policy: Kubernetes restarts containers by the pod\'s restartPolicy', this.atKey('deploy.restart_policy'));
    }
    if (s.stdinOpen || s.tty) {
      this.warn('unsupported-key', 'ignored stdin_open/tty: the container runs without a terminal', this.atKey(s.tty ? 'tty' : 'stdin_open'));
    }
    if (s.platform !== undefined && !/^linux\//.test(s.platform)) {
      this.warn('unsupported-key', `platform "${s.platform}" is not a Linux platform; Kubernetes nodes run linux images`, this.atKey('platform'));
    }
    for (const network of s.networks) {
      if (network.ipv4Address !== undefined || network.ipv6Address !== undefined) {
        this.warn('unsupported-key', `ignored the static address on network "${network.name}": pods get their addresses `
          + 'from the cluster; reach the service by its Service name', network.at);
      }
    }
    const labels = Object.keys(s.labels).sort();
    for (const label of labels.filter((l) => l.startsWith('kompose.') && !isHonouredKomposeLabel(l))) {
      this.warn('unsupported-label', `ignored label "${label}": this kompose label is not honoured`, labelAt(s, label));
    }
    const controller = this.plan.labels.controller;
    if (controller === KomposeControllerType.STATEFUL_SET && this.plan.kind === WorkloadKind.DEPLOYMENT) {
      this.warn('unsupported-label', `${KomposeLabel.CONTROLLER_TYPE} "statefulset" is not kept: the service has no ports, and a `
        + 'StatefulSet needs a Service to name its pods, so it runs as a Deployment (give it a port with expose to get one)',
      labelAt(s, KomposeLabel.CONTROLLER_TYPE));
    } else if (controller === KomposeControllerType.DAEMON_SET && this.plan.kind === WorkloadKind.STATEFUL) {
      this.warn('unsupported-label', `${KomposeLabel.CONTROLLER_TYPE} "${controller}" is not kept: a database or cache runs as a `
        + 'stateful dependency with one pod', labelAt(s, KomposeLabel.CONTROLLER_TYPE));
    } else if (controller === KomposeControllerType.REPLICATION_CONTROLLER) {
      this.warn('unsupported-label', `${KomposeLabel.CONTROLLER_TYPE} "${controller}" is not supported: the service runs as a `
        + `${this.plan.kind === WorkloadKind.STATEFUL ? 'stateful dependency' : 'Deployment'} (a ReplicationController is the `
        + 'Deployment\'s deprecated predecessor)', labelAt(s, KomposeLabel.CONTROLLER_TYPE));
    } else if (controller !== undefined && (this.plan.kind === WorkloadKind.JOB || this.plan.kind === WorkloadKind.CRON_JOB)) {
      this.warn('unsupported-label', `ignored ${KomposeLabel.CONTROLLER_TYPE} "${controller}": the service runs as a ${this.plan.kind}`,
        labelAt(s, KomposeLabel.CONTROLLER_TYPE));
    }
    const others = labels.filter((l) => !l.startsWith('kompose.'));
    if (others.length > 0) {
      this.warn('unsupported-key', `ignored labels ${others.map((l) => `"${l}"`).join(', ')}: compose labels are not copied to `
        + 'Kubernetes objects', this.atKey('labels'));
    }
    if (s.user !== undefined && parseUser(s.user) === undefined) {
      this.warn('unsupported-key', `user "${s.user}" is not numeric: runAsUser needs a uid, so the image's own user is kept`, this.atKey('user'));
    }
  }

  /** A StatefulDependency's pod is its own; these keys do not reach it. */
  private warnStatefulPodKeys(): void {
    const s = this.plan.service;
    const keys = [
      Object.keys(s.sysctls).length > 0 ? 'sysctls' : undefined,
      s.extraHosts.length > 0 ? 'extra_hosts' : undefined,
      s.workingDir !== undefined ? 'working_dir' : undefined,
    ].filter((key): key is string => key !== undefined);
    for (const key of keys) {
      this.warn('unsupported-key', `ignored ${key} on a database or cache: it runs as a StatefulDependency with the `
        + 'engine\'s own pod settings', this.atKey(key));
    }
  }

  /** Env → ConfigMap + Secret (rule 3), with the hosts rewritten to Service names (rule 2). */
  private buildEnvironment(secretsInCommands: readonly string[]): {
    values: Record<string, kplus.EnvValue>; configMap?: kplus.ConfigMap; secret?: KubeSecret; secretVariables: SecretVariable[];
  } {
    const { service } = this.plan;
    const patterns = this.settings.sensitiveNamePatterns;
    let plain: Array<[EnvVar, string, string]> = [];
    const sensitive: Array<[EnvVar, string, string]> = [];
    const keys = new KeyNames();
    for (const variable of service.environment) {
      const rewritten = this.context.hosts.rewrite(variable.value);
      for (const rewrite of rewritten.rewrites) {
        this.warn('host-rewrite', `host "${rewrite.from}" in ${variable.name} rewritten to the Service name "${rewrite.to}"`, variable.at);
      }
      const isSensitive = isSensitiveName(variable.name, patterns)
        || this.settings.sensitiveEnv.includes(variable.name)
        || hasEmbeddedPassword(variable.value)
        || this.context.secretValues.foundIn(variable.value);
      (isSensitive ? sensitive : plain).push([variable, rewritten.value, keys.key(variable.name)]);
    }
    // A secret of the app in a command that no variable of the service holds as it is gets a variable of its own.
    secretsInCommands.filter((value) => !sensitive.some(([, v]) => v === value)).forEach((value, i) => {
      const name = `CDK8S_COMPOSE_SECRET_${i + 1}`;
      sensitive.push([{ name, value, origin: 'environment', at: service.at }, value, keys.key(name)]);
    });
    const values: Record<string, kplus.EnvValue> = {};
    let configMap: kplus.ConfigMap | undefined;
    let secret: KubeSecret | undefined;
    // An empty value cannot be a ConfigMap key (kplus drops it, and the pod would then fail on the missing key):
    // it is a plain empty value.
    for (const [variable, value] of plain.filter(([, v]) => v === '')) {
      values[variable.name] = kplus.EnvValue.fromValue(value);
    }
    plain = plain.filter(([, value]) => value !== '');
    if (plain.length > 0) {
      const name = this.context.names.claim('ConfigMap', joinDnsLabel(this.name, 'env'), { owner: `the environment of service "${service.name}"`, at: service.at });
      configMap = new kplus.ConfigMap(this, 'EnvConfigMap', {
        metadata: this.metadata(name),
        data: Object.fromEntries(plain.map(([, value, key]) => [key, value])),
      });
      for (const [variable, , key] of plain) {
        values[variable.name] = kplus.EnvValue.fromConfigMap(configMap, key);
      }
    }
    if (sensitive.length > 0) {
      const name = this.context.names.claim('Secret', joinDnsLabel(this.name, 'env'), { owner: `the environment of service "${service.name}"`, at: service.at });
      secret = new KubeSecret(this, 'EnvSecret', {
        metadata: this.metadata(name),
        type: 'Opaque',
        data: Object.fromEntries(sensitive.map(([, value, key]) => [key, base64(value)])),
      });
      const ref = kplus.Secret.fromSecretName(this, 'EnvSecretRef', name);
      for (const [variable, , key] of sensitive) {
        values[variable.name] = kplus.EnvValue.fromSecretValue({ secret: ref, key });
      }
    }
    const secretVariables = sensitive.map(([variable, value]) => ({ value, variable: variable.name }))
      .filter((s) => secretsInCommands.includes(s.value));
    return { values: sortRecord(values), configMap, secret, secretVariables };
  }

  /** What the credentials Secret of a stateful dependency holds, read from the compose environment and secrets. */
  private engineCredentials(engine: DatabaseEngine): DatabaseCredentials {
    const { service } = this.plan;
    const env = new Map(service.environment.map((v) => [v.name, v.value]));
    const lookup = (variable: string): string | undefined => {
      const direct = env.get(variable);
      if (direct !== undefined) {
        return direct;
      }
      const file = env.get(`${variable}_FILE`);
      const ref = file === undefined ? undefined : service.secrets.find((s) => s.target === file);
      return ref ? this.context.secretContent(ref.source) : undefined;
    };
    return engine.credentialsFrom(lookup, service.command ?? []);
  }

  /** Volumes, secrets, configs and binds → pod volumes and mounts. */
  private planMounts(): MountPlan {
    const { service } = this.plan;
    const engine = this.plan.kind === WorkloadKind.STATEFUL ? this.plan.engine : undefined;
    const plan: MountPlan = { mounts: [], claims: {} };
    const volumeNames = new KeyNames(true, this.plan.sidecarOf !== undefined ? this.name : undefined);
    const files: Array<{ mount: VolumeMount; content: FileContent; key: string }> = [];
    const fileKeys = new KeyNames();

    for (const mount of service.volumes) {
      const onEngineData = engine !== undefined && mount.target.replace(/\/+$/, '') === engine.dataPath;
      const target = mount.target.replace(/\/+$/, '');
      const keepsEngineData = engine !== undefined && (target === engine.dataPath || engine.dataPath.startsWith(`${target}/`));
      if (keepsEngineData && (mount.type === 'bind' || (mount.type === 'volume' && mount.source !== undefined))) {
        plan.engineDataKept = true;
      }
      if (mount.type === 'tmpfs') {
        const volume = kplus.Volume.fromEmptyDir(this, `Tmpfs${mount.target}`, volumeNames.key(`tmpfs-${mount.target}`), {
          medium: kplus.EmptyDirMedium.MEMORY,
          sizeLimit: mount.sizeBytes !== undefined ? sizeFromBytes(mount.sizeBytes) : undefined,
        });
        plan.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
      } else if (mount.type === 'volume' && mount.source === undefined) {
        if (onEngineData) {
          continue;
        }
        this.warn('anonymous-volume', `anonymous volume at ${mount.target} becomes an emptyDir: it starts empty (docker would `
          + 'copy the image\'s files into it) and is lost with the pod', mount.at);
        const volume = kplus.Volume.fromEmptyDir(this, `Anonymous${mount.target}`, volumeNames.key(`anon-${mount.target}`));
        plan.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
      } else if (mount.type === 'volume') {
        const claim = this.context.claimFor(mount.source!, this.plan, mount.at);
        if (onEngineData && mount.subpath === undefined) {
          plan.engineDataClaim = claim;
          continue;
        }
        const volumeName = volumeNames.key(claim.name);
        const existing = Object.entries(plan.claims).find(([, c]) => c === claim);
        const volume = existing
          ? plan.mounts.find((m) => m.volumeName === existing[0])!.volume
          : kplus.Volume.fromPersistentVolumeClaim(this, `Claim-${mount.source}`, claim, { name: volumeName });
        if (!existing) {
          plan.claims[volumeName] = claim;
        }
        plan.mounts.push({ path: mount.target, volume, volumeName: existing ? existing[0] : volumeName, subPath: mount.subpath, readOnly: mount.readOnly });
      } else {
        this.planBind(mount, onEngineData, plan, files, fileKeys, volumeNames);
      }
    }

    const fileRefs = [
      ...service.secrets.map((ref) => ({ ref, what: 'secret', id: 'Secret', source: this.context.secretSource(ref.source, this.plan, ref.at) })),
      ...service.configs.map((ref) => ({ ref, what: 'config', id: 'Config', source: this.context.configSource(ref.source, this.plan, ref.at) })),
    ];
    for (const { ref, what, id, source } of fileRefs) {
      if (source) {
        plan.mounts.push(this.fileMount(source, ref.target, ref.mode, volumeNames, `${id}-${ref.source}`));
      }
      if (ref.uid !== undefined || ref.gid !== undefined) {
        this.warn('unsupported-key', `ignored uid/gid of ${what} "${ref.source}": mounted files belong to the pod's user`, ref.at);
      }
    }

    if (files.length > 0) {
      const holdsSecret = files.filter((f) => !f.content.binary && this.context.secretValues.foundIn(f.content.text));
      const plainFiles = files.filter((f) => !holdsSecret.includes(f));
      const owner = { owner: `the bind-mounted files of service "${service.name}"`, at: service.at };
      const name = joinDnsLabel(this.name, 'files');
      if (plainFiles.length > 0) {
        this.context.names.claim('ConfigMap', name, owner);
        plan.filesConfigMap = new kplus.ConfigMap(this, 'FilesConfigMap', {
          metadata: this.metadata(name),
          data: Object.fromEntries(plainFiles.filter((f) => !asBinary(f.content)).map((f) => [f.key, f.content.text])),
          binaryData: Object.fromEntries(plainFiles.filter((f) => asBinary(f.content))
            .map((f) => [f.key, f.content.binary ? f.content.text : base64(f.content.text)])),
        });
        const volume = kplus.Volume.fromConfigMap(this, 'FilesVolume', plan.filesConfigMap, { name: volumeNames.key('files') });
        for (const file of plainFiles) {
          plan.mounts.push({ path: file.mount.target, volume, subPath: file.key, readOnly: true });
        }
      }
      if (holdsSecret.length > 0) {
        this.context.names.claim('Secret', name, owner);
        for (const file of holdsSecret) {
          this.warn('file-holds-secret', `the bound file "${file.mount.source}" contains a secret value, so it is mounted from `
            + `the Secret "${name}" instead of a ConfigMap`, file.mount.at);
        }
        plan.filesSecret = new KubeSecret(this, 'FilesSecret', {
          metadata: this.metadata(name),
          type: 'Opaque',
          data: Object.fromEntries(holdsSecret.map((f) => [f.key, base64(f.content.text)])),
        });
        const ref = kplus.Secret.fromSecretName(this, 'FilesSecretRef', name);
        const volume = kplus.Volume.fromSecret(this, 'FilesSecretVolume', ref, { name: volumeNames.key('files-secret') });
        for (const file of holdsSecret) {
          plan.mounts.push({ path: file.mount.target, volume, subPath: file.key, readOnly: true });
        }
      }
      for (const file of files) {
        if (!file.content.binary) {
          this.reportReferences(file.content.text, `the bound file "${file.mount.source}"`, file.mount.at);
        }
      }
    }
    plan.mounts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return plan;
  }

  private planBind(
    mount: VolumeMount, onEngineData: boolean, plan: MountPlan,
    files: Array<{ mount: VolumeMount; content: FileContent; key: string }>, fileKeys: KeyNames, volumeNames: KeyNames,
  ): void {
    const source = mount.source ?? '';
    const kind = mount.bind?.kind ?? 'missing';
    if (onEngineData) {
      this.warn('directory-bind', `bind mount "${source}" at the data path ${mount.target} is replaced by the database's `
        + 'claim: host data does not travel; restore it from a dump', mount.at);
      return;
    }
    if (kind === 'file' && mount.bind?.content) {
      if (!mount.readOnly) {
        this.warn('bind-read-only', `the bound file "${source}" is mounted read-only from a ConfigMap; writes to it fail`, mount.at);
      }
      files.push({ mount, content: mount.bind.content, key: fileKeys.key(basename(source)) });
    } else if (kind === 'file') {
      this.warn('large-bind-file', `the bound file "${source}" was not read, so it is not mounted at ${mount.target}`, mount.at);
    } else if (kind === 'directory' && mount.bind?.files && mount.bind.files.length > 0) {
      if (!mount.readOnly) {
        this.warn('bind-read-only', `the bound directory "${source}" is mounted read-only from a ConfigMap (its files, `
          + `${mount.bind.files.length} of them); writes to it fail`, mount.at);
      }
      const target = mount.target.replace(/\/+$/, '');
      for (const file of mount.bind.files) {
        files.push({ mount: { ...mount, source: `${source.replace(/\/+$/, '')}/${file.path}`, target: `${target}/${file.path}` }, content: file, key: fileKeys.key(file.path) });
      }
    } else if (kind === 'directory' && mount.bind?.files) {
      const volume = kplus.Volume.fromEmptyDir(this, `Empty${mount.target}`, volumeNames.key(`bind-${mount.target}`));
      plan.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
    } else if (kind === 'directory' && mount.bind?.sizeBytes !== undefined) {
      this.warn('large-bind-directory', `directory bind mount "${source}" → ${mount.target} holds more than a ConfigMap `
        + `can (1 MiB, 256 files), so it is not migrated: the container sees the image's own files there. Put the data in `
        + `a named volume and copy it in after deploying (kubectl cp ${source} <pod>:${mount.target} -n ${this.context.namespace})`, mount.at);
    } else if (kind === 'directory') {
      this.warn('directory-bind', `directory bind mount "${source}" → ${mount.target} is not migrated: host data does not `
        + 'travel, and the container sees the image\'s own files there. Use a named volume (and copy the data in) or '
        + 'configs for files', mount.at);
    } else if (kind === 'missing') {
      this.warn('directory-bind', `bind mount "${source}" does not exist; ${mount.target} becomes an empty emptyDir, as `
        + 'docker would create an empty directory', mount.at);
      const volume = kplus.Volume.fromEmptyDir(this, `Missing${mount.target}`, volumeNames.key(`bind-${mount.target}`));
      plan.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
    } else {
      this.warn('host-path', `bind mount of the host path "${source}" is not migrated: a pod does not see its node's files. `
        + 'Run this service on a VM (GoldenImageVm) if it needs the host', mount.at);
    }
  }

  private fileMount(source: MountedFileSource, target: string, mode: number | undefined, volumeNames: KeyNames, id: string): PodMount {
    const name = volumeNames.key(`${source.kind === 'Secret' ? 'secret' : 'config'}-${source.name}`);
    const volume = source.kind === 'Secret'
      ? kplus.Volume.fromSecret(this, id, kplus.Secret.fromSecretName(this, `${id}Ref`, source.name), { name, defaultMode: mode })
      : kplus.Volume.fromConfigMap(this, id, kplus.ConfigMap.fromConfigMapName(this, `${id}Ref`, source.name), { name, defaultMode: mode });
    return { path: target, volume, subPath: source.key, readOnly: true };
  }

  /** Rule 2 for files: names that would not resolve in Kubernetes are reported, one warning each. */
  private reportReferences(text: string, what: string, at: ComposeLocation): void {
    for (const reference of this.context.hosts.references(text)) {
      this.warn('file-host-reference', `${what} refers to "${reference.from}", which is the Service "${reference.to}" in `
        + 'Kubernetes; edit the file', at);
    }
  }

  /** depends_on → waits (rule 1). */
  private planWaits(): DependencyWait[] {
    const waits: DependencyWait[] = [];
    for (const dependency of this.plan.service.dependsOn) {
      const target = this.context.plans.get(dependency.service);
      if (!target || dependency.service === this.plan.sidecarOf) {
        continue;
      }
      const tcp = target.ports.find((p) => p.protocol === kplus.Protocol.TCP && !p.inferred)
        ?? target.ports.find((p) => p.protocol === kplus.Protocol.TCP);
      const sharesNetwork = this.plan.service.networks.some((mine) => target.service.networks.some((theirs) => theirs.name === mine.name));
      const vmReady: DependencyWait = { kind: WaitKind.WORKLOAD_READY, service: dependency.service, target: target.vm ?? target.name, workload: 'VirtualMachine' };
      if (target.kind === WorkloadKind.VM && dependency.condition === 'service_completed_successfully') {
        this.warn('vm-dependency', `"${dependency.service}" runs in the VM, where its completion is not visible to Kubernetes: `
          + 'the pod waits for the VM to be ready instead', dependency.at);
        waits.push(vmReady);
      } else if (target.kind === WorkloadKind.CRON_JOB) {
        this.warn('scheduled-dependency', `does not wait for "${dependency.service}": it runs on a schedule (a CronJob), so there is `
          + 'nothing to wait for', dependency.at);
      } else if (target.kind === WorkloadKind.JOB) {
        waits.push({ kind: WaitKind.JOB_COMPLETE, service: dependency.service, target: target.name });
      } else if (target.hasService && tcp && sharesNetwork) {
        waits.push({ kind: WaitKind.TCP, service: dependency.service, target: target.name, port: tcp.port });
      } else {
        if (target.kind === WorkloadKind.VM) {
          waits.push(vmReady);
          continue;
        }
        const workload = target.controller === WorkloadController.STATEFUL_SET || target.kind === WorkloadKind.STATEFUL_SET
          ? 'StatefulSet' : target.kind === WorkloadKind.DAEMON_SET ? 'DaemonSet' : 'Deployment';
        waits.push({ kind: WaitKind.WORKLOAD_READY, service: dependency.service, target: target.name, workload });
      }
    }
    // Databases and caches first (rule 1), then the rest in compose's order; init containers run in this order.
    // Several services in the VM are one wait for the VM.
    const stateful = (w: DependencyWait) => this.context.plans.get(w.service)?.kind === WorkloadKind.STATEFUL ? 0 : 1;
    const unique = waits.filter((w, i) => waits.findIndex((o) => waitContainerName(o) === waitContainerName(w)) === i);
    return unique.sort((x, y) => stateful(x) - stateful(y));
  }

  private addWaits(): { account: kplus.IServiceAccount; role: kplus.Role } | undefined {
    if (this.waits.length === 0) {
      return undefined;
    }
    if (this.plan.sidecarOf !== undefined) {
      // In its host's pod: the host's own waits run already; the pod has one service account, the host's.
      const present = new Set(this.workload.initContainers.map((c) => c.name));
      for (const wait of this.waits.filter((w) => !present.has(waitContainerName(w)))) {
        if (needsApi(wait)) {
          this.warn('sidecar-wait', `does not wait for "${wait.service}" through the API: the service runs in the pod of `
            + `"${this.plan.sidecarOf}", whose service account it cannot change; give "${wait.service}" a port to wait on`, this.plan.service.at);
        } else {
          this.workload.addInitContainer(waitContainer(wait, this.context.wait));
        }
      }
      return undefined;
    }
    const apiWaits = this.waits.filter(needsApi);
    const scratch = apiWaits.length > 0 ? kplus.Volume.fromEmptyDir(this, 'WaitScratch', 'wait-scratch') : undefined;
    for (const wait of this.waits) {
      this.workload.addInitContainer(waitContainer(wait, this.context.wait, scratch));
    }
    if (apiWaits.length === 0) {
      return undefined;
    }
    const name = joinDnsLabel(this.name, 'wait');
    const metadata = this.metadata(name);
    // Under kompose.serviceaccount-name the pod's own account gets the wait's Role: a pod has one account.
    const own = this.settings.serviceAccountName;
    const account = own !== undefined
      ? kplus.ServiceAccount.fromServiceAccountName(this, 'WaitServiceAccount', own, { namespaceName: this.context.namespace })
      : new kplus.ServiceAccount(this, 'WaitServiceAccount', { metadata, automountToken: false });
    const role = new kplus.Role(this, 'WaitRole', { metadata });
    for (const wait of apiWaits) {
      role.allow([...WAIT_VERBS], waitResource(wait));
    }
    const binding = new kplus.RoleBinding(this, 'WaitRoleBinding', { metadata, role });
    binding.addSubjects(account);
    // kplus sets the service account only at construction, and a StatefulDependency's pod is made before its waits
    // are known: both fields are patched in, the same way for every kind of workload.
    ApiObject.of(this.workload).addJsonPatch(
      JsonPatch.add(`${this.podTemplatePath}/spec/serviceAccountName`, account.name),
      JsonPatch.add(`${this.podTemplatePath}/spec/automountServiceAccountToken`, true));
    return { account, role };
  }

  /**
   * The probes: HTTP probes for a service declared HTTP, else the compose healthcheck's, else a tcpSocket readiness
   * probe; then the `kompose.service.healthcheck.*` labels replace (or turn off) the probe they name.
   */
  private probes(): ContainerProbes & { readonly readinessOff: boolean } {
    const readinessLabels = this.settings.readinessLabels;
    const livenessLabels = this.settings.livenessLabels;
    if (this.plan.kind === WorkloadKind.JOB || this.plan.kind === WorkloadKind.CRON_JOB) {
      for (const labels of [readinessLabels, livenessLabels].filter((l): l is KomposeProbeLabels => l !== undefined)) {
        this.warn('unsupported-label', `ignored the ${labels.prefix}.* labels: a ${this.plan.kind}'s pods run to completion `
          + 'and are not probed', labels.at);
      }
      return { readinessOff: false };
    }
    const healthcheck = this.healthcheck;
    let base: ContainerProbes;
    if (this.settings.http) {
      if (healthcheck?.test) {
        this.warn('healthcheck-replaced', 'the healthcheck is replaced by the HTTP probes of a service declared HTTP', healthcheck.at);
      }
      base = httpProbes(this.settings.http);
    } else if (healthcheck?.test) {
      base = probesFromHealthcheck(healthcheck);
    } else {
      if (healthcheck && !(readinessLabels?.check && livenessLabels?.check)) {
        this.warn('healthcheck-inherited', 'the healthcheck sets only timings, so it uses the image\'s HEALTHCHECK, which '
          + 'Kubernetes does not run; a tcpSocket readiness probe is used where there is a port', healthcheck.at);
      }
      const tcp = this.plan.ports.find((p) => p.protocol === kplus.Protocol.TCP && !p.inferred);
      base = this.plan.kind === WorkloadKind.STATEFUL || !tcp ? {} : tcpReadiness(tcp.port);
    }
    const fromLabels = (labels: KomposeProbeLabels | undefined, probe: kplus.Probe | undefined, which: string) =>
      labels === undefined ? probe : labels.disabled ? undefined : this.labelProbe(labels, which);
    return {
      readiness: fromLabels(readinessLabels, base.readiness, 'readiness'),
      liveness: fromLabels(livenessLabels, base.liveness, 'liveness'),
      startup: base.startup,
      readinessOff: readinessLabels?.disabled ?? false,
    };
  }

  /**
   * A probe from `kompose.service.healthcheck.<which>.*`: the labels' check, else the compose healthcheck's test;
   * each timing from the labels, else from the compose healthcheck, else Kubernetes' default.
   */
  private labelProbe(labels: KomposeProbeLabels, which: string): kplus.Probe {
    const healthcheck = this.healthcheck;
    const check: KomposeProbeCheck | undefined = labels.check
      ?? (healthcheck?.test ? { kind: 'exec', command: healthcheckCommand(healthcheck.test) } : undefined);
    if (!check) {
      throw new ComposeError(`the ${which} labels set timings but no check, and the compose healthcheck has no test`, {
        at: labels.at,
        allowed: `${labels.prefix}.test, .http_get_path or .tcp_port`,
        hint: 'add one of them, or a healthcheck test',
      });
    }
    const seconds = (label: number | undefined, compose: number | undefined) =>
      label !== undefined ? Duration.seconds(label) : compose !== undefined ? Duration.seconds(probeSeconds(compose)) : undefined;
    const options = {
      periodSeconds: seconds(labels.periodSeconds, healthcheck?.intervalSeconds),
      timeoutSeconds: seconds(labels.timeoutSeconds, healthcheck?.timeoutSeconds),
      failureThreshold: labels.failureThreshold ?? healthcheck?.retries,
      initialDelaySeconds: labels.initialDelaySeconds !== undefined ? Duration.seconds(labels.initialDelaySeconds) : undefined,
    };
    switch (check.kind) {
      case 'exec':
        return kplus.Probe.fromCommand([...check.command], options);
      case 'tcp':
        return kplus.Probe.fromTcpSocket({ ...options, port: check.port });
      case 'http': {
        const port = check.port ?? this.settings.http?.port ?? this.plan.ports.find((p) => p.protocol === kplus.Protocol.TCP)?.port;
        if (port === undefined) {
          throw new ComposeError(`the ${which} probe's HTTP check has no port, and the service has no TCP port`, {
            at: labels.at, hint: `add ${labels.prefix}.http_get_port`,
          });
        }
        return kplus.Probe.fromHttpGet(check.path, { ...options, port });
      }
    }
  }


  private securityContext(): kplus.ContainerSecurityContextProps {
    const { service } = this.plan;
    const user = service.user !== undefined ? parseUser(service.user) : undefined;
    const sysAdmin = service.capAdd.includes('SYS_ADMIN') || service.capAdd.includes('ALL');
    return {
      // Non-root is enforced only when compose names a non-root uid; most images start as root on purpose.
      ensureNonRoot: user !== undefined && user.uid !== 0,
      user: user?.uid,
      group: user?.gid,
      privileged: service.privileged,
      readOnlyRootFilesystem: service.readOnly,
      allowPrivilegeEscalation: this.settings.allowPrivilegeEscalation ?? (service.privileged || sysAdmin),
      capabilities: service.capAdd.length + service.capDrop.length > 0 ? {
        add: service.capAdd.length > 0 ? service.capAdd.map(capability) : undefined,
        drop: service.capDrop.length > 0 ? service.capDrop.map(capability) : undefined,
      } : undefined,
    };
  }

  private sysctls(): kplus.Sysctl[] {
    const { service } = this.plan;
    const sysctls: kplus.Sysctl[] = [];
    for (const name of Object.keys(service.sysctls).sort()) {
      if (SAFE_SYSCTLS.includes(name)) {
        sysctls.push({ name, value: service.sysctls[name] });
      } else {
        this.warn('unsafe-sysctl', `sysctl "${name}" is not set: Kubernetes rejects unsafe sysctls unless the kubelet allows `
          + 'them (--allowed-unsafe-sysctls)', this.atKey(`sysctls.${name}`));
      }
    }
    return sysctls;
  }

  private hostAliases(): kplus.HostAlias[] {
    const byIp = new Map<string, string[]>();
    for (const host of this.plan.service.extraHosts) {
      if (/^[0-9.]+$|:/.test(host.ip)) {
        byIp.set(host.ip, [...(byIp.get(host.ip) ?? []), host.hostname]);
      } else {
        this.warn('unsupported-key', `extra host "${host.hostname}:${host.ip}" is not kept: "${host.ip}" is not an address `
          + 'a pod can use', this.atKey('extra_hosts'));
      }
    }
    return [...byIp.keys()].sort().map((ip) => ({ ip, hostnames: byIp.get(ip)!.sort() }));
  }

  /** GPUs from deploy.resources.reservations.devices become `nvidia.com/gpu` limits. */
  private applyDevices(): void {
    const devices = this.plan.service.deploy.reservations.devices;
    let gpus = 0;
    for (const device of devices) {
      if (!device.capabilities.includes('gpu')) {
        this.warn('unsupported-key', `ignored device reservation with capabilities ${device.capabilities.join(', ')}: only GPUs are converted`, device.at);
        continue;
      }
      if (device.count === 'all' || (device.count === undefined && device.deviceIds.length === 0)) {
        this.warn('gpu-count', 'GPU count "all" becomes 1 GPU: Kubernetes needs a number', device.at);
        gpus += 1;
      } else {
        gpus += device.count ?? device.deviceIds.length;
      }
    }
    if (gpus > 0) {
      // kplus's ContainerResources has no extended resources, so the limit is patched in. The generated class maps
      // the patched tree through its TypeScript types afterwards, so the value must be a Quantity, not a number.
      ApiObject.of(this.workload).addJsonPatch(
        JsonPatch.add(`${this.podTemplatePath}/spec/containers/${this.workload.containers.indexOf(this.container)}/resources/limits/nvidia.com~1gpu`,
          Quantity.fromNumber(gpus)));
    }
  }

  /** ports → external access: the exposure rule of the README. */
  private expose(): { published: PublishedPort[]; ingress?: kplus.Ingress; external?: kplus.Service; rules: IngressRule[] } {
    const { service } = this.plan;
    const settings = this.settings;
    const published: PublishedPort[] = [];
    const seen = new Set<string>();
    let ingressPort: PortMapping | undefined;
    const external: PortMapping[] = [];
    for (const mapping of service.ports) {
      const access = this.portAccess(mapping, ingressPort === undefined);
      published.push({ mapping, access });
      const key = `${mapping.published ?? mapping.target}/${mapping.protocol}`;
      if (access === PortAccess.INGRESS) {
        ingressPort = mapping;
      } else if (access === PortAccess.LOAD_BALANCER || access === PortAccess.NODE_PORT) {
        if (!seen.has(key)) {
          seen.add(key);
          external.push(mapping);
        }
      }
    }
    let ingress: kplus.Ingress | undefined;
    const rules: IngressRule[] = [];
    if (ingressPort && this.service) {
      this.context.names.claim('Ingress', this.name, { owner: `service "${service.name}"`, at: service.at });
      ingress = new kplus.Ingress(this, 'Ingress', {
        metadata: { ...this.metadata(this.name), annotations: { ...settings.ingressAnnotations } },
        className: settings.ingressClassName,
      });
      const backend = kplus.IngressBackend.fromService(this.service, { port: ingressPort.target });
      for (const rule of settings.ingressRules) {
        ingress.addHostRule(rule.host, rule.path, backend, kplus.HttpIngressPathType.PREFIX);
        rules.push({ ...rule, at: ingressPort.at });
      }
      if (settings.ingressTlsSecret) {
        const hosts = [...new Set(settings.ingressRules.map((r) => r.host))];
        ingress.addTls([{ hosts, secret: kplus.Secret.fromSecretName(this, 'TlsSecret', settings.ingressTlsSecret) }]);
      }
    }
    checkIngressLabels(service, ingress !== undefined);
    let externalService: kplus.Service | undefined;
    if (external.length > 0) {
      const nodePort = settings.komposeServiceType === 'nodeport';
      const name = this.context.names.claim('Service', joinDnsLabel(this.name, 'external'), { owner: `the published ports of service "${service.name}"`, at: service.at });
      externalService = new kplus.Service(this, 'ExternalService', {
        metadata: this.metadata(name),
        type: nodePort ? kplus.ServiceType.NODE_PORT : kplus.ServiceType.LOAD_BALANCER,
        ports: external.map((m) => {
          const port = m.published ?? m.target;
          return {
            port,
            targetPort: m.target,
            protocol: explicitProtocol(toProtocol(m.protocol)),
            name: `${m.protocol}-${port}`,
            nodePort: !nodePort ? undefined : settings.nodePort ?? (port >= 30000 && port <= 32767 ? port : undefined),
          };
        }),
      });
      externalService.selectLabel('app', this.labels.app);
    }
    return { published, ingress, external: externalService, rules };
  }

  private portAccess(mapping: PortMapping, ingressFree: boolean): PortAccess {
    return portAccess(mapping, ingressFree, {
      name: this.name,
      expose: this.settings.expose,
      komposeServiceType: this.settings.komposeServiceType,
      httpPort: this.settings.http?.port,
      httpPorts: this.settings.httpPorts,
      runsToCompletion: this.plan.kind === WorkloadKind.JOB || this.plan.kind === WorkloadKind.CRON_JOB,
      stateful: this.plan.kind === WorkloadKind.STATEFUL,
      hasService: this.plan.hasService,
      warn: (code, message, at) => this.warn(code, message, at),
    });
  }
}

interface PodMount {
  readonly path: string;
  readonly volume: kplus.Volume;
  readonly volumeName?: string;
  readonly subPath?: string;
  readonly readOnly: boolean;
}

interface MountPlan {
  mounts: PodMount[];
  claims: Record<string, kplus.IPersistentVolumeClaim>;
  engineDataClaim?: kplus.IPersistentVolumeClaim;
  /** Compose keeps the engine's data: a named volume or a bind mount at its data path or a folder above it. */
  engineDataKept?: boolean;
  filesConfigMap?: kplus.ConfigMap;
  filesSecret?: KubeSecret;
}

/** Unique keys (ConfigMap keys, or DNS-1123 volume names) derived from arbitrary text. */
class KeyNames {
  private readonly used = new Set<string>();

  /** @param prefix put before every key: a sidecar's volumes must not take its host's volume names. */
  constructor(private readonly dnsLabel = false, private readonly prefix?: string) {}

  public key(text: string): string {
    const base = this.dnsLabel
      ? toDnsLabel(this.prefix !== undefined ? `${this.prefix}-${text}` : text) || 'volume'
      : (CONFIG_KEY.test(text) ? text : text.replace(/[^-._a-zA-Z0-9]/g, '_'));
    let candidate = base;
    for (let i = 2; this.used.has(candidate); i++) {
      candidate = this.dnsLabel ? joinDnsLabel(base, String(i)) : `${base}_${i}`;
    }
    this.used.add(candidate);
    return candidate;
  }
}

/** Two published ports with the same host port, protocol and address but different container ports. */
function checkPublishedPorts(service: ComposeService): void {
  const seen = new Map<string, PortMapping>();
  for (const mapping of service.ports) {
    if (mapping.published === undefined) {
      continue;
    }
    const key = `${mapping.hostIp ?? ''}|${mapping.published}/${mapping.protocol}`;
    const earlier = seen.get(key);
    if (earlier && earlier.target !== mapping.target) {
      throw new ComposeError(`host port ${mapping.published}/${mapping.protocol} is published twice in service `
        + `"${service.name}", to container ports ${earlier.target} (${earlier.at.path}) and ${mapping.target}`, {
        at: mapping.at,
        value: `${mapping.published}:${mapping.target}/${mapping.protocol}`,
        allowed: 'each host port and protocol published once per host address',
        hint: 'publish one of them on another host port',
      });
    }
    seen.set(key, mapping);
  }
}

/** Requests and limits as kplus wants them. */
export function toContainerResources(r: ResolvedResources): kplus.ContainerResources {
  return {
    cpu: { request: cpuFromMillicores(r.cpuRequestMillis), limit: cpuFromMillicores(r.cpuLimitMillis) },
    memory: { request: sizeFromBytes(r.memoryRequestBytes), limit: sizeFromBytes(r.memoryLimitBytes) },
  };
}

/**
 * Requests and limits of a service: each value given in the overrides wins, then compose's (reservations are
 * requests, limits are limits), then the defaults. A request above its limit is lowered to the limit, a default
 * limit below a given request is raised to it, so the pair is always valid.
 */
export function resolveResources(
  service: ComposeService, override: kplus.ContainerResources | undefined, defaults: Required<ResolvedResources>,
): ResolvedResources {
  const limits = service.deploy.limits;
  const reservations = service.deploy.reservations;
  const cpuLimitGiven = override?.cpu?.limit ? cpuToMillicores(override.cpu.limit)
    : limits.cpus !== undefined ? coresToMillicores(limits.cpus) : undefined;
  const cpuRequestGiven = override?.cpu?.request ? cpuToMillicores(override.cpu.request)
    : reservations.cpus !== undefined ? coresToMillicores(reservations.cpus) : undefined;
  const memLimitGiven = override?.memory?.limit ? sizeToBytes(override.memory.limit) : limits.memoryBytes;
  const memRequestGiven = override?.memory?.request ? sizeToBytes(override.memory.request) : reservations.memoryBytes;
  const pair = (request: number | undefined, limit: number | undefined, defRequest: number, defLimit: number) => {
    const l = limit ?? Math.max(defLimit, request ?? 0);
    const r = request ?? Math.min(defRequest, l);
    return [Math.min(r, l), l];
  };
  const [cpuRequest, cpuLimit] = pair(cpuRequestGiven, cpuLimitGiven, defaults.cpuRequestMillis, defaults.cpuLimitMillis);
  const [memRequest, memLimit] = pair(memRequestGiven, memLimitGiven, defaults.memoryRequestBytes, defaults.memoryLimitBytes);
  return {
    cpuRequestMillis: Math.max(1, cpuRequest),
    cpuLimitMillis: Math.max(1, cpuLimit),
    memoryRequestBytes: memRequest,
    memoryLimitBytes: memLimit,
  };
}

/** `uid`, `uid:gid`; undefined for user names, which need the image's /etc/passwd. */
function parseUser(user: string): { uid: number; gid?: number } | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(user.trim());
  return match ? { uid: Number(match[1]), gid: match[2] !== undefined ? Number(match[2]) : undefined } : undefined;
}

/** Kubernetes expands `$(VAR)` in command and args; compose does not, so a literal `$(` is escaped as `$$(`. */
function escapeExpansion(argv: readonly string[]): string[] {
  return argv.map((arg) => arg.replace(/\$\(/g, '$$$$('));
}

function gracePeriod(service: ComposeService): Duration | undefined {
  return service.stopGracePeriodSeconds !== undefined ? Duration.seconds(Math.ceil(service.stopGracePeriodSeconds)) : undefined;
}

/** The protocol to write: TCP is Kubernetes' default and left out, like every other default this library keeps. */
function explicitProtocol(protocol: kplus.Protocol): kplus.Protocol | undefined {
  return protocol === kplus.Protocol.TCP ? undefined : protocol;
}

/** The kplus protocol of a compose protocol. */
export function toProtocol(protocol: string): kplus.Protocol {
  return protocol === 'udp' ? kplus.Protocol.UDP : protocol === 'sctp' ? kplus.Protocol.SCTP : kplus.Protocol.TCP;
}

function basename(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return parts[parts.length - 1] ?? 'file';
}

/**
 * A file kept as `binaryData`: binary, or text with a line that ends in blanks, which no YAML block scalar keeps
 * byte for byte and linters reject (the bytes stay the file's).
 */
function asBinary(content: FileContent): boolean {
  return content.binary || /[ \t]\r?$/m.test(content.text);
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function sortRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, record[key]]));
}
