import { findDoc } from '../../support/yaml-docs';
import { synthApp } from '../app-fixture';

describe('names', () => {
  test('two services that map to one name are an error naming both', () => {
    expect(() => synthApp('services:\n  web-app: { image: a:1 }\n  web_app: { image: b:1 }\n')).toThrow(
      'compose.yaml:3:12: services.web_app: service "web_app" and service "web-app" both map to the Service name "web-app". ' +
        'Allowed: one Service per name; Kubernetes names are lower case with "-" instead of "_" or ".". ' +
        'Fix: rename one of them, or set services["web_app"].name in the ComposeApp props.',
    );
  });

  test('the name override resolves a collision', () => {
    const { docs } = synthApp('services: { web-app: { image: a:1 }, web_app: { image: b:1 } }', {
      services: { web_app: { name: 'web-app-2' } },
    });
    expect(findDoc(docs, 'Deployment', 'web-app-2').spec.template.spec.containers[0].image).toBe('b:1');
  });

  test('a name starting with a digit gets a letter first, as Service names need', () => {
    const { docs } = synthApp('services: { 2fa: { image: a:1, expose: ["80"] } }');
    expect(findDoc(docs, 'Service', 's-2fa').spec.selector).toEqual({ app: 's-2fa' });
  });

  test('camelCase and underscores become DNS-1123 labels', () => {
    const { docs } = synthApp(
      'services: { openWebUI: { image: a:1, ports: ["80"] }, plausible_db: { image: b:1, expose: ["5432"] } }',
    );
    expect(findDoc(docs, 'Service', 'openwebui')).toBeDefined();
    expect(findDoc(docs, 'Service', 'plausible-db')).toBeDefined();
  });
});
