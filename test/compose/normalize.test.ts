import { errorOf, load, makeProject, service, web } from './helpers';

describe('command and entrypoint', () => {
  test('strings are split like a shell, lists are kept, an empty list clears', () => {
    const svc = service(web('command: server --console-address ":9001" /data\nentrypoint: ["/bin/sh", "-c", 1]'));
    expect(svc.command).toEqual(['server', '--console-address', ':9001', '/data']);
    expect(svc.entrypoint).toEqual(['/bin/sh', '-c', '1']);
    expect(service(web('entrypoint: []')).entrypoint).toEqual([]);
    expect(service(web('command: ""')).command).toEqual([]);
  });

  test('unbalanced quotes are an error', () => {
    expect(errorOf(() => service(web('command: echo "hi'))).problem).toBe('unbalanced quotes in the command');
  });
});
describe('other service keys', () => {
  test('labels, restart, user, working_dir, capabilities, flags, devices, sysctls, ulimits, hosts, names', () => {
    const svc = service(
      web(
        [
          'labels: ["b=2", "a=1"]',
          'restart: unless-stopped',
          'user: 1000',
          'working_dir: /app',
          'cap_add: [net_admin, CAP_SYS_MODULE, NET_ADMIN]',
          'cap_drop: [ALL]',
          'privileged: true',
          'read_only: "true"',
          'stdin_open: true',
          'tty: true',
          'network_mode: host',
          'devices: ["/dev/kvm:/dev/kvm", {source: /dev/fuse, target: /dev/fuse, permissions: rwm}]',
          'sysctls: {net.ipv4.ip_forward: 1}',
          'ulimits: {nofile: {soft: 1024, hard: 2048}, nproc: 65535}',
          'hostname: web-1',
          'container_name: my-web',
          'extra_hosts: ["host.docker.internal:host-gateway", "db=10.0.0.2", "v6:::1"]',
          'stop_grace_period: 1m30s',
          'platform: linux/amd64',
          'profiles: [web]',
          'x-custom: {keep: me}',
        ].join('\n'),
      ),
      { profiles: ['web'] },
    );
    expect(svc).toMatchObject({
      labels: { a: '1', b: '2' },
      restart: 'unless-stopped',
      user: '1000',
      workingDir: '/app',
      capAdd: ['NET_ADMIN', 'SYS_MODULE'],
      capDrop: ['ALL'],
      privileged: true,
      readOnly: true,
      stdinOpen: true,
      tty: true,
      networkMode: 'host',
      networks: [],
      devices: ['/dev/kvm:/dev/kvm', '/dev/fuse:/dev/fuse:rwm'],
      sysctls: { 'net.ipv4.ip_forward': '1' },
      ulimits: [
        { name: 'nofile', soft: 1024, hard: 2048 },
        { name: 'nproc', soft: 65535, hard: 65535 },
      ],
      hostname: 'web-1',
      containerName: 'my-web',
      extraHosts: [
        { hostname: 'db', ip: '10.0.0.2' },
        { hostname: 'host.docker.internal', ip: 'host-gateway' },
        { hostname: 'v6', ip: '::1' },
      ],
      stopGracePeriodSeconds: 90,
      platform: 'linux/amd64',
      profiles: ['web'],
      extensions: { 'x-custom': { keep: 'me' } },
    });
  });

  test('restart values', () => {
    expect(service(web('restart: "no"')).restart).toBe('no');
    expect(service(web('restart: on-failure')).restart).toBe('on-failure');
    const { model, warnings } = load(web('restart: on-failure:5'));
    expect(model.services[0].restart).toBe('on-failure');
    expect(warnings.map((w) => w.message)).toEqual([
      'ignored the retry count of restart "on-failure:5": Kubernetes retries without a limit',
    ]);
    expect(errorOf(() => service(web('restart: sometimes'))).problem).toBe('invalid restart policy');
  });
});

describe('keys', () => {
  test('keys the conversion does not use give one warning each, with what is ignored', () => {
    const { warnings } = load(
      `version: "3.8"\n${web('logging: {driver: syslog}\ndns: 8.8.8.8\ndeploy: {update_config: {parallelism: 2}}')}`,
    );
    expect(warnings).toEqual([
      {
        code: 'unsupported-key',
        message:
          'ignored key "version": the version key is obsolete; the file is read by the current compose specification',
        at: { file: 'compose.yaml', path: 'version', line: 1, column: 1 },
      },
      {
        code: 'unsupported-key',
        message:
          'ignored key "logging": the logging driver is not converted; container logs go to the cluster\'s log pipeline',
        at: { file: 'compose.yaml', path: 'services.web.logging', line: 5, column: 5 },
      },
      {
        code: 'unsupported-key',
        message: 'ignored key "dns": custom DNS servers are not converted; the cluster DNS is used',
        at: { file: 'compose.yaml', path: 'services.web.dns', line: 6, column: 5 },
      },
      {
        code: 'unsupported-key',
        message:
          'ignored key "update_config": the rolling update configuration is not converted; the Deployment\'s ' +
          'default strategy is used',
        at: { file: 'compose.yaml', path: 'services.web.deploy.update_config', line: 7, column: 14 },
      },
    ]);
  });

  test('an unknown key is an error with a "did you mean"', () => {
    expect(errorOf(() => load(web('enviroment: {A: 1}'))).message).toBe(
      'compose.yaml:4:5: services.web.enviroment: unknown key "enviroment" in a service. ' +
        'Allowed: the keys of a service in the compose specification, or x- extensions. ' +
        'Fix: did you mean "environment"?',
    );
    expect(errorOf(() => load(web('healthcheck: {test: [CMD, x], intervall: 5s}'))).hint).toBe(
      'did you mean "interval"?',
    );
    expect(errorOf(() => load(web('completely_unrelated: 1'))).hint).toBe(
      'remove it, or rename it with an x- prefix to keep it as an extension',
    );
  });

  test('x- keys are allowed everywhere and kept at the top level and on services', () => {
    const { model, warnings } = load(`x-top: 1\n${web('x-svc: [a]\ndeploy: {x-d: 1}')}`);
    expect(model.extensions).toEqual({ 'x-top': 1 });
    expect(model.services[0].extensions).toEqual({ 'x-svc': ['a'] });
    expect(warnings).toEqual([]);
  });

  test('a wrong type names the key, the value and what is allowed', () => {
    expect(errorOf(() => load(web('privileged: maybe'))).message).toBe(
      'compose.yaml:4:17: services.web.privileged: expected a boolean, got a string (got "maybe"). ' +
        'Allowed: true or false.',
    );
    expect(errorOf(() => load('services:\n  web: nginx\n')).message).toBe(
      'compose.yaml:2:8: services.web: expected a map, got a string (got "nginx"). ' +
        'Allowed: a map of service keys such as image, ports, environment.',
    );
  });
});

describe('extends', () => {
  test('a service extends another of the same file, or of another file, recursively', () => {
    const project = makeProject({
      'common.yaml':
        'services:\n  base:\n    image: base:1\n    environment: {A: common, B: common}\n' +
        '    ports: ["80:80"]\n  child:\n    extends: base\n    user: "1000"\n',
    });
    try {
      const { model } = load(
        [
          'services:',
          '  web:',
          '    extends: {service: child, file: common.yaml}',
          '    environment: [B=own]',
          '    ports: ["443:443"]',
          '  worker:',
          '    extends: web',
          '    command: work',
          '',
        ].join('\n'),
        { projectDir: project.dir },
      );
      const [web1, worker] = model.services;
      expect(web1).toMatchObject({
        image: 'base:1',
        user: '1000',
        environment: [
          { name: 'A', value: 'common' },
          { name: 'B', value: 'own' },
        ],
      });
      expect(web1.ports.map((p) => [p.target, p.at.file])).toEqual([
        [80, 'common.yaml'],
        [443, 'compose.yaml'],
      ]);
      expect(worker).toMatchObject({ image: 'base:1', command: ['work'], user: '1000' });
    } finally {
      project.cleanup();
    }
  });

  test('cycles and unknown bases are errors', () => {
    expect(errorOf(() => load('services:\n  a: {extends: b, image: x}\n  b: {extends: a, image: y}\n')).problem).toBe(
      'services extend each other in a cycle: a → b → a',
    );
    expect(errorOf(() => load('services:\n  a: {extends: nope, image: x}\n')).problem).toBe(
      'extends: service "nope" not found',
    );
    expect(errorOf(() => load('services:\n  a: {extends: {service: b, file: ../../x.yaml}, image: x}\n')).problem).toBe(
      'extends: file "../../x.yaml" is outside the project folder and was not read',
    );
  });
});

describe('services compose runs elsewhere, and references to other services', () => {
  test('a provider service is left out and reported; its dependents do not wait for it; models are reported', () => {
    const { model, warnings } = load(
      [
        'services:',
        '  web:',
        '    image: nginx:1.27.2',
        '    depends_on: [ai]',
        '    models: [llm]',
        '  ai:',
        '    provider:',
        '      type: model',
        '      options: {model: ai/smollm2}',
        'models:',
        '  llm:',
        '    model: ai/smollm2',
        '',
      ].join('\n'),
    );
    expect(model.services.map((s) => [s.name, s.dependsOn.map((d) => d.service)])).toEqual([['web', []]]);
    expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
      [
        'unsupported-key',
        'services.web.models',
        'ignored key "models": AI models run by Docker Model Runner are not converted',
      ],
      [
        'provider-service',
        'services.ai.provider',
        'service "ai" is run by the provider "model" (provider:), which the converter ' +
          'cannot run: it is left out, and services that depend on it do not wait for it; set up what it provides in the cluster yourself',
      ],
      ['unsupported-key', 'models', 'ignored key "models": AI models run by Docker Model Runner are not converted'],
    ]);
  });

  test('volumes_from and ipc: service: must name a service of the project, as compose requires', () => {
    const base = 'services:\n  db:\n    image: postgres:16.4\n  web:\n    image: nginx:1.27.2\n';
    expect(
      load(`${base}    volumes_from: [db, "container:abc", "db:ro"]\n    ipc: service:db\n`).model.services,
    ).toHaveLength(2);
    expect(errorOf(() => load(`${base}    volumes_from: [dbx]\n`)).message).toBe(
      'compose.yaml:6:20: services.web.volumes_from[0]: service "web" depends on undefined service "dbx". ' +
        'Allowed: one of the services: db. Fix: define service "dbx", or fix the name.',
    );
    expect(errorOf(() => load(`${base}    ipc: "service:cache"\n`)).problem).toBe(
      'service "web" depends on undefined service "cache"',
    );
  });
});
