import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../../compose/errors';
import { ComposeModel, ComposeService } from '../../compose/model';
import { DatabaseEngine } from '../../stateful/engine';
import { NameRegistry, claimServiceName, portName } from '../../base/naming';
import { AppSettings } from '../app-settings';
import { WarnFn } from '../app-warnings';
import { ComposeAppProps } from '../compose-app-props';
import { withInferredPorts } from './inferred-ports';
import { KomposeControllerType, labelAt, readKomposeLabels } from '../kompose/kompose-labels';
import { ServicePlan, WorkloadKind, WorkloadPort, toProtocol } from './migrated-service';
import { Reachability } from '../policy/reachability';
import { KomposeLabel, ServiceOverrides, ServiceTarget, readServiceExtension } from '../settings';
import { planSidecars } from './sidecars';
import { vmRoutingReasons } from '../vm/vm-routing';
import { groupByStorage } from '../../vm/assess';

/** What `ServicePlanner` needs: the app's model, props and resolved settings, and where it reports. */
export interface ServicePlannerProps {
  /** The app's construct path, for messages. */
  readonly path: string;
  readonly model: ComposeModel;
  readonly props: ComposeAppProps;
  readonly settings: AppSettings;
  readonly namespace: string;
  readonly reachability: Reachability;
  /** The app's names; each service's Service name is claimed in it. */
  readonly names: NameRegistry;
  readonly warn: WarnFn;
}

/**
 * Names, targets, kinds, engines and ports of every service, before any object exists: `plans` by compose name, and
 * for the services routed to the VM why they go there (`vmReasons`).
 */
export class ServicePlanner {
  /** The plan of every service, by compose name. */
  public readonly plans = new Map<string, ServicePlan>();
  /** Why each service routed to the VM goes there, one line each. */
  public readonly vmReasons = new Map<string, string[]>();

  constructor(private readonly props: ServicePlannerProps) {
    const { model } = props;
    const jobs = new Set<string>();
    for (const service of model.services) {
      for (const dependency of service.dependsOn) {
        if (dependency.condition === 'service_completed_successfully') {
          jobs.add(dependency.service);
        }
      }
    }
    const vmName = props.settings.vmName(props.namespace);
    const routed = this.routeToVm();
    for (const service of model.services) {
      this.plan(service, jobs, vmName, routed.get(service.name) ?? []);
    }
    planSidecars(this.plans);
    this.checkVm();
  }

  /**
   * Why each service runs in the VM: its own choice or findings, then the services that share a store with one in the
   * VM, which move with it (`groupByStorage`).
   */
  private routeToVm(): Map<string, string[]> {
    const { model, settings } = this.props;
    const routed = new Map<string, string[]>();
    const pinned = new Map<string, string>();
    for (const service of model.services) {
      const overrides = settings.overrides(service);
      const reasons = this.vmRouting(service, overrides);
      if (reasons.length > 0) {
        routed.set(service.name, reasons);
      } else if (overrides.target === ServiceTarget.CONTAINER) {
        pinned.set(service.name, `services["${service.name}"].target is "container"`);
      } else if (overrides.target === undefined && readServiceExtension(service).target === ServiceTarget.CONTAINER) {
        pinned.set(service.name, 'its x-cdk8s-compose.target is "container"');
      }
    }
    if (routed.size > 0) {
      for (const [name, reason] of groupByStorage(model.services, { inVm: routed, pinned })) {
        routed.set(name, [reason]);
      }
    }
    return routed;
  }

  private plan(service: ComposeService, jobs: ReadonlySet<string>, vmName: string, reasons: string[]): void {
    const { settings, warn } = this.props;
    const overrides = settings.overrides(service);
    const extension = readServiceExtension(service);
    const labels = readKomposeLabels(service);
    const name = this.claimName(service, overrides);
    if (reasons.length > 0) {
      this.vmReasons.set(service.name, reasons);
      warn('vm-target', `service "${service.name}" runs in the VM "${vmName}": ${reasons.join('; ')}`, service.at);
      // Every port the process listens on, as for a container: the VM's compose file publishes each on the VM.
      const ports = withInferredPorts(
        this.props.reachability,
        service,
        workloadPorts(service),
        WorkloadKind.VM,
        undefined,
        warn,
      );
      this.plans.set(service.name, {
        service,
        name,
        kind: WorkloadKind.VM,
        ports,
        hasService: ports.length > 0,
        labels,
        vm: vmName,
      });
      return;
    }
    const engineChoice = overrides.engine ?? extension.engine;
    let engine =
      engineChoice === false ? undefined : (engineChoice ?? DatabaseEngine.detect(overrides.image ?? service.image));
    let kind = WorkloadKind.DEPLOYMENT;
    if (jobs.has(service.name)) {
      if (labels.cronJob) {
        throw new ComposeError(
          `service "${service.name}" is awaited with service_completed_successfully, so it runs once as a ` +
            `Job, and ${KomposeLabel.CRON_SCHEDULE} would run it on a schedule`,
          {
            at: labelAt(service, KomposeLabel.CRON_SCHEDULE),
            hint: "remove the schedule label, or the dependents' service_completed_successfully condition",
          },
        );
      }
      kind = WorkloadKind.JOB;
      engine = undefined;
    } else if (labels.cronJob) {
      // A scheduled service that uses a database image (a pg_dump job) is a CronJob, not a database.
      kind = WorkloadKind.CRON_JOB;
      engine = undefined;
    } else if (engine && engineChoice === undefined && (overrides.replicas ?? service.deploy.replicas ?? 1) > 1) {
      // The image suggests a database, but compose asks for several replicas: compose wins.
      warn(
        'engine-default',
        `image "${service.image}" looks like ${engine.name}, but the service asks for ` +
          `${overrides.replicas ?? service.deploy.replicas} replicas, so it runs as a Deployment with them (a stateful ` +
          'dependency has one pod); set x-cdk8s-compose.engine to run it as one',
        service.at,
      );
      engine = undefined;
    } else if (engine) {
      // What it becomes is said once the dependency exists (`ServiceWorkload`): the warning names only what is made.
      kind = WorkloadKind.STATEFUL;
    }
    const ports = withInferredPorts(this.props.reachability, service, workloadPorts(service), kind, engine, warn);
    if (
      kind === WorkloadKind.DEPLOYMENT &&
      labels.controller === KomposeControllerType.STATEFUL_SET &&
      ports.length > 0
    ) {
      kind = WorkloadKind.STATEFUL_SET;
    } else if (
      kind === WorkloadKind.DEPLOYMENT &&
      (labels.controller === KomposeControllerType.DAEMON_SET ||
        (labels.controller === undefined && service.deploy.mode === 'global'))
    ) {
      kind = WorkloadKind.DAEMON_SET;
    }
    if (engine && !ports.some((p) => p.protocol === kplus.Protocol.TCP)) {
      // Compose services reach a database on its port without declaring it; its Service needs it.
      ports.push({ port: engine.port, protocol: kplus.Protocol.TCP, name: portName('tcp', engine.port) });
    }
    const runsToCompletion = kind === WorkloadKind.JOB || kind === WorkloadKind.CRON_JOB;
    this.plans.set(service.name, {
      service,
      name,
      kind,
      engine,
      engineDetected: kind === WorkloadKind.STATEFUL && engineChoice === undefined,
      ports,
      hasService: !runsToCompletion && ports.length > 0,
      controller: kind === WorkloadKind.STATEFUL ? settings.statefulController(overrides, labels) : undefined,
      labels,
    });
    if (runsToCompletion && service.ports.length + service.expose.length > 0) {
      warn(
        'job-ports',
        kind === WorkloadKind.JOB
          ? `service "${service.name}" runs as a Job (others wait for it to complete), so its ports get no Service`
          : `service "${service.name}" runs as a CronJob (on its ${KomposeLabel.CRON_SCHEDULE}), so its ports get no Service`,
        service.at,
      );
    }
  }

  /** The service's Kubernetes name, checked and claimed. */
  private claimName(service: ComposeService, overrides: ServiceOverrides): string {
    return claimServiceName(service, overrides.name, this.props.names);
  }

  /** Why a service runs in the VM, one line each; empty when it runs as a container. */
  private vmRouting(service: ComposeService, overrides: ServiceOverrides): string[] {
    const { path, props } = this.props;
    const listed = (props.vm?.services ?? []).includes(service.name);
    if (listed && overrides.target !== undefined && overrides.target !== ServiceTarget.VM) {
      throw new ComposeError(
        `${path}: vm.services lists "${service.name}", and services["${service.name}"].target is "${overrides.target}"`,
        {
          hint: 'remove one of them',
        },
      );
    }
    return vmRoutingReasons(service, {
      override: overrides.target,
      listed,
      target: props.target,
      engine: overrides.engine,
    });
  }

  /** A service routed to the VM needs the vm prop; a vm prop that no service uses is reported. */
  private checkVm(): void {
    const { path, props, model, warn } = this.props;
    const routed = [...this.vmReasons.keys()];
    if (routed.length > 0 && !props.vm) {
      throw new ComposeError(
        `${path}: ${routed.map((n) => `"${n}"`).join(', ')} run${routed.length === 1 ? 's' : ''} in a VM, ` +
          'which needs the vm prop',
        {
          allowed: 'vm: { imageBaseUrl: "<the folder URL where the golden image is published>" }',
          hint: 'pass vm.imageBaseUrl, or run the services as containers (target: ServiceTarget.CONTAINER)',
        },
      );
    }
    if (routed.length === 0 && props.vm) {
      warn(
        'vm-unused',
        `no service runs in the VM, so the vm prop makes nothing (route services with target or vm.services)`,
        model.at,
      );
    }
  }
}

/** Container ports of a service from `ports` and `expose`, one per port and protocol, sorted. */
function workloadPorts(service: ComposeService): WorkloadPort[] {
  const byKey = new Map<string, WorkloadPort>();
  for (const item of [...service.ports, ...service.expose]) {
    const key = `${item.target}/${item.protocol}`;
    if (!byKey.has(key)) {
      byKey.set(key, {
        port: item.target,
        protocol: toProtocol(item.protocol),
        name: portName(item.protocol, item.target),
      });
    }
  }
  return [...byKey.values()].sort(
    (a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0),
  );
}
