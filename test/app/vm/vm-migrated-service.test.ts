import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Size, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp, ComposeAppProps } from '../../../lib/app/compose-app';
import { ServiceTarget } from '../../../lib/app/settings';
import { VmMigratedService } from '../../../lib/app/vm/vm-migrated-service';
import { ComposeVm } from '../../../lib/vm/compose-vm';
import { GoldenImageBundle } from '../../../lib/vm/golden-image-bundle';
import { expectManifestsPass } from '../../support/checks';
import { Manifest } from '../../support/problems';
import { findDoc, findDocs } from '../../support/yaml-docs';
import { ToolResult, cloudInitSchema, composeConfig, packerValidate, systemdVerify, tempDir } from '../../vm/tools';
import { mainContainer, modelOf, podSpec, secretData } from '../app-fixture';

const IMAGES = 'https://images.example.com/vm';

/** A shop whose reporting daemon drives the Docker engine: assessment sends it to the VM. */
const SHOP = `
name: shop
services:
  web:
    image: nginx:1.27.2-alpine
    ports: ["8080:80"]
    environment:
      REPORTS_URL: http://reporting:8000/latest
      LEGACY_HOST: legacy-reports
    depends_on: [reports]
    networks: [front]
  shop_db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: hybrid-db-pass-2c1f }
    networks:
      back: { aliases: [database] }
  reports:
    image: registry.example.com/shop/reports:3.2
    hostname: legacy-reports
    networks:
      front: { aliases: [reporting] }
      back: {}
    ports: ["8000:8000", "127.0.0.1:8001:8001", "2121:21"]
    environment:
      DATABASE_URL: postgres://reports:hybrid-db-pass-2c1f@database:5432/shop
      LICENSE_KEY: lic-7d3e-hybrid
      OUTPUT_DIR: /var/lib/reports
    volumes:
      - /var/run/docker.sock:/var/run/docker.sock
      - archive:/var/lib/reports
    depends_on:
      shop_db: { condition: service_healthy }
    x-cdk8s-compose: { http: { port: 8000 } }
    deploy: { resources: { limits: { cpus: "1.5", memory: 1536M } } }
volumes:
  archive: {}
networks:
  front: {}
  back: {}
`;

/** Check options for an app's own output: its Secrets' values kept out of everything else, tokens only for API waits. */
function checkOptions(app: ComposeApp, manifests: Manifest[], texts: { name: string; content: string }[] = []) {
  const secretValues = manifests
    .filter((d) => d.kind === 'Secret')
    .flatMap((d) => Object.values(secretData(d)))
    .flatMap((value) => value.split('\n').map((line) => line.replace(/^.*='(.*)'$/, '$1')))
    .filter((value) => /pass|lic-/.test(value));
  return {
    secretValues,
    texts,
    allowServiceAccountToken: app.services.filter((s) => s.serviceAccountName !== undefined).map((s) => s.name),
  };
}

function synth(text: string, props: Omit<ComposeAppProps, 'model' | 'composeFile'> = {}) {
  const app = new App({ outdir: tempDir('hybrid-out') });
  const chart = new Chart(app, 'test');
  const composeApp = new ComposeApp(chart, 'app', { model: modelOf(text), ...props });
  const docs: Manifest[] = Testing.synth(chart);
  return { app, chart, composeApp, docs };
}

// The licence key is a secret by the app's own word: sensitiveEnv reaches the VM's .env like a container's Secret.
const HYBRID: Omit<ComposeAppProps, 'model' | 'composeFile'> = {
  target: ServiceTarget.AUTO,
  vm: { imageBaseUrl: IMAGES },
  services: { reports: { sensitiveEnv: ['LICENSE_KEY'] } },
};
const hybrid = synth(SHOP, HYBRID);
const { composeApp: shop, docs } = hybrid;
const reports = shop.vmService('reports');

describe('routing', () => {
  test('target: auto sends what assessment flags to the VM and says why', () => {
    expect(shop.vmServices.map((s) => s.composeName)).toEqual(['reports']);
    expect(shop.services.map((s) => s.composeName)).toEqual(['shop_db', 'web']);
    expect(reports.reasons).toEqual([
      'services.reports.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have',
    ]);
    expect(shop.warnings.find((w) => w.code === 'vm-target')).toEqual({
      code: 'vm-target',
      message:
        'service "reports" runs in the VM "shop-vm": services.reports.volumes: mounts the Docker socket /var/run/docker.sock: ' +
        'the service drives a Docker engine, which a pod does not have',
      at: expect.objectContaining({ path: 'services.reports' }),
    });
  });

  test('the per-service target, vm.services and the x-cdk8s-compose key route a service too', () => {
    const text =
      'name: r\nservices:\n  a: { image: a:1, expose: ["80"] }\n  b: { image: b:1, expose: ["81"] }\n  c: { image: c:1, expose: ["82"], x-cdk8s-compose: { target: vm } }\n';
    const { composeApp } = synth(text, {
      services: { a: { target: ServiceTarget.VM } },
      vm: { imageBaseUrl: IMAGES, services: ['b'] },
    });
    expect(composeApp.vmServices.map((s) => `${s.composeName}: ${s.reasons.join('; ')}`)).toEqual([
      'a: services["a"].target is "vm"',
      'b: vm.services lists it',
      'c: x-cdk8s-compose.target is "vm"',
    ]);
    expect(composeApp.vm!.bundle.services).toEqual(['a', 'b', 'c']);
  });

  test('target: vm runs every service in the one VM; a container target overrides assessment', () => {
    const all = synth(SHOP, { target: ServiceTarget.VM, vm: { imageBaseUrl: IMAGES } }).composeApp;
    expect(all.vmServices.map((s) => s.composeName)).toEqual(['reports', 'shop_db', 'web']);
    expect(all.services).toEqual([]);
    const none = synth(SHOP, {
      target: ServiceTarget.AUTO,
      services: { reports: { target: ServiceTarget.CONTAINER } },
    }).composeApp;
    expect(none.vm).toBeUndefined();
    expect(none.service('reports').deployment).toBeDefined();
  });

  test('a service routed to the VM without the vm prop is an error', () => {
    expect(
      () => synth(SHOP, { target: ServiceTarget.AUTO, services: {}, vm: undefined, quota: false }).composeApp,
    ).toThrow(
      'test/app: "reports" runs in a VM, which needs the vm prop. Allowed: vm: { imageBaseUrl: "<the folder URL where the golden image is ' +
        'published>" }. Fix: pass vm.imageBaseUrl, or run the services as containers (target: ServiceTarget.CONTAINER).',
    );
  });

  test("vm.services must name compose services, and must not contradict a service's own target", () => {
    expect(() => synth(SHOP, { vm: { imageBaseUrl: IMAGES, services: ['report'] } })).toThrow(
      'test/app: vm.services names "report", which is not in the compose file. Allowed: reports, shop_db, web. ' +
        'Fix: use the compose service name as written in the file.',
    );
    expect(() =>
      synth(SHOP, {
        vm: { imageBaseUrl: IMAGES, services: ['web'] },
        services: { web: { target: ServiceTarget.CONTAINER } },
      }),
    ).toThrow('test/app: vm.services lists "web", and services["web"].target is "container". Fix: remove one of them.');
  });

  test('a vm prop that routes nothing is reported', () => {
    const { composeApp } = synth('name: q\nservices:\n  a: { image: a:1 }\n', { vm: { imageBaseUrl: IMAGES } });
    expect(composeApp.vm).toBeUndefined();
    expect(composeApp.warnings.map((w) => w.code)).toEqual(['vm-unused']);
  });
});

describe('handles', () => {
  test('app.vm is the ComposeVm; vmService gives each VM service its Services and Ingress', () => {
    expect(shop.vm).toBeInstanceOf(ComposeVm);
    expect(reports).toBeInstanceOf(VmMigratedService);
    expect(reports.vm).toBe(shop.vm);
    expect(reports.service).toBe(shop.vm!.services.reports);
    expect(reports.ingress).toBeInstanceOf(kplus.Ingress);
    expect(reports.externalService).toBeInstanceOf(kplus.Service);
    expect(reports.ports.map((p) => `${p.target}->${p.hostPort}/${p.protocol}`)).toEqual([
      '21->2121/tcp',
      '8000->8000/tcp',
      '8001->8001/tcp',
    ]);
  });

  test('service() and vmService() say where a service runs instead', () => {
    expect(() => shop.service('reports')).toThrow(
      'test/app: service "reports" runs in the VM "shop-vm", not in a container. Fix: use vmService("reports").',
    );
    expect(() => shop.vmService('web')).toThrow(
      'test/app: service "web" does not run in the VM. Allowed: reports. ' +
        'Fix: route it with services["<name>"].target: ServiceTarget.VM, vm.services, or target: ServiceTarget.AUTO.',
    );
  });
});

describe('the VM', () => {
  test("every object lives in the app's namespace and passes the schema, Kubernetes and safety checks", () => {
    for (const doc of docs.filter((d) => d.kind !== 'Namespace')) {
      expect(`${doc.kind}/${doc.metadata.name}: ${doc.metadata.namespace}`).toBe(
        `${doc.kind}/${doc.metadata.name}: shop`,
      );
    }
    const texts = shop.vm!.bundle.files().map((f) => ({ name: f.path, content: f.content.toString('utf-8') }));
    expectManifestsPass(docs, checkOptions(shop, docs, texts));
  });

  test('boots the published image, sized from the services it runs, with limits for the quota', () => {
    const vm = findDoc(docs, 'VirtualMachine', 'shop-vm');
    expect(vm.spec.template.spec.domain.resources).toEqual({
      requests: { cpu: '1000m', memory: '3Gi' },
      limits: { cpu: '2', memory: '3Gi' },
    });
    expect(vm.spec.template.spec.domain.cpu).toEqual({ cores: 2 });
    expect(vm.spec.template.metadata.labels).toEqual({
      'kubevirt.io/vm': 'shop-vm',
      'network.cdk8s-compose.io/back': 'true',
      'network.cdk8s-compose.io/front': 'true',
    });
    expect(findDoc(docs, 'DataVolume', 'shop-vm-rootdisk').spec.source.http.url).toBe(
      'https://images.example.com/vm/shop-vm.qcow2',
    );
  });

  test("the VM service's Service: each container port in front of the port the VM listens on (the host port), a local-only one too", () => {
    // 127.0.0.1:8001:8001 is reached in the cluster through the Service (not from outside): the VM listens on 8001.
    expect(findDoc(docs, 'Service', 'reports').spec).toMatchObject({
      type: 'ClusterIP',
      selector: { 'kubevirt.io/vm': 'shop-vm' },
      ports: [
        { name: 'tcp-21', port: 21, targetPort: 2121 },
        { name: 'tcp-8000', port: 8000, targetPort: 8000 },
        // Bound to 127.0.0.1 on the compose host: the VM listens on every address, where the pod network reaches it.
        { name: 'tcp-8001', port: 8001, targetPort: 8001 },
      ],
    });
  });

  test('published ports follow the exposure rule: the HTTP port through an Ingress, the rest through a LoadBalancer on the VM', () => {
    const ingress = findDoc(docs, 'Ingress', 'reports');
    expect(ingress.spec.rules).toEqual([
      {
        host: 'reports.example.com',
        http: {
          paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'reports', port: { number: 8000 } } } }],
        },
      },
    ]);
    expect(ingress.metadata.annotations).toEqual({
      'nginx.ingress.kubernetes.io/rewrite-target': '/',
      'argocd.argoproj.io/sync-wave': '3',
    });
    expect(findDoc(docs, 'Service', 'reports-external').spec).toMatchObject({
      type: 'LoadBalancer',
      selector: { 'kubevirt.io/vm': 'shop-vm' },
      ports: [{ name: 'tcp-2121', port: 2121, targetPort: 2121 }],
    });
    expect(reports.publishedPorts.map((p) => `${p.mapping.published}:${p.mapping.target} ${p.access}`)).toEqual([
      '2121:21 LoadBalancer',
      '8000:8000 Ingress',
      '8001:8001 Internal',
    ]);
  });
});

describe("rule 2 across the VM's edge", () => {
  test('containers address the VM service by its Service name: compose name, alias and hostname rewritten', () => {
    const env = findDoc(docs, 'ConfigMap', 'web-env').data;
    expect(env).toEqual({ LEGACY_HOST: 'reports', REPORTS_URL: 'http://reports:8000/latest' });
  });

  test("the VM's compose project addresses container services by their Service names, secrets in its .env via the VM's Secret", () => {
    const compose = shop.vm!.bundle.subset.composeFile;
    expect(compose).toContain('DATABASE_URL: ${DATABASE_URL:?set DATABASE_URL in /opt/shop-vm/.env}');
    expect(compose).toContain('OUTPUT_DIR: /var/lib/reports');
    expect(compose).toContain('LICENSE_KEY: ${LICENSE_KEY:?set LICENSE_KEY in /opt/shop-vm/.env}');
    expect(compose).not.toContain('hybrid-db-pass');
    const userData = secretData(findDoc(docs, 'Secret', 'shop-vm-app-secrets')).env;
    expect(userData).toContain("DATABASE_URL='postgres://reports:hybrid-db-pass-2c1f@shop-db:5432/shop'");
    expect(userData).toContain("LICENSE_KEY='lic-7d3e-hybrid'");
    expect(shop.warnings.filter((w) => w.code === 'host-rewrite').map((w) => `${w.at.path}: ${w.message}`)).toEqual([
      'services.web.environment.LEGACY_HOST: host "legacy-reports" in LEGACY_HOST rewritten to the Service name "reports"',
      'services.web.environment.REPORTS_URL: host "reporting" in REPORTS_URL rewritten to the Service name "reports"',
      'services.reports.environment.DATABASE_URL: host "database" in DATABASE_URL rewritten to the Service name "shop-db" (the service runs ' +
        'in the VM and reaches it through its Service)',
    ]);
  });

  test('a file of the VM service that names a container service is reported', () => {
    const { composeApp } = synth(
      `
name: f
services:
  app:
    image: app:1
    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]
    configs: [{ source: settings, target: /etc/app.conf }]
  shop_cache: { image: redis:7 }
configs:
  settings: { content: "cache_url = redis://shop_cache:6379\\n" }
`,
      { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } },
    );
    expect(composeApp.warnings.filter((w) => w.code === 'file-host-reference').map((w) => w.message)).toEqual([
      'config "settings" refers to "shop_cache", which runs outside the VM as the Service "shop-cache"; edit the file',
    ]);
  });
});

describe("dependencies across the VM's edge", () => {
  test("a container waits for the VM service's Service like any other", () => {
    const waits = podSpec(findDoc(docs, 'Deployment', 'web')).initContainers;
    expect(waits.map((c: any) => c.name)).toEqual(['wait-for-reports']);
    expect(waits[0].command[2]).toContain('until nc -z -w 2 reports 21; do');
  });

  test("the VM's unit waits for the container service it depends on", () => {
    const unit = shop
      .vm!.bundle.files()
      .find((f) => f.path === 'systemd/shop-vm.service')!
      .content.toString();
    expect(unit).toContain(
      "ExecStartPre=/bin/bash -c 'for i in $$(seq 1 150); do (exec 3<>/dev/tcp/shop-db/5432) 2>/dev/null && exit 0;",
    );
    expect(shop.warnings.find((w) => w.code === 'vm-dependency-outside')?.message).toBe(
      '"shop_db" runs outside the VM: it is reached ' +
        "through its Service, and the app's unit waits until shop-db:5432 accepts connections before it starts the app",
    );
  });

  test('without a reachable TCP port, a container waits for the VirtualMachine to be Ready through the API', () => {
    const { composeApp, docs: apart } = synth(
      `
name: w
services:
  agent: { image: agent:1, privileged: true }
  app: { image: app:1, depends_on: { agent: { condition: service_completed_successfully } } }
`,
      { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } },
    );
    const spec = podSpec(findDoc(apart, 'Deployment', 'app'));
    expect(spec.initContainers[0].args).toEqual([
      'wait',
      '--namespace=w',
      '--for=condition=Ready',
      '--timeout=300s',
      'virtualmachine/w-vm',
    ]);
    expect(findDoc(apart, 'Role', 'app-wait').rules).toEqual([
      {
        apiGroups: ['kubevirt.io'],
        resources: ['virtualmachines'],
        resourceNames: ['w-vm'],
        verbs: ['get', 'list', 'watch'],
      },
    ]);
    expect(composeApp.warnings.find((w) => w.code === 'vm-dependency')?.message).toBe(
      '"agent" runs in the VM, where its completion is not ' +
        'visible to Kubernetes: the pod waits for the VM to be ready instead',
    );
    expect(findDoc(apart, 'NetworkPolicy', 'allow-app').spec.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '0.0.0.0/0' } }],
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 6443, protocol: 'TCP' },
      ],
    });
    expectManifestsPass(apart, checkOptions(composeApp, apart));
  });

  test('a container that depends on two services in the VM waits for the VM once', () => {
    const { docs: both } = synth(
      `
name: t
services:
  a: { image: a:1, privileged: true }
  b: { image: b:1, network_mode: host }
  app: { image: app:1, depends_on: [a, b] }
`,
      { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } },
    );
    expect(podSpec(findDoc(both, 'Deployment', 'app')).initContainers.map((c: any) => c.name)).toEqual([
      'wait-for-t-vm',
    ]);
  });

  test('a VM service that depends on a container without a TCP Service starts without waiting, and says so', () => {
    const { composeApp } = synth(
      `
name: j
services:
  seed: { image: seed:1 }
  agent: { image: agent:1, privileged: true, depends_on: { seed: { condition: service_completed_successfully } } }
`,
      { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } },
    );
    expect(composeApp.warnings.find((w) => w.code === 'vm-dependency')?.message).toBe(
      '"seed" has no TCP Service the VM can wait on, so the VM ' + 'starts without waiting for it',
    );
  });
});

describe('network policies', () => {
  test('the VM is a workload: reached on its VM ports from shared networks and the ingress controller, open to the LoadBalancer', () => {
    const policy = findDoc(docs, 'NetworkPolicy', 'allow-shop-vm');
    expect(policy.spec.podSelector).toEqual({ matchLabels: { 'kubevirt.io/vm': 'shop-vm' } });
    expect(policy.spec.ingress).toEqual([
      {
        from: [
          { podSelector: { matchLabels: { 'network.cdk8s-compose.io/back': 'true' } } },
          { podSelector: { matchLabels: { 'network.cdk8s-compose.io/front': 'true' } } },
        ],
        ports: [
          { port: 2121, protocol: 'TCP' },
          { port: 8000, protocol: 'TCP' },
          { port: 8001, protocol: 'TCP' },
        ],
      },
      {
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
        ports: [{ port: 8000, protocol: 'TCP' }],
      },
      { ports: [{ port: 2121, protocol: 'TCP' }] },
    ]);
    expect(findDoc(docs, 'NetworkPolicy', 'allow-web').spec.egress[0]).toEqual({
      to: [{ podSelector: { matchLabels: { 'network.cdk8s-compose.io/front': 'true' } } }],
      ports: [
        { port: 80, protocol: 'TCP' },
        { port: 2121, protocol: 'TCP' },
        { port: 8000, protocol: 'TCP' },
        { port: 8001, protocol: 'TCP' },
      ],
    });
  });

  test("CDI's importer may fetch the image from the image server's port, and nothing else", () => {
    expect(findDoc(docs, 'NetworkPolicy', 'allow-shop-vm-importer').spec).toEqual({
      podSelector: { matchLabels: { 'cdi.kubevirt.io': 'importer' } },
      policyTypes: ['Ingress', 'Egress'],
      egress: [
        { to: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ port: 443, protocol: 'TCP' }] },
        { to: [{ ipBlock: { cidr: '::/0' } }], ports: [{ port: 443, protocol: 'TCP' }] },
      ],
    });
  });
});

describe('quota', () => {
  test("counts the VM's pod with KubeVirt's overhead, the importer and the DataVolume", () => {
    const needs = shop.quota!.computeNeeds();
    expect(needs.workloads.filter((w) => /VirtualMachine|DataVolume/.test(w.workload))).toEqual([
      {
        workload: 'DataVolume/shop-vm-datadisk',
        pods: 1,
        perPod: {
          requestsCpuMillicores: 100,
          requestsMemoryBytes: 60e6,
          limitsCpuMillicores: 750,
          limitsMemoryBytes: 600e6,
        },
      },
      {
        workload: 'DataVolume/shop-vm-rootdisk',
        pods: 1,
        perPod: {
          requestsCpuMillicores: 100,
          requestsMemoryBytes: 60e6,
          limitsCpuMillicores: 750,
          limitsMemoryBytes: 600e6,
        },
      },
      {
        workload: 'VirtualMachine/shop-vm',
        pods: 1,
        perPod: {
          requestsCpuMillicores: 1000,
          requestsMemoryBytes: 3 * 1024 ** 3 + 256 * 1024 ** 2 + 2 * 8 * 1024 ** 2 + (3 * 1024 ** 3) / 512,
          limitsCpuMillicores: 2000,
          limitsMemoryBytes: 3 * 1024 ** 3 + 256 * 1024 ** 2 + 2 * 8 * 1024 ** 2 + (3 * 1024 ** 3) / 512,
        },
      },
    ]);
    // The root disk and the data disk.
    expect(needs.persistentVolumeClaims).toBe(findDocs(docs, 'PersistentVolumeClaim').length + 2);
  });

  test('a quota the VM does not fit fails synthesis naming it', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test');
    new ComposeApp(chart, 'app', {
      model: modelOf(SHOP),
      target: ServiceTarget.AUTO,
      vm: { imageBaseUrl: IMAGES },
      defaultLimits: true,
      quota: { hard: { limitsMemory: Size.gibibytes(4) } },
    });
    expect(() => Testing.synth(chart)).toThrow(
      '[test/app/Quota] the app does not fit the quota: limits.memory needs 6031Mi at its peak ' +
        '(VirtualMachine/shop-vm 1 × 3350Mi, Deployment/web 2 × 512Mi, DataVolume/shop-vm-datadisk 1 × 573Mi), the quota allows 4Gi.',
    );
  });
});

describe('kompose labels on a VM service', () => {
  test('the exposure labels shape its Services; the labels that configure pods are reported', () => {
    const { composeApp, docs: labelled } = synth(
      `
name: l
services:
  agent:
    image: agent:1
    privileged: true
    ports: ["9100:9100"]
    labels:
      kompose.service.type: nodeport
      kompose.service.nodeport.port: "30910"
      kompose.hpa.cpu: "60"
      kompose.service.group: monitoring
`,
      { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } },
    );
    expect(findDoc(labelled, 'Service', 'agent-external').spec).toMatchObject({
      type: 'NodePort',
      ports: [{ port: 9100, targetPort: 9100, nodePort: 30910 }],
    });
    expect(composeApp.warnings.filter((w) => w.code === 'unsupported-label').map((w) => w.message)).toEqual([
      'ignored label "kompose.hpa.cpu": it configures pods, and the service runs in the VM',
      'ignored label "kompose.service.group": this kompose label is not honoured',
    ]);
  });
});

describe('output', () => {
  test('the hybrid app (snapshot)', () => {
    expect(
      docs.filter(
        (d) =>
          ['VirtualMachine', 'DataVolume', 'Service', 'Ingress', 'NetworkPolicy'].includes(d.kind) &&
          /reports|shop-vm/.test(d.metadata.name),
      ),
    ).toMatchSnapshot();
  });

  test('is byte-stable', () => {
    const again = synth(SHOP, HYBRID);
    expect(JSON.stringify(again.docs)).toBe(JSON.stringify(docs));
    expect(again.composeApp.vm!.bundle.files().map((f) => f.content.toString('base64'))).toEqual(
      shop.vm!.bundle.files().map((f) => f.content.toString('base64')),
    );
  });

  describe('the bundle passes the real tools', () => {
    const outdir = tempDir('hybrid-bundle');
    GoldenImageBundle.synthesizeAll(hybrid.app, outdir);
    const dir = path.join(outdir, 'golden-image', 'shop-vm');
    const bundle = shop.vm!.bundle;
    const env = Object.fromEntries(Object.keys(bundle.subset.secretEnv).map((k) => [k, 'operator-value']));
    const checks: Record<string, Promise<ToolResult>> = {};
    beforeAll(async () => {
      checks.packer = packerValidate(dir);
      checks.systemd = systemdVerify(
        'shop-vm.service',
        fs.readFileSync(path.join(dir, 'systemd/shop-vm.service'), 'utf-8'),
        '/opt/shop-vm',
      );
      checks.compose = composeConfig(path.join(dir, 'app'), env);
      checks.cloudInit = cloudInitSchema(
        findDoc(docs, 'VirtualMachine', 'shop-vm').spec.template.spec.volumes.find((v: any) => v.cloudInitNoCloud)
          .cloudInitNoCloud.userData,
      );
      await Promise.all(Object.values(checks));
    });

    test.each(['packer', 'systemd', 'compose', 'cloudInit'])('%s accepts it', async (tool) => {
      expect(await checks[tool]).toMatchObject({ ok: true });
    });
  });

  test('a container service keeps its own container', () => {
    expect(mainContainer(findDoc(docs, 'Deployment', 'web')).image).toBe('nginx:1.27.2-alpine');
  });
});

describe('a service on the host network (the media server)', () => {
  const MEDIA = `
name: media
services:
  plex:
    image: linuxserver/plex:1.41.0
    network_mode: host
    environment: { VERSION: docker }
`;
  const { composeApp, docs } = synth(MEDIA, { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } });

  test('gets a Service on the port it listens on, and is published as compose publishes it on the host', () => {
    expect(findDoc(docs, 'Service', 'plex').spec).toMatchObject({
      selector: { 'kubevirt.io/vm': 'media-vm' },
      ports: [{ name: 'tcp-32400', port: 32400, targetPort: 32400 }],
    });
    expect(findDoc(docs, 'Service', 'plex-external').spec).toMatchObject({
      type: 'LoadBalancer',
      selector: { 'kubevirt.io/vm': 'media-vm' },
      ports: [expect.objectContaining({ port: 32400, targetPort: 32400 })],
    });
    expect(composeApp.warnings.find((w) => w.code === 'host-network-ports')?.message).toBe(
      'service "plex" uses the host network: its port 32400/tcp is published from the VM as compose publishes it ' +
        'on the host, reached in the cluster through the Service "plex", and its egress is open, as on the host',
    );
  });

  test('keeps the egress compose gave it, and is open on its port: not a DNS-only policy', () => {
    const policy = findDoc(docs, 'NetworkPolicy', 'allow-media-vm').spec;
    expect(policy.egress).toEqual(
      expect.arrayContaining([{ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }, { to: [{ ipBlock: { cidr: '::/0' } }] }]),
    );
    expect(policy.ingress).toEqual(expect.arrayContaining([{ ports: [{ port: 32400, protocol: 'TCP' }] }]));
  });

  test('with no port known it says so, with the fix', () => {
    const { composeApp: unknown } = synth(MEDIA.replace('linuxserver/plex:1.41.0', 'example/daemon:1'), {
      target: ServiceTarget.AUTO,
      vm: { imageBaseUrl: IMAGES },
    });
    expect(unknown.warnings.find((w) => w.code === 'host-network-ports')?.message).toBe(
      'service "plex" uses the host network and no port of it is known, so nothing outside the VM reaches it; its ' +
        'egress is open, as on the host. If it listens, declare the ports in services.plex.ports (["<port>:<port>"])',
    );
  });
});

describe('a group that shares a store moves together', () => {
  const SHARED = `
name: sso
services:
  server:
    image: ghcr.io/goauthentik/server:2025.2.4
    ports: ["9000:9000"]
    volumes: ["./media:/media"]
  worker:
    image: ghcr.io/goauthentik/server:2025.2.4
    volumes: ["/var/run/docker.sock:/var/run/docker.sock", "./media:/media"]
`;

  test('the service that shares a bind with a VM service runs in the VM too, and says why', () => {
    const { composeApp } = synth(SHARED, { target: ServiceTarget.AUTO, vm: { imageBaseUrl: IMAGES } });
    expect(composeApp.vmServices.map((s) => [s.composeName, s.reasons])).toEqual([
      [
        'server',
        [
          'services.server.volumes: shares the bind "./media" with "worker", which runs in the VM: a VM and a pod ' +
            'cannot share one store, so they move together',
        ],
      ],
      ['worker', [expect.stringContaining('mounts the Docker socket')]],
    ]);
  });

  test('fails with the choice to make when the service is pinned to a container', () => {
    expect(() =>
      synth(SHARED, {
        target: ServiceTarget.AUTO,
        vm: { imageBaseUrl: IMAGES },
        services: { server: { target: ServiceTarget.CONTAINER } },
      }),
    ).toThrow(
      /services\.server shares the bind "\.\/media" with "worker", which runs in the VM, and services\["server"\]\.target is "container"/,
    );
  });
});
