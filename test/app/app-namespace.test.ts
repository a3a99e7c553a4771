import { Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { findDoc } from '../support/yaml-docs';
import { modelOf, synthApp } from './app-fixture';

describe('namespace', () => {
  const { docs } = synthApp(`
name: My_Shop
services:
  web: { image: nginx:1.27, ports: ["8080:80"] }
`);

  test('a Namespace labelled with its name, named after the project', () => {
    const namespace = findDoc(docs, 'Namespace', 'my-shop');
    expect(namespace.metadata).toEqual({
      name: 'my-shop',
      labels: { name: 'my-shop' },
      annotations: { 'argocd.argoproj.io/sync-wave': '0' },
    });
  });

  test('every other object lives in it', () => {
    for (const doc of docs.filter((d) => d.kind !== 'Namespace')) {
      expect(`${doc.kind}/${doc.metadata.name}: ${doc.metadata.namespace}`).toBe(
        `${doc.kind}/${doc.metadata.name}: my-shop`,
      );
    }
  });

  test('a chart namespace does not reach the cluster-scoped Namespace', () => {
    const chart = new Chart(Testing.app(), 'test', { namespace: 'elsewhere' });
    new ComposeApp(chart, 'app', { model: modelOf('services: { web: { image: nginx:1.27 } }'), namespace: 'shop' });
    const synthesized = Testing.synth(chart);
    expect(findDoc(synthesized, 'Namespace', 'shop').metadata.namespace).toBeUndefined();
    expect(findDoc(synthesized, 'Deployment', 'web').metadata.namespace).toBe('shop');
  });
});
