import {
  K8S_RULES,
  checkConfigMapData,
  checkConformance,
  checkCronSchedules,
  checkLabels,
  checkNames,
  checkPodSpecs,
  checkPorts,
  checkRequestsWithinLimits,
  checkSecretData,
  checkServiceSelectors,
  checkVmDevices,
  checkVmSpecs,
  checkWorkloadSelectors,
  checkDataVolumes,
  expectConformance,
} from './k8s-rules';
import { sampleManifests } from './sample-manifests';
import { findDoc } from './yaml-docs';

const web = (docs: any[]) => findDoc(docs, 'Deployment', 'web');
const webPod = (docs: any[]) => web(docs).spec.template.spec;
const vmSpec = (docs: any[]) => findDoc(docs, 'VirtualMachine', 'legacy').spec.template.spec;

describe('the clean sample', () => {
  test.each(K8S_RULES.map((r) => [r.name, r.check] as const))('passes %s', (_name, check) => {
    expect(check(sampleManifests())).toEqual([]);
  });

  test('passes checkConformance and expectConformance', () => {
    expect(checkConformance(sampleManifests())).toEqual([]);
    expect(() => expectConformance(sampleManifests())).not.toThrow();
  });

  test('checkConformance takes the items of a v1 List as documents', () => {
    const docs = sampleManifests();
    expect(checkConformance([{ apiVersion: 'v1', kind: 'List', items: docs }])).toEqual([]);
    findDoc(docs, 'Service', 'db').spec.selector = { app: 'none' };
    expect(
      checkConformance([{ apiVersion: 'v1', kind: 'List', items: docs }]).map((p) => `${p.kind}/${p.name}`),
    ).toEqual(['Service/db']);
  });
});

describe('checkNames', () => {
  test("applies each kind's own name rule", () => {
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'legacy').metadata.name = '1legacy'; // DNS-1035: must start with a letter
    findDoc(docs, 'ConfigMap', 'web-env').metadata.name = 'web.env'; // a subdomain: fine for a ConfigMap
    findDoc(docs, 'Namespace', 'shop').metadata.name = 'shop.prod'; // a label: no dots
    findDoc(docs, 'CronJob', 'db-backup').metadata.name = `backup-${'x'.repeat(46)}`; // 53 > 52
    const deployment = web(docs);
    deployment.metadata.name = 'Web_1';
    deployment.metadata.namespace = 'Shop';
    expect(checkNames(docs)).toEqual([
      {
        kind: 'Namespace',
        name: 'shop.prod',
        path: 'metadata.name',
        message:
          '"shop.prod" must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
      },
      {
        kind: 'Deployment',
        name: 'Web_1',
        path: 'metadata.name',
        message:
          '"Web_1" must be a DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
      },
      {
        kind: 'Deployment',
        name: 'Web_1',
        path: 'metadata.namespace',
        message:
          '"Shop" must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a letter or digit',
      },
      {
        kind: 'CronJob',
        name: `backup-${'x'.repeat(46)}`,
        path: 'metadata.name',
        message:
          `"backup-${'x'.repeat(46)}" must be no more than 52 characters (its Jobs are named after it with an 11-character ` +
          'suffix), got 53',
      },
      {
        kind: 'Service',
        name: '1legacy',
        path: 'metadata.name',
        message:
          '"1legacy" must be a DNS-1035 label: lowercase letters, digits and "-", starting with a letter and ending with a letter or digit',
      },
    ]);
  });

  test('a Job name is capped at 63, a VirtualMachine name is a label, a missing name is reported', () => {
    const job = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j'.repeat(64) }, spec: {} };
    const vm = { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'legacy.erp' } };
    const unnamed = { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} };
    expect(checkNames([job, vm, unnamed]).map((p) => `${p.kind}: ${p.message.replace(/"j+"/, '"j…"')}`)).toEqual([
      'Job: "j…" must be no more than 63 characters (it becomes the job-name label of its pods), got 64',
      'VirtualMachine: "legacy.erp" must be a DNS-1123 label: lowercase letters, digits and "-", starting and ending with a ' +
        'letter or digit',
      'ConfigMap: a name is required',
    ]);
  });

  test('two objects of one kind with one name in one namespace are reported; other kinds and namespaces are not', () => {
    const policy = (name: string, namespace: string) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name, namespace },
      spec: { podSelector: {} },
    });
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'allow-dns', namespace: 'shop' } };
    expect(
      checkNames([policy('allow-dns', 'shop'), config, policy('allow-dns', 'other'), policy('allow-dns', 'shop')]),
    ).toEqual([
      {
        kind: 'NetworkPolicy',
        name: 'allow-dns',
        path: 'metadata.name',
        message: '"allow-dns" is used by another NetworkPolicy in the same namespace',
      },
    ]);
  });
});

describe('checkLabels', () => {
  test('catches bad label keys and values, selector keys and annotation keys', () => {
    const docs = sampleManifests();
    web(docs).metadata.labels['example.com/'] = 'x';
    web(docs).spec.template.metadata.labels.version = 'v1.0+build';
    web(docs).spec.template.metadata.labels['a/b/c'] = 'x';
    web(docs).metadata.annotations = { 'Example.com/owner': 'team' };
    findDoc(docs, 'StatefulSet', 'db').spec.selector.matchExpressions[0].key = '-db';
    findDoc(docs, 'Service', 'web').spec.selector.tier = 'x'.repeat(64);
    expect(checkLabels(docs).map((p) => `${p.kind}/${p.name} ${p.path}: ${p.message}`)).toEqual([
      'Deployment/web metadata.labels["example.com/"]: label key "example.com/": the name part must be 1 to 63 characters, got 0',
      'Deployment/web metadata.annotations["Example.com/owner"]: annotation key "Example.com/owner": prefix "Example.com" must be a ' +
        'DNS-1123 subdomain: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
      'Deployment/web spec.template.metadata.labels.version: label value "v1.0+build" must be empty or letters, digits, "-", "_" ' +
        'and ".", starting and ending with a letter or digit',
      'Deployment/web spec.template.metadata.labels["a/b/c"]: label key "a/b/c": a key has at most one "/" (an optional DNS ' +
        'subdomain prefix, then a name)',
      'Service/web spec.selector.tier: label value "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" must be no ' +
        'more than 63 characters, got 64',
      'StatefulSet/db spec.selector.matchExpressions[0].key: selector key "-db": the name part must be letters, digits, "-", "_" ' +
        'and ".", starting and ending with a letter or digit',
    ]);
  });
});

describe('checkWorkloadSelectors', () => {
  test('catches a selector that does not match the template labels, and an empty one', () => {
    const docs = sampleManifests();
    web(docs).spec.selector.matchLabels['app.kubernetes.io/name'] = 'frontend';
    findDoc(docs, 'StatefulSet', 'db').spec.selector.matchExpressions[0].values = ['postgres'];
    findDoc(docs, 'CronJob', 'db-backup').spec.jobTemplate.spec.selector = {};
    expect(checkWorkloadSelectors(docs)).toEqual([
      {
        kind: 'Deployment',
        name: 'web',
        path: 'spec.selector',
        message:
          'does not match the template labels {"app.kubernetes.io/name":"web","tier":"frontend"} ' +
          '(at spec.template.metadata.labels): app.kubernetes.io/name=frontend is web there',
      },
      {
        kind: 'StatefulSet',
        name: 'db',
        path: 'spec.selector',
        message:
          'does not match the template labels {"app.kubernetes.io/name":"db"} (at spec.template.metadata.labels): ' +
          'expression {"key":"app.kubernetes.io/name","operator":"In","values":["postgres"]} does not hold',
      },
      {
        kind: 'CronJob',
        name: 'db-backup',
        path: 'spec.jobTemplate.spec.selector',
        message: 'an empty selector is invalid: it would select every pod',
      },
    ]);
  });

  test('evaluates every selector operator', () => {
    const deployment = (matchExpressions: any[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchExpressions },
        template: { metadata: { labels: { app: 'a', tier: 'web' } }, spec: { containers: [] } },
      },
    });
    const holds = [
      { key: 'app', operator: 'In', values: ['a', 'b'] },
      { key: 'tier', operator: 'NotIn', values: ['db'] },
      { key: 'app', operator: 'Exists' },
      { key: 'zone', operator: 'DoesNotExist' },
    ];
    expect(checkWorkloadSelectors([deployment(holds)])).toEqual([]);
    for (const fails of [
      { key: 'app', operator: 'In', values: ['b'] },
      { key: 'tier', operator: 'NotIn', values: ['web'] },
      { key: 'zone', operator: 'Exists' },
      { key: 'app', operator: 'DoesNotExist' },
      { key: 'app', operator: 'In', values: [] },
      { key: 'app', operator: 'Exists', values: ['a'] },
      { key: 'app', operator: 'Equals', values: ['a'] },
    ]) {
      expect(checkWorkloadSelectors([deployment([fails])])).toHaveLength(1);
    }
  });
});

describe('checkServiceSelectors', () => {
  test('catches a Service that selects nothing in its namespace, and a named targetPort no selected pod has', () => {
    const docs = sampleManifests();
    findDoc(docs, 'Service', 'db').spec.selector = { 'app.kubernetes.io/name': 'database' };
    findDoc(docs, 'Service', 'web').spec.ports[0].targetPort = 'https';
    findDoc(docs, 'Service', 'legacy').spec.ports[0].targetPort = 'app';
    expect(checkServiceSelectors(docs)).toEqual([
      {
        kind: 'Service',
        name: 'web',
        path: 'spec.ports[0].targetPort',
        message: '"https" is not a named container port of the selected Deployment/web',
      },
      {
        kind: 'Service',
        name: 'db',
        path: 'spec.selector',
        message: '{"app.kubernetes.io/name":"database"} selects no pod template or VirtualMachine in namespace "shop"',
      },
      {
        kind: 'Service',
        name: 'legacy',
        path: 'spec.ports[0].targetPort',
        message: '"app" is not a named container port of the selected VirtualMachine/legacy',
      },
    ]);
  });

  test('a matching workload in another namespace does not count', () => {
    const docs = sampleManifests();
    web(docs).metadata.namespace = 'other';
    expect(checkServiceSelectors(docs).map((p) => p.message)).toEqual([
      '{"app.kubernetes.io/name":"web"} selects no pod template or VirtualMachine in namespace "shop"',
    ]);
  });
});

describe('checkPodSpecs', () => {
  test('catches duplicate containers, a mount without a volume, bad volume and env names', () => {
    const docs = sampleManifests();
    webPod(docs).initContainers[0].name = 'web';
    webPod(docs).containers[0].volumeMounts.push({ name: 'data', mountPath: '/data' });
    webPod(docs).volumes.push({ name: 'Tmp', emptyDir: {} });
    webPod(docs).containers[0].env.push({ name: '1_BAD', value: 'x' });
    expect(checkPodSpecs(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.template.spec.volumes[1].name: volume name "Tmp" must be a DNS-1123 label: lowercase letters, digits and "-", ' +
        'starting and ending with a letter or digit',
      'spec.template.spec.containers[0].name: duplicate container name "web"',
      'spec.template.spec.containers[0].volumeMounts[1].name: "data" is not a volume of this pod (volumes: cache, Tmp)',
      'spec.template.spec.containers[0].env[2].name: "1_BAD" is not a valid environment variable name: letters, digits, ' +
        '"_", "-" and ".", not starting with a digit',
    ]);
  });
});

describe('checkPorts', () => {
  test('catches container port ranges, names and duplicates across containers of a pod', () => {
    const docs = sampleManifests();
    const pod = webPod(docs);
    pod.containers[0].ports[0].containerPort = 70000;
    pod.containers[0].ports[1].name = 'metrics-endpoint'; // 16 > 15
    pod.initContainers[0].ports = [{ name: 'http', containerPort: 8081, protocol: 'HTTP' }];
    expect(checkPorts(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.template.spec.initContainers[0].ports[0].protocol: must be one of TCP, UDP, SCTP, got "HTTP"',
      'spec.template.spec.containers[0].ports[0].containerPort: must be a port number 1-65535, got 70000',
      'spec.template.spec.containers[0].ports[0].name: duplicate port name "http" in the pod',
      'spec.template.spec.containers[0].ports[1].name: port name "metrics-endpoint" must be 1 to 15 characters, got 16',
    ]);
  });

  test('catches Service port ranges, names, duplicates and bad targetPorts', () => {
    const docs = sampleManifests();
    const ports = findDoc(docs, 'Service', 'web').spec.ports;
    ports[0].port = 0;
    ports[1].name = 'http';
    ports.push({ port: 9090, targetPort: 'metrics--port' });
    expect(checkPorts(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.ports[0].port: must be a port number 1-65535, got 0',
      'spec.ports[1].name: duplicate port name "http"',
      'spec.ports[2].targetPort: a named targetPort must not contain consecutive hyphens, got "metrics--port"',
      'spec.ports[2].port: duplicate port 9090/TCP',
      'spec.ports[2].name: a name is required when a Service has more than one port',
    ]);
  });
});

describe('checkRequestsWithinLimits', () => {
  test('compares quantities exactly across units', () => {
    const docs = sampleManifests();
    const resources = webPod(docs).containers[0].resources;
    resources.requests = { cpu: '0.6', memory: '256Mi' }; // 600m > 500m; 256Mi = 256Mi is fine
    webPod(docs).initContainers[0].resources.requests.memory = '268435457'; // one byte over 256Mi
    vmSpec(docs).domain.resources.requests.cpu = '3';
    expect(checkRequestsWithinLimits(docs).map((p) => `${p.kind} ${p.path}: ${p.message}`)).toEqual([
      'Deployment spec.template.spec.initContainers[0].resources.requests.memory: request "268435457" is more than the limit "256Mi"',
      'Deployment spec.template.spec.containers[0].resources.requests.cpu: request "0.6" is more than the limit "500m"',
      'VirtualMachine spec.template.spec.domain.resources.requests.cpu: request "3" is more than the limit "2"',
    ]);
  });

  test('an extended resource needs a limit equal to its request', () => {
    const docs = sampleManifests();
    webPod(docs).containers[0].resources.requests['nvidia.com/gpu'] = 1;
    webPod(docs).initContainers[0].resources.requests['nvidia.com/gpu'] = 1;
    webPod(docs).initContainers[0].resources.limits['nvidia.com/gpu'] = 2;
    expect(checkRequestsWithinLimits(docs).map((p) => p.message)).toEqual([
      'extended resource nvidia.com/gpu: request 1 must equal the limit 2',
      'extended resource nvidia.com/gpu cannot be overcommitted: set a limit equal to the request',
    ]);
  });
});

describe('checkCronSchedules', () => {
  test.each([
    '*/15 * * * *',
    '0 0 * * 0',
    '5 4 1-31/2 JAN-dec sun',
    '0 9-17 * * MON-FRI',
    '30 3 * * 6',
    '0,30 * ? * *',
    '5/15 * * * *',
    '@daily',
    '@midnight',
    '@hourly',
    '@weekly',
    '@monthly',
    '@yearly',
    '@annually',
    '@every 1h30m',
  ])('accepts %s', (schedule) => {
    const docs = sampleManifests();
    findDoc(docs, 'CronJob', 'db-backup').spec.schedule = schedule;
    expect(checkCronSchedules(docs)).toEqual([]);
  });

  test.each([
    ['0 0 * *', 'expected 5 fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily, got 4'],
    [
      '0 0 0 * * *',
      'expected 5 fields (minute hour day-of-month month day-of-week) or a descriptor such as @daily, got 6',
    ],
    ['60 * * * *', 'minute field "60": 60 is above the maximum 59'],
    ['0 24 * * *', 'hour field "24": 24 is above the maximum 23'],
    ['0 0 0 * *', 'day of month field "0": 0 is below the minimum 1'],
    ['0 0 * 13 *', 'month field "13": 13 is above the maximum 12'],
    ['0 0 * * 7', 'day of week field "7": 7 is above the maximum 6'],
    ['0 0 * * FRI-MON', 'day of week field "FRI-MON": the range "FRI-MON" starts after it ends'],
    ['*/0 * * * *', 'minute field "*/0": step "0" must be a positive number'],
    [
      '0 0 * * funday',
      'day of week field "funday": "funday" is not a number or a name (sun, mon, tue, wed, thu, fri, sat)',
    ],
    ['1-2-3 * * * *', 'minute field "1-2-3": too many hyphens in "1-2-3"'],
    [
      '@reboot',
      'unknown descriptor; allowed: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>',
    ],
    ['@every 1d', '"1d" is not a duration such as 90s, 15m or 1h30m'],
    [
      'CRON_TZ=UTC 0 0 * * *',
      'a time zone in the schedule (TZ= or CRON_TZ=) is not supported (rejected from Kubernetes 1.29); set spec.timeZone instead',
    ],
  ])('rejects %s', (schedule, reason) => {
    const docs = sampleManifests();
    findDoc(docs, 'CronJob', 'db-backup').spec.schedule = schedule;
    expect(checkCronSchedules(docs)).toEqual([
      {
        kind: 'CronJob',
        name: 'db-backup',
        path: 'spec.schedule',
        message: `${JSON.stringify(schedule)} is not a valid schedule: ${reason}`,
      },
    ]);
  });
});

describe('checkSecretData', () => {
  test('catches data that is not base64 and a bad key, without quoting the value', () => {
    const docs = sampleManifests();
    const secret = findDoc(docs, 'Secret', 'db-credentials');
    secret.data.POSTGRES_PASSWORD = 's3cr3t-Pa55';
    secret.stringData['API TOKEN'] = 'x';
    const problems = checkSecretData(docs);
    expect(problems).toEqual([
      {
        kind: 'Secret',
        name: 'db-credentials',
        path: 'data.POSTGRES_PASSWORD',
        message: 'is not base64: Secret data must be base64-encoded (or put plain text under stringData)',
      },
      {
        kind: 'Secret',
        name: 'db-credentials',
        path: 'stringData["API TOKEN"]',
        message: 'key "API TOKEN" must be letters, digits, "-", "_" and "." (not "." or ".."), at most 253 characters',
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain('s3cr3t');
  });

  test('accepts base64 wrapped over lines, and catches a Secret over 1 MiB', () => {
    const docs = sampleManifests();
    const secret = findDoc(docs, 'Secret', 'db-credentials');
    secret.data.CERT = Buffer.from('x'.repeat(200))
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(checkSecretData(docs)).toEqual([]);
    secret.data.BLOB = Buffer.alloc(1024 * 1024).toString('base64');
    expect(checkSecretData(docs).map((p) => p.message)).toEqual([
      expect.stringMatching(/^a Secret holds at most 1 MiB, got \d+ bytes$/),
    ]);
  });
});

describe('checkConfigMapData', () => {
  test('catches a bad key, binaryData that is not base64, and a key in both maps', () => {
    const docs = sampleManifests();
    const configMap = findDoc(docs, 'ConfigMap', 'web-env');
    configMap.data['nginx/conf'] = 'x';
    configMap.binaryData = { 'LOG_LEVEL': 'aW5mbw==', 'logo.png': 'not base64' };
    expect(checkConfigMapData(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'data["nginx/conf"]: key "nginx/conf" must be letters, digits, "-", "_" and "." (not "." or ".."), at most 253 characters',
      'binaryData.LOG_LEVEL: key "LOG_LEVEL" is in both data and binaryData',
      'binaryData["logo.png"]: is not base64: binaryData must be base64-encoded',
    ]);
  });
});

describe('checkVmDevices', () => {
  test('catches a disk without a volume, an interface without a network, and duplicate names', () => {
    const docs = sampleManifests();
    vmSpec(docs).domain.devices.disks.push({ name: 'data', disk: { bus: 'virtio' } });
    vmSpec(docs).domain.devices.interfaces.push({ name: 'storage', bridge: {} });
    vmSpec(docs).volumes.push({ name: 'root', emptyDisk: { capacity: '1Gi' } });
    expect(checkVmDevices(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.template.spec.volumes[2].name: duplicate volume name "root"',
      'spec.template.spec.domain.devices.disks[2].name: disk "data" has no volume of the same name in ' +
        'spec.template.spec.volumes (root, cloudinit)',
      'spec.template.spec.domain.devices.interfaces[1].name: interface "storage" has no network of the same name in ' +
        'spec.template.spec.networks (default)',
    ]);
  });
});

describe('checkVmSpecs', () => {
  test('catches running with runStrategy, no memory, few spinlocks and two pod networks', () => {
    const docs = sampleManifests();
    const vm = findDoc(docs, 'VirtualMachine', 'legacy');
    vm.spec.runStrategy = 'Always';
    delete vmSpec(docs).domain.resources;
    vmSpec(docs).domain.features = { hyperv: { spinlocks: { spinlocks: 1024 } } };
    vmSpec(docs).networks.push({ name: 'second', pod: {} });
    expect(checkVmSpecs(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec.running: running and runStrategy are mutually exclusive: set one',
      'spec.template.spec.domain: no memory requested: set resources.requests.memory or memory.guest',
      'spec.template.spec.domain.features.hyperv.spinlocks.spinlocks: must be at least 4096, got 1024',
      'spec.template.spec.networks[1].pod: more than one network is the pod network',
    ]);
  });
});

describe('checkDataVolumes', () => {
  test("catches CDI's admission rules on DataVolumes and dataVolumeTemplates", () => {
    const docs = sampleManifests();
    const dv = findDoc(docs, 'DataVolume', 'legacy-root');
    dv.spec.source.http.url = 'ftp://images.example.com/legacy.qcow2';
    dv.spec.pvc.accessModes.push('ReadOnlyMany');
    dv.spec.pvc.resources.requests.storage = '0';
    findDoc(docs, 'VirtualMachine', 'legacy').spec.dataVolumeTemplates = [
      {
        metadata: { name: 'scratch' },
        spec: {
          source: { blank: {}, registry: { url: 'quay.io/x' } },
          storage: { resources: { requests: { storage: '1Gi' } } },
        },
      },
    ];
    expect(checkDataVolumes(docs).map((p) => `${p.kind} ${p.path}: ${p.message}`)).toEqual([
      'DataVolume spec.pvc.resources.requests.storage: a storage request above zero is required',
      'DataVolume spec.pvc.accessModes: a pvc takes exactly one access mode, got ["ReadWriteOnce","ReadOnlyMany"]',
      'DataVolume spec.source.http.url: must be an http:// or https:// URL, got "ftp://images.example.com/legacy.qcow2"',
      'VirtualMachine spec.dataVolumeTemplates[0].spec.source: exactly one source (or a sourceRef) is required, got ["blank","registry"]',
      'VirtualMachine spec.dataVolumeTemplates[0].spec.source.registry.url: must start with docker://, oci-archive:// or ' +
        'image-stream://, got "quay.io/x"',
    ]);
  });

  test('requires one of pvc and storage', () => {
    const docs = sampleManifests();
    delete findDoc(docs, 'DataVolume', 'legacy-root').spec.pvc;
    expect(checkDataVolumes(docs).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'spec: a pvc or a storage is required',
    ]);
  });
});

describe('expectConformance', () => {
  test('throws one error naming every problem', () => {
    const docs = sampleManifests();
    findDoc(docs, 'CronJob', 'db-backup').spec.schedule = '0 0 * *';
    vmSpec(docs).domain.devices.disks[0].name = 'boot';
    expect(() => expectConformance(docs)).toThrow(
      [
        'Kubernetes rules: 2 problems',
        '  CronJob/db-backup: spec.schedule: "0 0 * *" is not a valid schedule: expected 5 fields (minute hour day-of-month ' +
          'month day-of-week) or a descriptor such as @daily, got 4',
        '  VirtualMachine/legacy: spec.template.spec.domain.devices.disks[0].name: disk "boot" has no volume of the same name in ' +
          'spec.template.spec.volumes (root, cloudinit)',
      ].join('\n'),
    );
  });
});
