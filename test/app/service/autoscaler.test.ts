import * as path from 'path';
import { Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { KomposeHpaLabel, MemoryTarget, ServiceAutoscaler } from '../../../lib/app/service/autoscaler';
import { loadCompose } from '../../../lib/compose/load';
import { expectValidManifests } from '../../support/validate';
import { CORPUS_DIR as CORPUS } from '../../support/shared';

const at = { file: 'compose.yaml', path: 'services.web' };

function chart(): Chart {
  return Testing.chart();
}

/** Synthesizes and checks every document against the Kubernetes 1.27 schemas. */
function synth(c: Chart): any[] {
  const manifests = Testing.synth(c);
  expectValidManifests(manifests);
  return manifests;
}

function byKind(manifests: any[], kind: string, name?: string): any {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  expect(found).toHaveLength(1);
  return found[0];
}

describe('ServiceAutoscaler', () => {
  test('renders scaleTargetRef, replicas and a cpu Utilization metric, and no behavior', () => {
    const c = chart();
    new ServiceAutoscaler(c, 'Web', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      namespace: 'shop',
      minReplicas: 2,
      maxReplicas: 10,
      cpuUtilization: 70,
    });
    const hpa = byKind(synth(c), 'HorizontalPodAutoscaler', 'web');
    expect(hpa).toEqual({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
        ],
      },
    });
  });

  test('defaults to 1..3 pods at 50% cpu, as kompose does', () => {
    const c = chart();
    const autoscaler = new ServiceAutoscaler(c, 'Web', {
      target: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' },
    });
    const hpa = byKind(synth(c), 'HorizontalPodAutoscaler', 'db');
    expect(hpa.spec.minReplicas).toBe(1);
    expect(hpa.spec.maxReplicas).toBe(3);
    expect(hpa.spec.metrics[0].resource.target.averageUtilization).toBe(50);
    expect(autoscaler.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' });
    expect(autoscaler.maxReplicas).toBe(3);
  });

  test('maxReplicas defaults to minReplicas when that is above 3', () => {
    const c = chart();
    const autoscaler = new ServiceAutoscaler(c, 'Web', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 5,
    });
    expect(autoscaler.maxReplicas).toBe(5);
  });

  test('adds a memory metric as utilization or as an average value', () => {
    const c = chart();
    new ServiceAutoscaler(c, 'A', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'a' },
      memory: MemoryTarget.utilization(80),
    });
    new ServiceAutoscaler(c, 'B', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'b' },
      memory: MemoryTarget.averageValue(Size.mebibytes(512)),
    });
    const manifests = synth(c);
    expect(byKind(manifests, 'HorizontalPodAutoscaler', 'a').spec.metrics[1]).toEqual({
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 80 } },
    });
    expect(byKind(manifests, 'HorizontalPodAutoscaler', 'b').spec.metrics[1]).toEqual({
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '512Mi' } },
    });
  });

  test('targets a kplus Deployment, which then renders no replicas', () => {
    const c = chart();
    const deployment = new kplus.Deployment(c, 'Web', {
      metadata: { name: 'web' },
      replicas: 2,
      containers: [{ image: 'nginx', portNumber: 80, securityContext: { ensureNonRoot: false } }],
    });
    new ServiceAutoscaler(c, 'Autoscaler', { target: deployment, maxReplicas: 6 });
    const manifests = synth(c);
    expect(byKind(manifests, 'HorizontalPodAutoscaler', 'web').spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
    });
    expect(byKind(manifests, 'Deployment', 'web').spec.replicas).toBeUndefined();
  });

  test('targets a kplus StatefulSet', () => {
    const c = chart();
    const service = new kplus.Service(c, 'Svc', { metadata: { name: 'db' }, ports: [{ port: 5432 }] });
    const set = new kplus.StatefulSet(c, 'Db', {
      metadata: { name: 'db' },
      service,
      containers: [{ image: 'postgres', portNumber: 5432, securityContext: { ensureNonRoot: false } }],
    });
    new ServiceAutoscaler(c, 'Autoscaler', { target: set });
    expect(byKind(synth(c), 'HorizontalPodAutoscaler', 'db').spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      name: 'db',
    });
  });

  test('fails when a kplus workload gets a second autoscaler', () => {
    const c = chart();
    const deployment = new kplus.Deployment(c, 'Web', { metadata: { name: 'web' }, containers: [{ image: 'nginx' }] });
    new ServiceAutoscaler(c, 'A', { target: deployment });
    expect(() => new ServiceAutoscaler(c, 'B', { target: deployment, at })).toThrow(
      'compose.yaml: services.web: the workload already has an autoscaler (got "web"). Fix: create one autoscaler per workload.',
    );
  });

  test.each([
    [
      { minReplicas: 0 },
      'test/Hpa: invalid minReplicas (got 0). Allowed: a whole number of pods, 1 or more. ' +
        'Fix: an autoscaler cannot scale to zero; leave it out to keep the service at a fixed replica count.',
    ],
    [{ minReplicas: 1.5 }, 'test/Hpa: invalid minReplicas (got 1.5).'],
    [{ maxReplicas: 0 }, 'test/Hpa: invalid maxReplicas (got 0). Allowed: a whole number of pods, 1 or more.'],
    [
      { minReplicas: 4, maxReplicas: 2 },
      'test/Hpa: maxReplicas 2 is less than minReplicas 4. Allowed: maxReplicas of 4 or more. ' +
        'Fix: raise maxReplicas or lower minReplicas.',
    ],
    [
      { cpuUtilization: 0 },
      "test/Hpa: invalid cpu utilization (got 0). Allowed: a whole percentage of the pods' cpu request, 1 or more.",
    ],
    [{ memory: MemoryTarget.utilization(-5) }, 'test/Hpa: invalid memory utilization (got -5).'],
  ])('throws for %p', (settings, message) => {
    expect(
      () =>
        new ServiceAutoscaler(chart(), 'Hpa', {
          target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          ...settings,
        }),
    ).toThrow(message);
  });

  test('allows utilization above 100, which Kubernetes accepts', () => {
    const c = chart();
    new ServiceAutoscaler(c, 'Hpa', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      cpuUtilization: 150,
    });
    expect(byKind(synth(c), 'HorizontalPodAutoscaler').spec.metrics[0].resource.target.averageUtilization).toBe(150);
  });

  test('throws for a reference without a name, or a bad name', () => {
    expect(
      () => new ServiceAutoscaler(chart(), 'Hpa', { target: { apiVersion: 'apps/v1', kind: 'Deployment', name: '' } }),
    ).toThrow('test/Hpa: the scale target has no name');
    expect(
      () =>
        new ServiceAutoscaler(chart(), 'Hpa', {
          target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'Web_1' },
          at,
        }),
    ).toThrow(
      'compose.yaml: services.web: invalid autoscaler name (got "Web_1"). ' +
        'Allowed: a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", at most 253 characters.',
    );
  });
});

describe('ServiceAutoscaler.parseKomposeLabels', () => {
  test('returns undefined without kompose.hpa labels', () => {
    expect(
      ServiceAutoscaler.parseKomposeLabels({ 'com.example': 'x', 'kompose.service.type': 'nodeport' }),
    ).toBeUndefined();
  });

  test('reads the corpus example (kompose-hpa) into the HPA kompose makes of it', () => {
    const { model } = loadCompose({ files: ['compose.yaml'], workingDir: path.join(CORPUS, 'kompose-hpa'), env: {} });
    const web = model.services.find((s) => s.name === 'web')!;
    const settings = ServiceAutoscaler.parseKomposeLabels(web.labels, web.at);
    expect(settings).toEqual({
      minReplicas: 1,
      maxReplicas: 10,
      cpuUtilization: 50,
      memory: MemoryTarget.utilization(70),
    });
    const c = chart();
    new ServiceAutoscaler(c, 'Web', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...settings,
      at: web.at,
    });
    // kompose's fixture script/test/fixtures/hpa/output-k8s.yaml has the same spec.
    expect(byKind(synth(c), 'HorizontalPodAutoscaler', 'web').spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
      ],
    });
  });

  test('leaves unset labels to the defaults and adds no memory metric', () => {
    const settings = ServiceAutoscaler.parseKomposeLabels({ [KomposeHpaLabel.MAX_REPLICAS]: '5' });
    expect(settings).toEqual({ minReplicas: undefined, maxReplicas: 5, cpuUtilization: undefined, memory: undefined });
    const c = chart();
    new ServiceAutoscaler(c, 'Hpa', {
      target: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...settings,
    });
    expect(byKind(synth(c), 'HorizontalPodAutoscaler').spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
    });
  });

  test('accepts percent signs, spaces and a memory quantity', () => {
    expect(
      ServiceAutoscaler.parseKomposeLabels({ 'kompose.hpa.cpu': ' 80% ', 'kompose.hpa.memory': '1024Mi' }),
    ).toEqual({
      minReplicas: undefined,
      maxReplicas: undefined,
      cpuUtilization: 80,
      memory: MemoryTarget.averageValue(Size.gibibytes(1)),
    });
    expect(ServiceAutoscaler.parseKomposeLabels({ 'kompose.hpa.memory': '75 %' })?.memory).toEqual(
      MemoryTarget.utilization(75),
    );
  });

  test.each([
    [
      { 'kompose.hpa.replicas.min': 'two' },
      'compose.yaml: services.web.labels["kompose.hpa.replicas.min"]: invalid replica count (got "two"). ' +
        'Allowed: a whole number of pods, 1 or more.',
    ],
    [
      { 'kompose.hpa.replicas.min': '0' },
      'compose.yaml: services.web.labels["kompose.hpa.replicas.min"]: invalid minReplicas (got 0).',
    ],
    [
      { 'kompose.hpa.replicas.max': '-3' },
      'compose.yaml: services.web.labels["kompose.hpa.replicas.max"]: invalid replica count (got "-3").',
    ],
    [
      { 'kompose.hpa.replicas.min': '6', 'kompose.hpa.replicas.max': '5' },
      'compose.yaml: services.web.labels["kompose.hpa.replicas.max"]: maxReplicas 5 is less than minReplicas 6. ' +
        'Allowed: maxReplicas of 6 or more. Fix: raise maxReplicas or lower minReplicas.',
    ],
    [
      { 'kompose.hpa.cpu': '50.5' },
      'compose.yaml: services.web.labels["kompose.hpa.cpu"]: invalid cpu utilization (got "50.5"). ' +
        'Allowed: a whole percentage, 1 or more, such as "50" or "50%".',
    ],
    [
      { 'kompose.hpa.cpu': '0' },
      'compose.yaml: services.web.labels["kompose.hpa.cpu"]: invalid cpu utilization (got 0).',
    ],
    [
      { 'kompose.hpa.memory': 'lots' },
      'compose.yaml: services.web.labels["kompose.hpa.memory"]: invalid memory target (got "lots"). ' +
        'Allowed: a whole percentage such as "70" or "70%", or a memory quantity with a unit such as "512Mi".',
    ],
    [
      { 'kompose.hpa.memory': '512MB' },
      'compose.yaml: services.web.labels["kompose.hpa.memory"]: invalid memory quantity (got "512MB").',
    ],
    [
      { 'kompose.hpa.memory': '0Mi' },
      'compose.yaml: services.web.labels["kompose.hpa.memory"]: invalid memory average value (got "0").',
    ],
    [
      { 'kompose.hpa.replicas.maximum': '5' },
      'compose.yaml: services.web.labels["kompose.hpa.replicas.maximum"]: unknown autoscaling label ' +
        '"kompose.hpa.replicas.maximum". Allowed: kompose.hpa.cpu, kompose.hpa.memory, kompose.hpa.replicas.max, kompose.hpa.replicas.min. ' +
        'Fix: check the spelling of the label.',
    ],
  ])('throws for %p', (labels, message) => {
    expect(() => ServiceAutoscaler.parseKomposeLabels(labels, at)).toThrow(message);
  });
});
