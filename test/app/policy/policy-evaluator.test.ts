import { PolicyEvaluator } from '../../../lib/app/policy/policy-evaluator';

const web = { name: 'web', labels: { 'app': 'web', 'network.cdk8s-compose.io/front': 'true' } };
const api = { name: 'api', labels: { 'app': 'api', 'network.cdk8s-compose.io/front': 'true' } };
const policy = (name: string, spec: any) => ({ kind: 'NetworkPolicy', metadata: { name }, spec });

test('a pod no policy selects is open; the rules of the policies that select it are ORed', () => {
  expect(new PolicyEvaluator([]).admits(web, api, 8000)).toBe(true);
  const evaluator = new PolicyEvaluator([
    policy('default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
    policy('allow-api', {
      podSelector: { matchLabels: { app: 'api' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { 'network.cdk8s-compose.io/front': 'true' } } }],
          ports: [{ port: 8000, protocol: 'TCP' }],
        },
      ],
    }),
  ]);
  expect(evaluator.admits(web, api, 8000)).toBe('no NetworkPolicy lets "web" out to "api" on port 8000');
  expect(evaluator.admits(web, api, 9000)).toBe('no NetworkPolicy admits "web" into "api" on port 9000');
});

test('a rule without ports admits every port; a namespaceSelector peer is not a pod of the namespace', () => {
  const evaluator = new PolicyEvaluator([
    policy('allow-api', {
      podSelector: { matchLabels: { app: 'api' } },
      ingress: [{ from: [{ namespaceSelector: {}, podSelector: {} }] }],
    }),
    policy('allow-web', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'], egress: [{}] }),
  ]);
  expect(evaluator.admits(web, api, 1)).toBe('no NetworkPolicy admits "web" into "api" on port 1');
  expect(evaluator.admits(api, web, 65535)).toBe(true);
});
