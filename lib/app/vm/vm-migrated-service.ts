import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeLocation, PortMapping } from '../../compose/model';
import { ExposedPolicyPort, PortExposure } from '../../base/network-policy';
import { ComposeVm } from '../../vm/compose-vm';
import { VmPublishedPort } from '../../vm/compose-subset';
import { VM_LABEL } from '../../vm/golden-image-vm';
import { PortAccess, addExternalService, addIngress, portAccess, setExternalTrafficPolicy } from '../service/exposure';
import { checkIngressLabels, isHonouredKomposeLabel, labelAt } from '../kompose/kompose-labels';
import {
  IngressRule,
  MigrationContext,
  PublishedPort,
  ServicePlan,
  ServiceSettings,
  WorkloadKind,
} from '../service/service-plan';
import { KomposeLabel } from '../settings';

/** Props of `VmMigratedService`: one compose service that runs in the app's VM, and why. */
export interface VmMigratedServiceProps {
  /** The compose service, as the app planned it (names, ports, waits). */
  readonly plan: ServicePlan;
  /** The service's settings: the compose values with the app's overrides applied. */
  readonly settings: ServiceSettings;
  /** What the service needs from its app (names, objects of other services, warnings). */
  readonly context: MigrationContext;
  /** The app's VM, which runs the service. */
  readonly composeVm: ComposeVm;
  /** Why the service runs in the VM, one line each. */
  readonly reasons: readonly string[];
}

/** The kompose labels that still apply to a service in the VM: they shape its Services and Ingress. */
const VM_LABELS: readonly string[] = [
  KomposeLabel.SERVICE_TYPE,
  KomposeLabel.NODE_PORT,
  KomposeLabel.SERVICE_EXPOSE,
  KomposeLabel.TLS_SECRET,
  KomposeLabel.INGRESS_CLASS,
  KomposeLabel.EXTERNAL_TRAFFIC_POLICY,
];
const ALL_ADDRESSES = ['0.0.0.0', '::'];

/**
 * One compose service that runs in the app's golden-image VM (`ComposeApp.vm`) instead of a container. The VM's
 * compose project runs it; Kubernetes reaches it through the Service `ComposeVm` made for it (port = container port,
 * targetPort = the VM port), and its published ports follow the same exposure rule as a container's: the HTTP port
 * through an Ingress, the others through a `<name>-external` LoadBalancer (or NodePort) Service selecting the VM.
 * Reach it with `app.vmService('<compose name>')`.
 */
export class VmMigratedService extends Construct {
  /** The compose service name. */
  public readonly composeName: string;
  /** Where the compose service is declared. */
  public readonly at: ComposeLocation;
  /** The name of its Service. */
  public readonly name: string;
  /** `WorkloadKind.VM`. */
  public readonly kind: WorkloadKind;
  /** Why it runs in the VM: the prop, the `x-cdk8s-compose` key, or what `assessService` found. */
  public readonly reasons: readonly string[];
  /** The VM that runs it (shared by every service routed to the VM). */
  public readonly vm: ComposeVm;
  /** The ClusterIP Service in front of its VM ports; none when it has no port the cluster can reach. */
  public readonly service?: kplus.Service;
  /** The LoadBalancer (or NodePort) Service for published non-HTTP ports. */
  public readonly externalService?: kplus.Service;
  /** The Ingress for the published HTTP port. */
  public readonly ingress?: kplus.Ingress;
  /** Its ports on the VM. */
  public readonly ports: readonly VmPublishedPort[];
  /** Every published compose port and how it is reached. */
  public readonly publishedPorts: readonly PublishedPort[];
  /** The ingress rules rendered, for the app's collision check. */
  public readonly ingressRules: readonly IngressRule[];
  /** The ports reachable from outside the namespace, as the VM's pod sees them, for its NetworkPolicy. */
  public readonly exposedPorts: readonly ExposedPolicyPort[];

  private readonly plan: ServicePlan;
  private readonly context: MigrationContext;

  constructor(scope: Construct, id: string, props: VmMigratedServiceProps) {
    super(scope, id);
    const { plan, settings, context, composeVm } = props;
    this.plan = plan;
    this.context = context;
    this.composeName = plan.service.name;
    this.at = plan.service.at;
    this.name = plan.name;
    this.kind = plan.kind;
    this.reasons = props.reasons;
    this.vm = composeVm;
    this.service = composeVm.services[plan.service.name];
    this.ports = composeVm.ports.filter((p) => p.service === plan.service.name);
    this.warnLabels();

    const access = this.portAccesses(settings);
    this.publishedPorts = access.published;
    this.exposedPorts = access.exposed;
    const objects = {
      name: this.name,
      composeName: this.composeName,
      at: this.at,
      namespace: context.namespace,
      names: context.names,
      settings,
    };
    if (access.ingressPort && this.service) {
      const { ingress, rules } = addIngress(this, objects, this.service, access.ingressPort);
      this.ingress = ingress;
      this.ingressRules = rules;
    } else {
      this.ingressRules = [];
    }
    checkIngressLabels(plan.service, this.ingress !== undefined);
    if (access.external.length > 0) {
      this.externalService = addExternalService(this, objects, access.external);
      this.externalService.selectLabel(VM_LABEL, composeVm.vm.name);
    }
    setExternalTrafficPolicy(
      this.externalService,
      settings.externalTrafficPolicy,
      labelAt(plan.service, KomposeLabel.EXTERNAL_TRAFFIC_POLICY),
      (code, message, at) => context.warn(code, message, at),
    );
  }

  /**
   * How each published port is reached (the same exposure rule as a container's), the ports reachable from outside
   * the namespace as the VM's pod sees them, the port of the Ingress, and the ports of the external Service.
   */
  private portAccesses(settings: ServiceSettings): {
    published: PublishedPort[];
    exposed: ExposedPolicyPort[];
    ingressPort?: PortMapping;
    external: Array<{ mapping: PortMapping; targetPort: number }>;
  } {
    const published: PublishedPort[] = [];
    const exposed: ExposedPolicyPort[] = [];
    const external: Array<{ mapping: PortMapping; targetPort: number }> = [];
    let ingressPort: PortMapping | undefined;
    for (const mapping of this.publishedMappings()) {
      const vmPort = this.vmPort(mapping);
      // A port bound to one host address stays on that address in the VM (the bundle reports it).
      const access =
        vmPort === undefined
          ? PortAccess.INTERNAL
          : portAccess(mapping, ingressPort === undefined, {
              name: this.name,
              expose: settings.expose,
              komposeServiceType: settings.komposeServiceType,
              httpPort: settings.http?.port,
              httpPorts: settings.httpPorts,
              runsToCompletion: false,
              stateful: false,
              hasService: this.service !== undefined,
              warn: (code, message, at) => this.context.warn(code, message, at),
            });
      published.push({ mapping, access });
      if (vmPort === undefined || access === PortAccess.INTERNAL) {
        continue;
      }
      if (access === PortAccess.INGRESS) {
        ingressPort = mapping;
      } else if (!external.some((e) => e.targetPort === vmPort && e.mapping.protocol === mapping.protocol)) {
        external.push({ mapping, targetPort: vmPort });
      }
      exposed.push({
        port: vmPort,
        protocol: mapping.protocol,
        via: access === PortAccess.INGRESS ? PortExposure.INGRESS : PortExposure.LOAD_BALANCER,
      });
    }
    return { published, exposed, ingressPort, external };
  }

  /**
   * The service's published ports: its `ports`, and with `network_mode: host` every other port it listens on in the VM
   * as well, since compose's host networking puts them on the host's addresses (reported once, with the egress).
   */
  private publishedMappings(): readonly PortMapping[] {
    const service = this.plan.service;
    if (service.networkMode !== 'host') {
      return service.ports;
    }
    const more: PortMapping[] = this.ports
      .filter((p) => !service.ports.some((q) => q.target === p.target && q.protocol === p.protocol))
      .map((p) => ({ target: p.target, published: p.target, protocol: p.protocol, mode: 'host', at: service.at }));
    const all = [...service.ports, ...more];
    const at = { ...service.at, path: `${service.at.path}.network_mode` };
    if (all.length === 0) {
      this.context.warn(
        'host-network-ports',
        `service "${this.composeName}" uses the host network and no port of it is known, so nothing outside the VM ` +
          `reaches it; its egress is open, as on the host. If it listens, declare the ports in ` +
          `services.${this.composeName}.ports (["<port>:<port>"])`,
        at,
      );
    } else {
      this.context.warn(
        'host-network-ports',
        `service "${this.composeName}" uses the host network: its port${all.length > 1 ? 's' : ''} ` +
          `${all.map((p) => `${p.target}/${p.protocol}`).join(', ')} ${all.length > 1 ? 'are' : 'is'} published from ` +
          `the VM as compose publishes ${all.length > 1 ? 'them' : 'it'} on the host, reached in the cluster through ` +
          `the Service "${this.name}", ` +
          'and its egress is open, as on the host',
        at,
      );
    }
    return all;
  }

  /** The VM port a published compose port lands on; undefined when it is bound to one host address in the VM. */
  private vmPort(mapping: PortMapping): number | undefined {
    if (mapping.hostIp !== undefined && !ALL_ADDRESSES.includes(mapping.hostIp)) {
      return undefined;
    }
    return this.ports.find((p) => p.target === mapping.target && p.protocol === mapping.protocol)?.hostPort;
  }

  /** kompose labels other than the exposure ones configure pods, which a service in the VM does not have. */
  private warnLabels(): void {
    const service = this.plan.service;
    for (const label of Object.keys(service.labels)
      .sort()
      .filter((l) => l.startsWith('kompose.'))) {
      if (!VM_LABELS.includes(label)) {
        const why = isHonouredKomposeLabel(label)
          ? 'it configures pods, and the service runs in the VM'
          : 'this kompose label is not honoured';
        this.context.warn('unsupported-label', `ignored label "${label}": ${why}`, labelAt(service, label));
      }
    }
  }
}
