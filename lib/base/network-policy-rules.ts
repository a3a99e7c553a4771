// The inputs of `ComposeNetworkPolicies` (networks, workloads, ports, CIDRs), their checks, and the rule builder that
// turns them into NetworkPolicy ingress and egress rules.
import { createHash } from 'crypto';
import { isIPv4, isIPv6 } from 'net';
import { NetworkProtocol } from 'cdk8s-plus-27';
import {
  IntOrString,
  NetworkPolicyEgressRule,
  NetworkPolicyIngressRule,
  NetworkPolicyPeer,
  NetworkPolicyPort,
} from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { ComposeLocation, Protocol } from '../compose/model';
import { compare, sortedRecord } from '../util/sort';

/** How an exposed port is reached from outside the namespace. */
export enum PortExposure {
  /** Through the ingress controller: reachable from the controller's namespace only. */
  INGRESS = 'ingress',
  /** Through a `LoadBalancer` Service: reachable from anywhere. */
  LOAD_BALANCER = 'loadBalancer',
}

/** A container port. NetworkPolicy sees the pod's own port (a Service's `targetPort`), never the Service port. */
export interface PolicyPort {
  /** 1-65535. */
  readonly port: number;
  /**
   * `TCP`, `UDP` or `SCTP`; the compose model's lower-case `tcp`, `udp`, `sctp` are accepted too.
   * @default NetworkProtocol.TCP
   */
  readonly protocol?: NetworkProtocol | Protocol;
}

/** A container port that is reachable from outside the namespace. */
export interface ExposedPolicyPort extends PolicyPort {
  readonly via: PortExposure;
}

/** A CIDR with optional exceptions: an `ipBlock`. */
export interface CidrBlock {
  /** e.g. `0.0.0.0/0` or `10.0.0.0/8`. */
  readonly cidr: string;
  /**
   * CIDRs inside `cidr` that are left out.
   * @default - none
   */
  readonly except?: readonly string[];
}

/** Egress to a CIDR beyond what the networks allow, e.g. the Kubernetes API for a pod that watches a Job. */
export interface CidrEgress extends CidrBlock {
  /**
   * Ports allowed to that CIDR.
   * @default - every port
   */
  readonly ports?: readonly PolicyPort[];
}

/** A compose network. */
export interface PolicyNetwork {
  /** The compose network name, e.g. `backend` or `front_tier`. */
  readonly name: string;
  /**
   * `internal: true`: no egress beyond the namespace for pods on this network alone.
   * @default false
   */
  readonly internal?: boolean;
  /**
   * Where it is declared, for messages.
   * @default - none
   */
  readonly at?: ComposeLocation;
}

/** One workload (a compose service, a Job, a backup CronJob…) and what it may send and receive. */
export interface PolicyWorkload {
  /** A DNS-1123 label, e.g. the Service name. Names the policy `allow-<name>`. */
  readonly name: string;
  /**
   * Labels that select exactly this workload's pods, e.g. `{ app: 'web' }`. The pod template must also carry
   * `ComposeNetworkPolicies.networkLabels(networks)`.
   */
  readonly podLabels: Readonly<Record<string, string>>;
  /**
   * Compose networks the workload is on (declared in `networks`).
   * @default - none: it reaches and is reached by no other workload
   */
  readonly networks?: readonly string[];
  /**
   * Container ports other workloads on a shared network may reach (compose `ports` and `expose`).
   * @default - none
   */
  readonly ports?: readonly PolicyPort[];
  /**
   * Container ports reachable from outside the namespace.
   * @default - none
   */
  readonly exposedPorts?: readonly ExposedPolicyPort[];
  /**
   * Egress to CIDRs beyond the networks' rules, e.g. `ComposeNetworkPolicies.kubernetesApiEgress()`.
   * @default - none
   */
  readonly extraEgress?: readonly CidrEgress[];
  /**
   * Where it is declared (the compose service), for messages.
   * @default - messages name the construct path
   */
  readonly at?: ComposeLocation;
}

const NETWORK_LABEL_PREFIX = 'network.cdk8s-compose.io/';
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PROTOCOLS: Readonly<Record<string, NetworkProtocol>> = {
  TCP: NetworkProtocol.TCP,
  UDP: NetworkProtocol.UDP,
  SCTP: NetworkProtocol.SCTP,
};

export interface NormalPort {
  readonly port: number;
  readonly protocol: NetworkProtocol;
}

/** The pod label key for membership of a compose network; see `ComposeNetworkPolicies.networkLabel`. */
export function networkLabel(network: string): string {
  if (LABEL_NAME.test(network)) {
    return NETWORK_LABEL_PREFIX + network;
  }
  const hash = createHash('sha256').update(network).digest('hex').slice(0, 8);
  const cleaned = network
    .replace(/[^-A-Za-z0-9_.]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 54)
    .replace(/[^A-Za-z0-9]+$/, '');
  return `${NETWORK_LABEL_PREFIX}${cleaned ? `${cleaned}-` : 'network-'}${hash}`;
}

/** What `NetworkPolicyRules` needs besides the workloads: the checked networks, ranges and ingress selectors. */
export interface NetworkPolicyRulesProps {
  readonly networks: ReadonlyMap<string, { readonly internal: boolean }>;
  readonly workloads: readonly NormalWorkload[];
  readonly internetCidrs: readonly CidrBlock[];
  readonly ingressControllerNamespaceLabels: Readonly<Record<string, string>>;
  readonly ingressControllerPodLabels?: Readonly<Record<string, string>>;
}

/**
 * Builds the ingress and egress rules of each workload's `allow-<workload>` policy (see `ComposeNetworkPolicies`):
 * the rule builder apart from the construct that renders the policies.
 */
export class NetworkPolicyRules {
  /** The ports each network's workloads accept, for the egress rules of every workload on that network. */
  private readonly networkPorts = new Map<string, NormalPort[]>();

  constructor(private readonly props: NetworkPolicyRulesProps) {
    for (const network of props.networks.keys()) {
      const onNetwork = props.workloads.filter((w) => w.networks.includes(network));
      this.networkPorts.set(network, sortPorts(onNetwork.flatMap((w) => w.ports)));
    }
  }

  /** Peers on a shared network reach its ports; the ingress controller and any source reach its exposed ports. */
  public ingressFor(workload: NormalWorkload): NetworkPolicyIngressRule[] {
    const ingress: NetworkPolicyIngressRule[] = [];
    if (workload.ports.length > 0 && workload.networks.length > 0) {
      ingress.push({ from: workload.networks.map(networkPeer), ports: workload.ports.map(toKubePort) });
    }
    const viaIngress = sortPorts(workload.exposed.filter((p) => p.via === PortExposure.INGRESS));
    if (viaIngress.length > 0) {
      const from = [namespacePeer(this.props.ingressControllerNamespaceLabels, this.props.ingressControllerPodLabels)];
      ingress.push({ from, ports: viaIngress.map(toKubePort) });
    }
    const viaLoadBalancer = sortPorts(workload.exposed.filter((p) => p.via === PortExposure.LOAD_BALANCER));
    if (viaLoadBalancer.length > 0) {
      ingress.push({ ports: viaLoadBalancer.map(toKubePort) });
    }
    return ingress;
  }

  /** Its networks' ports, the internet unless all its networks are internal, and its extra egress. */
  public egressFor(workload: NormalWorkload): NetworkPolicyEgressRule[] {
    const egress: NetworkPolicyEgressRule[] = [];
    for (const network of workload.networks) {
      const ports = this.networkPorts.get(network)!;
      if (ports.length > 0) {
        egress.push({ to: [networkPeer(network)], ports: ports.map(toKubePort) });
      }
    }
    if (workload.networks.some((n) => !this.props.networks.get(n)!.internal)) {
      egress.push({ to: this.props.internetCidrs.map((block) => ({ ipBlock: kubeIpBlock(block) })) });
    }
    for (const extra of workload.extraEgress) {
      egress.push({
        to: [{ ipBlock: kubeIpBlock(extra) }],
        ports: extra.ports.length > 0 ? extra.ports.map(toKubePort) : undefined,
      });
    }
    return egress;
  }
}

export interface NormalWorkload {
  readonly name: string;
  readonly podLabels: Record<string, string>;
  readonly networks: readonly string[];
  readonly ports: readonly NormalPort[];
  readonly exposed: ReadonlyArray<NormalPort & { readonly via: PortExposure }>;
  readonly extraEgress: ReadonlyArray<CidrBlock & { readonly ports: readonly NormalPort[] }>;
}

export function checkNetworks(
  networks: readonly PolicyNetwork[],
  constructPath: string,
): Map<string, { internal: boolean }> {
  const byName = new Map<string, { internal: boolean }>();
  const byLabel = new Map<string, string>();
  for (const network of [...networks].sort((a, b) => compare(a.name, b.name))) {
    const at = network.at ?? { file: '', path: constructPath };
    if (typeof network.name !== 'string' || network.name === '') {
      throw new ComposeError('a network has no name', { at, value: network.name });
    }
    if (byName.has(network.name)) {
      throw new ComposeError(`network "${network.name}" is given twice`, { at, hint: 'give each network once' });
    }
    const label = networkLabel(network.name);
    const other = byLabel.get(label);
    if (other !== undefined) {
      throw new ComposeError(`networks "${other}" and "${network.name}" map to the same pod label "${label}"`, {
        at,
        hint: 'rename one of the networks',
      });
    }
    byLabel.set(label, network.name);
    byName.set(network.name, { internal: network.internal ?? false });
  }
  return byName;
}

export function checkWorkloads(
  workloads: readonly PolicyWorkload[],
  networks: Map<string, { internal: boolean }>,
  constructPath: string,
): NormalWorkload[] {
  const seen = new Set<string>();
  return [...workloads]
    .sort((a, b) => compare(a.name, b.name))
    .map((workload) => {
      const at = workload.at ?? { file: '', path: constructPath };
      if (!DNS_LABEL.test(workload.name)) {
        throw new ComposeError('invalid workload name', {
          at,
          value: workload.name,
          allowed: 'a DNS-1123 label: lower-case letters, digits and "-", at most 63 characters',
        });
      }
      if (seen.has(workload.name)) {
        throw new ComposeError(`workload "${workload.name}" is given twice`, { at, hint: 'give each workload once' });
      }
      seen.add(workload.name);
      if (Object.keys(workload.podLabels ?? {}).length === 0) {
        throw new ComposeError(`workload "${workload.name}" has no pod labels`, {
          at,
          allowed: 'labels that select exactly its pods, e.g. { app: "web" }',
          hint: 'an empty selector would open every pod in the namespace',
        });
      }
      const workloadNetworks = [...new Set(workload.networks ?? [])].sort(compare);
      for (const network of workloadNetworks) {
        if (!networks.has(network)) {
          throw new ComposeError(`workload "${workload.name}" is on network "${network}", which is not declared`, {
            at,
            allowed: [...networks.keys()].join(', ') || 'no networks were declared',
            hint: 'declare the network in `networks`',
          });
        }
      }
      return {
        name: workload.name,
        podLabels: sortedRecord(workload.podLabels),
        networks: workloadNetworks,
        ports: sortPorts((workload.ports ?? []).map((p) => normalPort(p, at))),
        exposed: (workload.exposedPorts ?? []).map((p) => {
          if (!Object.values(PortExposure).includes(p.via)) {
            throw new ComposeError('invalid port exposure', {
              at,
              value: p.via,
              allowed: Object.values(PortExposure).join(', '),
            });
          }
          return { ...normalPort(p, at), via: p.via };
        }),
        extraEgress: (workload.extraEgress ?? []).map((e) => ({
          ...checkCidrBlock(e, at),
          ports: sortPorts((e.ports ?? []).map((p) => normalPort(p, at))),
        })),
      };
    });
}

function normalPort(port: PolicyPort, at: ComposeLocation): NormalPort {
  checkPort(port.port, at);
  const protocol = PROTOCOLS[String(port.protocol ?? NetworkProtocol.TCP).toUpperCase()];
  if (!protocol) {
    throw new ComposeError('invalid port protocol', { at, value: port.protocol, allowed: 'TCP, UDP or SCTP' });
  }
  return { port: port.port, protocol };
}

export function checkPort(port: number, at: ComposeLocation): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ComposeError('invalid port', { at, value: port, allowed: 'a port number 1-65535' });
  }
}

export function checkCidrBlock(block: CidrBlock, at: ComposeLocation): CidrBlock {
  for (const cidr of [block.cidr, ...(block.except ?? [])]) {
    if (!isCidr(cidr)) {
      throw new ComposeError('invalid CIDR', {
        at,
        value: cidr,
        allowed: 'an IPv4 or IPv6 address with a prefix length, e.g. "10.0.0.0/8" or "fd00::/8"',
      });
    }
  }
  return {
    cidr: block.cidr,
    except: block.except && block.except.length > 0 ? [...block.except].sort(compare) : undefined,
  };
}

/**
 * IPv6 blocks the library writes itself (the default internet blocks, a VM's open port), valid by construction: they
 * skip Node's IPv6 pattern, which is compiled on its first use (about 9 ms, 2 % of a small conversion).
 */
const KNOWN_IPV6_BLOCKS: ReadonlySet<string> = new Set(['::/0', 'fc00::/7', 'fe80::/10']);

function isCidr(text: string): boolean {
  if (KNOWN_IPV6_BLOCKS.has(text)) {
    return true;
  }
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text ?? '');
  if (!match) {
    return false;
  }
  const prefix = Number(match[2]);
  return (isIPv4(match[1]) && prefix <= 32) || (isIPv6(match[1]) && prefix <= 128);
}

export function sortPorts(ports: readonly NormalPort[]): NormalPort[] {
  const unique = new Map(ports.map((p) => [`${p.protocol}/${p.port}`, { port: p.port, protocol: p.protocol }]));
  return [...unique.values()].sort((a, b) => a.port - b.port || compare(a.protocol, b.protocol));
}

export function toKubePort(port: NormalPort): NetworkPolicyPort {
  return { protocol: port.protocol, port: IntOrString.fromNumber(port.port) };
}

function networkPeer(network: string): NetworkPolicyPeer {
  return { podSelector: { matchLabels: { [networkLabel(network)]: 'true' } } };
}

export function namespacePeer(
  namespaceLabels: Readonly<Record<string, string>>,
  podLabels: Readonly<Record<string, string>> | undefined,
): NetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: sortedRecord(namespaceLabels) },
    podSelector: podLabels ? { matchLabels: sortedRecord(podLabels) } : undefined,
  };
}

export function kubeIpBlock(block: CidrBlock) {
  return { cidr: block.cidr, except: block.except ? [...block.except] : undefined };
}
