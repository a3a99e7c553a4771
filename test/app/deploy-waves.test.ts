import { ApiObject, Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../lib/app/compose-app';
import { SYNC_WAVE_ANNOTATION, WaveKind, planWaves } from '../../lib/app/deploy-waves';
import { Manifest } from '../support/problems';
import { findDoc } from '../support/yaml-docs';
import { modelOf, synthApp } from './app-fixture';

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
