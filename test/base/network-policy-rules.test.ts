import {
  checkCidrBlock,
  checkNetworks,
  checkWorkloads,
  NetworkPolicyRules,
  networkLabel,
  PolicyWorkload,
  PortExposure,
} from '../../lib/base/network-policy-rules';
import { IntOrString } from '../../imports/k8s';

/** The rules as plain data, with each IntOrString as its value (what the manifest shows). */
function plain(value: unknown): any {
  return JSON.parse(JSON.stringify(value, (_key, v) => (v instanceof IntOrString ? v.value : v)));
}

const NETWORKS = checkNetworks([{ name: 'backend', internal: true }, { name: 'frontend' }], 'test');
const WORKLOADS: PolicyWorkload[] = [
  {
    name: 'web',
    podLabels: { app: 'web' },
    networks: ['frontend'],
    ports: [{ port: 80 }],
    exposedPorts: [
      { port: 443, via: PortExposure.LOAD_BALANCER },
      { port: 80, via: PortExposure.INGRESS },
    ],
  },
  {
    name: 'api',
    podLabels: { app: 'api' },
    networks: ['frontend', 'backend'],
    ports: [{ port: 8080 }, { port: 8080 }],
  },
  {
    name: 'db',
    podLabels: { app: 'db' },
    networks: ['backend'],
    ports: [{ port: 5432, protocol: 'tcp' }],
    extraEgress: [{ cidr: '10.0.0.1/32', ports: [{ port: 443 }] }],
  },
];

function rules(): { builder: NetworkPolicyRules; byName: Map<string, ReturnType<typeof checkWorkloads>[number]> } {
  const workloads = checkWorkloads(WORKLOADS, NETWORKS, 'test');
  const builder = new NetworkPolicyRules({
    networks: NETWORKS,
    workloads,
    internetCidrs: [{ cidr: '0.0.0.0/0' }],
    ingressControllerNamespaceLabels: { team: 'edge' },
  });
  return { builder, byName: new Map(workloads.map((w) => [w.name, w])) };
}

describe('NetworkPolicyRules', () => {
  test('ingress: shared-network peers on the declared ports, the controller on INGRESS ports, anyone on LOAD_BALANCER ports', () => {
    const { builder, byName } = rules();
    expect(plain(builder.ingressFor(byName.get('web')!))).toEqual([
      {
        from: [{ podSelector: { matchLabels: { [networkLabel('frontend')]: 'true' } } }],
        ports: [{ protocol: 'TCP', port: 80 }],
      },
      { from: [{ namespaceSelector: { matchLabels: { team: 'edge' } } }], ports: [{ protocol: 'TCP', port: 80 }] },
      { ports: [{ protocol: 'TCP', port: 443 }] },
    ]);
  });

  test("egress: each network's ports, the internet unless every network is internal, then extra egress", () => {
    const { builder, byName } = rules();
    const db = plain(builder.egressFor(byName.get('db')!));
    expect(db).toEqual([
      {
        to: [{ podSelector: { matchLabels: { [networkLabel('backend')]: 'true' } } }],
        ports: [
          { protocol: 'TCP', port: 5432 },
          { protocol: 'TCP', port: 8080 },
        ],
      },
      { to: [{ ipBlock: { cidr: '10.0.0.1/32' } }], ports: [{ protocol: 'TCP', port: 443 }] },
    ]);
    const api = plain(builder.egressFor(byName.get('api')!));
    expect(
      api.map((rule: any) => rule.to[0].ipBlock?.cidr ?? Object.keys(rule.to[0].podSelector.matchLabels)[0]),
    ).toEqual([networkLabel('backend'), networkLabel('frontend'), '0.0.0.0/0']);
  });

  test('a workload on no network gets no rules beyond its extra egress', () => {
    const [lonely] = checkWorkloads([{ name: 'job', podLabels: { job: 'x' }, ports: [{ port: 1 }] }], NETWORKS, 'test');
    const builder = new NetworkPolicyRules({
      networks: NETWORKS,
      workloads: [lonely],
      internetCidrs: [],
      ingressControllerNamespaceLabels: {},
    });
    expect(builder.ingressFor(lonely)).toEqual([]);
    expect(builder.egressFor(lonely)).toEqual([]);
  });

  test('checkCidrBlock sorts exceptions and refuses a CIDR without a prefix', () => {
    expect(checkCidrBlock({ cidr: '::/0', except: ['fe80::/10', 'fc00::/7'] }, { file: '', path: 'p' })).toEqual({
      cidr: '::/0',
      except: ['fc00::/7', 'fe80::/10'],
    });
    expect(() => checkCidrBlock({ cidr: '10.0.0.1' }, { file: '', path: 'p' })).toThrow('invalid CIDR');
  });
});
