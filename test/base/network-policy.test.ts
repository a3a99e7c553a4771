import { Chart, Testing } from 'cdk8s';
import { NetworkProtocol } from 'cdk8s-plus-27';
import {
  ComposeNetworkPolicies,
  ComposeNetworkPoliciesProps,
  PolicyWorkload,
  PortExposure,
} from '../../lib/base/network-policy';
import { expectValidManifests } from '../support/validate';

const NS = 'shop';

function synth(props: ComposeNetworkPoliciesProps): any[] {
  const chart: Chart = Testing.chart();
  new ComposeNetworkPolicies(chart, 'NetworkPolicies', props);
  const manifests = Testing.synth(chart);
  expectValidManifests(manifests);
  return manifests;
}

function policy(manifests: any[], name: string): any {
  const found = manifests.filter((m) => m.kind === 'NetworkPolicy' && m.metadata.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

const WEB: PolicyWorkload = {
  name: 'web',
  podLabels: { app: 'web' },
  networks: ['frontend'],
  ports: [{ port: 80 }],
  exposedPorts: [{ port: 80, via: PortExposure.INGRESS }],
};
const API: PolicyWorkload = {
  name: 'api',
  podLabels: { app: 'api' },
  networks: ['frontend', 'backend'],
  ports: [{ port: 8080, protocol: 'tcp' }],
};
const DB: PolicyWorkload = { name: 'db', podLabels: { app: 'db' }, networks: ['backend'], ports: [{ port: 5432 }] };
const WORKER: PolicyWorkload = { name: 'worker', podLabels: { app: 'worker' }, networks: ['backend'] };
const GAME: PolicyWorkload = {
  name: 'game',
  podLabels: { app: 'game' },
  networks: ['frontend'],
  ports: [
    { port: 27015, protocol: 'udp' },
    { port: 27015, protocol: NetworkProtocol.TCP },
  ],
  exposedPorts: [{ port: 27015, protocol: 'udp', via: PortExposure.LOAD_BALANCER }],
};

const APP: ComposeNetworkPoliciesProps = {
  namespace: NS,
  networks: [{ name: 'frontend' }, { name: 'backend', internal: true }],
  workloads: [WEB, API, DB, WORKER, GAME],
};

const FRONTEND = 'network.cdk8s-compose.io/frontend';
const BACKEND = 'network.cdk8s-compose.io/backend';

describe('ComposeNetworkPolicies', () => {
  test('denies everything by default, for both directions', () => {
    expect(policy(synth(APP), 'default-deny')).toEqual({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'default-deny', namespace: NS },
      spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
    });
  });

  test('lets every pod reach the cluster DNS on UDP and TCP 53', () => {
    expect(policy(synth(APP), 'default-allow-dns').spec).toEqual({
      podSelector: {},
      policyTypes: ['Egress'],
      egress: [
        {
          to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } } }],
          ports: [
            { protocol: 'TCP', port: 53 },
            { protocol: 'UDP', port: 53 },
          ],
        },
      ],
    });
  });

  test('web: peers on its network and the ingress controller reach port 80; it reaches its network and the internet', () => {
    expect(policy(synth(APP), 'allow-web')).toEqual({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'allow-web', namespace: NS },
      spec: {
        podSelector: { matchLabels: { app: 'web' } },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          { from: [{ podSelector: { matchLabels: { [FRONTEND]: 'true' } } }], ports: [{ protocol: 'TCP', port: 80 }] },
          {
            from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
            ports: [{ protocol: 'TCP', port: 80 }],
          },
        ],
        egress: [
          {
            to: [{ podSelector: { matchLabels: { [FRONTEND]: 'true' } } }],
            ports: [
              { protocol: 'TCP', port: 80 },
              { protocol: 'TCP', port: 8080 },
              { protocol: 'TCP', port: 27015 },
              { protocol: 'UDP', port: 27015 },
            ],
          },
          {
            to: [
              {
                ipBlock: {
                  cidr: '0.0.0.0/0',
                  except: ['10.0.0.0/8', '100.64.0.0/10', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16'],
                },
              },
              { ipBlock: { cidr: '::/0', except: ['fc00::/7', 'fe80::/10'] } },
            ],
          },
        ],
      },
    });
  });

  test('db on an internal network alone gets no egress beyond the namespace', () => {
    expect(policy(synth(APP), 'allow-db').spec).toEqual({
      podSelector: { matchLabels: { app: 'db' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [{ podSelector: { matchLabels: { [BACKEND]: 'true' } } }], ports: [{ protocol: 'TCP', port: 5432 }] },
      ],
      egress: [
        {
          to: [{ podSelector: { matchLabels: { [BACKEND]: 'true' } } }],
          ports: [
            { protocol: 'TCP', port: 5432 },
            { protocol: 'TCP', port: 8080 },
          ],
        },
      ],
    });
  });

  test('a LoadBalancer port is open to any source: a rule with ports and no from', () => {
    const game = policy(synth(APP), 'allow-game').spec;
    expect(game.ingress).toContainEqual({ ports: [{ protocol: 'UDP', port: 27015 }] });
  });

  test('a workload without ports accepts nothing but still reaches its network', () => {
    const worker = policy(synth(APP), 'allow-worker').spec;
    expect(worker.ingress).toBeUndefined();
    expect(worker.egress).toEqual([
      {
        to: [{ podSelector: { matchLabels: { [BACKEND]: 'true' } } }],
        ports: [
          { protocol: 'TCP', port: 5432 },
          { protocol: 'TCP', port: 8080 },
        ],
      },
    ]);
  });

  test('the representative app', () => {
    expect(synth(APP)).toMatchSnapshot();
  });

  test('reachability matches compose: shared network and declared port, or an exposure', () => {
    const manifests = synth(APP);
    const pods = APP.workloads!.map((w) => pod(w));
    const byName = (name: string) => pods.find((p) => p.name === name)!;

    // Every pair of workloads, on every port any of them declares, plus an undeclared one.
    const probes = [
      ...new Set(
        APP.workloads!.flatMap((w) =>
          (w.ports ?? []).map((p) => `${(p.protocol ?? 'TCP').toString().toUpperCase()}/${p.port}`),
        ),
      ),
    ];
    probes.push('TCP/9999');
    const actual: string[] = [];
    for (const from of pods) {
      for (const to of pods) {
        for (const probe of probes) {
          const [protocol, port] = probe.split('/');
          if (connects(manifests, from, to, Number(port), protocol)) {
            actual.push(`${from.name} -> ${to.name} ${probe}`);
          }
        }
      }
    }
    const expected: string[] = [];
    for (const from of APP.workloads!) {
      for (const to of APP.workloads!) {
        const shared = (from.networks ?? []).some((n) => (to.networks ?? []).includes(n));
        for (const probe of probes) {
          const declared = (to.ports ?? []).some(
            (p) => `${(p.protocol ?? 'TCP').toString().toUpperCase()}/${p.port}` === probe,
          );
          if (shared && declared) {
            expected.push(`${from.name} -> ${to.name} ${probe}`);
          }
        }
      }
    }
    expect(actual.sort()).toEqual(expected.sort());
    expect(actual).toContain('api -> db TCP/5432');
    expect(actual).not.toContain('web -> db TCP/5432');

    const controller = {
      name: 'controller',
      namespace: 'ingress-nginx',
      labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
      ip: '10.244.9.9',
    };
    const internet = { name: 'internet', ip: '8.8.8.8' };
    expect(connects(manifests, controller, byName('web'), 80, 'TCP')).toBe(true);
    expect(connects(manifests, controller, byName('api'), 8080, 'TCP')).toBe(false);
    expect(connects(manifests, internet, byName('game'), 27015, 'UDP')).toBe(true);
    expect(connects(manifests, internet, byName('game'), 27015, 'TCP')).toBe(false);
    expect(connects(manifests, internet, byName('web'), 80, 'TCP')).toBe(false);

    const dns = { name: 'coredns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ip: '10.244.0.10' };
    const publicHost = { name: 'public', ip: '1.1.1.1' };
    const clusterHost = { name: 'apiserver', ip: '10.96.0.1' };
    for (const p of pods) {
      expect(connects(manifests, p, dns, 53, 'UDP')).toBe(true);
      expect(connects(manifests, p, dns, 53, 'TCP')).toBe(true);
      expect(connects(manifests, p, dns, 80, 'TCP')).toBe(false);
      expect(connects(manifests, p, clusterHost, 443, 'TCP')).toBe(false);
    }
    expect(connects(manifests, byName('web'), publicHost, 443, 'TCP')).toBe(true);
    expect(connects(manifests, byName('api'), publicHost, 443, 'TCP')).toBe(true);
    expect(connects(manifests, byName('db'), publicHost, 443, 'TCP')).toBe(false);
    expect(connects(manifests, byName('worker'), publicHost, 443, 'TCP')).toBe(false);
  });

  test('output does not depend on the order of the input', () => {
    const shuffled: ComposeNetworkPoliciesProps = {
      ...APP,
      networks: [...APP.networks!].reverse(),
      workloads: [...APP.workloads!]
        .reverse()
        .map((w) => ({ ...w, networks: [...(w.networks ?? [])].reverse(), ports: [...(w.ports ?? [])].reverse() })),
    };
    expect(JSON.stringify(synth(shuffled))).toBe(JSON.stringify(synth(APP)));
  });

  test('exposes the policies as handles', () => {
    const chart = Testing.chart();
    const policies = new ComposeNetworkPolicies(chart, 'NetworkPolicies', APP);
    expect(policies.defaultDeny.name).toBe('default-deny');
    expect(policies.dnsEgress.name).toBe('default-allow-dns');
    expect(policies.policyFor('api').name).toBe('allow-api');
    expect(Object.keys(policies.workloadPolicies)).toEqual(['api', 'db', 'game', 'web', 'worker']);
    expect(() => policies.policyFor('cache')).toThrow(
      'test/NetworkPolicies: no network policy for workload "cache". Allowed: api, db, game, web, worker.',
    );
  });

  test('takes the ingress controller and DNS selectors, the DNS port and the internet ranges from props', () => {
    const manifests = synth({
      networks: [{ name: 'default' }],
      workloads: [{ ...WEB, networks: ['default'] }],
      ingressControllerNamespaceLabels: { ingress: 'traefik' },
      ingressControllerPodLabels: { 'app.kubernetes.io/name': 'traefik' },
      dnsNamespaceLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' },
      dnsPodLabels: { 'dns.operator.openshift.io/daemonset-dns': 'default' },
      dnsPort: 5353,
      internetCidrs: [{ cidr: '0.0.0.0/0' }],
    });
    expect(policy(manifests, 'default-allow-dns').spec.egress).toEqual([
      {
        to: [
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-dns' } },
            podSelector: { matchLabels: { 'dns.operator.openshift.io/daemonset-dns': 'default' } },
          },
        ],
        ports: [
          { protocol: 'TCP', port: 5353 },
          { protocol: 'UDP', port: 5353 },
        ],
      },
    ]);
    const web = policy(manifests, 'allow-web').spec;
    expect(web.ingress[1].from).toEqual([
      {
        namespaceSelector: { matchLabels: { ingress: 'traefik' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'traefik' } },
      },
    ]);
    expect(web.egress[1]).toEqual({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] });
    expect(manifests.every((m) => m.metadata.namespace === undefined)).toBe(true);
  });

  test('adds extra egress, e.g. to the Kubernetes API', () => {
    const manifests = synth({
      networks: [{ name: 'backend', internal: true }],
      workloads: [
        {
          ...WORKER,
          extraEgress: [
            ComposeNetworkPolicies.kubernetesApiEgress(),
            { cidr: '192.168.10.0/24', except: ['192.168.10.1/32'] },
          ],
        },
      ],
    });
    expect(policy(manifests, 'allow-worker').spec.egress).toEqual([
      {
        to: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
        ports: [
          { protocol: 'TCP', port: 443 },
          { protocol: 'TCP', port: 6443 },
        ],
      },
      { to: [{ ipBlock: { cidr: '192.168.10.0/24', except: ['192.168.10.1/32'] } }] },
    ]);
  });

  test('a namespace without workloads gets only the deny and DNS policies', () => {
    expect(synth({}).map((m) => m.metadata.name)).toEqual(['default-deny', 'default-allow-dns']);
  });
});

describe('ComposeNetworkPolicies.networkLabel', () => {
  test('keeps names that are valid label names', () => {
    expect(ComposeNetworkPolicies.networkLabel('backend')).toBe('network.cdk8s-compose.io/backend');
    expect(ComposeNetworkPolicies.networkLabel('front_tier.v2')).toBe('network.cdk8s-compose.io/front_tier.v2');
    expect(ComposeNetworkPolicies.networkLabel('Front')).toBe('network.cdk8s-compose.io/Front');
  });

  test('cleans up other names and keeps them apart with a hash', () => {
    const names = ['_private', 'my net', 'a'.repeat(64), 'a'.repeat(65), '___', 'trailing-', 'my-net'];
    const labels = names.map((n) => ComposeNetworkPolicies.networkLabel(n));
    expect(new Set(labels).size).toBe(names.length);
    for (const label of labels) {
      const name = label.slice('network.cdk8s-compose.io/'.length);
      expect(name).toMatch(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
    }
    expect(ComposeNetworkPolicies.networkLabel('my net')).toMatch(/^network\.cdk8s-compose\.io\/my-net-[0-9a-f]{8}$/);
    expect(ComposeNetworkPolicies.networkLabel('___')).toMatch(/^network\.cdk8s-compose\.io\/network-[0-9a-f]{8}$/);
    expect(ComposeNetworkPolicies.networkLabel('my net')).toBe(ComposeNetworkPolicies.networkLabel('my net'));
  });

  test('networkLabels gives the sorted pod labels', () => {
    expect(ComposeNetworkPolicies.networkLabels(['frontend', 'backend'])).toEqual({
      [BACKEND]: 'true',
      [FRONTEND]: 'true',
    });
    expect(Object.keys(ComposeNetworkPolicies.networkLabels(['frontend', 'backend']))).toEqual([BACKEND, FRONTEND]);
  });
});

describe('ComposeNetworkPolicies errors', () => {
  const at = { file: 'compose.yaml', path: 'services.web' };
  test.each<[string, ComposeNetworkPoliciesProps, string]>([
    [
      'an undeclared network',
      { networks: [{ name: 'backend' }], workloads: [{ ...WEB, at }] },
      'compose.yaml: services.web: workload "web" is on network "frontend", which is not declared. Allowed: backend. ' +
        'Fix: declare the network in `networks`.',
    ],
    [
      'a workload given twice',
      { networks: [{ name: 'frontend' }], workloads: [WEB, WEB] },
      'test/NetworkPolicies: workload "web" is given twice. Fix: give each workload once.',
    ],
    [
      'empty pod labels',
      { workloads: [{ name: 'web', podLabels: {}, at }] },
      'compose.yaml: services.web: workload "web" has no pod labels. Allowed: labels that select exactly its pods, e.g. { app: "web" }. ' +
        'Fix: an empty selector would open every pod in the namespace.',
    ],
    [
      'a bad workload name',
      { workloads: [{ name: 'Web_1', podLabels: { app: 'web' } }] },
      'test/NetworkPolicies: invalid workload name (got "Web_1"). Allowed: a DNS-1123 label: lower-case letters, digits and "-", at most 63 characters.',
    ],
    [
      'a bad port',
      { workloads: [{ name: 'web', podLabels: { app: 'web' }, ports: [{ port: 70000 }], at }] },
      'compose.yaml: services.web: invalid port (got 70000). Allowed: a port number 1-65535.',
    ],
    [
      'a bad protocol',
      { workloads: [{ name: 'web', podLabels: { app: 'web' }, ports: [{ port: 80, protocol: 'icmp' as any }], at }] },
      'compose.yaml: services.web: invalid port protocol (got "icmp"). Allowed: TCP, UDP or SCTP.',
    ],
    [
      'a bad exposure',
      {
        workloads: [
          { name: 'web', podLabels: { app: 'web' }, exposedPorts: [{ port: 80, via: 'nodePort' as any }], at },
        ],
      },
      'compose.yaml: services.web: invalid port exposure (got "nodePort"). Allowed: ingress, loadBalancer.',
    ],
    [
      'a bad CIDR',
      { workloads: [{ name: 'web', podLabels: { app: 'web' }, extraEgress: [{ cidr: '10.0.0.0' }], at }] },
      'compose.yaml: services.web: invalid CIDR (got "10.0.0.0"). Allowed: an IPv4 or IPv6 address with a prefix length, e.g. "10.0.0.0/8" or "fd00::/8".',
    ],
    [
      'a bad internet range',
      { internetCidrs: [{ cidr: '0.0.0.0/0', except: ['300.0.0.0/8'] }] },
      'test/NetworkPolicies: invalid CIDR (got "300.0.0.0/8").',
    ],
    [
      'a network given twice',
      { networks: [{ name: 'a' }, { name: 'a', at: { file: 'compose.yaml', path: 'networks.a' } }] },
      'compose.yaml: networks.a: network "a" is given twice. Fix: give each network once.',
    ],
  ])('throws for %s', (_what, props, message) => {
    expect(() => synth(props)).toThrow(message);
  });
});

// A small NetworkPolicy evaluator, after https://kubernetes.io/docs/concepts/services-networking/network-policies/:
// a connection needs the source's egress and the destination's ingress; a pod selected by no policy of a
// direction is open in that direction; rules are ORed; peers in a rule are ORed; a missing `from`/`to`/`ports`
// matches everything.

interface Endpoint {
  readonly name: string;
  readonly ip: string;
  /** Pods only. */
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
}

function pod(workload: PolicyWorkload): Endpoint {
  const index = APP.workloads!.indexOf(workload) + 1;
  return {
    name: workload.name,
    namespace: NS,
    ip: `10.244.1.${index}`,
    labels: { ...workload.podLabels, ...ComposeNetworkPolicies.networkLabels(workload.networks ?? []) },
  };
}

function connects(manifests: any[], from: Endpoint, to: Endpoint, port: number, protocol: string): boolean {
  return (
    allows(manifests, from, 'Egress', to, port, protocol) && allows(manifests, to, 'Ingress', from, port, protocol)
  );
}

function allows(
  manifests: any[],
  subject: Endpoint,
  direction: 'Ingress' | 'Egress',
  peer: Endpoint,
  port: number,
  protocol: string,
): boolean {
  if (!subject.namespace) {
    return true; // outside the cluster: no policy applies
  }
  const policies = manifests.filter(
    (m) =>
      m.kind === 'NetworkPolicy' &&
      (m.metadata.namespace ?? NS) === subject.namespace &&
      matches(m.spec.podSelector, subject.labels ?? {}) &&
      m.spec.policyTypes.includes(direction),
  );
  if (policies.length === 0) {
    return true;
  }
  const rulesKey = direction === 'Ingress' ? 'ingress' : 'egress';
  const peersKey = direction === 'Ingress' ? 'from' : 'to';
  return policies.some((p) =>
    (p.spec[rulesKey] ?? []).some((rule: any) => {
      const portOk =
        !rule.ports || rule.ports.some((rp: any) => rp.port === port && (rp.protocol ?? 'TCP') === protocol);
      const peerOk = !rule[peersKey] || rule[peersKey].some((pp: any) => peerMatches(pp, peer, subject.namespace!));
      return portOk && peerOk;
    }),
  );
}

function peerMatches(peer: any, endpoint: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) {
    return (
      inCidr(endpoint.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c: string) => inCidr(endpoint.ip, c))
    );
  }
  if (!endpoint.namespace) {
    return false;
  }
  const namespaceOk = peer.namespaceSelector
    ? matches(peer.namespaceSelector, { 'kubernetes.io/metadata.name': endpoint.namespace })
    : endpoint.namespace === policyNamespace;
  const podOk = peer.podSelector ? matches(peer.podSelector, endpoint.labels ?? {}) : true;
  return namespaceOk && podOk;
}

function matches(selector: any, labels: Record<string, string>): boolean {
  return Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

function inCidr(ip: string, cidr: string): boolean {
  if (cidr.includes(':') || ip.includes(':')) {
    return false; // the endpoints here are IPv4
  }
  const [base, bits] = cidr.split('/');
  const toInt = (a: string) => a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(ip) / size) === Math.floor(toInt(base) / size);
}
