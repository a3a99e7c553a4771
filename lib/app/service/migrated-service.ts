import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s';
import { ComposeError } from '../../compose/errors';
import { ComposeLocation } from '../../compose/model';
import { hasEmbeddedPassword, isSensitiveName } from '../../compose/sensitive';
import { StatefulDependency } from '../../stateful/stateful-dependency';
import { ServiceAutoscaler } from './autoscaler';
import { DependencyWait } from './dependency-wait';
import { keepExactSizes } from '../quota/exact-sizes';
import { addLifecycleHooks } from './lifecycle-hooks';
import { ServiceEnvironment } from './service-environment';
import { ServiceExposure, checkPublishedPorts } from './service-exposure';
import { ServiceMounts } from '../storage/service-mounts';
import {
  IngressRule,
  MigrationContext,
  PodHost,
  PublishedPort,
  ServicePartProps,
  ServicePlan,
  ServiceSettings,
  WorkloadKind,
  WorkloadPort,
  podTemplatePath,
  toContainerResources,
} from './service-plan';
import { addDevices, containerSecurityContext } from './service-pod';
import { serviceProbes } from './service-probes';
import { ServicePod, ServiceWaits } from './service-waits';
import { warnUnmappedKeys } from './service-warnings';
import { ServiceWorkload } from './service-workload';

export { WorkloadKind, resolveResources, toContainerResources, toProtocol } from './service-plan';
export type {
  IngressRule,
  IngressRuleSettings,
  MigrationContext,
  MountedFileSource,
  PublishedPort,
  ResolvedResources,
  ServicePlan,
  ServiceSettings,
  WorkloadPort,
} from './service-plan';
export { PortAccess } from './service-plan';

/** Props of `MigratedService`: one compose service's plan, its resolved settings, and the app it belongs to. */
export interface MigratedServiceProps {
  /** The compose service, as the app planned it (names, ports, waits). */
  readonly plan: ServicePlan;
  /** The service's settings: the compose values with the app's overrides applied. */
  readonly settings: ServiceSettings;
  /** What the service needs from its app (names, objects of other services, warnings). */
  readonly context: MigrationContext;
}

/**
 * One compose service as Kubernetes objects: its workload (Deployment, Job, or a StatefulDependency), Service,
 * env ConfigMap and Secret, file ConfigMap, external access, and the waits for its dependencies. Created by
 * `ComposeApp`; reach it with `app.service('<compose name>')` to extend what it made.
 *
 * It owns its parts, each one concern, and wires them: the environment (`ServiceEnvironment`), the mounts
 * (`ServiceMounts`), the dependency waits (`ServiceWaits`), the workload and its container (`ServiceWorkload`), and
 * the external access (`ServiceExposure`).
 */
export class MigratedService extends Construct {
  /** The compose service name. */
  public readonly composeName: string;
  /** Where the compose service is declared. */
  public readonly at: ComposeLocation;
  /** The Kubernetes name of the workload and its Service. */
  public readonly name: string;
  public readonly kind: WorkloadKind;
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
  /** The workload's ports. */
  public readonly ports: readonly WorkloadPort[];
  /** The HorizontalPodAutoscaler, where asked for. */
  public readonly autoscaler?: ServiceAutoscaler;
  /** The replicas the workload was given (1 for Jobs; 1 for a DaemonSet, which runs one pod per node). */
  public readonly replicas: number;
  /** The compose networks the service is on (for network policies). */
  public readonly networks: readonly string[];
  /** Under `network_mode: service:X`: X, whose pod (workload, Service) this service's container runs in. */
  public readonly sidecarOf?: string;

  private readonly environment: ServiceEnvironment;
  private readonly mounts: ServiceMounts;
  private readonly pod: ServiceWorkload;
  private readonly exposure: ServiceExposure;

  constructor(scope: Construct, id: string, props: MigratedServiceProps) {
    super(scope, id);
    const { plan, settings, context } = props;
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
      throw new ComposeError(
        `service "${service.name}" joins the pod of "${plan.sidecarOf}", which is not migrated yet`,
        { at: service.at },
      );
    }
    // A sidecar's objects belong to its host's pod: they carry the host's app label, and its Services select it.
    const part: ServicePartProps = { plan, settings, context, labels: { app: host?.name ?? this.name } };
    const runsOnce = [WorkloadKind.JOB, WorkloadKind.CRON_JOB, WorkloadKind.DAEMON_SET].includes(plan.kind);
    this.replicas = host ? host.replicas : runsOnce ? 1 : settings.replicas;

    checkPublishedPorts(service);
    warnUnmappedKeys(plan, part.labels.app, (code, message, at) => context.warn(code, message, at));
    this.environment = new ServiceEnvironment(this, part);
    this.mounts = new ServiceMounts(this, part);
    const waits = new ServiceWaits(part);
    this.waits = waits.waits;
    const probes = serviceProbes(part, this.environment.healthcheck);
    this.environment.reportSecretReferences();
    const resources = toContainerResources(settings.resources);
    const securityContext = containerSecurityContext(part);
    this.pod = new ServiceWorkload(this, {
      part,
      host,
      replicas: this.replicas,
      env: this.environment,
      mounts: this.mounts,
      probes,
      resources,
      securityContext,
    });
    this.autoscaler = this.addAutoscaler(part, host);

    this.mounts.mountInto(this.container);
    this.mounts.addInitContainers(this.workload, { seedImage: context.wait.tcpImage, resources });
    const pod: ServicePod = { workload: this.workload, podTemplatePath: podTemplatePath(plan.kind) };
    addDevices(part, this.workload, this.container, pod.podTemplatePath);
    const access = waits.addTo(this, pod);
    this.waitServiceAccount = access?.account;
    this.waitRole = access?.role;
    this.serviceAccountName = settings.serviceAccountName ?? access?.account.name;
    waits.useServiceAccount(pod, access !== undefined);
    waits.addKomposeInitContainer(pod, resources, securityContext);
    this.addHooksAndSizes(part, pod, resources, securityContext);
    this.exposure = new ServiceExposure(this, part, this.service, this.workload);
    this.environment.readSecretFrom(() => [...this.workload.containers, ...this.workload.initContainers]);
  }

  /** The workload: a kplus Deployment, StatefulSet, DaemonSet, Job or CronJob. */
  public get workload(): kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob {
    return this.pod.workload;
  }

  /** The Deployment, when the service runs as one (also for a stateful dependency on a Deployment). */
  public get deployment(): kplus.Deployment | undefined {
    return this.workload instanceof kplus.Deployment ? this.workload : undefined;
  }

  /** The Job of a one-shot service. */
  public get job(): kplus.Job | undefined {
    return this.sidecarOf === undefined && this.workload instanceof kplus.Job ? this.workload : undefined;
  }

  /** The CronJob of a service with a `kompose.cronjob.schedule`. */
  public get cronJob(): kplus.CronJob | undefined {
    return this.sidecarOf === undefined && this.workload instanceof kplus.CronJob ? this.workload : undefined;
  }

  /** The StatefulSet of a service under `kompose.controller.type: statefulset` (or a stateful dependency on one). */
  public get statefulSet(): kplus.StatefulSet | undefined {
    return this.workload instanceof kplus.StatefulSet ? this.workload : undefined;
  }

  /** The DaemonSet of a service under `deploy.mode: global` or `kompose.controller.type: daemonset`. */
  public get daemonSet(): kplus.DaemonSet | undefined {
    return this.workload instanceof kplus.DaemonSet ? this.workload : undefined;
  }

  /** The stateful dependency, for databases and caches. */
  public get statefulDependency(): StatefulDependency | undefined {
    return this.pod.statefulDependency;
  }

  /** The main container. */
  public get container(): kplus.Container {
    return this.pod.container;
  }

  /** The ClusterIP Service other services reach it by; none when the service has no ports. */
  public get service(): kplus.Service | undefined {
    return this.pod.service;
  }

  /** The LoadBalancer (or NodePort) Service for published non-HTTP ports. */
  public get externalService(): kplus.Service | undefined {
    return this.exposure.externalService;
  }

  /** The Ingress for the published HTTP port. */
  public get ingress(): kplus.Ingress | undefined {
    return this.exposure.ingress;
  }

  /** Every published compose port and how it is reached. */
  public get publishedPorts(): readonly PublishedPort[] {
    return this.exposure.published;
  }

  /** The ingress rules rendered, for the app's collision check. */
  public get ingressRules(): readonly IngressRule[] {
    return this.exposure.rules;
  }

  /** The ConfigMap of non-sensitive environment (`<name>-env`). */
  public get envConfigMap(): ApiObject | undefined {
    return this.environment.configMap;
  }

  /** The Secret of sensitive environment (`<name>-env`, Opaque, `data`). */
  public get envSecret(): KubeSecret | undefined {
    return this.environment.secret;
  }

  /** The ConfigMap of bind-mounted files (`<name>-files`). */
  public get filesConfigMap(): kplus.ConfigMap | undefined {
    return this.mounts.filesConfigMap;
  }

  /** The Secret of bind-mounted files that hold a secret value (`<name>-files`). */
  public get filesSecret(): KubeSecret | undefined {
    return this.mounts.filesSecret;
  }

  /** The claims the pod mounts, by volume name in the pod. */
  public get claims(): Readonly<Record<string, kplus.IPersistentVolumeClaim>> {
    return this.mounts.claims;
  }

  /** The HorizontalPodAutoscaler of a service with autoscaling, unless it cannot be scaled (reported). */
  private addAutoscaler(
    { plan, settings, context, labels }: ServicePartProps,
    host?: PodHost,
  ): ServiceAutoscaler | undefined {
    if (!settings.autoscaling) {
      return undefined;
    }
    if (host) {
      context.warn(
        'unsupported-key',
        `ignored the autoscaling of a service in the pod of "${host.composeName}": it scales with that pod`,
        this.at,
      );
      return undefined;
    }
    const workload = this.workload;
    if (workload instanceof kplus.Job || workload instanceof kplus.CronJob || workload instanceof kplus.DaemonSet) {
      context.warn(
        'unsupported-key',
        `ignored the autoscaling of a service that runs as a ${plan.kind}: it is not scaled`,
        this.at,
      );
      return undefined;
    }
    return new ServiceAutoscaler(this, 'Autoscaler', {
      ...settings.autoscaling,
      target: workload,
      namespace: context.namespace,
      labels: { ...labels },
      at: this.at,
    });
  }

  /** compose's lifecycle hooks, then the exact sizes of every container and tmpfs the service's resources reach. */
  private addHooksAndSizes(
    { plan, settings, context }: ServicePartProps,
    pod: ServicePod,
    resources: kplus.ContainerResources,
    securityContext: kplus.ContainerSecurityContextProps,
  ): void {
    addLifecycleHooks({
      service: plan.service,
      workload: pod.workload,
      container: this.container,
      podTemplatePath: pod.podTemplatePath,
      resources,
      securityContext,
      isSecret: (name, value) =>
        isSensitiveName(name, settings.sensitiveNamePatterns) ||
        settings.sensitiveEnv.includes(name) ||
        hasEmbeddedPassword(value) ||
        context.secretValues.foundIn(value),
      warn: (code, message, at) => context.warn(code, message, at),
    });
    keepExactSizes({
      workload: pod.workload,
      podTemplatePath: pod.podTemplatePath,
      resources,
      memoryRequestBytes: settings.resources.memoryRequestBytes,
      memoryLimitBytes: settings.resources.memoryLimitBytes,
      tmpfs: this.mounts.tmpfsSizes(),
    });
  }
}
