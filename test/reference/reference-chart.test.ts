import * as fs from 'fs';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { ReferenceChart, referenceAppDir } from '../../lib/reference-chart';
import { expectManifestsPass } from '../support/checks';
import { checkSecretLeaks } from '../support/safety-rules';
import { findDoc, findDocs } from '../support/yaml-docs';

const chart = new ReferenceChart(Testing.app(), 'shop');
const docs = Testing.synth(chart);
const app = chart.app;
const WORKLOADS = ['Deployment', 'StatefulSet', 'Job', 'CronJob'];

function podSpec(doc: any): any {
  return doc.kind === 'CronJob' ? doc.spec.jobTemplate.spec.template.spec : doc.spec.template.spec;
}

/** The fake secret values of the reference app, from its .env and secret files. */
function demoSecrets(): string[] {
  const dir = referenceAppDir();
  const fromEnv = fs.readFileSync(path.join(dir, '.env'), 'utf8').split('\n')
    .filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.slice(line.indexOf('=') + 1));
  const fromFiles = fs.readdirSync(path.join(dir, 'secrets')).map((f) => fs.readFileSync(path.join(dir, 'secrets', f), 'utf8').trim());
  return [...fromEnv, ...fromFiles];
}

test('the reference app synthesizes to the committed snapshot', () => {
  expect(docs).toMatchSnapshot();
});

test('dist/ holds exactly what a fresh synth writes', () => {
  const dist = fs.readFileSync(path.join(referenceAppDir(), '..', '..', 'dist', 'shop.k8s.yaml'), 'utf8');
  expect(YAML.parseAllDocuments(dist).map((d) => d.toJS())).toEqual(docs);
});

test('synthesis is byte-stable', () => {
  const again = Testing.synth(new ReferenceChart(Testing.app(), 'shop'));
  expect(JSON.stringify(again)).toBe(JSON.stringify(docs));
});

test('every manifest passes the validator, the Kubernetes rules and the safety rules', () => {
  expectManifestsPass(docs, { allowServiceAccountToken: ['api', 'worker'] });
});

test('every row of the mapping table is there', () => {
  const kinds = new Set(docs.map((d) => d.kind));
  for (const kind of ['Namespace', 'Deployment', 'Service', 'NetworkPolicy', 'PersistentVolumeClaim', 'ConfigMap', 'Secret',
    'Ingress', 'HorizontalPodAutoscaler', 'ResourceQuota', 'CronJob', 'Job']) {
    expect(kinds).toContain(kind);
  }
  expect(findDoc(docs, 'Service', 'api-external').spec.type).toBe('LoadBalancer');
  expect(findDoc(docs, 'Ingress', 'web').spec.rules[0].host).toBe('shop.example.com');
});

test('no secret value appears outside a Secret, nor in a warning', () => {
  const secrets = demoSecrets();
  expect(secrets).toHaveLength(6);
  expect(checkSecretLeaks(docs, { secretValues: secrets })).toEqual([]);
  const warnings = JSON.stringify(app.warnings);
  for (const secret of secrets) {
    expect(warnings).not.toContain(secret);
  }
});

test('every selector matches its pod labels', () => {
  for (const workload of docs.filter((d) => ['Deployment', 'StatefulSet'].includes(d.kind))) {
    const labels = workload.spec.template.metadata.labels;
    for (const [key, value] of Object.entries(workload.spec.selector.matchLabels)) {
      expect(labels[key]).toBe(value);
    }
  }
  for (const service of findDocs(docs, 'Service')) {
    const pods = docs.filter((d) => WORKLOADS.includes(d.kind)).map((d) => (d.kind === 'CronJob'
      ? d.spec.jobTemplate.spec.template.metadata.labels : d.spec.template.metadata.labels));
    const matches = pods.filter((labels) => Object.entries(service.spec.selector).every(([k, v]) => labels[k] === v));
    expect(`${service.metadata.name}: ${matches.length}`).toBe(`${service.metadata.name}: 1`);
  }
});

test('every dependent has its wait', () => {
  const expected: Record<string, string[]> = {
    api: ['wait-for-redis', 'wait-for-shop-db', 'wait-for-migrate'],
    migrate: ['wait-for-shop-db'],
    web: ['wait-for-api'],
    worker: ['wait-for-redis', 'wait-for-shop-db', 'wait-for-migrate'],
  };
  for (const service of app.model.services) {
    const doc = docs.find((d) => WORKLOADS.includes(d.kind) && d.metadata.name === app.service(service.name).name)!;
    const waits = (podSpec(doc).initContainers ?? []).map((c: any) => c.name);
    expect(waits).toEqual(expected[service.name] ?? []);
    expect(waits).toHaveLength(service.dependsOn.length);
  }
});

test('every container has requests and limits for cpu and memory', () => {
  for (const doc of docs.filter((d) => WORKLOADS.includes(d.kind))) {
    for (const container of [...(podSpec(doc).initContainers ?? []), ...podSpec(doc).containers]) {
      expect(`${doc.metadata.name}/${container.name}: ${Object.keys(container.resources.requests).sort()} ${Object.keys(container.resources.limits).sort()}`)
        .toBe(`${doc.metadata.name}/${container.name}: cpu,memory cpu,memory`);
    }
  }
});

test('a pod that mounts a ReadWriteOnce claim is on Recreate', () => {
  const rwo = new Set(findDocs(docs, 'PersistentVolumeClaim').filter((c) => c.spec.accessModes.includes('ReadWriteOnce')).map((c) => c.metadata.name));
  const withClaims = findDocs(docs, 'Deployment').filter((d) => (podSpec(d).volumes ?? []).some((v: any) => rwo.has(v.persistentVolumeClaim?.claimName)));
  expect(withClaims.map((d) => d.metadata.name)).toEqual(['redis', 'shop-db', 'worker']);
  for (const deployment of withClaims) {
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
  }
});

test('the findings of the migration are collected, not printed', () => {
  expect(app.warnings.map((w) => `${w.code} ${w.at.path}`)).toEqual([
    'file-host-reference configs.api_config',
    'host-rewrite services.api.environment.DATABASE_URL',
    'host-rewrite services.api.environment.REDIS_URL',
    'local-only-port services.api.ports[1]',
    'host-rewrite services.migrate.environment.DATABASE_URL',
    'host-rewrite services.worker.environment.DATABASE_URL',
    'host-rewrite services.worker.environment.REDIS_HOST',
  ]);
});
