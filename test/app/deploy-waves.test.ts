import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../lib/app/compose-app';
import { SYNC_WAVE_ANNOTATION, WaveKind, planWaves } from '../../lib/app/deploy-waves';
import { waitsOnLaterWaves, waveWaits } from '../support/wave-waits';
import { Manifest } from '../support/problems';
import { findDoc } from '../support/yaml-docs';
import { HYBRID, HYBRID_PROPS, modelOf, synthApp } from './app-fixture';

/** The deploy waves and the Argo CD sync-wave annotation that ComposeApp's `syncWaves` sets from them. */

const COMPOSE = `
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    depends_on: [api]
  api:
    image: example/api:1.0
    expose: ["3000"]
    environment: { DATABASE_URL: "postgres://app:s3cret-pass@db:5432/app" }
    depends_on: { db: { condition: service_healthy } }
  cache-warmer:
    image: busybox:1.36
    command: ["sleep", "3600"]
    depends_on: [db]
  db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: s3cret-pass }
    volumes: [db-data:/var/lib/postgresql/data]
volumes:
  db-data: {}
`;

const annotation = (doc: Manifest): string | undefined => doc.metadata?.annotations?.[SYNC_WAVE_ANNOTATION];

describe('syncWaves (default)', () => {
  const { app, docs } = synthApp(COMPOSE);
  const waves = planWaves(app);

  test('the waves keep their positions: 0 namespace, 1 stateful, 2 app', () => {
    expect(waves.map((w) => [w.kind, w.syncWave, w.folder])).toEqual([
      [WaveKind.NAMESPACE, 0, '0-namespace'],
      [WaveKind.STATEFUL, 1, '1-stateful'],
      [WaveKind.APP, 2, '2-app'],
    ]);
  });

  test('every object carries the position of the wave planWaves puts it in', () => {
    const byObject = new Map<string, string>();
    for (const wave of waves) {
      wave.objects.forEach((o) => byObject.set(`${o.kind}/${o.name}`, String(wave.syncWave)));
    }
    expect(byObject.size).toBe(docs.length);
    for (const doc of docs) {
      expect({ object: `${doc.kind}/${doc.metadata.name}`, wave: annotation(doc) }).toEqual({
        object: `${doc.kind}/${doc.metadata.name}`,
        wave: byObject.get(`${doc.kind}/${doc.metadata.name}`),
      });
    }
  });

  test('the namespace and its policies first, the database and its claim and Secret next, the services that use it last', () => {
    expect(annotation(findDoc(docs, 'Namespace', 'test'))).toBe('0');
    expect(annotation(findDoc(docs, 'NetworkPolicy', 'default-deny'))).toBe('0');
    expect(annotation(findDoc(docs, 'Deployment', 'db'))).toBe('1');
    expect(annotation(findDoc(docs, 'PersistentVolumeClaim', 'db-data'))).toBe('1');
    expect(annotation(findDoc(docs, 'Service', 'db'))).toBe('1');
    expect(annotation(findDoc(docs, 'Deployment', 'api'))).toBe('2');
    expect(annotation(findDoc(docs, 'Secret', 'api-env'))).toBe('2');
    expect(annotation(findDoc(docs, 'Deployment', 'web'))).toBe('2');
  });

  test('pod templates carry no sync wave: Argo CD reads it on the objects it applies', () => {
    expect(
      findDoc(docs, 'Deployment', 'web').spec.template.metadata.annotations?.[SYNC_WAVE_ANNOTATION],
    ).toBeUndefined();
  });
});

test('an object added to the app after its constructor joins a wave too', () => {
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', { model: modelOf(COMPOSE) });
  new kplus.ConfigMap(app.service('web').workload, 'Extra', { metadata: { name: 'web-extra' }, data: { a: 'b' } });
  new kplus.ConfigMap(app.service('db').workload, 'Extra', { metadata: { name: 'db-extra' }, data: { a: 'b' } });
  const docs = Testing.synth(chart);
  expect(annotation(findDoc(docs, 'ConfigMap', 'web-extra'))).toBe('2');
  expect(annotation(findDoc(docs, 'ConfigMap', 'db-extra'))).toBe('1');
});

test('syncWaves: false leaves every object without the annotation', () => {
  const { docs } = synthApp(COMPOSE, { syncWaves: false });
  expect(docs.filter((d) => annotation(d) !== undefined).map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([]);
});

test('synthesizing twice keeps one annotation, with the value', () => {
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', { model: modelOf(COMPOSE) });
  chart.toJson();
  const docs = Testing.synth(chart);
  expect(annotation(findDoc(docs, 'Deployment', 'db'))).toBe('1');
  expect(ApiObject.of(app.service('db').workload).metadata.toJson().annotations).toEqual({
    [SYNC_WAVE_ANNOTATION]: '1',
  });
});

function unitsOf(app: ComposeApp): { vm: string; text: string }[] {
  const vm = app.vm;
  return vm
    ? vm.bundle
        .files()
        .filter((f) => f.path.endsWith('.service'))
        .map((f) => ({ vm: vm.vm.name, text: f.content.toString('utf-8') }))
    : [];
}

describe('waves follow the dependencies across the VM', () => {
  const { app, docs } = synthApp(HYBRID, HYBRID_PROPS);
  const waves = planWaves(app);

  test('the containers that wait for the VM come after it: 1 stateful, 3 vm, 4 after-vm', () => {
    expect(waves.map((w) => [w.folder, w.services])).toEqual([
      ['0-namespace', []],
      ['1-stateful', ['db']],
      ['3-vm', ['agent']],
      ['4-after-vm', ['reports', 'web']],
    ]);
    expect(waves.find((w) => w.kind === WaveKind.VM)!.waits).toEqual([
      { condition: 'vm-ready', composeName: 'agent', name: 'hub-vm', what: 'VirtualMachine' },
    ]);
  });

  test('no wait points at a later wave: init containers, the VM unit', () => {
    const waits = waveWaits(docs, unitsOf(app));
    expect(waits.map((w) => `${w.waiter} → ${w.waited}`)).toEqual(
      expect.arrayContaining([
        'Deployment/web → Service/agent',
        'Deployment/web → VirtualMachine/hub-vm',
        'VirtualMachine/hub-vm → Service/db',
        'VirtualMachine/hub-vm → Deployment/db',
      ]),
    );
    expect(waitsOnLaterWaves(waits)).toEqual([]);
  });

  test('without the after-vm wave the walk finds the wait that never ends', () => {
    // The layout before: every container before the VM (wave 3).
    const before = docs.map((d) =>
      d.metadata.annotations?.[SYNC_WAVE_ANNOTATION] === '4'
        ? { ...d, metadata: { ...d.metadata, annotations: { ...d.metadata.annotations, [SYNC_WAVE_ANNOTATION]: '2' } } }
        : d,
    );
    expect(waitsOnLaterWaves(waveWaits(before, unitsOf(app)))).toEqual(
      expect.arrayContaining([
        'Deployment/web (wave 2) → VirtualMachine/hub-vm (wave 3): init container wait-for-agent: nc -z agent 9001',
      ]),
    );
  });

  test('a VM service that depends on a container waiting for the VM: the VM does not wait for it, and says so', () => {
    // As in the mail suite: a scheduler in the VM depends on a container that depends on another VM service.
    const cycle = HYBRID.replace(
      '    depends_on: [db]\n  db:',
      '    depends_on: [db, mid]\n  mid:\n    image: busybox:1.36\n    depends_on: [probe]\n' +
        '  probe:\n    image: busybox:1.36\n    privileged: true\n  db:',
    );
    const { app: cyclic, docs: cyclicDocs } = synthApp(cycle, HYBRID_PROPS);
    expect(waitsOnLaterWaves(waveWaits(cyclicDocs, unitsOf(cyclic)))).toEqual([]);
    expect(unitsOf(cyclic)[0].text).not.toContain('/dev/tcp/mid/');
    expect(unitsOf(cyclic)[0].text).toContain('/dev/tcp/db/5432');
    expect(cyclic.warnings.find((w) => w.code === 'vm-dependency-cycle')).toEqual({
      code: 'vm-dependency-cycle',
      message:
        '"mid" waits for a service in the VM (its depends_on leads there), so the VM cannot wait for it in turn: the ' +
        'VM starts "agent" without waiting for "mid", so their start order is not kept (the service must retry, or ' +
        'restart, until the other is up)',
      at: expect.objectContaining({ path: 'services.agent.depends_on[1]' }),
    });
  });
});
