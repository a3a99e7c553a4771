import { NetworkProtocol } from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeNetworkPolicy } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import {
  CidrBlock,
  checkCidrBlock,
  checkNetworks,
  checkPort,
  checkWorkloads,
  CidrEgress,
  namespacePeer,
  networkLabel,
  NetworkPolicyRules,
  NormalWorkload,
  PolicyNetwork,
  PolicyWorkload,
  toKubePort,
} from './network-policy-rules';
import { sortedRecord } from '../util/sort';

export { PortExposure } from './network-policy-rules';
export type {
  CidrBlock,
  CidrEgress,
  ExposedPolicyPort,
  PolicyNetwork,
  PolicyPort,
  PolicyWorkload,
} from './network-policy-rules';

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

/** Default internet ranges; see `internetCidrs`. */
export const DEFAULT_INTERNET_CIDRS: readonly CidrBlock[] = [
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'] },
  { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] },
];

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
    return networkLabel(network);
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
    const at = { file: '', path: this.node.path };
    const networks = checkNetworks(props.networks ?? [], this.node.path);
    const workloads = checkWorkloads(props.workloads ?? [], networks, this.node.path);
    const internetCidrs = (props.internetCidrs ?? DEFAULT_INTERNET_CIDRS).map((block) => checkCidrBlock(block, at));
    const dnsPort = props.dnsPort ?? 53;
    checkPort(dnsPort, at);
    const namespace = props.namespace;

    this.defaultDeny = new KubeNetworkPolicy(this, 'DefaultDeny', {
      metadata: { name: 'default-deny', namespace },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    });
    this.dnsEgress = this.addDnsEgress(props, dnsPort);

    this.ingressControllerNamespaceLabels = props.ingressControllerNamespaceLabels ?? {
      'kubernetes.io/metadata.name': 'ingress-nginx',
    };
    this.ingressControllerPodLabels = props.ingressControllerPodLabels;
    const rules = new NetworkPolicyRules({
      networks,
      workloads,
      internetCidrs,
      ingressControllerNamespaceLabels: this.ingressControllerNamespaceLabels,
      ingressControllerPodLabels: this.ingressControllerPodLabels,
    });
    for (const workload of workloads) {
      this.policies.set(workload.name, this.addWorkloadPolicy(workload, rules, namespace));
    }
  }

  /** Every pod in the namespace may query the cluster DNS on `dnsPort`, TCP and UDP. */
  private addDnsEgress(props: ComposeNetworkPoliciesProps, dnsPort: number): KubeNetworkPolicy {
    return new KubeNetworkPolicy(this, 'AllowDns', {
      metadata: { name: 'default-allow-dns', namespace: props.namespace },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [
          {
            to: [
              namespacePeer(
                props.dnsNamespaceLabels ?? { 'kubernetes.io/metadata.name': 'kube-system' },
                props.dnsPodLabels,
              ),
            ],
            ports: [
              toKubePort({ port: dnsPort, protocol: NetworkProtocol.TCP }),
              toKubePort({ port: dnsPort, protocol: NetworkProtocol.UDP }),
            ],
          },
        ],
      },
    });
  }

  /** The policy of one workload: the ingress and egress its rules allow, beyond the default deny. */
  private addWorkloadPolicy(
    workload: NormalWorkload,
    rules: NetworkPolicyRules,
    namespace: string | undefined,
  ): KubeNetworkPolicy {
    const ingress = rules.ingressFor(workload);
    const egress = rules.egressFor(workload);
    return new KubeNetworkPolicy(this, `Allow-${workload.name}`, {
      metadata: { name: `allow-${workload.name}`, namespace },
      spec: {
        podSelector: { matchLabels: workload.podLabels },
        policyTypes: ['Ingress', 'Egress'],
        ingress: ingress.length > 0 ? ingress : undefined,
        egress: egress.length > 0 ? egress : undefined,
      },
    });
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
