import { WaitKind, needsApi, waitContainer, waitResource } from '../../../lib/app/service/dependency-wait';

const settings = {
  namespace: 'shop',
  timeoutSeconds: 60,
  tcpImage: 'busybox:1.36',
  kubectlImage: 'registry.k8s.io/kubectl:v1.28.15',
};

test('a TCP wait needs no API and runs as nobody with a read-only root', () => {
  const wait = { kind: WaitKind.TCP, service: 'db', target: 'db', port: 5432 };
  const container = waitContainer(wait, settings);
  expect(needsApi(wait)).toBe(false);
  expect(container.name).toBe('wait-for-db');
  expect(container.securityContext).toMatchObject({
    ensureNonRoot: true,
    user: 65534,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
  });
  expect(container.command![2]).toContain('until nc -z -w 2 db 5432; do');
});

test("API waits run kubectl wait as the image's entrypoint, with no shell: a Job completes, a Deployment is available", () => {
  const job = waitContainer({ kind: WaitKind.JOB_COMPLETE, service: 'm', target: 'migrate' }, settings);
  expect(job.command).toBeUndefined();
  expect(job.args).toEqual(['wait', '--namespace=shop', '--for=condition=complete', '--timeout=60s', 'job/migrate']);
  expect(job.image).toBe('registry.k8s.io/kubectl:v1.28.15');
  const deployment = {
    kind: WaitKind.WORKLOAD_READY,
    service: 'worker',
    target: 'worker',
    workload: 'Deployment' as const,
  };
  expect(waitContainer(deployment, settings).args).toEqual([
    'wait',
    '--namespace=shop',
    '--for=condition=available',
    '--timeout=60s',
    'deployment/worker',
  ]);
  expect(waitResource({ kind: WaitKind.JOB_COMPLETE, service: 'm', target: 'migrate' })).toEqual({
    apiGroup: 'batch',
    resourceType: 'jobs',
    resourceName: 'migrate',
  });
});

test('a StatefulSet is awaited by its ready replica, a VirtualMachine by its Ready condition', () => {
  const sts = { kind: WaitKind.WORKLOAD_READY, service: 'db', target: 'db', workload: 'StatefulSet' as const };
  const vm = {
    kind: WaitKind.WORKLOAD_READY,
    service: 'legacy',
    target: 'shop-vm',
    workload: 'VirtualMachine' as const,
  };
  expect(waitContainer(sts, settings).args).toEqual([
    'wait',
    '--namespace=shop',
    '--for=jsonpath={.status.readyReplicas}=1',
    '--timeout=60s',
    'statefulset/db',
  ]);
  expect(waitContainer(vm, settings).args).toEqual([
    'wait',
    '--namespace=shop',
    '--for=condition=Ready',
    '--timeout=60s',
    'virtualmachine/shop-vm',
  ]);
  expect(waitResource(sts)).toEqual({ apiGroup: 'apps', resourceType: 'statefulsets', resourceName: 'db' });
  expect(waitResource(vm)).toEqual({
    apiGroup: 'kubevirt.io',
    resourceType: 'virtualmachines',
    resourceName: 'shop-vm',
  });
});
