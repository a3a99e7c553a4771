import { Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../lib/app/compose-app';
import { Exposure } from '../../lib/app/settings';
import { ComposeError } from '../../lib/compose/errors';
import { expectManifestsPass } from '../support/checks';
import { at, model, port, service } from '../support/model-builder';
import { findDoc, findDocs } from '../support/yaml-docs';
import { checkSecretLeaks } from '../support/safety-rules';
import { mainContainer, modelOf, podSpec, secretData, synthApp } from './app-fixture';

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'Job', 'CronJob'];

/** Every container of every workload, init containers included. */
function allContainers(docs: any[]): any[] {
  return docs.filter((d) => WORKLOAD_KINDS.includes(d.kind))
    .flatMap((d) => [...(podSpec(d).initContainers ?? []), ...podSpec(d).containers]);
}

function codes(app: ComposeApp): string[] {
  return app.warnings.map((w) => w.code);
}

describe('namespace', () => {
  const { docs } = synthApp(`
name: My_Shop
services:
  web: { image: nginx:1.27, ports: ["8080:80"] }
`);

  test('a Namespace labelled with its name, named after the project', () => {
    const namespace = findDoc(docs, 'Namespace', 'my-shop');
    expect(namespace.metadata).toEqual({ name: 'my-shop', labels: { name: 'my-shop' } });
  });

  test('every other object lives in it', () => {
    for (const doc of docs.filter((d) => d.kind !== 'Namespace')) {
      expect(`${doc.kind}/${doc.metadata.name}: ${doc.metadata.namespace}`).toBe(`${doc.kind}/${doc.metadata.name}: my-shop`);
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

describe('services → Deployment + Service', () => {
  const { app, docs } = synthApp(`
name: shop
services:
  api:
    image: example/api:1.0
    entrypoint: ["/bin/app"]
    command: ["serve", "--since", "$$(date)"]
    working_dir: /srv
    ports: ["8080:80", "53:53/udp", "53:53/tcp"]
    expose: ["9000", "9001/udp"]
    deploy: { replicas: 3 }
  quiet:
    image: example/worker:1.0
`);

  test('all manifests pass the validator, the Kubernetes rules and the safety rules', () => {
    expectManifestsPass(docs);
  });

  test('the app label selects the pods everywhere, with no other selector label', () => {
    const deployment = findDoc(docs, 'Deployment', 'api');
    expect(deployment.spec.selector).toEqual({ matchLabels: { app: 'api' } });
    expect(deployment.spec.template.metadata.labels.app).toBe('api');
    expect(JSON.stringify(docs)).not.toContain('cdk8s.io/metadata.addr');
    expect(findDoc(docs, 'Service', 'api').spec.selector).toEqual({ app: 'api' });
  });

  test('replicas from deploy.replicas, else 1', () => {
    expect(findDoc(docs, 'Deployment', 'api').spec.replicas).toBe(3);
    expect(findDoc(docs, 'Deployment', 'quiet').spec.replicas).toBe(1);
  });

  test('entrypoint becomes command and command becomes args, with $( kept literal', () => {
    const container = mainContainer(findDoc(docs, 'Deployment', 'api'));
    expect(container).toMatchObject({ name: 'api', image: 'example/api:1.0', command: ['/bin/app'], workingDir: '/srv' });
    expect(container.args).toEqual(['serve', '--since', '$$(date)']);
  });

  test('a ClusterIP Service with every port of ports and expose, named, UDP kept, TCP and UDP on one number', () => {
    const svc = findDoc(docs, 'Service', 'api');
    expect(svc.spec.type).toBe('ClusterIP');
    expect(svc.spec.ports).toEqual([
      { name: 'tcp-53', port: 53, targetPort: 53 },
      { name: 'udp-53', port: 53, targetPort: 53, protocol: 'UDP' },
      { name: 'tcp-80', port: 80, targetPort: 80 },
      { name: 'tcp-9000', port: 9000, targetPort: 9000 },
      { name: 'udp-9001', port: 9001, targetPort: 9001, protocol: 'UDP' },
    ]);
    expect(mainContainer(findDoc(docs, 'Deployment', 'api')).ports).toEqual([
      { containerPort: 53, name: 'tcp-53' },
      { containerPort: 53, name: 'udp-53', protocol: 'UDP' },
      { containerPort: 80, name: 'tcp-80' },
      { containerPort: 9000, name: 'tcp-9000' },
      { containerPort: 9001, name: 'udp-9001', protocol: 'UDP' },
    ]);
  });

  test('a service without ports gets no Service', () => {
    expect(findDocs(docs, 'Service').map((d) => d.metadata.name)).not.toContain('quiet');
    expect(app.service('quiet').service).toBeUndefined();
  });

  test('handles reach what was made', () => {
    const api = app.service('api');
    expect(api.deployment).toBeInstanceOf(kplus.Deployment);
    expect(api.service?.name).toBe('api');
    expect(api.envConfigMap).toBeUndefined();
    expect(() => app.service('nope')).toThrow('test/app: no compose service "nope". Allowed: api, quiet.');
  });

  test('the kplus defaults that break compose images are all replaced', () => {
    const deployment = findDoc(docs, 'Deployment', 'quiet');
    const container = mainContainer(deployment);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false, privileged: false, readOnlyRootFilesystem: false, runAsNonRoot: false,
    });
    expect(podSpec(deployment).securityContext.runAsNonRoot).toBe(false);
    expect(podSpec(deployment).automountServiceAccountToken).toBe(false);
    expect(container.startupProbe).toBeUndefined();
    expect(container.imagePullPolicy).toBe('IfNotPresent');
    expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } });
  });
});

describe('names', () => {
  test('two services that map to one name are an error naming both', () => {
    expect(() => synthApp('services:\n  web-app: { image: a:1 }\n  web_app: { image: b:1 }\n')).toThrow(
      'compose.yaml:3:12: services.web_app: service "web_app" and service "web-app" both map to the Service name "web-app". '
      + 'Allowed: one Service per name; Kubernetes names are lower case with "-" instead of "_" or ".". '
      + 'Fix: rename one of them, or set services["web_app"].name in the ComposeApp props.');
  });

  test('the name override resolves a collision', () => {
    const { docs } = synthApp('services: { web-app: { image: a:1 }, web_app: { image: b:1 } }', { services: { web_app: { name: 'web-app-2' } } });
    expect(findDoc(docs, 'Deployment', 'web-app-2').spec.template.spec.containers[0].image).toBe('b:1');
  });

  test('camelCase and underscores become DNS-1123 labels', () => {
    const { docs } = synthApp('services: { openWebUI: { image: a:1, ports: ["80"] }, plausible_db: { image: b:1, expose: ["5432"] } }');
    expect(findDoc(docs, 'Service', 'openwebui')).toBeDefined();
    expect(findDoc(docs, 'Service', 'plausible-db')).toBeDefined();
  });
});

describe('ports', () => {
  test('one host port published to two container ports is an error', () => {
    const m = model({
      services: [service('dns', {
        ports: [port(53, { published: 53, protocol: 'udp', service: 'dns' }), port(5353, { published: 53, protocol: 'udp', index: 1, service: 'dns' })],
      })],
    });
    expect(() => synthApp(m)).toThrow(
      'compose.yaml: services.dns.ports[1]: host port 53/udp is published twice in service "dns", to container ports 53 '
      + '(services.dns.ports[0]) and 5353 (got "53:5353/udp"). Allowed: each host port and protocol published once per '
      + 'host address. Fix: publish one of them on another host port.');
  });

  test('the same container port on two host ports is two external ports, one container port', () => {
    const { docs } = synthApp('services: { app: { image: a:1, ports: ["5000:5000", "5001:5000"] } }');
    expect(mainContainer(findDoc(docs, 'Deployment', 'app')).ports).toEqual([{ containerPort: 5000, name: 'tcp-5000' }]);
    expect(findDoc(docs, 'Service', 'app-external').spec.ports).toEqual([
      { name: 'tcp-5000', port: 5000, targetPort: 5000 },
      { name: 'tcp-5001', port: 5001, targetPort: 5000 },
    ]);
  });
});
