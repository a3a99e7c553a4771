import { ServiceTarget } from '../../../lib/app/settings';
import { loadComposeFromString } from '../../../lib/compose/load';
import { podSpec, synthApp } from '../app-fixture';

/** compose's pre_start, post_start and pre_stop hooks (compose-spec schema of compose-go's tests). */

const TEXT = `
services:
  web:
    image: nginx:1.27.2
    environment:
      MODE: prod
      API_TOKEN: tok-9f8e7d6c
    volumes:
      - data:/data
    deploy:
      replicas: 2
    pre_start:
      - command: ["chown", "-R", "1000", "/data"]
        user: "0"
        environment:
          STEP: chown
          DB_PASSWORD: hunter22-secret
      - image: busybox:1.36
        command: echo ready
        per_replica: true
        environment: [STEP=ready]
    post_start:
      - command: ["/bin/notify", "started"]
        user: root
        privileged: true
    pre_stop:
      - command: ["nginx", "-s", "quit"]
      - command: ["sleep", "5"]
volumes:
  data:
`;

test("pre_start becomes init containers with the service's volumes and environment; post_start and pre_stop the lifecycle", () => {
  const { app, docs } = synthApp(TEXT);
  const spec = podSpec(docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'web')!);
  const inits = spec.initContainers.filter((c: any) => c.name.startsWith('pre-start-'));
  // Docker fills the new volume before the hooks run: the copy-up comes first.
  expect(spec.initContainers[0].name).toBe('data-copy-up');
  expect(inits[1].env.map((e: any) => e.name)).toEqual(['API_TOKEN', 'MODE', 'STEP']);
  expect(inits.map((c: any) => [c.name, c.image, c.command, c.securityContext.runAsUser])).toEqual([
    ['pre-start-1', 'nginx:1.27.2', ['chown', '-R', '1000', '/data'], 0],
    ['pre-start-2', 'busybox:1.36', ['echo', 'ready'], undefined],
  ]);
  const main = spec.containers[0];
  expect(inits[0].volumeMounts).toEqual(main.volumeMounts);
  expect(inits[0].resources).toEqual(main.resources);
  // The service's variables (the secret one still read from its Secret), then the hook's own plain ones.
  expect(
    inits[0].env.map((e: any) => [e.name, e.value ?? `from ${e.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap'}`]),
  ).toEqual([
    ['API_TOKEN', 'from Secret'],
    ['MODE', 'from ConfigMap'],
    ['STEP', 'chown'],
  ]);
  expect(JSON.stringify(docs)).not.toContain('hunter22-secret');
  expect(main.lifecycle).toEqual({
    postStart: { exec: { command: ['/bin/notify', 'started'] } },
    preStop: { exec: { command: ['sh', '-c', 'nginx -s quit && sleep 5'] } },
  });
  expect(app.warnings.filter((w) => w.code !== 'shared-volume').map((w) => [w.code, w.at.path])).toEqual([
    ['inferred-port', 'services.web'],
    ['copy-up', 'services.web.volumes[0]'],
    ['pre-start-per-pod', 'services.web.pre_start[0]'],
    ['secret-hook-environment', 'services.web.pre_start[0].environment.DB_PASSWORD'],
    ['lifecycle-hooks-joined', 'services.web.pre_stop[0]'],
  ]);
});

test('what a post_start or pre_stop hook asks that Kubernetes cannot express is reported by the loader', () => {
  const { warnings } = loadComposeFromString(TEXT, { env: {}, projectName: 'test' });
  expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
    [
      'unsupported-key',
      'services.web.post_start[0].user',
      'ignored key "user": a hook runs as the container\'s user: Kubernetes has no user per hook',
    ],
    [
      'unsupported-key',
      'services.web.post_start[0].privileged',
      'ignored key "privileged": a hook runs with the container\'s privileges: Kubernetes has no privilege per hook',
    ],
  ]);
});

test('sizes under 1Mi stay exact: memory and tmpfs sizes in plain bytes, as Kubernetes quantities take them', () => {
  const { docs } = synthApp(`
services:
  web:
    image: nginx:1.27.2
    mem_limit: 10000
    mem_reservation: 5000
    volumes:
      - type: tmpfs
        target: /cache
        tmpfs:
          size: 10000
      - type: tmpfs
        target: /run
        tmpfs:
          size: 64m
    pre_start:
      - command: ["true"]
`);
  const spec = podSpec(docs.find((d) => d.kind === 'Deployment')!);
  for (const container of [spec.containers[0], spec.initContainers.find((c: any) => c.name === 'pre-start-1')]) {
    expect(container.resources.limits.memory).toBe('10000');
    expect(container.resources.requests.memory).toBe('5000');
  }
  const byMount = Object.fromEntries(spec.containers[0].volumeMounts.map((m: any) => [m.mountPath, m.name]));
  const sizes = Object.fromEntries(spec.volumes.map((v: any) => [v.name, v.emptyDir?.sizeLimit]));
  expect([sizes[byMount['/cache']], sizes[byMount['/run']]]).toEqual(['10000', '64Mi']);
});

test('a service in the VM keeps no hooks: they are reported', () => {
  const { app } = synthApp('services:\n  web:\n    image: nginx:1.27.2\n    post_start:\n      - command: ["true"]\n', {
    target: ServiceTarget.VM,
    vm: { imageBaseUrl: 'https://images.example.com/vm' },
  });
  expect(app.warnings.filter((w) => w.code === 'vm-hooks-left-out').map((w) => w.message)).toEqual([
    "the lifecycle hooks (post_start) are not carried into the VM's compose file: run them from the service's own entrypoint there",
  ]);
});
