import { createHash } from 'crypto';
import { isIPv4, isIPv6 } from 'net';
import { NetworkProtocol } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import {
  IntOrString, KubeNetworkPolicy, NetworkPolicyEgressRule, NetworkPolicyIngressRule, NetworkPolicyPeer, NetworkPolicyPort,
} from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { ComposeLocation, Protocol } from '../compose/model';

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

/** Props of `ComposeNetworkPolicies`: the compose networks and who may reach which workload's ports. */
export interface ComposeNetworkPoliciesProps {
  /**
   * `metadata.namespace` of every policy.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /**
   * The compose networks.
   * @default - none
   */
  readonly networks?: readonly PolicyNetwork[];
  /**
   * The workloads whose pods live in the namespace. A pod matched by none of them gets only DNS.
   * @default - none
   */
  readonly workloads?: readonly PolicyWorkload[];
  /**
   * Labels of the ingress controller's namespace (`namespaceSelector.matchLabels`).
   * @default { 'kubernetes.io/metadata.name': 'ingress-nginx' }
   */
  readonly ingressControllerNamespaceLabels?: Readonly<Record<string, string>>;
  /**
   * Labels of the ingress controller's pods, to narrow ingress to them within that namespace.
   * @default - every pod in the ingress controller's namespace
   */
  readonly ingressControllerPodLabels?: Readonly<Record<string, string>>;
  /**
   * Labels of the cluster DNS namespace.
   * @default { 'kubernetes.io/metadata.name': 'kube-system' }
   */
  readonly dnsNamespaceLabels?: Readonly<Record<string, string>>;
  /**
   * Labels of the cluster DNS pods within that namespace, e.g. `{ 'k8s-app': 'kube-dns' }`.
   * @default - every pod in the DNS namespace
   */
  readonly dnsPodLabels?: Readonly<Record<string, string>>;
  /**
   * The port the DNS pods listen on (UDP and TCP). With NodeLocal DNSCache the resolver is a link-local address
   * outside any namespace: add it through `extraEgress`.
   * @default 53
   */
  readonly dnsPort?: number;
  /**
   * What "the internet" is for workloads on a network that is not `internal`.
   * @default - `0.0.0.0/0` except the private ranges 10.0.0.0/8, 172.16.0.0/12 and 192.168.0.0/16, the shared range
   * 100.64.0.0/10 and link-local 169.254.0.0/16; and `::/0` except fc00::/7 and fe80::/10. Pod and Service ranges
   * live in the private ranges on almost every cluster, so this keeps other namespaces closed; link-local keeps the
   * cloud metadata endpoint (169.254.169.254) closed. Pass your own list to reach private hosts outside the cluster.
   */
  readonly internetCidrs?: readonly CidrBlock[];
}

const NETWORK_LABEL_PREFIX = 'network.cdk8s-compose.io/';
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PROTOCOLS: Readonly<Record<string, NetworkProtocol>> = {
  TCP: NetworkProtocol.TCP, UDP: NetworkProtocol.UDP, SCTP: NetworkProtocol.SCTP,
};

/** Default internet ranges; see `internetCidrs`. */
export const DEFAULT_INTERNET_CIDRS: readonly CidrBlock[] = [
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'] },
  { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] },
];

interface NormalPort {
  readonly port: number;
  readonly protocol: NetworkProtocol;
}

/**
 * The NetworkPolicies (networking.k8s.io/v1) of one namespace, from compose networks:
 *
 * - `default-deny`: every pod, `Ingress` and `Egress`, no rules: nothing moves unless a policy below allows it.
 * - `default-allow-dns`: every pod may query the cluster DNS (kube-system, UDP and TCP 53).
 * - `allow-<workload>`, one per workload:
 *   - ingress on its `ports` from pods on any network it shares (pods carrying the network's label);
 *   - ingress on its `INGRESS` ports from the ingress controller's namespace;
 *   - ingress on its `LOAD_BALANCER` ports from anywhere (no `from`): a LoadBalancer delivers client or node
 *     addresses, depending on `externalTrafficPolicy` and the cloud, so no narrower source is right everywhere;
 *   - egress, per network it is on, to that network's pods on the ports the network's workloads declare;
 *   - egress to the internet (`internetCidrs`) when it is on at least one network that is not `internal`: as in
 *     compose, a container on an internal network alone reaches nothing outside it;
 *   - its `extraEgress`.
 *
 * Pods join a network by a label, `network.cdk8s-compose.io/<network>: "true"` (`networkLabel`), which the
 * workload's pod template must carry. Everything is sorted, so the output is byte-stable.
 *
 * Built on the generated `KubeNetworkPolicy`, not kplus `NetworkPolicy`: kplus cannot write an ingress rule without
 * `from` (allow from anywhere), which the LoadBalancer ports need; it adds an empty `podSelector: {}` beside every
 * `namespaceSelector`, which is not the spec's shape; and it makes a child construct for every peer.
 *
 * @example
 * const policies = new ComposeNetworkPolicies(chart, 'NetworkPolicies', {
 *   namespace: 'shop',
 *   networks: [{ name: 'frontend' }, { name: 'backend', internal: true }],
 *   workloads: [
 *     { name: 'web', podLabels: { app: 'web' }, networks: ['frontend'], ports: [{ port: 80 }],
 *       exposedPorts: [{ port: 80, via: PortExposure.INGRESS }] },
 *     { name: 'api', podLabels: { app: 'api' }, networks: ['backend', 'frontend'], ports: [{ port: 8080 }] },
 *     { name: 'db', podLabels: { app: 'db' }, networks: ['backend'], ports: [{ port: 5432 }] },
 *   ],
 * });
 * // on each workload's pod template (a kplus Deployment here):
 * for (const [key, value] of Object.entries(ComposeNetworkPolicies.networkLabels(['backend', 'frontend']))) {
 *   api.podMetadata.addLabel(key, value);
 * }
 */
export class ComposeNetworkPolicies extends Construct {
  /**
   * The pod label key for membership of a compose network: `network.cdk8s-compose.io/<network>`. A network name
   * that is not a valid label name (more than 63 characters, or characters other than letters, digits, `-`, `_`
   * and `.`, or not starting and ending with a letter or digit) is cleaned up and given a short hash of the
   * original, so different names never share a key.
   */
  public static networkLabel(network: string): string {
    if (LABEL_NAME.test(network)) {
      return NETWORK_LABEL_PREFIX + network;
    }
    const hash = createHash('sha256').update(network).digest('hex').slice(0, 8);
    const cleaned = network.replace(/[^-A-Za-z0-9_.]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 54)
      .replace(/[^A-Za-z0-9]+$/, '');
    return `${NETWORK_LABEL_PREFIX}${cleaned ? `${cleaned}-` : 'network-'}${hash}`;
  }

  /** The labels a pod on these networks carries, sorted: `{ 'network.cdk8s-compose.io/backend': 'true', … }`. */
  public static networkLabels(networks: readonly string[]): Record<string, string> {
    return sortedRecord(Object.fromEntries(networks.map((n) => [ComposeNetworkPolicies.networkLabel(n), 'true'])));
  }

  /**
   * Egress to the Kubernetes API on 443 and 6443 anywhere, for a workload whose pods call the API (e.g. an init
   * container that waits for a Job). The API server's address differs per cluster and is often private, hence any
   * address, narrowed to the two usual ports.
   */
  public static kubernetesApiEgress(): CidrEgress {
    return { cidr: '0.0.0.0/0', ports: [{ port: 443 }, { port: 6443 }] };
  }

  /** Denies all ingress and egress to every pod in the namespace. */
  public readonly defaultDeny: KubeNetworkPolicy;
  /** Allows every pod in the namespace to query the cluster DNS. */
  public readonly dnsEgress: KubeNetworkPolicy;
  /** The labels of the namespace whose pods may reach the ports exposed through an Ingress (the ingress controller's). */
  public readonly ingressControllerNamespaceLabels: Readonly<Record<string, string>>;
  /** The labels of the ingress controller's pods within that namespace, when the rule is narrowed to them. */
  public readonly ingressControllerPodLabels?: Readonly<Record<string, string>>;
  private readonly policies = new Map<string, KubeNetworkPolicy>();

  constructor(scope: Construct, id: string, props: ComposeNetworkPoliciesProps = {}) {
    super(scope, id);
    const networks = checkNetworks(props.networks ?? [], this.node.path);
    const workloads = checkWorkloads(props.workloads ?? [], networks, this.node.path);
    const internetCidrs = (props.internetCidrs ?? DEFAULT_INTERNET_CIDRS).map((block) => checkCidrBlock(block, { file: '', path: this.node.path }));
    const dnsPort = props.dnsPort ?? 53;
    checkPort(dnsPort, { file: '', path: this.node.path });
    const namespace = props.namespace;

    this.defaultDeny = new KubeNetworkPolicy(this, 'DefaultDeny', {
      metadata: { name: 'default-deny', namespace },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    });

    this.dnsEgress = new KubeNetworkPolicy(this, 'AllowDns', {
      metadata: { name: 'default-allow-dns', namespace },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [{
          to: [namespacePeer(props.dnsNamespaceLabels ?? { 'kubernetes.io/metadata.name': 'kube-system' }, props.dnsPodLabels)],
          ports: [toKubePort({ port: dnsPort, protocol: NetworkProtocol.TCP }), toKubePort({ port: dnsPort, protocol: NetworkProtocol.UDP })],
        }],
      },
    });

    // The ports each network's workloads accept, for the egress rules of every workload on that network.
    const networkPorts = new Map<string, NormalPort[]>();
    for (const network of networks.keys()) {
      networkPorts.set(network, sortPorts(workloads.filter((w) => w.networks.includes(network)).flatMap((w) => w.ports)));
    }
    const ingressNamespaceLabels = props.ingressControllerNamespaceLabels ?? { 'kubernetes.io/metadata.name': 'ingress-nginx' };
    this.ingressControllerNamespaceLabels = ingressNamespaceLabels;
    this.ingressControllerPodLabels = props.ingressControllerPodLabels;

    for (const workload of workloads) {
      const ingress: NetworkPolicyIngressRule[] = [];
      if (workload.ports.length > 0 && workload.networks.length > 0) {
        ingress.push({ from: workload.networks.map(networkPeer), ports: workload.ports.map(toKubePort) });
      }
      const viaIngress = sortPorts(workload.exposed.filter((p) => p.via === PortExposure.INGRESS));
      if (viaIngress.length > 0) {
        ingress.push({ from: [namespacePeer(ingressNamespaceLabels, props.ingressControllerPodLabels)], ports: viaIngress.map(toKubePort) });
      }
      const viaLoadBalancer = sortPorts(workload.exposed.filter((p) => p.via === PortExposure.LOAD_BALANCER));
      if (viaLoadBalancer.length > 0) {
        ingress.push({ ports: viaLoadBalancer.map(toKubePort) });
      }

      const egress: NetworkPolicyEgressRule[] = [];
      for (const network of workload.networks) {
        const ports = networkPorts.get(network)!;
        if (ports.length > 0) {
          egress.push({ to: [networkPeer(network)], ports: ports.map(toKubePort) });
        }
      }
      if (workload.networks.some((n) => !networks.get(n)!.internal)) {
        egress.push({ to: internetCidrs.map((block) => ({ ipBlock: kubeIpBlock(block) })) });
      }
      for (const extra of workload.extraEgress) {
        egress.push({
          to: [{ ipBlock: kubeIpBlock(extra) }],
          ports: extra.ports.length > 0 ? extra.ports.map(toKubePort) : undefined,
        });
      }

      this.policies.set(workload.name, new KubeNetworkPolicy(this, `Allow-${workload.name}`, {
        metadata: { name: `allow-${workload.name}`, namespace },
        spec: {
          podSelector: { matchLabels: workload.podLabels },
          policyTypes: ['Ingress', 'Egress'],
          ingress: ingress.length > 0 ? ingress : undefined,
          egress: egress.length > 0 ? egress : undefined,
        },
      }));
    }
  }

  /** The per-workload policies, by workload name. */
  public get workloadPolicies(): Readonly<Record<string, KubeNetworkPolicy>> {
    return Object.fromEntries(this.policies);
  }

  /** The policy of one workload. */
  public policyFor(workload: string): KubeNetworkPolicy {
    const policy = this.policies.get(workload);
    if (!policy) {
      throw new ComposeError(`no network policy for workload "${workload}"`, {
        at: { file: '', path: this.node.path },
        allowed: [...this.policies.keys()].join(', ') || 'no workloads were given',
      });
    }
    return policy;
  }
}

interface NormalWorkload {
  readonly name: string;
  readonly podLabels: Record<string, string>;
  readonly networks: readonly string[];
  readonly ports: readonly NormalPort[];
  readonly exposed: ReadonlyArray<NormalPort & { readonly via: PortExposure }>;
  readonly extraEgress: ReadonlyArray<CidrBlock & { readonly ports: readonly NormalPort[] }>;
}

function checkNetworks(networks: readonly PolicyNetwork[], constructPath: string): Map<string, { internal: boolean }> {
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
    const label = ComposeNetworkPolicies.networkLabel(network.name);
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

function checkWorkloads(
  workloads: readonly PolicyWorkload[],
  networks: Map<string, { internal: boolean }>,
  constructPath: string,
): NormalWorkload[] {
  const seen = new Set<string>();
  return [...workloads].sort((a, b) => compare(a.name, b.name)).map((workload) => {
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
          throw new ComposeError('invalid port exposure', { at, value: p.via, allowed: Object.values(PortExposure).join(', ') });
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

function checkPort(port: number, at: ComposeLocation): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ComposeError('invalid port', { at, value: port, allowed: 'a port number 1-65535' });
  }
}

function checkCidrBlock(block: CidrBlock, at: ComposeLocation): CidrBlock {
  for (const cidr of [block.cidr, ...(block.except ?? [])]) {
    if (!isCidr(cidr)) {
      throw new ComposeError('invalid CIDR', {
        at,
        value: cidr,
        allowed: 'an IPv4 or IPv6 address with a prefix length, e.g. "10.0.0.0/8" or "fd00::/8"',
      });
    }
  }
  return { cidr: block.cidr, except: block.except && block.except.length > 0 ? [...block.except].sort(compare) : undefined };
}

function isCidr(text: string): boolean {
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text ?? '');
  if (!match) {
    return false;
  }
  const prefix = Number(match[2]);
  return (isIPv4(match[1]) && prefix <= 32) || (isIPv6(match[1]) && prefix <= 128);
}

function sortPorts(ports: readonly NormalPort[]): NormalPort[] {
  const unique = new Map(ports.map((p) => [`${p.protocol}/${p.port}`, { port: p.port, protocol: p.protocol }]));
  return [...unique.values()].sort((a, b) => a.port - b.port || compare(a.protocol, b.protocol));
}

function toKubePort(port: NormalPort): NetworkPolicyPort {
  return { protocol: port.protocol, port: IntOrString.fromNumber(port.port) };
}

function networkPeer(network: string): NetworkPolicyPeer {
  return { podSelector: { matchLabels: { [ComposeNetworkPolicies.networkLabel(network)]: 'true' } } };
}

function namespacePeer(
  namespaceLabels: Readonly<Record<string, string>>,
  podLabels: Readonly<Record<string, string>> | undefined,
): NetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: sortedRecord(namespaceLabels) },
    podSelector: podLabels ? { matchLabels: sortedRecord(podLabels) } : undefined,
  };
}

function kubeIpBlock(block: CidrBlock) {
  return { cidr: block.cidr, except: block.except ? [...block.except] : undefined };
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
