import {
  checkContainerResources,
  checkDefaultDeny,
  checkHostPath,
  checkImagePins,
  checkPrivileged,
  checkSafety,
  checkSecretLeaks,
  checkServiceAccountTokens,
  expectSafe,
  unpinnedImageReason,
} from './safety-rules';
import { sampleManifests } from './sample-manifests';
import { findDoc } from './yaml-docs';

const webPod = (docs: any[]) => findDoc(docs, 'Deployment', 'web').spec.template.spec;
const vmSpec = (docs: any[]) => findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec;
const lines = (problems: { kind: string; name: string; path: string; message: string }[]) =>
  problems.map((p) => `${p.kind}/${p.name} ${p.path}: ${p.message}`);

describe('the clean sample', () => {
  test('has no safety problems and no warnings', () => {
    expect(
      checkSafety(sampleManifests(), {
        texts: [{ name: 'RUNBOOK.md', content: 'Rotate the password in Secret db-credentials.' }],
      }),
    ).toEqual({ problems: [], warnings: [] });
    expect(() => expectSafe(sampleManifests())).not.toThrow();
  });

  test('checkSafety takes the items of a v1 List as documents', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].image = 'nginx';
    const report = checkSafety([{ apiVersion: 'v1', kind: 'List', items: docs }]);
    expect(report.problems).toEqual([]);
    expect(report.warnings.map((w) => `${w.kind}/${w.name}`)).toEqual(['Deployment/web']);
  });
});

describe('checkSecretLeaks', () => {
  test('finds Secret values (decoded data and stringData) in env, args, ConfigMaps, annotations, labels and cloud-init', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].env.push({ name: 'DATABASE_URL', value: 'postgres://app:s3cr3t-Pa55@db/app' });
    findDoc(docs, 'CronJob', 'db-backup').spec.jobTemplate.spec.template.spec.containers[0].args.push(
      '--token=tok-0123456789',
    );
    findDoc(docs, 'ConfigMap', 'web-env').data.API_TOKEN = 'tok-0123456789';
    findDoc(docs, 'Service', 'web').metadata.annotations = { 'example.com/note': 'password is s3cr3t-Pa55' };
    findDoc(docs, 'StatefulSet', 'db').spec.template.metadata.labels.token = 'tok-0123456789';
    vmSpec(docs).volumes[1].cloudInitNoCloud.userData += 'password: s3cr3t-Pa55\n';
    const problems = checkSecretLeaks(docs);
    expect(lines(problems)).toEqual([
      'ConfigMap/web-env data.API_TOKEN: holds the value of Secret/db-credentials stringData.API_TOKEN in plain text; ' +
        'reference the Secret instead',
      'Service/web metadata.annotations["example.com/note"]: holds the value of Secret/db-credentials data.POSTGRES_PASSWORD ' +
        'in plain text; reference the Secret instead',
      'StatefulSet/db spec.template.metadata.labels.token: holds the value of Secret/db-credentials stringData.API_TOKEN in ' +
        'plain text; reference the Secret instead',
      'Deployment/web spec.template.spec.containers[0].env[2].value: holds the value of Secret/db-credentials ' +
        'data.POSTGRES_PASSWORD in plain text; reference the Secret instead',
      'CronJob/db-backup spec.jobTemplate.spec.template.spec.containers[0].args[3]: holds the value of ' +
        'Secret/db-credentials stringData.API_TOKEN in plain text; reference the Secret instead',
      'VirtualMachine/legacy spec.template.spec.volumes[1].cloudInitNoCloud.userData: holds the value of ' +
        'Secret/db-credentials data.POSTGRES_PASSWORD in plain text; reference the Secret instead',
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/s3cr3t|tok-01/);
  });

  test('scans extra texts line by line, and uses the given secret values instead of the Secrets when passed', () => {
    const docs = sampleManifests();
    const texts = [{ name: 'convert.log', content: 'converted 3 services\nset DB password to hunter22\n' }];
    expect(checkSecretLeaks(docs, { texts })).toEqual([]);
    expect(checkSecretLeaks(docs, { texts, secretValues: ['hunter22'] })).toEqual([
      {
        kind: 'text',
        name: 'convert.log',
        path: 'line 2',
        message: 'holds the value of secretValues[0] in plain text',
      },
    ]);
  });

  test('ignores secret values shorter than minSecretLength', () => {
    const docs = sampleManifests(); // LOG_LEVEL=info is in the ConfigMap and in an env value
    expect(checkSecretLeaks(docs, { secretValues: ['inf'] })).toEqual([]);
    expect(
      lines(checkSecretLeaks(docs, { secretValues: ['inf'], minSecretLength: 3 })).map((l) => l.split(':')[0]),
    ).toEqual(['ConfigMap/web-env data.LOG_LEVEL', 'Deployment/web spec.template.spec.containers[0].env[0].value']);
  });
});

describe('checkContainerResources', () => {
  const quota = (namespace: string, hard: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'namespace-quota', namespace },
    spec: { hard },
  });

  test('catches a container or init container without requests, and without a limit its quota bounds', () => {
    const docs = sampleManifests();
    const namespace = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!.metadata.namespace;
    docs.push(quota(namespace, { 'requests.cpu': '4', 'limits.memory': '8Gi' }));
    delete webPod(docs).containers[0].resources.limits.memory;
    delete webPod(docs).containers[0].resources.limits.cpu;
    delete webPod(docs).initContainers[0].resources;
    expect(lines(checkContainerResources(docs))).toEqual([
      'Deployment/web spec.template.spec.initContainers[0].resources: container "wait-db" sets no requests.cpu, ' +
        'requests.memory, limits.memory',
      'Deployment/web spec.template.spec.containers[0].resources: container "web" sets no limits.memory',
    ]);
  });

  test('a container without limits passes where no quota bounds them', () => {
    const docs = sampleManifests();
    const namespace = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!.metadata.namespace;
    docs.push(quota(namespace, { 'requests.cpu': '4', 'requests.memory': '8Gi' }));
    delete webPod(docs).containers[0].resources.limits;
    expect(lines(checkContainerResources(docs))).toEqual([]);
    delete webPod(docs).containers[0].resources.requests.cpu;
    expect(lines(checkContainerResources(docs))).toEqual([
      'Deployment/web spec.template.spec.containers[0].resources: container "web" sets no requests.cpu',
    ]);
  });
});

describe('checkPrivileged', () => {
  test('catches privileged containers, host namespaces and capabilities beyond the baseline', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].securityContext = {
      privileged: true,
      capabilities: { add: ['NET_BIND_SERVICE', 'SYS_ADMIN'] },
    };
    findDoc(docs, 'StatefulSet', 'db').spec.template.spec.hostNetwork = true;
    expect(lines(checkPrivileged(docs))).toEqual([
      "StatefulSet/db spec.template.spec.hostNetwork: shares the host's namespace (hostNetwork) but the workload is not allowed to",
      'Deployment/web spec.template.spec.containers[0].securityContext.privileged: container "web" is privileged but the ' +
        'workload is not allowed to be',
      'Deployment/web spec.template.spec.containers[0].securityContext.capabilities.add: container "web" adds SYS_ADMIN, ' +
        'beyond the baseline set, but the workload is not allowed to',
    ]);
    expect(lines(checkPrivileged(docs, ['web', 'db']))).toEqual([]);
  });
});

describe('checkHostPath', () => {
  test('catches hostPath volumes, hostDisk VM volumes and hostPath PersistentVolumes', () => {
    const docs = sampleManifests();
    webPod(docs).volumes.push({ name: 'docker-sock', hostPath: { path: '/var/run/docker.sock' } });
    vmSpec(docs).volumes.push({
      name: 'scratch',
      hostDisk: { path: '/data/scratch.img', type: 'DiskOrCreate', capacity: '1Gi' },
    });
    docs.push({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'local' },
      spec: { hostPath: { path: '/srv' } },
    });
    expect(lines(checkHostPath(docs))).toEqual([
      'Deployment/web spec.template.spec.volumes[1].hostPath: volume "docker-sock" mounts the node\'s "/var/run/docker.sock"; ' +
        'use a PersistentVolumeClaim',
      'VirtualMachine/legacy spec.template.spec.volumes[2].hostDisk: volume "scratch" is a disk image on the node; use a DataVolume',
      'PersistentVolume/local spec.hostPath: a hostPath PersistentVolume exposes the node\'s "/srv"',
    ]);
  });
});

describe('checkServiceAccountTokens', () => {
  test('catches a pod spec that leaves the token mounted, unless the workload needs the API', () => {
    const docs = sampleManifests();
    delete webPod(docs).automountServiceAccountToken;
    findDoc(docs, 'StatefulSet', 'db').spec.template.spec.automountServiceAccountToken = true;
    expect(lines(checkServiceAccountTokens(docs))).toEqual([
      'Deployment/web spec.template.spec.automountServiceAccountToken: must be false (got "unset"): the workload does not ' +
        'need the Kubernetes API',
      'StatefulSet/db spec.template.spec.automountServiceAccountToken: must be false (got true): the workload does not need ' +
        'the Kubernetes API',
    ]);
    expect(lines(checkServiceAccountTokens(docs, ['web']))).toHaveLength(1);
  });
});

describe('checkDefaultDeny', () => {
  const deny = (docs: any[]) => findDoc(docs, 'NetworkPolicy', 'default-deny');

  test('catches a namespace without any default-deny policy', () => {
    const docs = sampleManifests().filter((d: any) => d.kind !== 'NetworkPolicy');
    expect(lines(checkDefaultDeny(docs))).toEqual([
      'Namespace/shop : namespace "shop" has no default-deny NetworkPolicy (podSelector: {}, policyTypes: [Ingress, Egress], no rules)',
    ]);
  });

  test.each([
    [
      'a policy that selects some pods only',
      (p: any) => {
        p.spec.podSelector = { matchLabels: { app: 'web' } };
      },
    ],
    [
      'a policy without Egress',
      (p: any) => {
        p.spec.policyTypes = ['Ingress'];
      },
    ],
    [
      'a policy with an allow rule',
      (p: any) => {
        p.spec.ingress = [{ from: [{ podSelector: {} }] }];
      },
    ],
    [
      'a policy in another namespace',
      (p: any) => {
        p.metadata.namespace = 'other';
      },
    ],
  ])('does not count %s', (_what, breakIt) => {
    const docs = sampleManifests();
    breakIt(deny(docs));
    expect(checkDefaultDeny(docs)).toHaveLength(1);
  });

  test('documents without a namespace need a policy without one', () => {
    const docs = sampleManifests()
      .filter((d: any) => d.kind !== 'Namespace')
      .map((d: any) => ({ ...d, metadata: { ...d.metadata, namespace: undefined } }));
    expect(checkDefaultDeny(docs)).toEqual([]);
    expect(lines(checkDefaultDeny(docs.filter((d: any) => d.kind !== 'NetworkPolicy')))).toEqual([
      'Deployment/web : the namespace the documents are applied to has no default-deny NetworkPolicy (podSelector: {}, ' +
        'policyTypes: [Ingress, Egress], no rules)',
    ]);
  });
});

describe('checkImagePins', () => {
  test('warns about :latest and tagless images, never about tags or digests', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].image = 'nginx';
    webPod(docs).initContainers[0].image = 'registry.example.com:5000/tools/busybox:latest';
    vmSpec(docs).volumes.push({ name: 'tools', containerDisk: { image: 'quay.io/containerdisks/fedora' } });
    vmSpec(docs).domain.devices.disks.push({ name: 'tools', disk: {} });
    const report = checkSafety(docs);
    expect(report.problems).toEqual([]);
    expect(lines(report.warnings)).toEqual([
      'Deployment/web spec.template.spec.initContainers[0].image: image "registry.example.com:5000/tools/busybox:latest" ' +
        'uses the :latest tag; pin a version tag or a digest so that every node runs the same image',
      'Deployment/web spec.template.spec.containers[0].image: image "nginx" has no tag, which means :latest; pin a version ' +
        'tag or a digest so that every node runs the same image',
      'VirtualMachine/legacy spec.template.spec.volumes[2].containerDisk.image: image "quay.io/containerdisks/fedora" has no ' +
        'tag, which means :latest; pin a version tag or a digest so that every node runs the same image',
    ]);
    expect(checkImagePins(sampleManifests())).toEqual([]);
  });

  test.each([
    ['nginx:1.25', undefined],
    ['registry.example.com:5000/app', 'has no tag, which means :latest'],
    ['app:latest@sha256:' + 'b'.repeat(64), undefined],
    ['ghcr.io/org/app:latest', 'uses the :latest tag'],
  ])('%s', (image, reason) => {
    expect(unpinnedImageReason(image)).toBe(reason);
  });
});

describe('expectSafe', () => {
  test('throws on problems with one line each, and returns the warnings', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].image = 'nginx:latest';
    expect(expectSafe(docs).warnings).toHaveLength(1);
    webPod(docs).volumes.push({ name: 'host', hostPath: { path: '/' } });
    expect(() => expectSafe(docs)).toThrow(
      [
        'safety rules: 1 problem',
        '  Deployment/web: spec.template.spec.volumes[1].hostPath: volume "host" mounts the node\'s "/"; use a PersistentVolumeClaim',
      ].join('\n'),
    );
  });
});
