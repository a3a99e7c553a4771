import * as kplus from 'cdk8s-plus-27';
import { ComposeLocation, ComposeService, PortMapping } from '../../compose/model';
import { DatabaseEngine } from '../../stateful/engine';
import { WorkloadController } from '../../stateful/stateful-dependency';
import { DatabaseBackupOptions } from '../../stateful/database-backup';
import {
  coresToMillicores,
  cpuFromMillicores,
  cpuToMillicores,
  sizeFromBytes,
  sizeToBytes,
} from '../../base/quantities';
import { NameRegistry } from '../../base/naming';
import { SecretValues } from '../../compose/sensitive';
import { AutoscalingSettings } from './autoscaler';
import { WaitSettings } from './dependency-wait';
import { HostRewriter } from '../hosts/host-rewrite';
import {
  KomposeCronJob,
  KomposeInitContainer,
  KomposeProbeLabels,
  KomposeServiceLabels,
} from '../kompose/kompose-labels';
import { HttpProbeSettings } from './probes';
import type { BindClaim } from '../storage/claim-seed';
import { Exposure, KomposeServiceType } from '../settings';

/**
 * What the app decides for each service before its objects exist (its plan and settings), what it shares with the
 * service (the context), and the small conversions every part of a migrated service uses.
 */

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

/** How one published port is reached from outside the cluster. */
export enum PortAccess {
  INGRESS = 'Ingress',
  LOAD_BALANCER = 'LoadBalancer',
  NODE_PORT = 'NodePort',
  /** Kept inside the cluster: a `127.0.0.1` binding, a stateful dependency, or `Exposure.INTERNAL`. */
  INTERNAL = 'Internal',
}

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
  /** True when the engine was detected from the image (nobody chose it): the app says what it makes of it. */
  readonly engineDetected?: boolean;
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
  /**
   * Where the user named the Ingress host (`services["web"].ingressHost`, `x-cdk8s-compose.ingressHost`), so that a
   * service that gets no Ingress can say the host is not used.
   * @default - the host is the default one (or a kompose label's)
   */
  readonly ingressHostGivenBy?: string;
  readonly ingressClassName: string;
  readonly ingressAnnotations: Readonly<Record<string, string>>;
  readonly ingressTlsSecret?: string;
  /** Container ports that count as HTTP for the exposure rule. */
  readonly httpPorts: readonly number[];
  readonly resources: ResolvedResources;
  readonly sensitiveNamePatterns: readonly string[];
  readonly sensitiveEnv: readonly string[];
  /** `ServiceOverrides.existingSecret`: the user's Secret in place of the env Secret. */
  readonly existingSecret?: string;
  /** `ServiceOverrides.existingCredentialsSecret`: the user's Secret in place of the credentials Secret. */
  readonly existingCredentialsSecret?: string;
  readonly allowPrivilegeEscalation?: boolean;
  readonly controller: WorkloadController;
  readonly storageClassName?: string;
  readonly stateStorageBytes: number;
  /**
   * True when the service's own `storageSize`, or a `backup` (the service's, else the app's), asks for the data claim (a
   * cache without a volume gets none otherwise).
   */
  readonly stateStorageAsked: boolean;
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
  /** Copy the image's files into the service's new named volumes (docker's copy-up). */
  readonly copyUp: boolean;
}

/** Requests and limits as numbers, so that they can be compared; a limit compose did not set stays undefined. */
export interface ResolvedResources {
  readonly cpuRequestMillis: number;
  readonly cpuLimitMillis?: number;
  readonly memoryRequestBytes: number;
  readonly memoryLimitBytes?: number;
}

/**
 * Where a mounted compose secret or config lives in Kubernetes: the handle of the Secret or ConfigMap that holds it
 * (the app's own object, or a reference to one the cluster has), and its key there.
 */
export type MountedFileSource =
  | { readonly kind: 'Secret'; readonly secret: kplus.ISecret; readonly key: string }
  | { readonly kind: 'ConfigMap'; readonly configMap: kplus.IConfigMap; readonly key: string };

/** What a sidecar uses of the migrated service whose pod it joins (a `MigratedService`). */
export interface PodHost {
  readonly composeName: string;
  readonly name: string;
  readonly replicas: number;
  readonly workload: kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob;
  readonly service?: kplus.Service;
  readonly ports: readonly WorkloadPort[];
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
  /** The claim of a read-write bind of a project folder, with its seed; undefined for a bind that is not a claim. */
  bindClaimFor(source: string): BindClaim | undefined;
  /** True for an external top-level volume: its claim is the cluster's. */
  isExternalVolume(volume: string): boolean;
  /** The object holding a compose secret; undefined when it cannot be mounted (reported). */
  secretSource(name: string, user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined;
  /** The text of a compose secret whose content is known (for a database's credentials). */
  secretContent(name: string): string | undefined;
  /** The object holding a compose config; undefined when it cannot be mounted (reported). */
  configSource(name: string, user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined;
  /** Records a warning. */
  warn(code: string, message: string, at: ComposeLocation): void;
  /** A service already migrated, by compose name (a sidecar's host is migrated before it). */
  migrated(composeName: string): PodHost | undefined;
}

/** One ingress rule this app renders, for the collision check over the whole app. */
export interface IngressRule {
  readonly host: string;
  readonly path: string;
  readonly at: ComposeLocation;
}

/** Requests and limits as kplus wants them. */
export function toContainerResources(r: ResolvedResources): kplus.ContainerResources {
  // An undefined limit is left out, and cdk8s-plus then renders none (its own defaults apply only without `resources`).
  return {
    cpu: {
      request: cpuFromMillicores(r.cpuRequestMillis),
      limit: r.cpuLimitMillis === undefined ? undefined : cpuFromMillicores(r.cpuLimitMillis),
    },
    memory: {
      request: sizeFromBytes(r.memoryRequestBytes),
      limit: r.memoryLimitBytes === undefined ? undefined : sizeFromBytes(r.memoryLimitBytes),
    },
  };
}

/**
 * Requests and limits of a service: each value given in the overrides wins, then compose's (reservations are
 * requests, limits are limits), then the defaults. A limit neither given nor defaulted stays undefined: the container
 * gets none, as under compose. A request above its limit is lowered to the limit, a default limit below a given
 * request is raised to it, so the pair is always valid.
 */
export function resolveResources(
  service: ComposeService,
  override: kplus.ContainerResources | undefined,
  defaults: ResolvedResources,
): ResolvedResources {
  const limits = service.deploy.limits;
  const reservations = service.deploy.reservations;
  const cpuLimitGiven = override?.cpu?.limit
    ? cpuToMillicores(override.cpu.limit)
    : limits.cpus !== undefined
      ? coresToMillicores(limits.cpus)
      : undefined;
  const cpuRequestGiven = override?.cpu?.request
    ? cpuToMillicores(override.cpu.request)
    : reservations.cpus !== undefined
      ? coresToMillicores(reservations.cpus)
      : undefined;
  const memLimitGiven = override?.memory?.limit ? sizeToBytes(override.memory.limit) : limits.memoryBytes;
  const memRequestGiven = override?.memory?.request ? sizeToBytes(override.memory.request) : reservations.memoryBytes;
  const pair = (
    request: number | undefined,
    limit: number | undefined,
    defRequest: number,
    defLimit: number | undefined,
  ): [number, number | undefined] => {
    const l = limit ?? (defLimit === undefined ? undefined : Math.max(defLimit, request ?? 0));
    const r = request ?? (l === undefined ? defRequest : Math.min(defRequest, l));
    return [l === undefined ? r : Math.min(r, l), l];
  };
  const [cpuRequest, cpuLimit] = pair(
    cpuRequestGiven,
    cpuLimitGiven,
    defaults.cpuRequestMillis,
    defaults.cpuLimitMillis,
  );
  const [memRequest, memLimit] = pair(
    memRequestGiven,
    memLimitGiven,
    defaults.memoryRequestBytes,
    defaults.memoryLimitBytes,
  );
  return {
    cpuRequestMillis: Math.max(1, cpuRequest),
    cpuLimitMillis: cpuLimit === undefined ? undefined : Math.max(1, cpuLimit),
    memoryRequestBytes: memRequest,
    memoryLimitBytes: memLimit,
  };
}

/** The protocol to write: TCP is Kubernetes' default and left out, like every other default this library keeps. */
export function explicitProtocol(protocol: kplus.Protocol): kplus.Protocol | undefined {
  return protocol === kplus.Protocol.TCP ? undefined : protocol;
}

/** The kplus protocol of a compose protocol. */
export function toProtocol(protocol: string): kplus.Protocol {
  return protocol === 'udp' ? kplus.Protocol.UDP : protocol === 'sctp' ? kplus.Protocol.SCTP : kplus.Protocol.TCP;
}

/** What every part of a migrated service is built from. */
export interface ServicePartProps {
  readonly plan: ServicePlan;
  readonly settings: ServiceSettings;
  readonly context: MigrationContext;
  /** The labels of every object: the `app` label of the pod the service runs in (its host's, for a sidecar). */
  readonly labels: Readonly<Record<string, string>>;
}

/** The metadata of an object of the service: its name, the app's namespace, the service's labels. */
export function objectMetadata(
  part: ServicePartProps,
  name: string,
): { name: string; namespace: string; labels: Record<string, string> } {
  return { name, namespace: part.context.namespace, labels: { ...part.labels } };
}

/** The location of a key of the compose service (`services.web.sysctls.x`), for messages. */
export function atKey(service: ComposeService, suffix: string): ComposeLocation {
  return { ...service.at, path: `${service.at.path}.${suffix}` };
}

/** Where the pod template sits in a workload's manifest: one level deeper in a CronJob. */
export function podTemplatePath(kind: WorkloadKind): string {
  return kind === WorkloadKind.CRON_JOB ? '/spec/jobTemplate/spec/template' : '/spec/template';
}
