import { Chart, Testing } from 'cdk8s';
import { PLATFORM_NAMESPACES, platformNamespaceOwner } from '../../lib/app/app-namespace';
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

describe('platform namespaces', () => {
  test('the ingress controller namespace, the reserved prefixes and the listed components have an owner', () => {
    expect(platformNamespaceOwner('ingress-nginx')).toBe(
      "the ingress controller's namespace (ingressControllerNamespace)",
    );
    expect(platformNamespaceOwner('traefik', 'traefik')).toBe(
      "the ingress controller's namespace (ingressControllerNamespace)",
    );
    // With another controller namespace, ingress-nginx is still a platform namespace by the list.
    expect(platformNamespaceOwner('ingress-nginx', 'traefik')).toBe('the namespace of the ingress-nginx controller');
    expect(platformNamespaceOwner('kube-flannel')).toBe('a prefix Kubernetes reserves for itself');
    expect(platformNamespaceOwner('openshift-monitoring')).toBe('a prefix OpenShift reserves for itself');
    for (const ns of ['argocd', 'flux-system', 'cert-manager', 'kubevirt', 'cdi', 'external-secrets', 'monitoring']) {
      expect(platformNamespaceOwner(ns)).toBe(`the namespace of ${PLATFORM_NAMESPACES[ns]}`);
    }
    expect(platformNamespaceOwner('shop')).toBeUndefined();
    expect(platformNamespaceOwner('my-monitoring')).toBeUndefined();
  });

  test('an app is refused there unless allowSystemNamespace is set', () => {
    const model = modelOf('services: { web: { image: nginx:1.27 } }');
    expect(() => new ComposeApp(new Chart(Testing.app(), 'a'), 'app', { model, namespace: 'argocd' })).toThrow(
      'app: the namespace "argocd" belongs to the platform: the namespace of Argo CD',
    );
    expect(
      () =>
        new ComposeApp(new Chart(Testing.app(), 'b'), 'app', {
          model,
          namespace: 'argocd',
          allowSystemNamespace: true,
        }),
    ).not.toThrow();
  });
});
