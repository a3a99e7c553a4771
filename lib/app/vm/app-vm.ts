import { Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeLocation, ComposeModel, ComposeService } from '../../compose/model';
import { Redactor } from '../../compose/sensitive';
import { NameRegistry, joinDnsLabel } from '../../base/naming';
import { cpuToMillicores, sizeToBytes } from '../../base/quantities';
import { ComposeVm, ComposeVmProps, vmCpuRequest } from '../../vm/compose-vm';
import { VmServicePort } from '../../vm/vm-exposure';
import { VmListenPort, vmListenPorts } from '../../vm/vm-listen-ports';
import { mountsDockerSocket } from '../../vm/assess';
import { vmDependents } from '../deploy-waves';
import { AppMetadata } from '../app-metadata';
import { sensitiveEnvTest } from '../app-secret-values';
import { AppSettings } from '../app-settings';
import { AppWarnings } from '../app-warnings';
import { COMPOSE_APP_DEFAULTS, ComposeAppVmOptions } from '../compose-app-props';
import { HostRewriter } from '../hosts/host-rewrite';
import { MigrationContext, ServicePlan, ServiceSettings, WorkloadKind } from '../service/migrated-service';
import { serviceHostRewriter } from '../hosts/service-hosts';
import { VmMigratedService } from './vm-migrated-service';

/** Props of `AppVm`: the app's plans and handles that the VM's part uses. */
export interface AppVmProps {
  /** The app: the VM (`Vm`) and each service's `VmMigratedService` (its compose name) are made in it. */
  readonly scope: Construct;
  readonly model: ComposeModel;
  /** The app's `vm` prop; the planner has refused VM services without it. */
  readonly options?: ComposeAppVmOptions;
  readonly namespace: string;
  readonly plans: ReadonlyMap<string, ServicePlan>;
  /** Why each service routed to the VM goes there. */
  readonly reasons: ReadonlyMap<string, string[]>;
  readonly settings: AppSettings;
  readonly names: NameRegistry;
  readonly redactor: Redactor;
  readonly warnings: AppWarnings;
  readonly context: MigrationContext;
  /** Labels and annotations for the VM's pods, on top of its own. */
  readonly template: AppMetadata;
}

/**
 * The services routed to the VM: one `ComposeVm` (bundle, VirtualMachine, a Service per service) in the app's
 * namespace, from the compose model with rule 2 applied inside the VM (hosts of container services → their
 * Service names), its unit waiting for the container services they depend on, and a `VmMigratedService` each.
 */
export class AppVm {
  /** The VM, unless no service is routed to it. */
  public readonly composeVm?: ComposeVm;
  /** The services that run in the VM, by compose name. */
  public readonly services = new Map<string, VmMigratedService>();

  constructor(private readonly props: AppVmProps) {
    const plans = [...props.plans.values()].filter((p) => p.kind === WorkloadKind.VM);
    const options = props.options;
    if (plans.length === 0 || !options) {
      return;
    }
    const { scope, settings, warnings } = props;
    const inVm = new Set(plans.map((p) => p.service.name));
    const listen = new Map(plans.map((p) => [p.service.name, listenPortsOf(p)]));
    const vmModel = this.vmModel(inVm, listen);
    const serviceSettings = new Map(plans.map((p) => [p.service.name, settings.settingsFor(p)]));
    const name = settings.vmName(props.namespace);
    this.claimVmNames(name);
    const composeVm = new ComposeVm(scope, 'Vm', {
      ...options,
      name,
      namespace: props.namespace,
      model: vmModel,
      services: [...inVm].sort(),
      serviceNames: Object.fromEntries(plans.map((p) => [p.service.name, p.name])),
      servicePorts: Object.fromEntries([...listen].map(([service, ports]) => [service, servicePorts(ports)])),
      resources: options.resources ?? vmResources([...serviceSettings.values()]),
      cpu: options.cpu ?? { cores: vmCores([...serviceSettings.values()]) },
      templateLabels: { ...options.templateLabels, ...props.template.labels },
      templateAnnotations: { ...options.templateAnnotations, ...props.template.annotations },
      bundle: {
        ...options.bundle,
        isSensitive: options.bundle?.isSensitive ?? sensitiveEnvTest(settings, props.redactor),
        waitFor: { ...this.vmWaits(plans, inVm), ...options.bundle?.waitFor },
      },
    });
    this.claimVmObjects(composeVm);
    warnings.addAll(composeVm.warnings, true);
    this.warnDockerSockets(plans);
    this.migrateServices(plans, serviceSettings, composeVm);
    this.composeVm = composeVm;
  }

  /**
   * The compose model the VM runs: its services with rule 2 applied (hosts of container services → their Service
   * names) and each port it listens on for the pod network.
   */
  private vmModel(inVm: ReadonlySet<string>, listen: ReadonlyMap<string, VmListenPort[]>): ComposeModel {
    const { model, warnings } = this.props;
    const vmHosts = serviceHostRewriter({
      plans: this.props.plans,
      include: (plan) => plan.hasService && plan.kind !== WorkloadKind.VM,
      warnings,
      at: model.at,
    });
    return {
      ...model,
      services: model.services.map((s) =>
        inVm.has(s.name) ? withListenPorts(this.rewriteForVm(s, vmHosts), listen.get(s.name)!) : s,
      ),
    };
  }

  /** The names of the objects the VM brings beside its own: its cloud-init Secret, data disk and app Secret. */
  private claimVmObjects(composeVm: ComposeVm): void {
    const { names, model } = this.props;
    const objects: [string, { name: string } | undefined, string][] = [
      ['Secret', composeVm.vm.userDataSecret, "the VM's cloud-init user data"],
      ['DataVolume', composeVm.vm.dataDisk, "the VM's data disk"],
      ['Secret', composeVm.appSecret, "the VM's .env and secret files"],
    ];
    for (const [kind, object, owner] of objects) {
      if (object) {
        names.claim(kind, object.name, { owner, at: model.at, hint: 'set vm.name' });
      }
    }
  }

  /**
   * A service that drives the Docker engine through its socket drives the VM's engine in the VM: the services that
   * run as pods are not there for it to see (a log shipper collects nothing of theirs, a scheduler runs nothing in them).
   */
  private warnDockerSockets(plans: readonly ServicePlan[]): void {
    const inVm = plans.map((p) => p.service.name).sort();
    const pods = [...this.props.plans.values()]
      .filter((p) => p.kind !== WorkloadKind.VM)
      .map((p) => p.service.name)
      .sort();
    if (pods.length === 0) {
      return;
    }
    const listed = pods.length <= 6 ? pods.join(', ') : `${pods.slice(0, 6).join(', ')} and ${pods.length - 6} more`;
    for (const plan of plans.filter((p) => mountsDockerSocket(p.service))) {
      this.props.warnings.warn(
        'vm-docker-socket',
        `service "${plan.service.name}" mounts the Docker socket, and in the VM it sees only the VM's own engine: the ` +
          `containers of ${inVm.join(', ')}, none of the ${pods.length} service${pods.length > 1 ? 's' : ''} that run ` +
          `as pods (${listed}); what it does to containers (logs, scheduled jobs, restarts) does not reach those`,
        plan.service.at,
      );
    }
  }

  /** The VM's own objects take their names first, so a service that wants the same name is told. */
  private claimVmNames(name: string): void {
    const { names, model } = this.props;
    names.claim('VirtualMachine', name, { owner: 'the VM', at: model.at, hint: 'set vm.name' });
    names.claim('DataVolume', joinDnsLabel(name, 'rootdisk'), {
      owner: "the VM's root disk",
      at: model.at,
      hint: 'set vm.name',
    });
  }

  /** One VmMigratedService per service in the VM: its Service, Ingress and policies reach the VM's ports. */
  private migrateServices(
    plans: readonly ServicePlan[],
    serviceSettings: ReadonlyMap<string, ServiceSettings>,
    composeVm: ComposeVm,
  ): void {
    for (const plan of plans) {
      this.services.set(
        plan.service.name,
        new VmMigratedService(this.props.scope, plan.service.name, {
          plan,
          settings: serviceSettings.get(plan.service.name)!,
          context: this.props.context,
          composeVm,
          reasons: this.props.reasons.get(plan.service.name)!,
        }),
      );
    }
  }

  /** Rule 2 inside the VM: env values name container services by their Service names; file references are reported. */
  private rewriteForVm(service: ComposeService, hosts: HostRewriter): ComposeService {
    const { model, warnings } = this.props;
    const environment = service.environment.map((variable) => {
      const rewritten = hosts.rewrite(variable.value);
      for (const rewrite of rewritten.rewrites) {
        warnings.warn(
          'host-rewrite',
          `host "${rewrite.from}" in ${variable.name} rewritten to the Service name "${rewrite.to}" (the ` +
            'service runs in the VM and reaches it through its Service)',
          variable.at,
        );
      }
      return { ...variable, value: rewritten.value };
    });
    const files: Array<[string, string, ComposeLocation]> = [];
    for (const mount of service.volumes) {
      if (mount.bind?.content && !mount.bind.content.binary) {
        files.push([`the bound file "${mount.source}"`, mount.bind.content.text, mount.at]);
      }
    }
    for (const ref of service.configs) {
      const config = model.configs.find((c) => c.name === ref.source);
      if (config && 'content' in config.source && !config.source.content.binary) {
        files.push([`config "${config.name}"`, config.source.content.text, config.at]);
      }
    }
    for (const [what, text, at] of files) {
      for (const reference of hosts.references(text)) {
        warnings.warnOnce(
          `vm-file:${what}:${reference.from}`,
          'file-host-reference',
          `${what} refers to "${reference.from}", which runs ` +
            `outside the VM as the Service "${reference.to}"; edit the file`,
          at,
        );
      }
    }
    return { ...service, environment };
  }

  /**
   * Dependencies of the VM's services on container services: compose cannot order across the VM's edge, so the VM's
   * unit waits until each one's Service accepts TCP connections before it starts the app.
   */
  private vmWaits(
    plans: readonly ServicePlan[],
    inVm: ReadonlySet<string>,
  ): Record<string, { host: string; port: number; timeoutSeconds: number }> {
    const waits: Record<string, { host: string; port: number; timeoutSeconds: number }> = {};
    const timeoutSeconds = this.props.settings.waitTimeoutSeconds;
    const dependents = vmDependents(this.props.model, inVm);
    for (const plan of plans) {
      for (const dependency of plan.service.dependsOn) {
        const target = this.props.plans.get(dependency.service);
        if (!target || inVm.has(dependency.service)) {
          continue;
        }
        if (dependents.has(dependency.service)) {
          // It waits for the VM itself (its wave comes after the VM's): waiting for it would hold both forever.
          this.props.warnings.warn(
            'vm-dependency-cycle',
            `"${dependency.service}" waits for a service in the VM (its depends_on leads there), so the VM cannot ` +
              `wait for it in turn: the VM starts "${plan.service.name}" without waiting for "${dependency.service}", ` +
              'so their start order is not kept (the service must retry, or restart, until the other is up)',
            dependency.at,
          );
          continue;
        }
        const tcp = target.ports.find((p) => p.protocol === kplus.Protocol.TCP);
        if (target.hasService && tcp) {
          waits[dependency.service] = { host: target.name, port: tcp.port, timeoutSeconds };
        } else {
          this.props.warnings.warn(
            'vm-dependency',
            `"${dependency.service}" has no TCP Service the VM can wait on, so the VM starts without ` +
              'waiting for it',
            dependency.at,
          );
        }
      }
    }
    return waits;
  }
}

const GIB = 1024 ** 3;

/** A service's share of the VM: its limits, or where compose sets none the default limits, which the VM sizes by. */
function vmShare(s: ServiceSettings): { cpuMillis: number; memoryBytes: number } {
  const d = COMPOSE_APP_DEFAULTS.resources;
  return {
    cpuMillis: s.resources.cpuLimitMillis ?? cpuToMillicores(d.cpuLimit),
    memoryBytes: s.resources.memoryLimitBytes ?? sizeToBytes(d.memoryLimit),
  };
}

const PROTOCOLS: Readonly<Record<string, kplus.Protocol>> = {
  udp: kplus.Protocol.UDP,
  sctp: kplus.Protocol.SCTP,
};

/** The ports a planned service in the VM listens on: its own and those the app inferred (`vmListenPorts`). */
function listenPortsOf(plan: ServicePlan): VmListenPort[] {
  return vmListenPorts(
    plan.service,
    plan.ports.filter((p) => p.inferred).map((p) => p.port),
  );
}

/** The ports of a VM service's Service: the container port in front of the port the VM listens on. */
function servicePorts(listen: readonly VmListenPort[]): VmServicePort[] {
  return listen.map((l) => ({
    name: `${l.protocol}-${l.port}`,
    port: l.port,
    targetPort: l.listen,
    // TCP is the default; leaving it out keeps the Service like a container's.
    protocol: l.protocol === 'tcp' ? undefined : PROTOCOLS[l.protocol],
  }));
}

/**
 * The service as the VM's compose file renders it: each inferred port it listens on becomes an `expose` entry, which
 * the bundle publishes on the VM's address at the container port, so that the pod network reaches it.
 */
function withListenPorts(service: ComposeService, listen: readonly VmListenPort[]): ComposeService {
  const added = listen
    .filter((l) => l.origin === 'inferred')
    .map((l) => ({ target: l.port, protocol: l.protocol, at: { ...service.at, path: `${service.at.path}.expose` } }));
  return added.length === 0 ? service : { ...service, expose: [...service.expose, ...added] };
}

/** vCPUs of the VM: its services' cpu limits (or the default limit), rounded up, at least 2. */
function vmCores(settings: readonly ServiceSettings[]): number {
  return Math.max(2, Math.ceil(settings.reduce((sum, s) => sum + vmShare(s).cpuMillis, 0) / 1000));
}

/**
 * Requests and limits of the VM, both set because the namespace's ResourceQuota admits only pods with limits:
 * memory is the services' memory limits plus 1 GiB for the guest OS and Docker (at least 2 GiB), requested and
 * limited alike (the guest sees the request); cpu requests the services' requests, at least half a core per vCPU
 * (`vmCpuRequest`), and is limited to the vCPUs.
 */
function vmResources(settings: readonly ServiceSettings[]): ComposeVmProps['resources'] {
  const memory = Size.gibibytes(
    Math.max(2, Math.ceil(settings.reduce((sum, s) => sum + vmShare(s).memoryBytes, 0) / GIB) + 1),
  );
  const cpuRequest = vmCpuRequest(
    vmCores(settings),
    settings.reduce((sum, s) => sum + s.resources.cpuRequestMillis, 0),
  );
  return {
    requests: { memory, cpu: cpuRequest },
    limits: { memory, cpu: kplus.Cpu.units(vmCores(settings)) },
  };
}
