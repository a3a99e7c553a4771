import { Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { ServiceTarget } from '../../lib/app/settings';
import { Manifest } from '../support/problems';
import { findDoc } from '../support/yaml-docs';
import { modelOf, synthApp } from './app-fixture';

const SHOP = `
name: shop
services:
  web:
    image: nginx:1.27.2
    ports: ["8080:80"]
    depends_on: [db]
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: metadata-secret-7f3a }
    volumes: [data:/var/lib/postgresql/data]
  legacy:
    image: registry.example.com/legacy:1.0
    ports: ["9000:9000"]
volumes:
  data: {}
`;

const LABELS = { 'team': 'shop', 'app.kubernetes.io/part-of': 'shop' };
const ANNOTATIONS = { 'owner': 'ops@example.com', 'example.com/ticket': 'OPS-12' };

/** The pod templates of a document: a workload's, a CronJob's, a VM's. */
function templates(doc: Manifest): any[] {
  if (doc.kind === 'CronJob') {
    return [doc.spec.jobTemplate.spec.template];
  }
  return doc.spec?.template ? [doc.spec.template] : [];
}

describe('the labels and annotations props', () => {
  const { docs } = synthApp(SHOP, {
    labels: LABELS,
    annotations: ANNOTATIONS,
    services: { legacy: { target: ServiceTarget.VM } },
    vm: { imageBaseUrl: 'https://images.example.com/vm' },
  });

  test('reach every object the app makes', () => {
    expect(docs.length).toBeGreaterThan(10);
    for (const doc of docs) {
      expect({ object: `${doc.kind}/${doc.metadata.name}`, labels: doc.metadata.labels }).toEqual({
        object: `${doc.kind}/${doc.metadata.name}`,
        labels: expect.objectContaining(LABELS),
      });
      expect(doc.metadata.annotations).toEqual(expect.objectContaining(ANNOTATIONS));
    }
  });

  test("reach every pod template: the workloads', the backup CronJob's and the VM's, next to their own labels", () => {
    const kinds = new Set<string>();
    for (const doc of docs) {
      for (const template of templates(doc)) {
        kinds.add(doc.kind);
        expect(template.metadata.labels).toEqual(expect.objectContaining(LABELS));
        expect(template.metadata.annotations).toEqual(expect.objectContaining(ANNOTATIONS));
      }
    }
    expect([...kinds].sort()).toEqual(['CronJob', 'Deployment', 'VirtualMachine']);
    expect(findDoc(docs, 'Deployment', 'web').spec.template.metadata.labels).toMatchObject({
      app: 'web',
      team: 'shop',
    });
    expect(findDoc(docs, 'VirtualMachine', 'shop-vm').spec.template.metadata).toEqual({
      labels: { 'kubevirt.io/vm': 'shop-vm', 'network.cdk8s-compose.io/default': 'true', ...LABELS },
      annotations: ANNOTATIONS,
    });
  });

  test('leave the objects alone when not given', () => {
    const plain = synthApp(SHOP).docs;
    expect(
      plain.filter((d) => d.metadata.labels?.team !== undefined || d.metadata.annotations?.owner !== undefined),
    ).toEqual([]);
  });
});

describe('the labels and annotations props are checked', () => {
  const make = (props: object) => () =>
    new ComposeApp(new Chart(Testing.app(), 'test'), 'app', { model: modelOf(SHOP), ...props });

  test('throws on a label key the app sets itself', () => {
    expect(make({ labels: { app: 'shop' } })).toThrow(
      'app: labels sets "app", which the app sets itself (Service selectors and ' + 'network policies use it)',
    );
    expect(make({ labels: { 'network.cdk8s-compose.io/front': 'true' } })).toThrow(
      'labels sets "network.cdk8s-compose.io/front"',
    );
  });

  test('throws on a label or an annotation key Kubernetes does not accept, quoting it', () => {
    expect(make({ labels: { team: 'a b' } })).toThrow('app: labels has a label Kubernetes does not accept');
    expect(make({ labels: { team: 'a b' } })).toThrow('team=a b');
    expect(make({ annotations: { '-bad': 'x' } })).toThrow('app: annotations has a key Kubernetes does not accept');
  });

  test('throws on an annotation that quotes a secret value, without quoting it', () => {
    const attempt = make({ annotations: { note: 'password is metadata-secret-7f3a' } });
    expect(attempt).toThrow('app: the value of annotations["note"] contains a secret value');
    expect(attempt).not.toThrow(/metadata-secret-7f3a/);
  });
});
