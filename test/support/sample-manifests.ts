import { Manifest } from './problems';

/**
 * A small, clean migrated app that passes the schema validator, every Kubernetes rule and every safety rule.
 * The checks' own tests break one field of a fresh copy at a time and expect exactly that finding.
 */
export function sampleManifests(): Manifest[] {
  const resources = { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } };
  const podSecurity = { automountServiceAccountToken: false };
  // A JSON round trip unshares `resources`, so that a test breaking one container breaks that container only.
  return JSON.parse(
    JSON.stringify([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'NetworkPolicy',
        metadata: { name: 'default-deny', namespace: 'shop' },
        spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db-credentials', namespace: 'shop' },
        type: 'Opaque',
        data: { POSTGRES_PASSWORD: Buffer.from('s3cr3t-Pa55').toString('base64') },
        stringData: { API_TOKEN: 'tok-0123456789' },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-env', namespace: 'shop' },
        data: { LOG_LEVEL: 'info', DB_HOST: 'db' },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop', labels: { 'app.kubernetes.io/name': 'web' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { 'app.kubernetes.io/name': 'web' } },
          template: {
            metadata: { labels: { 'app.kubernetes.io/name': 'web', 'tier': 'frontend' } },
            spec: {
              ...podSecurity,
              initContainers: [
                {
                  name: 'wait-db',
                  image: 'busybox:1.36',
                  command: ['sh', '-c', 'until nc -z db 5432; do sleep 1; done'],
                  resources,
                },
              ],
              containers: [
                {
                  name: 'web',
                  image: 'nginx:1.25.3',
                  ports: [
                    { name: 'http', containerPort: 8080 },
                    { name: 'metrics', containerPort: 9090 },
                  ],
                  env: [
                    { name: 'LOG_LEVEL', value: 'info' },
                    {
                      name: 'POSTGRES_PASSWORD',
                      valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'POSTGRES_PASSWORD' } },
                    },
                  ],
                  envFrom: [{ configMapRef: { name: 'web-env' } }],
                  resources,
                  volumeMounts: [{ name: 'cache', mountPath: '/var/cache/nginx' }],
                },
              ],
              volumes: [{ name: 'cache', emptyDir: {} }],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          selector: { 'app.kubernetes.io/name': 'web' },
          ports: [
            { name: 'http', port: 80, targetPort: 'http' },
            { name: 'metrics', port: 9090, targetPort: 9090 },
          ],
        },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: 'shop' },
        spec: {
          serviceName: 'db',
          selector: { matchExpressions: [{ key: 'app.kubernetes.io/name', operator: 'In', values: ['db'] }] },
          template: {
            metadata: { labels: { 'app.kubernetes.io/name': 'db' } },
            spec: {
              ...podSecurity,
              containers: [
                {
                  name: 'postgres',
                  image: 'postgres@sha256:' + 'a'.repeat(64),
                  ports: [{ name: 'postgres', containerPort: 5432 }],
                  resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: 1, memory: '1Gi' } },
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'db', namespace: 'shop' },
        spec: {
          clusterIP: 'None',
          selector: { 'app.kubernetes.io/name': 'db' },
          ports: [{ name: 'postgres', port: 5432 }],
        },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'db-backup', namespace: 'shop' },
        spec: {
          schedule: '15 2 * * MON-FRI',
          jobTemplate: {
            spec: {
              template: {
                metadata: { labels: { job: 'db-backup' } },
                spec: {
                  ...podSecurity,
                  restartPolicy: 'OnFailure',
                  containers: [{ name: 'backup', image: 'postgres:15.4', args: ['pg_dump', '-h', 'db'], resources }],
                },
              },
            },
          },
        },
      },
      {
        apiVersion: 'cdi.kubevirt.io/v1beta1',
        kind: 'DataVolume',
        metadata: { name: 'legacy-root', namespace: 'shop' },
        spec: {
          source: { http: { url: 'https://images.example.com/legacy.qcow2' } },
          pvc: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
        },
      },
      {
        apiVersion: 'kubevirt.io/v1',
        kind: 'VirtualMachine',
        metadata: { name: 'legacy', namespace: 'shop' },
        spec: {
          running: true,
          template: {
            metadata: { labels: { 'app.kubernetes.io/name': 'legacy' } },
            spec: {
              domain: {
                devices: {
                  disks: [
                    { name: 'root', disk: { bus: 'virtio' } },
                    { name: 'cloudinit', disk: { bus: 'virtio' } },
                  ],
                  interfaces: [{ name: 'default', masquerade: {} }],
                },
                resources: { requests: { memory: '2Gi', cpu: '1' }, limits: { memory: '2Gi', cpu: '2' } },
              },
              networks: [{ name: 'default', pod: {} }],
              volumes: [
                { name: 'root', dataVolume: { name: 'legacy-root' } },
                { name: 'cloudinit', cloudInitNoCloud: { userData: '#cloud-config\nhostname: legacy\n' } },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'legacy', namespace: 'shop' },
        spec: {
          selector: { 'app.kubernetes.io/name': 'legacy' },
          ports: [{ name: 'app', port: 8000, targetPort: 8000 }],
        },
      },
    ]),
  );
}
