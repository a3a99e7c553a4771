import { errorOf, load, makeProject, service, web } from './helpers';

const project = makeProject({
  'app.env': 'FROM_FILE=1\nSHARED=file\nexport QUOTED="a b"\nREF=${SHELL_VAR:-none}\n',
  'second.env': 'SHARED=second\n',
  'secret.txt': 's3cr3t',
  'config.txt': 'setting=1\n',
  'a/dir/.keep': '',
});
afterAll(() => project.cleanup());
const inProject = { projectDir: project.dir };

describe('environment and env_file', () => {
  test.each([
    ['environment: ["MY VAR=1"]', 'services.web.environment[0]', '4:19', '"MY VAR"'],
    ['environment: {"A=B": 1}', 'services.web.environment.A=B', '4:26', '"A=B"'],
    ['environment: ["=secret"]', 'services.web.environment[0]', '4:19', '""'],
    ['environment: ["1ABC=x"]', 'services.web.environment[0]', '4:19', '"1ABC"'],
    ['environment: ["\\u001b[2JA=1"]', 'services.web.environment[0]', '4:19', '"\\u001b[2JA"'],
  ])('an environment variable name Kubernetes refuses is an error (%s), the value never quoted', (body, at, pos, name) => {
    expect(errorOf(() => load(web(body))).message).toBe(`compose.yaml:${pos}: ${at}: invalid environment variable name ${name}. `
      + 'Allowed: a letter or "_", then letters, digits, "_", "." and "-" (what Kubernetes accepts). '
      + 'Fix: rename the variable in the compose file and in the image that reads it.');
  });

  test('list and map forms, null values from the environment, numbers and booleans as text', () => {
    const list = service(web('environment:\n  - A=1\n  - B=x=y\n  - FROM_SHELL\n  - UNSET'), { env: { FROM_SHELL: 'sh' } });
    expect(list.environment.map((e) => [e.name, e.value, e.origin])).toEqual([
      ['A', '1', 'environment'], ['B', 'x=y', 'environment'], ['FROM_SHELL', 'sh', 'environment'],
    ]);
    const map = service(web('environment:\n  NUM: 1\n  BOOL: true\n  EMPTY: ""\n  NULL:\n  Z: z'), { env: { NULL: 'n' } });
    expect(map.environment.map((e) => [e.name, e.value])).toEqual([
      ['BOOL', 'true'], ['EMPTY', ''], ['NULL', 'n'], ['NUM', '1'], ['Z', 'z'],
    ]);
  });

  test('a variable without a value that is not set is left out with a warning', () => {
    const { warnings } = load(web('environment: [UNSET]'));
    expect(warnings).toEqual([{
      code: 'unset-variable',
      message: 'environment variable UNSET has no value and is not set in the environment; it is left out',
      at: { file: 'compose.yaml', path: 'services.web.environment[0]', line: 4, column: 19 },
    }]);
  });

  test('env_file as a string, a list and the long syntax; later files and environment win', () => {
    const svc = service(web([
      'env_file:',
      '  - app.env',
      '  - path: ./second.env',
      '  - {path: optional.env, required: false}',
      'environment:',
      '  FROM_FILE: overridden',
    ].join('\n')), { ...inProject, env: { SHELL_VAR: 'shell' } });
    expect(svc.environment.map((e) => [e.name, e.value, e.origin])).toEqual([
      ['FROM_FILE', 'overridden', 'environment'],
      ['QUOTED', 'a b', 'env_file'],
      ['REF', 'shell', 'env_file'],
      ['SHARED', 'second', 'env_file'],
    ]);
    expect(svc.environment[1].at.path).toBe('services.web.env_file[0]');
    expect(service(web('env_file: app.env'), inProject).environment.map((e) => e.name))
      .toEqual(['FROM_FILE', 'QUOTED', 'REF', 'SHARED']);
  });

  test('a missing optional env_file is a warning', () => {
    const { warnings } = load(web('env_file: [{path: nope.env, required: false}]'), inProject);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['missing-env-file', 'optional env file "nope.env" not found; no variables read from it'],
    ]);
  });

  test('a missing required env_file is an error', () => {
    expect(errorOf(() => load(web('env_file: missing.env'), inProject)).message).toBe(
      'compose.yaml:4:15: services.web.env_file: env file "missing.env" not found. '
      + 'Fix: create missing.env, or mark it optional: env_file: [{path: missing.env, required: false}].',
    );
  });

  test('an env_file outside the project is refused unless allowed', () => {
    expect(errorOf(() => load(web('env_file: ../../etc/hostname'), inProject)).message).toBe(
      'compose.yaml:4:15: services.web.env_file: env file "../../etc/hostname" is outside the project folder and '
      + 'was not read. Allowed: a path inside the folder of the compose file. Fix: move the file into the project '
      + 'folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
    expect(errorOf(() => load(web('env_file: /nonexistent/x.env'), { ...inProject, allowOutsideProject: true })).problem)
      .toBe('env file "/nonexistent/x.env" not found');
  });

  test('a wrong type in environment never quotes the value', () => {
    const err = errorOf(() => load(web('environment:\n  PASSWORD: [hunter2]')));
    expect(err.message).toBe('compose.yaml:5:17: services.web.environment.PASSWORD: expected a string, number or '
      + 'boolean, got a list.');
  });
});

describe('depends_on, links and network_mode', () => {
  test.each([
    ['itself', 'services:\n  a: {image: x, depends_on: [a]}\n', 'compose.yaml:2:30: services.a.depends_on[0]', 'a → a'],
    ['three services', 'services:\n  a: {image: x, depends_on: [b]}\n  b: {image: x, depends_on: [c]}\n  c: {image: x, depends_on: [a]}\n',
      'compose.yaml:4:30: services.c.depends_on[0]', 'a → b → c → a'],
    ['links and network_mode', 'services:\n  a: {image: x, links: [b]}\n  b: {image: x, network_mode: "service:a"}\n',
      'compose.yaml:3:31: services.b.network_mode', 'a → b → a'],
  ])('a dependency cycle through %s is an error, as in compose', (_how, text, at, cycle) => {
    expect(errorOf(() => load(text)).message).toBe(`${at}: services depend on each other in a cycle: ${cycle}. `
      + 'Fix: remove one of these dependencies; compose refuses the cycle too.');
  });

  test('a long dependency chain is no cycle and does not overflow the stack', () => {
    const text = `services:\n${Array.from({ length: 3000 }, (_, i) => `  s${i}: {image: x${i ? `, depends_on: [s${i - 1}]` : ''}}`).join('\n')}\n`;
    expect(load(text).model.services).toHaveLength(3000);
  });

  const two = (body: string): string => `${web(body)}  db:\n    image: postgres:16\n    healthcheck: {test: [CMD, pg_isready]}\n`;

  test('map form keeps every field', () => {
    const { model } = load(two('depends_on:\n  db: {condition: service_healthy, restart: true, required: false}'));
    const web1 = model.services.find((s) => s.name === 'web')!;
    expect(web1.dependsOn).toEqual([{
      service: 'db', condition: 'service_healthy', required: false, restart: true,
      at: { file: 'compose.yaml', path: 'services.web.depends_on.db', line: 5, column: 11 },
    }]);
    const list = load(two('depends_on: [db]')).model.services.find((s) => s.name === 'web')!;
    expect(list.dependsOn.map((d) => [d.service, d.condition, d.required, d.restart]))
      .toEqual([['db', 'service_started', true, false]]);
  });

  test('links and network_mode service: add started dependencies', () => {
    const { model, warnings } = load(two('links: ["db:database"]'));
    expect(model.services.find((s) => s.name === 'web')!.dependsOn.map((d) => d.service)).toEqual(['db']);
    expect(warnings.map((w) => w.message)).toEqual(['ignored link alias "database": reach the service by its name "db"']);
    const shared = load(two('network_mode: service:db')).model.services.find((s) => s.name === 'web')!;
    expect(shared).toMatchObject({ networkMode: 'service:db', networks: [] });
    expect(shared.dependsOn.map((d) => d.service)).toEqual(['db']);
  });

  test('an unknown dependency is an error that lists the services', () => {
    expect(errorOf(() => load(two('depends_on: [dbb]'))).message).toBe(
      'compose.yaml:4:18: services.web.depends_on[0]: service "web" depends on undefined service "dbb". '
      + 'Allowed: one of the services: db. Fix: define service "dbb", or fix the name.',
    );
  });

  test('an optional dependency on an unknown service is left out with a warning', () => {
    const { model, warnings } = load(two('depends_on: {ghost: {condition: service_started, required: false}}'));
    expect(model.services.find((s) => s.name === 'web')!.dependsOn).toEqual([]);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['missing-dependency', 'optional dependency "ghost" is not a service of the project; it is left out'],
    ]);
  });

  test('an invalid condition is an error', () => {
    expect(errorOf(() => load(two('depends_on: {db: {condition: healthy}}'))).problem)
      .toBe('invalid dependency condition');
  });
});

describe('healthcheck', () => {
  test.each<[string, unknown]>([
    ['{test: [CMD, curl, -f, http://localhost/]}', { kind: 'exec', command: ['curl', '-f', 'http://localhost/'] }],
    ['{test: [CMD-SHELL, "curl -f http://localhost/ || exit 1"]}', { kind: 'shell', command: ['curl -f http://localhost/ || exit 1'] }],
    ['{test: "pg_isready -U $$USER"}', { kind: 'shell', command: ['pg_isready -U $USER'] }],
  ])('%s', (body, test) => {
    expect(service(web(`healthcheck: ${body}`)).healthcheck?.test).toEqual(test);
  });

  test('timings in every unit, retries and start_interval', () => {
    expect(service(web('healthcheck:\n  test: [CMD, true]\n  interval: 1m30s\n  timeout: 500ms\n  retries: 3\n'
      + '  start_period: 1h\n  start_interval: 5s')).healthcheck).toEqual({
      disabled: false, test: { kind: 'exec', command: ['true'] }, intervalSeconds: 90, timeoutSeconds: 0.5,
      retries: 3, startPeriodSeconds: 3600, startIntervalSeconds: 5,
      at: { file: 'compose.yaml', path: 'services.web.healthcheck', line: 5, column: 7 },
    });
  });

  test('NONE and disable turn it off; timings alone keep the image\'s test', () => {
    expect(service(web('healthcheck: {test: [NONE]}')).healthcheck).toMatchObject({ disabled: true });
    expect(service(web('healthcheck: {disable: true}')).healthcheck?.disabled).toBe(true);
    expect(service(web('healthcheck: {interval: 10s}')).healthcheck).not.toHaveProperty('test');
  });

  test.each([
    ['{test: [RUN, x]}', 'invalid healthcheck test'],
    ['{interval: 10}', 'invalid duration'],
    ['{interval: 1x}', 'invalid duration'],
    ['{retries: many}', 'expected an integer, got a string'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => service(web(`healthcheck: ${body}`))).problem).toBe(problem);
  });
});

describe('deploy and legacy resources', () => {
  test('replicas, limits, reservations with GPU devices, restart policy, labels', () => {
    const svc = service(web([
      'deploy:',
      '  replicas: 3',
      '  mode: replicated',
      '  labels: [tier=web]',
      '  resources:',
      '    limits: {cpus: "0.5", memory: 512m, pids: 100}',
      '    reservations:',
      '      cpus: 0.25',
      '      memory: 1g',
      '      devices:',
      '        - {driver: nvidia, count: all, capabilities: [gpu, utility]}',
      '        - {capabilities: [gpu], device_ids: ["0", "1"], options: {x: y}}',
      '  restart_policy: {condition: on-failure, delay: 5s, max_attempts: 3, window: 2m}',
    ].join('\n')));
    expect({ ...svc.deploy, at: undefined }).toEqual({
      replicas: 3,
      mode: 'replicated',
      limits: { cpus: 0.5, memoryBytes: 512 * 1024 ** 2, pids: 100, devices: [] },
      reservations: {
        cpus: 0.25,
        memoryBytes: 1024 ** 3,
        devices: [
          { capabilities: ['gpu', 'utility'], driver: 'nvidia', count: 'all', deviceIds: [], options: {}, at: expect.anything() },
          { capabilities: ['gpu'], deviceIds: ['0', '1'], options: { x: 'y' }, at: expect.anything() },
        ],
      },
      restartPolicy: { condition: 'on-failure', delaySeconds: 5, maxAttempts: 3, windowSeconds: 120 },
      labels: { tier: 'web' },
      at: undefined,
    });
  });

  test('legacy mem_limit, mem_reservation, cpus, pids_limit, scale and gpus fill in', () => {
    const svc = service(web('mem_limit: 10000Mb\nmem_reservation: 10000\ncpus: 1.5\npids_limit: 50\nscale: 2\ngpus: all'));
    expect(svc.deploy).toMatchObject({
      replicas: 2,
      limits: { cpus: 1.5, memoryBytes: 10000 * 1024 ** 2, pids: 50, devices: [] },
      reservations: { memoryBytes: 10000, devices: [{ capabilities: ['gpu'], count: 'all' }] },
    });
  });

  test('deploy wins over the legacy keys', () => {
    expect(service(web('mem_limit: 1g\ndeploy: {resources: {limits: {memory: 2g}}}')).deploy.limits.memoryBytes)
      .toBe(2 * 1024 ** 3);
  });

  test.each([
    ['mem_limit: lots', 'invalid size'],
    ['cpus: half', 'invalid cpus'],
    ['deploy: {replicas: -1}', 'number out of range'],
    ['deploy: {mode: global-job}', 'unsupported deploy mode'],
    ['deploy: {restart_policy: {condition: sometimes}}', 'invalid restart condition'],
    ['deploy: {resources: {reservations: {devices: [{driver: nvidia}]}}}', 'a device request needs capabilities'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => service(web(body))).problem).toBe(problem);
  });
});

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

describe('secrets and configs', () => {
  const files = [
    'secrets:',
    '  file_secret: {file: ./secret.txt}',
    '  env_secret: {environment: TOKEN}',
    '  ext_secret: {external: true, name: prod-token}',
    '  outside: {file: /etc/hostname}',
    'configs:',
    '  file_config: {file: config.txt}',
    '  inline: {content: "port=${PORT:-80}"}',
    '  ext_config: {external: true}',
    '',
  ].join('\n');

  test('top-level sources: file, environment, content, external, outside', () => {
    const { model } = load(`services: {}\n${files}`, { ...inProject, env: { TOKEN: 'tok' } });
    expect(model.secrets.map((s) => [s.name, s.source])).toEqual([
      ['env_secret', { kind: 'environment', variable: 'TOKEN', content: { path: 'env_secret', text: 'tok', binary: false } }],
      ['ext_secret', { kind: 'external', externalName: 'prod-token' }],
      ['file_secret', { kind: 'file', content: { path: './secret.txt', text: 's3cr3t', binary: false } }],
      ['outside', { kind: 'outside', path: '/etc/hostname' }],
    ]);
    expect(model.configs.map((c) => [c.name, c.source])).toEqual([
      ['ext_config', { kind: 'external', externalName: 'ext_config' }],
      ['file_config', { kind: 'file', content: { path: 'config.txt', text: 'setting=1\n', binary: false } }],
      ['inline', { kind: 'content', content: { path: 'inline', text: 'port=80', binary: false } }],
    ]);
  });

  test('service references: short and long syntax, targets made absolute, octal modes', () => {
    const svc = service(`${web([
      'secrets:',
      '  - file_secret',
      '  - {source: env_secret, target: token, uid: "103", gid: 103, mode: 0440}',
      'configs:',
      '  - file_config',
      '  - {source: inline, target: etc/app.conf, mode: "0644"}',
    ].join('\n'))}${files}`, { ...inProject, env: { TOKEN: 'tok' } });
    expect(svc.secrets.map((s) => ({ ...s, at: undefined }))).toEqual([
      { source: 'env_secret', target: '/run/secrets/token', uid: '103', gid: '103', mode: 0o440, at: undefined },
      { source: 'file_secret', target: '/run/secrets/file_secret', at: undefined },
    ]);
    expect(svc.configs.map((c) => [c.source, c.target, c.mode])).toEqual([
      ['file_config', '/file_config', undefined], ['inline', '/etc/app.conf', 0o644],
    ]);
  });

  test('an unset environment source is an error that does not quote any value', () => {
    expect(errorOf(() => load(`services: {}\n${files}`, inProject)).message).toBe(
      'compose.yaml:4:29: secrets.env_secret.environment: secret "env_secret" comes from environment variable TOKEN, '
      + 'which is not set (got "TOKEN"). Fix: set TOKEN in the environment or in the .env file.',
    );
  });

  test.each([
    ['secrets:\n  s: {file: missing.txt}', 'secret file "missing.txt" not found'],
    ['secrets:\n  s: {file: a/dir}', 'secret file "a/dir" is a directory'],
    ['secrets:\n  s: {name: x}', 'secret "s" has no source'],
    ['secrets:\n  s: {file: secret.txt, environment: X}', 'secret "s" has more than one source (file, environment)'],
    ['configs:\n  c: {}', 'config "c" has no source'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => load(`services: {}\n${body}\n`, inProject)).problem).toBe(problem);
  });

  test('a name on a secret that is not external is ignored with a warning', () => {
    const { warnings } = load('services: {}\nsecrets:\n  s: {file: secret.txt, name: platform-name}\n', inProject);
    expect(warnings.map((w) => [w.code, w.message, w.at.path])).toEqual([
      ['unsupported-key', 'ignored key "name": the secret is named after its key', 'secrets.s.name'],
    ]);
  });

  test('a service using an undeclared secret is an error', () => {
    expect(errorOf(() => load(web('secrets: [nope]'))).problem)
      .toBe('the service uses secret "nope", which is not declared under the top-level secrets');
  });
});

describe('networks', () => {
  test('service networks with aliases and addresses; top-level internal, external, ipam', () => {
    const { model } = load(`${web([
      'networks:',
      '  front:',
      '  back: {aliases: [api, api], ipv4_address: 172.20.0.10, ipv6_address: "fd00::10"}',
    ].join('\n'))}networks:\n  front: {driver: bridge}\n  back:\n    internal: true\n    enable_ipv6: true\n`
      + '    ipam: {config: [{subnet: 172.20.0.0/16}, {subnet: "fd00::/64"}]}\n  shared: {external: true}\n');
    expect(model.services[0].networks.map((n) => ({ ...n, at: undefined }))).toEqual([
      { name: 'back', aliases: ['api'], ipv4Address: '172.20.0.10', ipv6Address: 'fd00::10', at: undefined },
      { name: 'front', aliases: [], at: undefined },
    ]);
    expect(model.networks.map((n) => ({ ...n, at: undefined }))).toEqual([
      { name: 'back', internal: true, external: false, subnets: ['172.20.0.0/16', 'fd00::/64'], enableIpv6: true, labels: {}, at: undefined },
      { name: 'front', internal: false, external: false, driver: 'bridge', subnets: [], enableIpv6: false, labels: {}, at: undefined },
      { name: 'shared', internal: false, external: true, subnets: [], enableIpv6: false, labels: {}, at: undefined },
    ]);
  });

  test('a service without networks joins the implicit default network', () => {
    const { model } = load(web(''));
    expect(model.services[0].networks.map((n) => n.name)).toEqual(['default']);
    expect(model.networks.map((n) => n.name)).toEqual(['default']);
  });

  test.each([
    ['networks: [nope]', 'the service uses network "nope", which is not declared under the top-level networks'],
    ['network_mode: host\nnetworks: [default]', 'network_mode and networks cannot be used together'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => load(web(body))).problem).toBe(problem);
  });
});

describe('other service keys', () => {
  test('labels, restart, user, working_dir, capabilities, flags, devices, sysctls, ulimits, hosts, names', () => {
    const svc = service(web([
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
    ].join('\n')), { profiles: ['web'] });
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
      ulimits: [{ name: 'nofile', soft: 1024, hard: 2048 }, { name: 'nproc', soft: 65535, hard: 65535 }],
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
    expect(warnings.map((w) => w.message))
      .toEqual(['ignored the retry count of restart "on-failure:5": Kubernetes retries without a limit']);
    expect(errorOf(() => service(web('restart: sometimes'))).problem).toBe('invalid restart policy');
  });

  test('a build-only service runs the image docker compose build tags, reported once; images and registry change it', () => {
    const text = 'name: shop\nservices:\n  api:\n    build:\n      context: ./api\n      dockerfile: Dockerfile.prod\n'
      + '      target: builder\n      args: [VERSION=1, FROM_ENV]\n      cache_from: [x]\n      platforms: [linux/amd64, linux/arm64]\n'
      + '  Web:\n    build: ./web\n    platform: linux/amd64\n';
    const { model, warnings } = load(text, { env: { FROM_ENV: 'e' } });
    expect(model.services.map((s) => [s.name, s.image])).toEqual([['Web', 'shop-web'], ['api', 'shop-api']]);
    expect(model.services[1].build).toEqual({
      context: './api', dockerfile: 'Dockerfile.prod', target: 'builder', args: { FROM_ENV: 'e', VERSION: '1' },
      platforms: ['linux/amd64', 'linux/arm64'], runsBuiltImage: true,
    });
    expect(model.services[0].build).toEqual({ context: './web', args: {}, platforms: ['linux/amd64'], runsBuiltImage: true });
    expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
      ['unsupported-key', 'services.api.build.cache_from', 'ignored key "cache_from": the build context is never read; only the image is used'],
      ['build-image', 'services.Web', 'services Web, api are built from source without an image: they run the images '
        + 'docker compose build tags (Web → shop-web, api → shop-api); build and push them where the cluster can pull them '
        + '(RUNBOOK.md and analyze give the commands), under your registry with --registry HOST[/PATH], or name another '
        + 'image with --image SERVICE=REF'],
    ]);

    const registry = load(text, { registry: 'registry.example.com/team/', images: { Web: 'nginx:1.25' } });
    expect(registry.model.services.map((s) => [s.name, s.image, s.build?.runsBuiltImage])).toEqual([
      ['Web', 'nginx:1.25', false], ['api', 'registry.example.com/team/shop-api', true]]);
    expect(registry.warnings.filter((w) => w.code === 'build-image').map((w) => w.message)).toEqual([
      'service api is built from source without an image: it runs the image docker compose build tags '
      + '(api → registry.example.com/team/shop-api); build and push it where the cluster can pull it (RUNBOOK.md and '
      + 'analyze give the commands), under your registry with --registry HOST[/PATH], or name another image with --image SERVICE=REF',
    ]);
  });

  test('the registry goes before an image: of a built service unless it names a registry host', () => {
    const text = 'services:\n  a:\n    build: .\n    image: shop/a:1.0\n  b:\n    build: .\n    image: ghcr.io/me/b:1.0\n'
      + '  c:\n    image: redis:7\n  d:\n    build: .\n    image: localhost/d:1\n';
    const { model, warnings } = load(text, { registry: 'localhost:5000' });
    expect(model.services.map((s) => s.image)).toEqual(['localhost:5000/shop/a:1.0', 'ghcr.io/me/b:1.0', 'redis:7', 'localhost/d:1']);
    expect(warnings.filter((w) => w.code === 'build-image')).toEqual([]);
    expect(errorOf(() => load(text, { registry: 'https://registry.example.com' })).message).toBe(
      'registry "https://registry.example.com" cannot start an image reference. Allowed: HOST[:PORT][/PATH], for example '
      + 'registry.example.com/shop or localhost:5000. Fix: give the registry host and the path of the repositories, without a scheme or a tag.');
  });

  test('a service with neither image nor build is refused', () => {
    expect(errorOf(() => load('services:\n  a:\n    command: [x]\n')).message).toBe(
      'compose.yaml:3:5: services.a: service "a" has neither image nor build. Fix: add image: with the container image to run, for example image: nginx:1.25.');
  });

  test('an image that is not a valid reference gives a warning', () => {
    const { warnings } = load(web('', 'apache/airflow:|version|'));
    expect(warnings.map((w) => w.message))
      .toEqual(['image "apache/airflow:|version|" is not a valid image reference; a cluster cannot pull it']);
  });

  test('a service with neither image nor build is an error', () => {
    expect(errorOf(() => load('services:\n  web:\n    ports: ["80"]\n')).problem)
      .toBe('service "web" has neither image nor build');
  });
});

describe('keys', () => {
  test('keys the conversion does not use give one warning each, with what is ignored', () => {
    const { warnings } = load(`version: "3.8"\n${web('logging: {driver: syslog}\ndns: 8.8.8.8\ndeploy: {update_config: {parallelism: 2}}')}`);
    expect(warnings).toEqual([
      {
        code: 'unsupported-key',
        message: 'ignored key "version": the version key is obsolete; the file is read by the current compose specification',
        at: { file: 'compose.yaml', path: 'version', line: 1, column: 1 },
      },
      {
        code: 'unsupported-key',
        message: 'ignored key "logging": the logging driver is not converted; container logs go to the cluster\'s log pipeline',
        at: { file: 'compose.yaml', path: 'services.web.logging', line: 5, column: 5 },
      },
      {
        code: 'unsupported-key',
        message: 'ignored key "dns": custom DNS servers are not converted; the cluster DNS is used',
        at: { file: 'compose.yaml', path: 'services.web.dns', line: 6, column: 5 },
      },
      {
        code: 'unsupported-key',
        message: 'ignored key "update_config": the rolling update configuration is not converted; the Deployment\'s '
          + 'default strategy is used',
        at: { file: 'compose.yaml', path: 'services.web.deploy.update_config', line: 7, column: 14 },
      },
    ]);
  });

  test('an unknown key is an error with a "did you mean"', () => {
    expect(errorOf(() => load(web('enviroment: {A: 1}'))).message).toBe(
      'compose.yaml:4:5: services.web.enviroment: unknown key "enviroment" in a service. '
      + 'Allowed: the keys of a service in the compose specification, or x- extensions. '
      + 'Fix: did you mean "environment"?',
    );
    expect(errorOf(() => load(web('healthcheck: {test: [CMD, x], intervall: 5s}'))).hint)
      .toBe('did you mean "interval"?');
    expect(errorOf(() => load(web('completely_unrelated: 1'))).hint)
      .toBe('remove it, or rename it with an x- prefix to keep it as an extension');
  });

  test('x- keys are allowed everywhere and kept at the top level and on services', () => {
    const { model, warnings } = load(`x-top: 1\n${web('x-svc: [a]\ndeploy: {x-d: 1}')}`);
    expect(model.extensions).toEqual({ 'x-top': 1 });
    expect(model.services[0].extensions).toEqual({ 'x-svc': ['a'] });
    expect(warnings).toEqual([]);
  });

  test('a wrong type names the key, the value and what is allowed', () => {
    expect(errorOf(() => load(web('privileged: maybe'))).message).toBe(
      'compose.yaml:4:17: services.web.privileged: expected a boolean, got a string (got "maybe"). '
      + 'Allowed: true or false.',
    );
    expect(errorOf(() => load('services:\n  web: nginx\n')).message).toBe(
      'compose.yaml:2:8: services.web: expected a map, got a string (got "nginx"). '
      + 'Allowed: a map of service keys such as image, ports, environment.',
    );
  });
});

describe('extends', () => {
  test('a service extends another of the same file, or of another file, recursively', () => {
    const project = makeProject({
      'common.yaml': 'services:\n  base:\n    image: base:1\n    environment: {A: common, B: common}\n'
        + '    ports: ["80:80"]\n  child:\n    extends: base\n    user: "1000"\n',
    });
    try {
      const { model } = load([
        'services:',
        '  web:',
        '    extends: {service: child, file: common.yaml}',
        '    environment: [B=own]',
        '    ports: ["443:443"]',
        '  worker:',
        '    extends: web',
        '    command: work',
        '',
      ].join('\n'), { projectDir: project.dir });
      const [web1, worker] = model.services;
      expect(web1).toMatchObject({ image: 'base:1', user: '1000', environment: [{ name: 'A', value: 'common' }, { name: 'B', value: 'own' }] });
      expect(web1.ports.map((p) => [p.target, p.at.file])).toEqual([[80, 'common.yaml'], [443, 'compose.yaml']]);
      expect(worker).toMatchObject({ image: 'base:1', command: ['work'], user: '1000' });
    } finally {
      project.cleanup();
    }
  });

  test('cycles and unknown bases are errors', () => {
    expect(errorOf(() => load('services:\n  a: {extends: b, image: x}\n  b: {extends: a, image: y}\n')).problem)
      .toBe('services extend each other in a cycle: a → b → a');
    expect(errorOf(() => load('services:\n  a: {extends: nope, image: x}\n')).problem)
      .toBe('extends: service "nope" not found');
    expect(errorOf(() => load('services:\n  a: {extends: {service: b, file: ../../x.yaml}, image: x}\n')).problem)
      .toBe('extends: file "../../x.yaml" is outside the project folder and was not read');
  });
});

describe('services compose runs elsewhere, and references to other services', () => {
  test('a provider service is left out and reported; its dependents do not wait for it; models are reported', () => {
    const { model, warnings } = load([
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
    ].join('\n'));
    expect(model.services.map((s) => [s.name, s.dependsOn.map((d) => d.service)])).toEqual([['web', []]]);
    expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
      ['unsupported-key', 'services.web.models', 'ignored key "models": AI models run by Docker Model Runner are not converted'],
      ['provider-service', 'services.ai.provider', 'service "ai" is run by the provider "model" (provider:), which the converter '
        + 'cannot run: it is left out, and services that depend on it do not wait for it; set up what it provides in the cluster yourself'],
      ['unsupported-key', 'models', 'ignored key "models": AI models run by Docker Model Runner are not converted'],
    ]);
  });

  test('volumes_from and ipc: service: must name a service of the project, as compose requires', () => {
    const base = 'services:\n  db:\n    image: postgres:16.4\n  web:\n    image: nginx:1.27.2\n';
    expect(load(`${base}    volumes_from: [db, "container:abc", "db:ro"]\n    ipc: service:db\n`).model.services).toHaveLength(2);
    expect(errorOf(() => load(`${base}    volumes_from: [dbx]\n`)).message).toBe(
      'compose.yaml:6:20: services.web.volumes_from[0]: service "web" depends on undefined service "dbx". '
      + 'Allowed: one of the services: db. Fix: define service "dbx", or fix the name.');
    expect(errorOf(() => load(`${base}    ipc: "service:cache"\n`)).problem).toBe('service "web" depends on undefined service "cache"');
  });
});
