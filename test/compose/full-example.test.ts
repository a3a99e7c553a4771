import * as fs from 'fs';
import * as path from 'path';
import { loadCompose, LoadResult } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';
import { SHARED_DIR } from '../support/shared';
import { makeProject } from './helpers';

/**
 * compose-go's `full-example.yml` against what its `full-struct_test.go` expects, field by field, for every field the
 * model represents (the model keeps what the conversion uses: swarm-only settings, build secrets and the like are
 * reported as ignored keys, and asserted as such at the end).
 *
 * compose-go loads the file with its consistency check skipped: the file depends on services `db` and `redis` and
 * mounts a volume `datavolume` it does not define, names the network `other-other-network` without declaring it,
 * and sets both `network_mode` and `networks`. This loader always checks consistency, so a second file supplies those
 * (and resets `network_mode`), and the files compose would read at run time (`secret_data`, `config_data`) are
 * created beside it.
 */

const LOADER = path.join(SHARED_DIR, 'peers', 'compose-go', 'loader');
const present = fs.existsSync(path.join(LOADER, 'full-example.yml'));
const describeShared = present ? describe : describe.skip;
if (!present) {
  test.skip(`full-example.yml: skipped, ${LOADER} is absent`, () => undefined);
}

const CONSISTENCY = [
  'services:',
  '  foo:',
  '    network_mode: !reset null',
  '  db:',
  '    image: postgres:16.4',
  '  redis:',
  '    image: redis:7.4',
  'volumes:',
  '  datavolume:',
  'networks:',
  '  other-other-network:',
  '',
].join('\n');

let result: LoadResult;
let foo: ComposeService;
let cleanup = (): void => undefined;

beforeAll(() => {
  if (!present) {
    return;
  }
  const files: Record<string, string> = {
    'consistency.yaml': CONSISTENCY,
    'secret_data': 'secret\n',
    'config_data': 'config\n',
  };
  for (const name of ['full-example.yml', 'example1.env', 'example2.env', 'example1.label', 'example2.label']) {
    files[name] = fs.readFileSync(path.join(LOADER, name), 'utf8');
  }
  const project = makeProject(files);
  cleanup = project.cleanup;
  // The environment of TestFullExample.
  result = loadCompose({
    workingDir: project.dir,
    files: ['full-example.yml', 'consistency.yaml'],
    env: { HOME: '/home/someone', BAR: 'this is a secret', QUX: 'qux_from_environment' },
  });
  foo = result.model.services.find((s) => s.name === 'foo')!;
});

afterAll(() => cleanup());

describeShared('full-struct_test.go: the project', () => {
  test('name, services and extensions', () => {
    expect(result.model.name).toBe('full_example_project_name');
    expect(result.model.services.map((s) => s.name)).toEqual(['bar', 'db', 'foo', 'redis']);
    expect(result.model.extensions).toEqual({ 'x-bar': 'baz', 'x-foo': 'bar', 'x-nested': { bar: 'baz', foo: 'bar' } });
  });

  test('bar: a build with only an inline Dockerfile, in the project folder; it runs <project>-bar', () => {
    const bar = result.model.services.find((s) => s.name === 'bar')!;
    expect(bar.build).toEqual({ context: '.', args: {}, platforms: [], runsBuiltImage: true });
    expect(bar.image).toBe('full_example_project_name-bar');
    expect(bar.environment).toEqual([]);
  });

  test('networks: drivers, IPAM subnets, labels, external names', () => {
    const networks = Object.fromEntries(result.model.networks.map((n) => [n.name, n]));
    expect(networks['some-network']).toMatchObject({ external: false, internal: false, subnets: [], labels: {} });
    expect(networks['other-network']).toMatchObject({
      driver: 'overlay',
      external: false,
      subnets: ['172.28.0.0/16', '2001:3984:3989::/64'],
      labels: { foo: 'bar' },
    });
    expect(networks['external-network'].external).toBe(true);
    expect(networks['other-external-network'].external).toBe(true);
  });

  test('volumes: drivers, options, labels, names of external volumes', () => {
    expect(result.model.volumes.filter((v) => v.name !== 'datavolume').map((v) => ({ ...v, at: undefined }))).toEqual([
      {
        name: 'another-volume',
        external: false,
        externalName: 'user_specified_name',
        driver: 'vsphere',
        driverOpts: { baz: '1', foo: 'bar' },
        labels: {},
        at: undefined,
      },
      {
        name: 'external-volume',
        external: true,
        externalName: 'external-volume',
        driverOpts: {},
        labels: {},
        at: undefined,
      },
      {
        name: 'external-volume3',
        external: true,
        externalName: 'this-is-volume3',
        driverOpts: {},
        labels: {},
        at: undefined,
      },
      {
        name: 'other-external-volume',
        external: true,
        externalName: 'my-cool-volume',
        driverOpts: {},
        labels: {},
        at: undefined,
      },
      {
        name: 'other-volume',
        external: false,
        driver: 'flocker',
        driverOpts: { baz: '1', foo: 'bar' },
        labels: { foo: 'bar' },
        at: undefined,
      },
      { name: 'some-volume', external: false, driverOpts: {}, labels: {}, at: undefined },
    ]);
  });

  test("secrets and configs: files, external names, the environment (secret4 holds BAR's value), labels", () => {
    expect(result.model.secrets.map((s) => [s.name, s.source, s.labels])).toEqual([
      [
        'secret1',
        { kind: 'file', content: { path: './secret_data', text: 'secret\n', binary: false } },
        { foo: 'bar' },
      ],
      ['secret2', { kind: 'external', externalName: 'my_secret' }, {}],
      ['secret3', { kind: 'external', externalName: 'secret3' }, {}],
      [
        'secret4',
        { kind: 'environment', variable: 'BAR', content: { path: 'secret4', text: 'this is a secret', binary: false } },
        {},
      ],
      // An absolute path outside the project folder is not read without allowOutsideProject.
      ['secret5', { kind: 'outside', path: '/abs/secret_data' }, {}],
    ]);
    expect(result.model.configs.map((c) => [c.name, c.source, c.labels])).toEqual([
      [
        'config1',
        { kind: 'file', content: { path: './config_data', text: 'config\n', binary: false } },
        { foo: 'bar' },
      ],
      ['config2', { kind: 'external', externalName: 'my_config' }, {}],
      ['config3', { kind: 'external', externalName: 'config3' }, {}],
      ['config4', { kind: 'outside', path: '~/config_data' }, {}],
    ]);
  });
});

describeShared('full-struct_test.go: service foo', () => {
  test('build: context, Dockerfile, args, target, platforms', () => {
    expect(foo.build).toEqual({
      context: './dir',
      dockerfile: 'Dockerfile',
      target: 'foo',
      args: { foo: 'bar' },
      platforms: ['linux/amd64', 'linux/arm64'],
      runsBuiltImage: true,
    });
    expect(foo.image).toBe('redis');
  });

  test('capabilities, command, entrypoint, container name, hostname, user, working dir', () => {
    expect(foo).toMatchObject({
      capAdd: ['ALL'],
      capDrop: ['NET_ADMIN', 'SYS_ADMIN'],
      command: ['bundle', 'exec', 'thin', '-p', '3000'],
      entrypoint: ['/code/entrypoint.sh', '-p', '3000'],
      containerName: 'my-web-container',
      hostname: 'foo',
      user: 'someone',
      workingDir: '/code',
      privileged: true,
      readOnly: true,
      restart: 'always',
      stdinOpen: true,
      tty: true,
      stopGracePeriodSeconds: 20,
      extensions: { 'x-bar': 'baz', 'x-foo': 'bar' },
    });
  });

  test('configs and secrets: targets, uid, gid, mode 0440', () => {
    expect(foo.configs.map((c) => ({ ...c, at: undefined }))).toEqual([
      { source: 'config1', target: '/config1', at: undefined },
      { source: 'config2', target: '/my_config', uid: '103', gid: '103', mode: 0o440, at: undefined },
    ]);
    // compose mounts a relative secret target under /run/secrets.
    expect(foo.secrets.map((c) => ({ ...c, at: undefined }))).toEqual([
      { source: 'secret1', target: '/run/secrets/secret1', at: undefined },
      { source: 'secret2', target: '/run/secrets/my_secret', uid: '103', gid: '103', mode: 0o440, at: undefined },
    ]);
  });

  test('depends_on and links: db and redis, started, required', () => {
    expect(foo.dependsOn.map((d) => [d.service, d.condition, d.required])).toEqual([
      ['db', 'service_started', true],
      ['redis', 'service_started', true],
    ]);
  });

  test('deploy: mode, replicas, labels, resources (50M is 50 MiB), restart policy', () => {
    expect({ ...foo.deploy, at: undefined }).toEqual({
      mode: 'replicated',
      replicas: 6,
      labels: { FOO: 'BAR' },
      limits: { cpus: 0.001, memoryBytes: 50 * 1024 * 1024, devices: [] },
      reservations: { cpus: 0.0001, memoryBytes: 20 * 1024 * 1024, devices: [] },
      restartPolicy: { condition: 'on-failure', delaySeconds: 5, maxAttempts: 3, windowSeconds: 120 },
      at: undefined,
    });
  });

  test('devices, sysctls, ulimits, extra hosts', () => {
    expect(foo.devices).toEqual(['/dev/ttyUSB0:/dev/ttyUSB0:rwm']);
    expect(foo.sysctls).toEqual({ 'net.core.somaxconn': '1024', 'net.ipv4.tcp_syncookies': '0' });
    expect(foo.ulimits).toEqual([
      { name: 'nofile', soft: 20000, hard: 40000 },
      { name: 'nproc', soft: 65535, hard: 65535 },
    ]);
    expect(foo.extraHosts).toEqual([
      { hostname: 'otherhost', ip: '50.31.209.229' },
      { hostname: 'somehost', ip: '162.242.195.82' },
    ]);
  });

  test('environment: env files in order, then environment; a variable without a value from the shell', () => {
    expect(foo.environment.map((e) => [e.name, e.value, e.origin])).toEqual([
      ['BAR', 'bar_from_env_file_2', 'env_file'],
      ['BAZ', 'baz_from_service_def', 'environment'],
      ['ENV.WITH.DOT', 'ok', 'env_file'],
      ['ENV_WITH_UNDERSCORE', 'ok', 'env_file'],
      ['FOO', 'foo_from_env_file', 'env_file'],
      ['QUX', 'qux_from_environment', 'environment'],
    ]);
  });

  test('labels: label files in order, then labels (numbers as text, an empty label empty)', () => {
    expect(foo.labels).toEqual({
      'FOO': 'foo_from_label_file',
      'BAR': 'bar_from_label_file_2',
      'BAZ': 'baz_from_label_file',
      'QUX': 'quz_from_label_file_2',
      'LABEL.WITH.DOT': 'ok',
      'LABEL_WITH_UNDERSCORE': 'ok',
      'com.example.description': 'Accounting webapp',
      'com.example.number': '42',
      'com.example.empty-label': '',
    });
  });

  test('expose and ports: ranges expanded, host addresses kept, no published port where none is given', () => {
    expect(foo.expose.map((p) => p.target)).toEqual([3000, 8000]);
    const ports = foo.ports.map(
      (p) => `${p.hostIp ? `${p.hostIp}:` : ''}${p.published ?? ''}:${p.target}/${p.protocol}/${p.mode}`,
    );
    expect([...ports].sort()).toEqual(
      [
        ':3000/tcp/ingress',
        ':3001/tcp/ingress',
        ':3002/tcp/ingress',
        ':3003/tcp/ingress',
        ':3004/tcp/ingress',
        ':3005/tcp/ingress',
        '8000:8000/tcp/ingress',
        '9090:8080/tcp/ingress',
        '9091:8081/tcp/ingress',
        '49100:22/tcp/ingress',
        '127.0.0.1:8001:8001/tcp/ingress',
        ...Array.from({ length: 11 }, (_, i) => `127.0.0.1:${5000 + i}:${5000 + i}/tcp/ingress`),
      ].sort(),
    );
  });

  test('healthcheck: a string test runs in a shell; durations in seconds', () => {
    expect({ ...foo.healthcheck, at: undefined }).toEqual({
      disabled: false,
      test: { kind: 'shell', command: ['echo "hello world"'] },
      intervalSeconds: 10,
      timeoutSeconds: 1,
      retries: 5,
      startPeriodSeconds: 15,
      startIntervalSeconds: 5,
      at: undefined,
    });
  });

  test('networks: aliases and static addresses', () => {
    expect(foo.networks.map((n) => ({ ...n, at: undefined }))).toEqual([
      {
        name: 'other-network',
        aliases: [],
        ipv4Address: '172.16.238.10',
        ipv6Address: '2001:3984:3989::10',
        at: undefined,
      },
      { name: 'other-other-network', aliases: [], at: undefined },
      { name: 'some-network', aliases: ['alias1', 'alias3'], at: undefined },
    ]);
  });

  test('volumes: anonymous, absolute and relative binds, ~, named, long syntax, tmpfs with an exact size of 10000 bytes', () => {
    expect(foo.volumes.map((v) => [v.type, v.source, v.target, v.readOnly, v.sizeBytes, v.bind?.kind])).toEqual([
      ['bind', '.', '/code', false, undefined, 'directory'],
      ['bind', '~/configs', '/etc/configs', true, undefined, 'outside'],
      ['bind', './opt', '/opt/cached', false, undefined, 'missing'],
      ['tmpfs', undefined, '/opt/tmpfs', false, 10000, undefined],
      ['tmpfs', undefined, '/run', false, undefined, undefined],
      ['tmpfs', undefined, '/tmp', false, undefined, undefined],
      ['volume', undefined, '/var/lib/anonymous', false, undefined, undefined],
      ['bind', '/opt/data', '/var/lib/data', false, undefined, 'outside'],
      ['volume', 'datavolume', '/var/lib/volume', false, undefined, undefined],
      ['bind', './static', '/var/www/html', false, undefined, 'missing'],
    ]);
  });

  test('what the model does not carry is reported, key by key', () => {
    const ignored = result.warnings
      .filter((w) => w.code === 'unsupported-key' && w.at.path.startsWith('services.foo'))
      .map((w) => w.at.path.slice('services.foo.'.length));
    expect(ignored).toEqual(
      expect.arrayContaining([
        'annotations',
        'build.additional_contexts',
        'build.cache_from',
        'build.labels',
        'build.network',
        'build.secrets',
        'build.ssh',
        'build.tags',
        'cgroup_parent',
        'deploy.endpoint_mode',
        'deploy.placement',
        'deploy.resources.reservations.generic_resources',
        'deploy.rollback_config',
        'deploy.update_config',
        'device_cgroup_rules',
        'dns',
        'dns_search',
        'domainname',
        'external_links',
        'ipc',
        'logging',
        'mac_address',
        'pid',
        'security_opt',
        'stop_signal',
        'storage_opt',
        'uts',
      ]),
    );
  });
});
