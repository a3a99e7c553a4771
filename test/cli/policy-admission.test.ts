import { admits, policiesSelecting } from '../../lib/cli/policy-admission';

/** What the generated NetworkPolicies admit between two pods, as the runbook's test pods rely on it. */

const deny = { metadata: { name: 'default-deny' }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } };
const net = 'network.cdk8s-compose.io/backend';
const db = {
  metadata: { name: 'allow-db' },
  spec: {
    podSelector: { matchLabels: { app: 'db' } },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      { from: [{ podSelector: { matchLabels: { [net]: 'true' } } }], ports: [{ port: 5432, protocol: 'TCP' }] },
    ],
  },
};
const api = {
  metadata: { name: 'allow-api' },
  spec: {
    podSelector: { matchLabels: { app: 'api' } },
    policyTypes: ['Ingress', 'Egress'],
    egress: [
      { to: [{ podSelector: { matchLabels: { [net]: 'true' } } }], ports: [{ port: 5432, protocol: 'TCP' }] },
      { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }] },
    ],
  },
};
const dbPod = { app: 'db', [net]: 'true' };
const port = { port: 5432, protocol: 'TCP' };

test('a pod with no policy of its own is denied by default-deny, even on the network', () => {
  expect(admits([deny, db, api], { [net]: 'true' }, dbPod, port)).toBe(false);
});

test('the labels of a workload whose egress reaches the port, plus the network label, are admitted', () => {
  expect(admits([deny, db, api], { app: 'api', [net]: 'true' }, dbPod, port)).toBe(true);
});

test('without the network label the destination refuses it', () => {
  expect(admits([deny, db, api], { app: 'api' }, dbPod, port)).toBe(false);
});

test('another port, or UDP, is not admitted', () => {
  expect(admits([deny, db, api], { app: 'api', [net]: 'true' }, dbPod, { port: 5433, protocol: 'TCP' })).toBe(false);
  expect(admits([deny, db, api], { app: 'api', [net]: 'true' }, dbPod, { port: 5432, protocol: 'UDP' })).toBe(false);
});

test('an ipBlock peer admits no pod of the namespace (pod addresses are unknown), a rule without ports admits every port', () => {
  const open = {
    metadata: { name: 'open' },
    spec: {
      podSelector: { matchLabels: { app: 'x' } },
      policyTypes: ['Egress'],
      egress: [{ to: [{ podSelector: {} }] }],
    },
  };
  expect(admits([deny, db, open], { app: 'x', [net]: 'true' }, dbPod, port)).toBe(true);
  expect(admits([deny, db, open], { app: 'x', [net]: 'true' }, dbPod, { port: 1, protocol: 'TCP' })).toBe(false);
  expect(admits([api], { app: 'api' }, { app: 'elsewhere' }, { port: 443, protocol: 'TCP' })).toBe(false);
});

test('no policy at all admits everything', () => {
  expect(admits([], {}, {}, port)).toBe(true);
});

test('the policies that may select the two pods answer as all of them do', () => {
  const open = {
    metadata: { name: 'open' },
    spec: { podSelector: { matchLabels: { app: 'x', tier: 'web' } }, policyTypes: ['Egress'], egress: [{}] },
  };
  const expressions = {
    metadata: { name: 'expressions' },
    spec: { podSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, policyTypes: ['Ingress'] },
  };
  const lone = { metadata: { name: 'lone' }, spec: { policyTypes: ['Ingress'] } };
  const all = [deny, db, api, open, expressions, lone];
  const selecting = policiesSelecting(all);
  const pods: Record<string, string>[] = [
    {},
    { app: 'api' },
    { app: 'api', [net]: 'true' },
    dbPod,
    { app: 'x' },
    { app: 'x', tier: 'web' },
  ];
  expect(selecting({ app: 'api' }, dbPod)).toEqual([deny, db, api, expressions, lone]);
  for (const from of pods) {
    for (const to of pods) {
      for (const only of [undefined, 'Ingress', 'Egress'] as const) {
        expect(admits(selecting(from, to), from, to, port, only)).toBe(admits(all, from, to, port, only));
      }
    }
  }
});
