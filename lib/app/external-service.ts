import { isIP } from 'net';
import { Construct } from 'constructs';
import { IntOrString, KubeEndpointSlice, KubeService } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { ComposeLocation, ComposeModel, ComposeService, Protocol } from '../compose/model';
import { CidrEgress } from '../base/network-policy';
import { checkCidrBlock } from '../base/network-policy-rules';
import { isSensitiveName } from '../compose/sensitive';
import { NameRegistry, claimServiceName, joinDnsLabel, portName } from '../base/naming';
import { DatabaseEngine } from '../stateful/engine';
import { isDnsSubdomain } from '../util/dns';
import { compare } from '../util/sort';
import { WarnFn } from './app-warnings';
import { Reachability } from './policy/reachability';

/** A managed endpoint (a cloud database, a hosted cache) that takes the place of a compose service. */
export interface ExternalEndpoint {
  /** The endpoint's host name (`db.example.rds.amazonaws.com`) or IP address (`10.0.3.7`). */
  readonly host: string;
  /**
   * The port the endpoint listens on. Clients keep the compose port: the Service maps it to this one (an IP), or
   * clients connect to the host on the compose port (a host name: an ExternalName Service cannot map ports).
   * @default - the compose port
   */
  readonly port?: number;
  /**
   * The addresses the NetworkPolicies let the clients reach the endpoint at. For an IP the address itself; a host name
   * resolves outside the cluster, so default-deny egress blocks it until its addresses are given here.
   * @default - `<ip>/32` (`/128`) for an IP; none for a host name (a warning says so)
   */
  readonly egressCidr?: string;
}

/** One external service, checked: its compose service, Kubernetes name, endpoint and ports. */
export interface PlannedExternalService {
  readonly service: ComposeService;
  readonly name: string;
  readonly endpoint: ExternalEndpoint;
  /** The ports clients use (compose's), each with the endpoint's port it reaches. */
  readonly ports: readonly ExternalPort[];
  /** The compose services that reach it (by a name in their text or by depends_on), sorted. */
  readonly clients: readonly string[];
  /** The clients' environment keys that carry its address or its credentials, as `service.KEY`, sorted. */
  readonly credentialKeys: readonly string[];
}

/** A port of an external service: clients' port → the endpoint's port. */
export interface ExternalPort {
  readonly name: string;
  readonly port: number;
  readonly targetPort: number;
  readonly protocol: Protocol;
}

/** The external services of an app, and the model of the rest. */
export interface ExternalServicePlan {
  /** The compose model without the external services and without the depends_on entries on them. */
  readonly model: ComposeModel;
  readonly services: readonly PlannedExternalService[];
}

/**
 * Takes the services with an `external` endpoint out of the model: their workloads, claims, backups and the waits of
 * their dependents go; each is planned as a Service of its own name (claimed in `names`) that resolves to the
 * endpoint. Throws when an endpoint is wrong on its face, or when another service runs in the external one's pod.
 */
export function planExternalServices(
  path: string,
  model: ComposeModel,
  endpoints: Readonly<Record<string, ExternalEndpoint>>,
  options: {
    readonly names: NameRegistry;
    readonly reachability: Reachability;
    readonly nameOf: (service: ComposeService) => string | undefined;
    readonly sensitivePatterns: readonly string[];
  },
): ExternalServicePlan {
  const external = new Set(Object.keys(endpoints));
  if (external.size === 0) {
    return { model, services: [] };
  }
  const services: PlannedExternalService[] = [];
  for (const service of model.services.filter((s) => external.has(s.name))) {
    const at = `${path}: services["${service.name}"].external`;
    const endpoint = checkEndpoint(at, endpoints[service.name]);
    for (const other of model.services) {
      if (other.networkMode === `service:${service.name}`) {
        throw new ComposeError(`${at}: service "${other.name}" runs in the pod of "${service.name}"`, {
          at: other.at,
          value: other.networkMode,
          hint: `a managed endpoint has no pod to join: make "${other.name}" external too, or keep "${service.name}" in the cluster`,
        });
      }
    }
    const name = claimServiceName(service, options.nameOf(service), options.names);
    const references = options.reachability.references.filter(
      (r) => r.server === service.name && r.client !== service.name,
    );
    const dependents = model.services.filter((s) => s.dependsOn.some((d) => d.service === service.name));
    const clients = [...new Set([...references.map((r) => r.client), ...dependents.map((s) => s.name)])]
      .filter((c) => !external.has(c))
      .sort(compare);
    services.push({
      service,
      name,
      endpoint,
      ports: externalPorts(at, service, endpoint, references),
      clients,
      credentialKeys: credentialKeys(model, service, clients, references, options),
    });
  }
  return {
    model: {
      ...model,
      services: model.services
        .filter((s) => !external.has(s.name))
        .map((s) =>
          s.dependsOn.some((d) => external.has(d.service))
            ? { ...s, dependsOn: s.dependsOn.filter((d) => !external.has(d.service)) }
            : s,
        ),
    },
    services,
  };
}

/** Props of `ExternalService`. */
export interface ExternalServiceProps {
  /** The planned service (`planExternalServices`). */
  readonly plan: PlannedExternalService;
  readonly namespace: string;
  /**
   * Whether default-deny NetworkPolicies apply, so that the clients need an egress rule to the endpoint.
   * @default true
   */
  readonly networkPolicies?: boolean;
  /** Where the findings go. */
  readonly warn: WarnFn;
}

/**
 * A compose service replaced by a managed endpoint: a Service of the compose service's name, so that its clients'
 * `db:5432` keeps working. For a host name the Service is an `ExternalName` (DNS answers with a CNAME); for an IP it
 * selects no pods and an `EndpointSlice` (discovery.k8s.io/v1) points it at the address, mapping the compose port to
 * the endpoint's. The clients' NetworkPolicies get an egress rule to the endpoint (`egress`).
 */
export class ExternalService extends Construct {
  /** The compose service name. */
  public readonly composeName: string;
  /** The Kubernetes name of the Service. */
  public readonly name: string;
  /** The managed endpoint. */
  public readonly endpoint: ExternalEndpoint;
  /** The Service the clients reach the endpoint through. */
  public readonly service: KubeService;
  /** The EndpointSlice of an IP endpoint. */
  public readonly endpointSlice?: KubeEndpointSlice;
  /** The egress the clients' pods need to reach the endpoint, when its addresses are known. */
  public readonly egress?: CidrEgress;
  /** The compose services that reach it, sorted. */
  public readonly clients: readonly string[];
  /** The clients' environment keys that carry its address or credentials (`service.KEY`), sorted. */
  public readonly credentialKeys: readonly string[];
  public readonly ports: readonly ExternalPort[];
  /** Where the compose service is declared. */
  public readonly at: ComposeLocation;

  constructor(scope: Construct, id: string, props: ExternalServiceProps) {
    super(scope, id);
    const { plan, namespace } = props;
    const { endpoint, service } = plan;
    this.composeName = service.name;
    this.name = plan.name;
    this.endpoint = endpoint;
    this.clients = plan.clients;
    this.credentialKeys = plan.credentialKeys;
    this.ports = plan.ports;
    this.at = service.at;
    const family = isIP(endpoint.host);
    const objects =
      family === 0 ? externalNameService(this, plan, namespace) : endpointSliceService(this, plan, namespace);
    this.service = objects.service;
    this.endpointSlice = objects.endpointSlice;
    const cidr =
      endpoint.egressCidr ?? (family === 4 ? `${endpoint.host}/32` : family === 6 ? `${endpoint.host}/128` : undefined);
    if (cidr !== undefined) {
      this.egress = {
        cidr,
        ports: dedupePorts(plan.ports.map((p) => ({ port: p.targetPort, protocol: p.protocol }))),
      };
    }
    reportExternalService(plan, { hostName: family === 0, egress: cidr !== undefined, ...props });
  }
}

const protocolOf = (p: Protocol) => p.toUpperCase();

/** A host name: an ExternalName Service (DNS answers with a CNAME), which cannot map ports. */
function externalNameService(
  scope: Construct,
  plan: PlannedExternalService,
  namespace: string,
): { service: KubeService; endpointSlice?: KubeEndpointSlice } {
  const service = new KubeService(scope, 'Service', {
    metadata: { name: plan.name, namespace },
    spec: {
      type: 'ExternalName',
      externalName: plan.endpoint.host,
      ports: plan.ports.map((p) => ({ name: p.name, port: p.port, protocol: protocolOf(p.protocol) })),
    },
  });
  return { service };
}

/** An IP: a Service without a selector, and an EndpointSlice labelled with its name that gives it the address. */
function endpointSliceService(
  scope: Construct,
  plan: PlannedExternalService,
  namespace: string,
): { service: KubeService; endpointSlice: KubeEndpointSlice } {
  const service = new KubeService(scope, 'Service', {
    metadata: { name: plan.name, namespace },
    spec: {
      type: 'ClusterIP',
      ports: plan.ports.map((p) => ({
        name: p.name,
        port: p.port,
        targetPort: IntOrString.fromNumber(p.targetPort),
        protocol: protocolOf(p.protocol),
      })),
    },
  });
  const endpointSlice = new KubeEndpointSlice(scope, 'EndpointSlice', {
    metadata: {
      name: joinDnsLabel(plan.name, 'external'),
      namespace,
      labels: {
        'kubernetes.io/service-name': plan.name,
        'endpointslice.kubernetes.io/managed-by': 'cdk8s-compose',
      },
    },
    addressType: isIP(plan.endpoint.host) === 4 ? 'IPv4' : 'IPv6',
    endpoints: [{ addresses: [plan.endpoint.host], conditions: { ready: true } }],
    ports: plan.ports.map((p) => ({ name: p.name, port: p.targetPort, protocol: protocolOf(p.protocol) })),
  });
  return { service, endpointSlice };
}

/**
 * What the external service became and what is left to the user: the credentials to set (`external-service`, listed
 * in RUNBOOK.md's "Before you deploy"), a port an ExternalName cannot map (`external-port`), and the egress a host
 * name needs (`external-egress`).
 */
function reportExternalService(
  plan: PlannedExternalService,
  o: {
    readonly hostName: boolean;
    readonly egress: boolean;
    readonly networkPolicies?: boolean;
    readonly warn: WarnFn;
  },
): void {
  const { endpoint, service, name } = plan;
  const { warn } = o;
  const keys = plan.credentialKeys.join(', ');
  for (const p of o.hostName ? plan.ports.filter((q) => q.port !== q.targetPort) : []) {
    warn(
      'external-port',
      `service "${service.name}" is external at ${endpoint.host}:${p.targetPort}, but its clients connect to ` +
        `${name}:${p.port}, and an ExternalName Service cannot map ports (DNS answers with the host name only): ` +
        `give the endpoint's IP address as services["${service.name}"].external.host (an EndpointSlice maps ` +
        `${p.port} → ${p.targetPort}), or change the port in the clients' settings (${keys || 'their environment'})`,
      service.at,
    );
  }
  const clients = plan.clients.length > 0 ? plan.clients.join(', ') : 'no service';
  const address = `${endpoint.host}${endpoint.port !== undefined ? `:${endpoint.port}` : ''}`;
  warn(
    'external-service',
    `service "${service.name}" is external at ${address}: its workload, claims, backup and the waits on it are not ` +
      `rendered; ${clients} reach${plan.clients.length === 1 ? 'es' : ''} it as ` +
      `${plan.ports.map((p) => `${name}:${p.port}`).join(', ')} through a Service of type ` +
      `${o.hostName ? 'ExternalName' : 'ClusterIP with an EndpointSlice'}. Put the endpoint's credentials into ` +
      `${keys || "the clients' environment"} (they hold what compose gave the local container)`,
    service.at,
  );
  if (!o.egress && (o.networkPolicies ?? true) && plan.clients.length > 0) {
    warn(
      'external-egress',
      `the default-deny NetworkPolicy blocks ${clients} from reaching "${endpoint.host}" (service "${service.name}"): ` +
        'a host name resolves outside the cluster, so give its addresses as ' +
        `services["${service.name}"].external.egressCidr (--external-cidr ${service.name}=CIDR)`,
      service.at,
    );
  }
}

function checkEndpoint(at: string, endpoint: ExternalEndpoint): ExternalEndpoint {
  if (isIP(endpoint.host) === 0 && !isDnsSubdomain(endpoint.host)) {
    throw new ComposeError(`${at}.host is not a host name or an IP address`, {
      value: endpoint.host,
      allowed: 'a DNS name such as "db.example.com", or an IPv4 or IPv6 address',
    });
  }
  if (
    endpoint.port !== undefined &&
    !(Number.isInteger(endpoint.port) && endpoint.port >= 1 && endpoint.port <= 65535)
  ) {
    throw new ComposeError(`${at}.port is not a port`, { value: endpoint.port, allowed: 'a port number 1-65535' });
  }
  if (endpoint.egressCidr !== undefined) {
    checkCidrBlock({ cidr: endpoint.egressCidr }, { file: '', path: `${at}.egressCidr` });
  }
  return endpoint;
}

/**
 * The ports clients reach the service on (its `ports` and `expose`, the ports the clients' text names, else the
 * engine's), each mapped to the endpoint's port: the one port to `endpoint.port`; of several, each to itself.
 */
function externalPorts(
  at: string,
  service: ComposeService,
  endpoint: ExternalEndpoint,
  references: readonly { readonly port?: number }[],
): ExternalPort[] {
  const found = new Map<string, { port: number; protocol: Protocol }>();
  for (const p of [...service.ports, ...service.expose]) {
    found.set(`${p.target}/${p.protocol}`, { port: p.target, protocol: p.protocol });
  }
  for (const r of references) {
    if (r.port !== undefined && !found.has(`${r.port}/udp`)) {
      found.set(`${r.port}/tcp`, { port: r.port, protocol: 'tcp' });
    }
  }
  const engine = DatabaseEngine.detect(service.image);
  if (found.size === 0 && engine) {
    found.set(`${engine.port}/tcp`, { port: engine.port, protocol: 'tcp' });
  }
  if (found.size === 0 && endpoint.port !== undefined) {
    found.set(`${endpoint.port}/tcp`, { port: endpoint.port, protocol: 'tcp' });
  }
  const ports = [...found.values()].sort((a, b) => a.port - b.port || compare(a.protocol, b.protocol));
  if (ports.length === 0) {
    throw new ComposeError(`${at}: service "${service.name}" declares no port and its clients name none`, {
      at: service.at,
      hint: `give the endpoint's port as services["${service.name}"].external.port (--external ${service.name}=HOST:PORT)`,
    });
  }
  if (ports.length > 1 && endpoint.port !== undefined && !ports.some((p) => p.port === endpoint.port)) {
    throw new ComposeError(
      `${at}.port: service "${service.name}" is reached on ${ports.map((p) => p.port).join(', ')}, and one endpoint port cannot stand for several`,
      {
        value: endpoint.port,
        hint: `leave out external.port when the endpoint serves the same ports, or keep only the port its clients use in services.${service.name}.ports/expose`,
      },
    );
  }
  return ports.map((p) => ({
    name: portName(p.protocol, p.port),
    port: p.port,
    targetPort: ports.length === 1 ? (endpoint.port ?? p.port) : p.port,
    protocol: p.protocol,
  }));
}

/**
 * The clients' environment keys that need the endpoint's values: those whose value names the service, and the
 * sensitive ones whose value is one of the service's own environment values (a shared password).
 */
function credentialKeys(
  model: ComposeModel,
  service: ComposeService,
  clients: readonly string[],
  references: readonly { readonly client: string; readonly source: string; readonly what: string }[],
  options: { readonly sensitivePatterns: readonly string[] },
): string[] {
  const keys = new Set<string>();
  for (const r of references.filter((x) => x.source === 'environment')) {
    const key = r.what.replace(/^services\.[^.]+\.environment\./, '');
    keys.add(`${r.client}.${key}`);
  }
  const own = new Set(service.environment.map((e) => e.value).filter((v) => v.length > 0));
  for (const client of model.services.filter((s) => clients.includes(s.name))) {
    for (const env of client.environment) {
      if (own.has(env.value) && isSensitiveName(env.name, options.sensitivePatterns)) {
        keys.add(`${client.name}.${env.name}`);
      }
    }
  }
  return [...keys].sort(compare);
}

function dedupePorts(ports: readonly { port: number; protocol: Protocol }[]): { port: number; protocol: Protocol }[] {
  const seen = new Map(ports.map((p) => [`${p.port}/${p.protocol}`, p]));
  return [...seen.values()].sort((a, b) => a.port - b.port || compare(a.protocol, b.protocol));
}
