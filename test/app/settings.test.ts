import { Exposure, ServiceTarget, readServiceExtension } from '../../lib/app/settings';
import { DatabaseEngine } from '../../lib/stateful/engine';
import { service } from '../support/model-builder';

const withExtension = (value: unknown) => service('web', { extensions: { 'x-cdk8s-compose': value } });

test('reads every key of x-cdk8s-compose', () => {
  expect(
    readServiceExtension(
      withExtension({
        http: { port: 8080, readinessPath: '/readyz' },
        expose: 'load-balancer',
        ingressHost: 'a.test',
        ingressPath: '/a',
        engine: 'redis',
        target: 'vm',
      }),
    ),
  ).toEqual({
    http: { port: 8080, readinessPath: '/readyz' },
    expose: Exposure.LOAD_BALANCER,
    ingressHost: 'a.test',
    ingressPath: '/a',
    engine: DatabaseEngine.REDIS,
    target: ServiceTarget.VM,
  });
  expect(readServiceExtension(withExtension({ engine: 'none', http: true }))).toMatchObject({
    engine: false,
    http: true,
  });
  expect(readServiceExtension(service('web'))).toEqual({});
});

test.each([
  [
    { htp: true },
    'compose.yaml: services.web.x-cdk8s-compose.htp: unknown key (got "htp"). Allowed: engine, expose, http, ingressHost, ingressPath, target. Fix: remove the key or fix its spelling.',
  ],
  [
    { http: 'yes' },
    'compose.yaml: services.web.x-cdk8s-compose.http: invalid value (got "yes"). Allowed: true, false, or a mapping with port, livenessPath, readinessPath.',
  ],
  [
    { http: { port: 0 } },
    'compose.yaml: services.web.x-cdk8s-compose.http.port: invalid port (got 0). Allowed: a port number 1-65535.',
  ],
  [
    { http: { livenessPath: 'health' } },
    'compose.yaml: services.web.x-cdk8s-compose.http.livenessPath: invalid path (got "health"). Allowed: a path starting with "/".',
  ],
  [
    { expose: 'public' },
    'compose.yaml: services.web.x-cdk8s-compose.expose: invalid exposure (got "public"). Allowed: ingress, load-balancer, internal.',
  ],
  [
    { engine: 'oracle' },
    'compose.yaml: services.web.x-cdk8s-compose.engine: unknown engine (got "oracle"). Allowed: postgres, mysql, mariadb, mongo, redis, or none.',
  ],
  [
    ['http'],
    'compose.yaml: services.web.x-cdk8s-compose: invalid extension (got ["http"]). Allowed: a mapping with the keys engine, expose, http, ingressHost, ingressPath, target.',
  ],
  [
    { target: 'cloud' },
    'compose.yaml: services.web.x-cdk8s-compose.target: invalid target (got "cloud"). Allowed: container, vm, auto.',
  ],
])('rejects %j', (value, message) => {
  expect(() => readServiceExtension(withExtension(value))).toThrow(message);
});
