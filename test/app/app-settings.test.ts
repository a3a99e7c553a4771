import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { AppSettings } from '../../lib/app/app-settings';
import { readKomposeLabels } from '../../lib/app/kompose/kompose-labels';
import { ServicePlan, WorkloadKind } from '../../lib/app/service/migrated-service';
import { WorkloadController } from '../../lib/stateful/stateful-dependency';
import { modelOf } from './app-fixture';

const MODEL = modelOf(`
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
  db:
    image: postgres:16.4
volumes:
  data: {}
`);

function plan(name: string): ServicePlan {
  const service = MODEL.services.find((s) => s.name === name)!;
  return {
    service,
    name,
    kind: WorkloadKind.DEPLOYMENT,
    hasService: true,
    labels: readKomposeLabels(service),
    ports: service.ports.map((p) => ({ port: p.target, protocol: kplus.Protocol.TCP, name: `tcp-${p.target}` })),
  };
}

describe('AppSettings', () => {
  test('the defaults, once: ingress host, class, waits, resources, storage', () => {
    const settings = new AppSettings({});
    const web = settings.settingsFor(plan('web'));
    expect(web.ingressRules).toEqual([{ host: 'web.example.com', path: '/' }]);
    expect(web.ingressClassName).toBe('nginx');
    expect(web.resources).toEqual({ cpuRequestMillis: 100, memoryRequestBytes: 128 * 1024 ** 2 });
    expect(new AppSettings({ defaultLimits: true }).settingsFor(plan('web')).resources).toEqual({
      cpuRequestMillis: 100,
      cpuLimitMillis: 1000,
      memoryRequestBytes: 128 * 1024 ** 2,
      memoryLimitBytes: 512 * 1024 ** 2,
    });
    expect(web.stateStorageBytes).toBe(1024 ** 3);
    expect(settings.waitSettings('shop')).toEqual({
      namespace: 'shop',
      timeoutSeconds: 300,
      tcpImage: 'busybox:1.36',
      kubectlImage: 'registry.k8s.io/kubectl:v1.28.15',
    });
    expect(settings.vmName('shop')).toBe('shop-vm');
    expect(settings.hasDefaultIngressDomain).toBe(true);
  });

  test('props and overrides win over the defaults', () => {
    const settings = new AppSettings({
      ingressDomain: 'shop.test',
      waitTimeout: Duration.seconds(30),
      storageSize: Size.gibibytes(5),
      controller: WorkloadController.STATEFUL_SET,
      services: { web: { replicas: 3, ingressPath: '/app' } },
      vm: { imageBaseUrl: 'https://images.example.com', name: 'legacy' },
    });
    const web = settings.settingsFor(plan('web'));
    expect(web.replicas).toBe(3);
    expect(web.ingressRules).toEqual([{ host: 'web.shop.test', path: '/app' }]);
    expect(web.stateStorageBytes).toBe(5 * 1024 ** 3);
    expect(settings.waitTimeoutSeconds).toBe(30);
    expect(settings.vmName('shop')).toBe('legacy');
    expect(settings.statefulController({}, plan('db').labels)).toBe(WorkloadController.STATEFUL_SET);
  });

  test('throws on an invalid Ingress host, naming the service and the value', () => {
    const settings = new AppSettings({ services: { web: { ingressHost: 'Not A Host' } } });
    expect(() => settings.settingsFor(plan('web'))).toThrow('service "web": invalid Ingress host');
    expect(() => settings.settingsFor(plan('web'))).toThrow('Not A Host');
  });

  test.each([
    [{ services: { api: {} } }, 'app: services["api"] overrides a service that is not in the compose file'],
    [
      { volumes: { cache: {} } },
      'app: volumes["cache"] overrides a volume or bound folder that is not in the compose file',
    ],
    [{ sharedVolumes: 'Anywhere' as any }, 'app: sharedVolumes is not a way to share claims (got "Anywhere")'],
    [{ storageSize: Size.mebibytes(0) }, 'app: storageSize is not a positive size'],
    [{ ingressControllerNamespace: 'Ingress NS' }, 'app: ingressControllerNamespace is not a namespace name'],
    [{ services: { web: { replicas: -1 } } }, 'app: services["web"].replicas is not a whole number of 0 or more'],
  ])('check refuses %j', (props, message) => {
    expect(() => new AppSettings(props).check('app', MODEL)).toThrow(message);
  });
});
