import * as path from 'path';
import { CORPUS, CliRun, ROOT, copyFolder, expectBuilt, inParallel, removeTempDirs, runCli, tempDir } from '../run-cli';

/** `cdk8s-compose analyze`: the assessment of every service, as text and as JSON. */

const runs: Record<string, CliRun> = {};

beforeAll(async () => {
  expectBuilt();
  const reference = () => copyFolder(path.join(ROOT, 'examples', 'reference'), tempDir('analyze'), 'shop');
  const tasks: [string, string, string[]][] = [
    ['text', reference(), ['analyze']],
    ['json', reference(), ['analyze', '--json', '--ingress-host', 'web=shop.example.com']],
    ['portainer', copyFolder(path.join(CORPUS, 'portainer'), tempDir('analyze')), ['analyze', '--json']],
    ['autoText', reference(), ['analyze', '--target', 'auto']],
    ['autoJson', reference(), ['analyze', '--json', '--target', 'auto']],
    [
      'autoWithUrl',
      reference(),
      ['analyze', '--json', '--target', 'auto', '--image-base-url', 'https://images.example.com/shop'],
    ],
    ['profiles', copyFolder(path.join(CORPUS, 'airflow'), tempDir('analyze')), ['analyze']],
    [
      'profilesJson',
      copyFolder(path.join(CORPUS, 'airflow'), tempDir('analyze')),
      ['analyze', '--json', '--profile', 'debug'],
    ],
    ['mailcow', copyFolder(path.join(CORPUS, 'mailcow'), tempDir('analyze')), ['analyze', '--json']],
  ];
  await inParallel(tasks, 2, async ([name, cwd, args]) => {
    runs[name] = await runCli(args, { cwd });
  });
}, 120_000);

afterAll(removeTempDirs);

test('JSON: target, workload, state and engine, exposure, volumes, secrets by name, dependencies, warnings', () => {
  expect(runs.json.code).toBe(0);
  const analysis = JSON.parse(runs.json.stdout);
  expect(Object.keys(analysis)).toEqual([
    'project',
    'files',
    'namespace',
    'services',
    'buildAll',
    'warnings',
    'leftOutByProfiles',
    'imageBaseUrlNeededBy',
  ]);
  expect(analysis.buildAll).toBeNull();
  expect(analysis.services.map((s: any) => s.service)).toEqual([
    'api',
    'migrate',
    'redis',
    'reporting',
    'shop_db',
    'web',
    'worker',
  ]);
  const byName = Object.fromEntries(analysis.services.map((s: any) => [s.service, s]));
  expect(Object.keys(byName.api)).toEqual([
    'service',
    'name',
    'target',
    'reasons',
    'weakReasons',
    'runsIn',
    'workload',
    'replicas',
    'stateful',
    'engine',
    'exposure',
    'volumes',
    'secrets',
    'dependsOn',
    'build',
    'warnings',
  ]);
  expect(byName.api.build).toBeNull();
  expect(byName.shop_db).toMatchObject({
    name: 'shop-db',
    target: 'container',
    reasons: [],
    runsIn: 'container',
    workload: 'Deployment',
    replicas: 1,
    stateful: true,
    engine: 'postgres',
    exposure: { internal: 'shop-db', external: [], portForward: [] },
    volumes: [
      {
        type: 'volume',
        source: 'db-data',
        target: '/var/lib/postgresql/data',
        becomes: 'PersistentVolumeClaim db-data',
      },
      {
        type: 'secret',
        source: 'db_password',
        target: '/run/secrets/db_password',
        becomes: 'Secret db-password key db_password',
      },
    ],
    secrets: [{ kind: 'secret', name: 'db_password', secret: 'db-password', empty: false }],
    dependsOn: [],
  });
  expect(byName.api.exposure).toEqual({
    internal: 'api',
    external: [{ via: 'LoadBalancer', port: 9090, targetPort: 9090, protocol: 'tcp', host: null, path: null }],
    // Bound to 127.0.0.1 in compose: not a way in, but a port-forward.
    portForward: [
      {
        port: 9102,
        targetPort: 9102,
        protocol: 'tcp',
        hostIp: '127.0.0.1',
        command: 'kubectl port-forward service/api 9102 -n shop',
      },
    ],
  });
  expect(byName.web.exposure.external).toEqual([
    { via: 'Ingress', port: 8080, targetPort: 80, protocol: 'tcp', host: 'shop.example.com', path: '/' },
  ]);
  expect(byName.api.secrets.map((s: any) => `${s.kind} ${s.name}`)).toEqual([
    'env DATABASE_URL',
    'env PAYMENT_API_KEY',
    'env SESSION_SECRET',
    'secret jwt_signing_key',
  ]);
  expect(byName.api.dependsOn).toEqual([
    { service: 'migrate', condition: 'service_completed_successfully', required: true },
    { service: 'redis', condition: 'service_started', required: true },
    { service: 'shop_db', condition: 'service_healthy', required: true },
  ]);
  expect(byName.migrate).toMatchObject({
    workload: 'Job',
    stateful: false,
    engine: null,
    exposure: { internal: null, external: [], portForward: [] },
  });
  // The assessment wants the VM; without --target auto it is only a recommendation.
  expect(byName.reporting).toMatchObject({ target: 'vm', runsIn: 'container', workload: 'Deployment' });
  // Line and column of the reference file are left out: the example grows.
  const where = (text: string) => text.replace(/^compose\.yaml:\d+:\d+: /, 'compose.yaml: ');
  expect(byName.worker.warnings.map((w: any) => w.code)).toEqual(['host-rewrite', 'host-rewrite', 'copy-up']);
  expect(byName.worker.warnings.map((w: any) => where(w.message))).toEqual([
    'compose.yaml: services.worker.environment.DATABASE_URL: host "shop_db" in DATABASE_URL rewritten to the Service name "shop-db"',
    'compose.yaml: services.worker.environment.REDIS_HOST: host "cache" in REDIS_HOST rewritten to the Service name "redis"',
    'compose.yaml: services.worker.volumes[0]: volume "reports" at /var/lib/shop/reports: an init container from the ' +
      "service's image copies the image's files there into a new claim once, as docker does (it needs sh and cp in " +
      '"ghcr.io/example/shop-worker:1.4.2"; turn it off with volume.nocopy: true, services[name].copyUp or --copy-up off)',
  ]);
  expect(analysis.warnings.map((w: any) => `${w.code}: ${where(w.message)}`)).toEqual([
    'alias-service: compose.yaml: configs.api_config: config "api_config" reaches service "redis" as "cache", so the Service "cache" selects its pods too',
  ]);
  // Names only: no value of a secret or of a sensitive variable.
  for (const value of ['demo-db-password-not-real', 'shop:demo']) {
    expect(runs.json.stdout).not.toContain(value);
    expect(runs.text.stdout).not.toContain(value);
  }
});

test('text: the same assessment, one block per service', () => {
  expect(runs.text.code).toBe(0);
  const text = runs.text.stdout;
  expect(text.split('\n')[0]).toBe('Project shop (compose.yaml): 7 services → namespace shop');
  // Without --target, the reporting daemon is converted to a container, and the assessment says it belongs on a VM.
  expect(text).toContain(
    'reporting\n  target:     VM recommended (it runs in a container: convert with --target auto to move it), because:\n' +
      '      - services.reporting.volumes: mounts the Docker socket',
  );
  expect(text).toContain('  runs as:    Deployment, 1 replica\n');
  expect(text).toContain(
    '; 9102/tcp bound to 127.0.0.1 in compose, not outside the cluster (kubectl port-forward service/api 9102 -n shop)\n',
  );
  expect(text).toContain(
    [
      'shop_db (shop-db)',
      '  target:     container',
      '  runs as:    Deployment, 1 replica',
      '  stateful:   yes, postgres',
      '  exposure:   internal (Service shop-db)',
      '  volumes:',
      '      - volume db-data at /var/lib/postgresql/data → PersistentVolumeClaim db-data',
      '      - secret db_password at /run/secrets/db_password → Secret db-password key db_password',
      '  secrets:    secret db_password',
      '  depends_on: none',
      '  warnings:',
      '      - compose.yaml:156:5: services.shop_db: image "postgres:16.4" runs as a postgres stateful dependency: one pod, its ' +
        'data on the claim of its compose volume, the credentials Secret "shop-db-credentials", the engine\'s readiness ' +
        'check, a backup CronJob "shop-db-backup"; the service\'s own command, ports, environment and volumes are kept ' +
        '(x-cdk8s-compose.engine: none runs it as a plain Deployment)',
      '',
    ].join('\n'),
  );
  expect(text).toContain('  exposure:   internal (Service web); Ingress web.example.com/ → 80\n');
  expect(text).toContain(
    '  depends_on: migrate (service_completed_successfully), redis (service_started), shop_db (service_healthy)\n',
  );
});

test('a service that needs a VM is assessed so, with the reasons', () => {
  expect(runs.portainer.code).toBe(0);
  const [portainer] = JSON.parse(runs.portainer.stdout).services;
  expect(portainer).toMatchObject({
    service: 'portainer',
    target: 'vm',
    reasons: [
      'services.portainer.volumes: mounts the Docker socket /var/run/docker.sock: the service drives a Docker engine, which a pod does not have',
    ],
  });
});

test('mailcow: a sysctl on its cache is no reason to move it, and analyze says why', () => {
  const redis = JSON.parse(runs.mailcow.stdout).services.find((s: any) => s.service === 'redis-mailcow');
  expect(redis).toMatchObject({
    target: 'container',
    reasons: [],
    weakReasons: [
      'services.redis-mailcow.sysctls.net.core.somaxconn: not a reason to move it: the service runs as a redis ' +
        "stateful dependency, whose pod keeps the engine's own settings and sets no sysctls",
    ],
  });
});

test('--target auto needs no --image-base-url: analyze says which VM will need it, for convert and deploy', () => {
  expect(runs.autoText.code).toBe(0);
  expect(runs.autoText.stdout).toContain(
    '\nThe VM shop-vm boots from a golden image that you publish: convert and deploy need --image-base-url URL, ' +
      'the folder URL it will be published at (RUNBOOK.md shows how to build and publish it).\n',
  );
  expect(runs.autoText.stdout).toMatch(/^reporting\n  target:     VM, because:$/m);
  expect(`${runs.autoText.stdout}${runs.autoText.stderr}`).not.toContain('.invalid');
  expect(runs.autoJson.code).toBe(0);
  expect(JSON.parse(runs.autoJson.stdout)).toMatchObject({ imageBaseUrlNeededBy: 'shop-vm' });
  // With the URL, the same assessment and no note.
  const withUrl = JSON.parse(runs.autoWithUrl.stdout);
  expect(withUrl.imageBaseUrlNeededBy).toBeNull();
  expect(withUrl.services).toEqual(JSON.parse(runs.autoJson.stdout).services);
});

test('lists the services the active profiles leave out', () => {
  expect(runs.profiles.code).toBe(0);
  expect(runs.profiles.stdout).toContain(
    '\nLeft out by profiles (--profile NAME brings a service in):\n  - airflow-cli (profile debug)\n  - flower (profile flower)\n',
  );
  const json = JSON.parse(runs.profilesJson.stdout);
  expect(json.leftOutByProfiles).toEqual([{ service: 'flower', profiles: ['flower'] }]);
  expect(json.services.map((s: { service: string }) => s.service)).toContain('airflow-cli');
});

test('mailcow: a setting named like a password is no secret, a copy of a secret is not counted, empty passwords are flagged', () => {
  expect(runs.mailcow.code).toBe(0);
  const byName = Object.fromEntries(JSON.parse(runs.mailcow.stdout).services.map((s: any) => [s.service, s]));
  const secrets = (service: string) =>
    byName[service].secrets.map((x: any) => `${x.kind} ${x.name}${x.empty ? ' (empty)' : ''}`);
  // DBPASS and REDISPASS are passwords by name (the word glued to its owner), and not set here.
  expect(secrets('php-fpm-mailcow')).toEqual([
    'copy API_ALLOW_FROM',
    'env API_KEY',
    'env API_KEY_READ_ONLY',
    'env DBPASS (empty)',
    'env REDISPASS (empty)',
  ]);
  expect(secrets('sogo-mailcow')).toEqual([
    'env DBPASS (empty)',
    'env REDISPASS (empty)',
    'env SOGO_URL_ENCRYPTION_KEY',
  ]);
  // DBPASS and DBROOT are not set: MariaDB would refuse to start.
  expect(secrets('mysql-mailcow')).toEqual(['env MYSQL_PASSWORD (empty)', 'env MYSQL_ROOT_PASSWORD (empty)']);
  expect(
    byName['mysql-mailcow'].warnings
      .filter((w: any) => w.code === 'empty-secret')
      .map((w: any) => w.message.replace(/^compose\.yaml:\d+:\d+: /, '')),
  ).toEqual([
    'services.mysql-mailcow.environment[4]: MYSQL_PASSWORD is empty, so its Secret key holds 0 bytes; the mariadb image ' +
      'refuses to start with it empty; set a value (an unset variable gives an empty string)',
    'services.mysql-mailcow.environment[1]: MYSQL_ROOT_PASSWORD is empty, so its Secret key holds 0 bytes; the ' +
      'mariadb image refuses to start with it empty; set a value (an unset variable gives an empty string)',
  ]);
  expect(byName['dovecot-mailcow'].exposure.portForward).toEqual([
    {
      port: 19991,
      targetPort: 12345,
      protocol: 'tcp',
      hostIp: '127.0.0.1',
      command: 'kubectl port-forward service/dovecot-mailcow 19991:12345 -n mailcow',
    },
  ]);
  expect(byName['dovecot-mailcow'].exposure.external.map((e: any) => e.via)).toEqual([
    'LoadBalancer',
    'LoadBalancer',
    'LoadBalancer',
    'LoadBalancer',
    'LoadBalancer',
  ]);
});
