import { Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { POD_SECURITY_CONTEXT, pullPolicyFor } from '../../base/pod-defaults';
import {
  LabelledCronJob,
  LabelledDaemonSet,
  LabelledDeployment,
  LabelledJob,
  LabelledStatefulSet,
} from '../../base/labelled-workloads';
import { claimSize } from '../../base/sizes';
import { DatabaseCredentials, DatabaseEngine } from '../../stateful/engine';
import { StatefulDependency } from '../../stateful/stateful-dependency';
import { ServiceEnvironment } from './service-environment';
import { ServiceMounts } from '../storage/service-mounts';
import { gracePeriod, podHostAliases, podSysctls } from './service-pod';
import { ServiceProbes } from './service-probes';
import {
  PodHost,
  ServicePartProps,
  WorkloadKind,
  WorkloadPort,
  explicitProtocol,
  objectMetadata,
} from './service-plan';
import { warnStatefulPodKeys } from './service-warnings';

/** What the workload of a service is made from: its parts, already planned. */
export interface ServiceWorkloadProps {
  readonly part: ServicePartProps;
  /** Under `network_mode: service:X`: the migrated X, whose pod the container joins. */
  readonly host?: PodHost;
  readonly replicas: number;
  readonly env: ServiceEnvironment;
  readonly mounts: ServiceMounts;
  readonly probes: ServiceProbes;
  readonly resources: kplus.ContainerResources;
  readonly securityContext: kplus.ContainerSecurityContextProps;
}

/**
 * The workload of a service and its container: a StatefulDependency for a database or cache, a second container in
 * the host's pod for a sidecar, else a Job, CronJob, StatefulSet, DaemonSet or Deployment of its own, with the
 * ClusterIP Service other services reach it by.
 */
export class ServiceWorkload {
  public readonly workload: kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob;
  public readonly container: kplus.Container;
  public readonly service?: kplus.Service;
  public readonly statefulDependency?: StatefulDependency;

  private readonly scope: Construct;
  private readonly props: ServiceWorkloadProps;

  constructor(scope: Construct, props: ServiceWorkloadProps) {
    this.scope = scope;
    this.props = props;
    const { part, host } = props;
    const { plan } = part;
    if (plan.kind === WorkloadKind.STATEFUL) {
      this.statefulDependency = this.statefulWorkload();
      this.workload = this.statefulDependency.workload;
      this.container = this.statefulDependency.container;
      this.service = this.statefulDependency.service;
    } else if (host) {
      // network_mode: service:X: the container joins X's pod, so they share its network namespace (localhost).
      this.workload = host.workload;
      this.service = host.service;
      // Its ports on the pod: those the host's plan gives it (a port the host declares is the host container's).
      this.container = host.workload.addContainer(
        this.containerProps(host.ports.filter((p) => p.via === plan.service.name)),
      );
    } else {
      // A StatefulSet names its pods through its Service, so that Service comes first; any other one after the workload.
      const service = plan.kind === WorkloadKind.STATEFUL_SET ? this.clusterService() : undefined;
      this.workload = this.ownWorkload(service);
      this.container = this.workload.containers[0];
      this.service = service ?? (plan.hasService ? this.clusterService() : undefined);
      // The Service selects the pods by the workload's own selector.
      this.service?.select(this.workload);
    }
  }

  /** The service's container, in its own pod or in the pod of the service whose network it shares. */
  private containerProps(ports: readonly WorkloadPort[]): kplus.ContainerProps {
    const { part, env, probes } = this.props;
    const { plan, settings } = part;
    return {
      name: plan.name,
      image: settings.image,
      imagePullPolicy: settings.imagePullPolicy ?? pullPolicyFor(settings.image),
      command: env.command,
      args: env.args,
      workingDir: plan.service.workingDir,
      ports: ports.map((p) => ({ number: p.port, protocol: explicitProtocol(p.protocol), name: p.name })),
      envVariables: env.values,
      resources: this.props.resources,
      securityContext: this.props.securityContext,
      readiness: probes.readiness,
      liveness: probes.liveness,
      startup: probes.startup,
    };
  }

  /** A workload of the service's own, with the pod settings compose gives. */
  private ownWorkload(
    service: kplus.Service | undefined,
  ): kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob {
    const { part, replicas, mounts } = this.props;
    const { plan, settings } = part;
    const scope = this.scope;
    const podProps = {
      metadata: objectMetadata(part, plan.name),
      podMetadata: { labels: part.labels },
      automountServiceAccountToken: false,
      securityContext: {
        ...POD_SECURITY_CONTEXT,
        sysctls: podSysctls(part),
        fsGroup: settings.fsGroup ?? mounts.fsGroup,
      },
      hostAliases: podHostAliases(part),
      terminationGracePeriod: gracePeriod(plan.service),
      // A reference by name: the pull secret is the cluster's, outside the app.
      dockerRegistryAuth: settings.imagePullSecret
        ? kplus.Secret.fromSecretName(scope, 'ImagePullSecret', settings.imagePullSecret)
        : undefined,
      containers: [this.containerProps(plan.ports.filter((p) => p.via === undefined))],
    };
    switch (plan.kind) {
      case WorkloadKind.JOB:
        return new LabelledJob(scope, 'Job', {
          ...podProps,
          restartPolicy: kplus.RestartPolicy.ON_FAILURE,
          backoffLimit: 6,
        });
      case WorkloadKind.CRON_JOB: {
        const cron = settings.cronJob!;
        return new LabelledCronJob(scope, 'CronJob', {
          ...podProps,
          schedule: cron.schedule,
          // One run at a time unless the label allows more (the quota counts one run).
          concurrencyPolicy: cron.concurrencyPolicy ?? kplus.ConcurrencyPolicy.FORBID,
          // kplus's 10 s would skip a run whenever the controller is briefly late.
          startingDeadline: Duration.minutes(10),
          backoffLimit: cron.backoffLimit,
          restartPolicy: settings.restartPolicy,
        });
      }
      case WorkloadKind.STATEFUL_SET:
        return new LabelledStatefulSet(scope, 'StatefulSet', { ...podProps, replicas, service: service! });
      case WorkloadKind.DAEMON_SET:
        return new LabelledDaemonSet(scope, 'DaemonSet', podProps);
      default:
        return new LabelledDeployment(scope, 'Deployment', {
          ...podProps,
          replicas,
          // Two pods cannot hold one ReadWriteOnce claim on different nodes during a rolling update.
          strategy: Object.keys(mounts.claims).length > 0 ? kplus.DeploymentStrategy.recreate() : undefined,
        });
    }
  }

  /** The ClusterIP Service other services reach this one by (`None` under `kompose.service.type: headless`), without its selector yet. */
  private clusterService(): kplus.Service {
    const { part } = this.props;
    const { plan, settings } = part;
    return new kplus.Service(this.scope, 'Service', {
      metadata: objectMetadata(part, plan.name),
      type: kplus.ServiceType.CLUSTER_IP,
      clusterIP: settings.komposeServiceType === 'headless' ? 'None' : undefined,
      ports: plan.ports.map((p) => ({
        port: p.port,
        targetPort: p.port,
        protocol: explicitProtocol(p.protocol),
        name: p.name,
      })),
    });
  }

  /** A database or cache: a StatefulDependency, with the service's other ports added to its container and Service. */
  private statefulWorkload(): StatefulDependency {
    const { part, env, mounts, probes } = this.props;
    const { plan, settings, context } = part;
    const engine = plan.engine!;
    const dataClaim = mounts.engineDataClaim;
    const enginePort =
      plan.ports.find((p) => p.port === engine.port && p.protocol === kplus.Protocol.TCP) ??
      plan.ports.find((p) => p.protocol === kplus.Protocol.TCP);
    // A cache that compose gives no volume keeps nothing across a `docker compose up` that recreates it: it gets no
    // claim either, unless the service's storageSize asks for one.
    const persistent =
      dataClaim !== undefined || mounts.engineDataKept || !engine.isCache || settings.stateStorageAsked;
    const dependency = new StatefulDependency(this.scope, 'Stateful', {
      engine,
      image: settings.image,
      name: plan.name,
      namespace: context.namespace,
      port: enginePort?.port ?? engine.port,
      controller: settings.controller,
      credentials: this.engineCredentials(engine),
      existingCredentialsSecret: settings.existingCredentialsSecret,
      env: env.values,
      command: env.command,
      args: env.args,
      resources: this.props.resources,
      securityContext: this.props.securityContext,
      readiness: probes.readinessOff ? false : probes.readiness,
      liveness: probes.liveness,
      startup: probes.startup,
      imagePullPolicy: settings.imagePullPolicy,
      imagePullSecret: settings.imagePullSecret,
      fsGroup: settings.fsGroup ?? mounts.fsGroup,
      dataClaim,
      dataMountPath: mounts.engineDataMountPath,
      persistent,
      storageSize: dataClaim || !persistent ? undefined : claimSize(settings.stateStorageBytes).size,
      storageClassName: settings.storageClassName,
      // A cache whose data compose does not keep (no volume at its data path) has nothing worth a backup.
      backup: !persistent
        ? undefined
        : settings.backup === undefined
          ? mounts.engineDataKept
            ? {}
            : false
          : settings.backup === true
            ? {}
            : settings.backup,
      terminationGracePeriod: gracePeriod(plan.service),
    });
    if (plan.engineDetected) {
      reportEngineDefault(part, dependency, { composeClaim: dataClaim !== undefined, kept: mounts.engineDataKept });
    }
    warnStatefulPodKeys(plan, (code, message, at) => context.warn(code, message, at));
    for (const port of plan.ports) {
      if (port.port !== dependency.port || port.protocol !== kplus.Protocol.TCP) {
        if (port.via === undefined) {
          dependency.container.addPort({
            number: port.port,
            protocol: explicitProtocol(port.protocol),
            name: port.name,
          });
        }
        dependency.service.bind(port.port, {
          targetPort: port.port,
          protocol: explicitProtocol(port.protocol),
          name: port.name,
        });
      }
    }
    return dependency;
  }

  /** What the credentials Secret of a stateful dependency holds, read from the compose environment and secrets. */
  private engineCredentials(engine: DatabaseEngine): DatabaseCredentials {
    const { plan, context } = this.props.part;
    const env = new Map(plan.service.environment.map((v) => [v.name, v.value]));
    const lookup = (variable: string): string | undefined => {
      const direct = env.get(variable);
      if (direct !== undefined) {
        return direct;
      }
      const file = env.get(`${variable}_FILE`);
      const ref = file === undefined ? undefined : plan.service.secrets.find((s) => s.target === file);
      return ref ? context.secretContent(ref.source) : undefined;
    };
    return engine.credentialsFrom(lookup, plan.service.command ?? []);
  }
}

/**
 * The `engine-default` finding of a service whose image made it a stateful dependency: what it became, naming only
 * what was made (a claim, a credentials Secret, a backup), and the props that change it.
 */
function reportEngineDefault(
  part: ServicePartProps,
  dependency: StatefulDependency,
  data: { readonly composeClaim: boolean; readonly kept: boolean },
): void {
  const { plan, settings, context } = part;
  const service = plan.service;
  const engine = dependency.engine;
  const where = !dependency.dataClaim
    ? `its data in the pod only, as compose keeps a cache without a volume (services["${service.name}"].storageSize, ` +
      'a backup (--backup on) or a compose volume at its data path gives it a claim)'
    : data.composeClaim
      ? 'its data on the claim of its compose volume'
      : `its data on a new ${claimSize(settings.stateStorageBytes).size.asString()} claim ` +
        `(${data.kept ? 'in place of the host folder compose binds there' : 'compose keeps it in the container'})`;
  const made = [
    'one pod',
    where,
    dependency.credentials ? `the credentials Secret "${dependency.credentials.name}"` : undefined,
    "the engine's readiness check",
    dependency.backup ? `a backup CronJob "${dependency.backup.cronJob.name}"` : undefined,
  ].filter((x): x is string => x !== undefined);
  context.warn(
    'engine-default',
    `image "${service.image}" runs as a ${engine.name} stateful dependency: ${made.join(', ')}; the service's own ` +
      'command, ports, environment and volumes are kept (x-cdk8s-compose.engine: none runs it as a plain Deployment)',
    service.at,
  );
}
