import { WaitKind, needsApi, waitContainer, waitResource } from '../../lib/app/dependency-wait';

const settings = { namespace: 'shop', timeoutSeconds: 60, tcpImage: 'busybox:1.36', kubectlImage: 'bitnami/kubectl:1.27' };

test('a TCP wait needs no API and runs as nobody with a read-only root', () => {
  const wait = { kind: WaitKind.TCP, service: 'db', target: 'db', port: 5432 };
  const container = waitContainer(wait, settings);
  expect(needsApi(wait)).toBe(false);
  expect(container.name).toBe('wait-for-db');
  expect(container.securityContext).toMatchObject({ ensureNonRoot: true, user: 65534, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
  expect(container.command![2]).toContain('until nc -z -w 2 db 5432; do');
});

test('a StatefulSet is awaited by its ready replica, a Deployment by its Available condition', () => {
  const sts = { kind: WaitKind.WORKLOAD_READY, service: 'db', target: 'db', workload: 'StatefulSet' as const };
  const deployment = { kind: WaitKind.WORKLOAD_READY, service: 'worker', target: 'worker', workload: 'Deployment' as const };
  expect(waitContainer(sts, settings).command![2]).toContain("kubectl wait --namespace=shop --for='jsonpath={.status.readyReplicas}=1' --timeout=60s statefulset/db");
  expect(waitContainer(deployment, settings).command![2]).toContain("--for='condition=available' --timeout=60s deployment/worker");
  expect(waitResource(sts)).toEqual({ apiGroup: 'apps', resourceType: 'statefulsets', resourceName: 'db' });
  expect(waitResource({ kind: WaitKind.JOB_COMPLETE, service: 'm', target: 'migrate' })).toEqual({ apiGroup: 'batch', resourceType: 'jobs', resourceName: 'migrate' });
});
