import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import {
  DEFAULT_SENSITIVE_NAME_PATTERNS,
  Redactor,
  SENSITIVE_PATTERNS,
  embeddedPasswords,
  isSensitiveName,
} from '../../lib/compose/sensitive';
import { readProjectFile } from '../../lib/compose/files';
import { loadCompose, LoadComposeOptions } from '../../lib/compose/load';
import { refused, runBounded } from '../support/bounded';
import { CliRun, expectBuilt, listFiles, removeTempDirs, runCli, tempDir } from '../cli/run-cli';

/**
 * Hostile input (issue 17, findings 5-13): files that lead out of the project, unbounded input, secrets in
 * messages, the golden-image bundle and plain fields, the cluster's own namespaces, and misleading messages. Each
 * test is written from the description of the finding.
 */

beforeAll(expectBuilt);
afterAll(removeTempDirs);

/** A planted secret: no message, manifest outside a Secret, runbook or bundle file may hold it. */
const PLANTED = 'planted-4f9c2e71';

/** A project folder (with the given files) beside an `outside/` folder. */
function project(files: Record<string, string>): { dir: string; outside: string } {
  const base = fs.realpathSync(tempDir('hostile-in'));
  const dir = path.join(base, 'project');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(dir);
  fs.mkdirSync(outside);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { dir, outside };
}

function load(dir: string, options: Partial<LoadComposeOptions> = {}) {
  return loadCompose({ workingDir: dir, env: {}, ...options });
}

function synth(dir: string, options: Partial<LoadComposeOptions> = {}): string {
  const { model } = load(dir, options);
  const chart = new Chart(new App({ outdir: tempDir('synth') }), 'c');
  new ComposeApp(chart, 'app', { model });
  return JSON.stringify(Testing.synth(chart));
}

function lastLine(run: CliRun): string {
  return run.stderr.trimEnd().split('\n').slice(-1)[0];
}

describe('finding 5: the project .env and discovered compose files stay inside the project', () => {
  const PASSWD = 'root=x:0:0:root:/root:/bin/bash\n';
  const COMPOSE = 'services:\n  web:\n    image: nginx:1.27.2\n    environment:\n      ROOT_LINE: ${root}\n';

  test('a .env that is a link to a file outside is refused without allowOutsideProject, and read with it', () => {
    const { dir, outside } = project({ 'compose.yaml': COMPOSE });
    fs.writeFileSync(path.join(outside, 'passwd'), PASSWD);
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(dir, '.env'));
    expect(refused(() => load(dir)).message).toBe(
      '.env: env file ".env" is outside the project folder (through a symbolic link) ' +
        'and was not read. Allowed: a file inside the folder of the compose file. Fix: move the file into the project folder, ' +
        'or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
    expect(synth(dir, { allowOutsideProject: true })).toContain('x:0:0:root');
  });

  test('a .env linked inside the project is read', () => {
    const { dir } = project({ 'compose.yaml': COMPOSE, 'conf/app.env': 'root=inside\n' });
    fs.symlinkSync('conf/app.env', path.join(dir, '.env'));
    expect(synth(dir)).toContain('inside');
  });

  test('an auto-discovered compose.override.yaml that links outside is refused', () => {
    const { dir, outside } = project({ 'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n' });
    fs.writeFileSync(path.join(outside, 'override.yaml'), `services:\n  web:\n    environment: {LEAK: ${PLANTED}}\n`);
    fs.symlinkSync(path.join(outside, 'override.yaml'), path.join(dir, 'compose.override.yaml'));
    const err = refused(() => load(dir));
    expect(err.message).toMatch(
      /^compose\.override\.yaml: compose file "compose\.override\.yaml" is outside the project folder/,
    );
    expect(err.message).not.toContain(PLANTED);
  });

  test('an env_file swapped for a link to a file outside between the check and the open is not read (descriptor check)', () => {
    const { dir, outside } = project({ 'app.env': 'MODE=inside\n' });
    fs.writeFileSync(path.join(outside, 'leak.env'), `LEAK=${PLANTED}\n`);
    const file = path.join(dir, 'app.env');
    const swap = () => {
      fs.unlinkSync(file);
      fs.symlinkSync(path.join(outside, 'leak.env'), file);
    };
    const at = { file: 'compose.yaml', path: 'services.web.env_file' };
    const err = refused(() => readProjectFile('env file', 'app.env', file, at, { confineTo: dir, afterCheck: swap }));
    expect(err.message).toBe(
      'compose.yaml: services.web.env_file: env file "app.env" is outside the project folder (through a ' +
        'symbolic link) and was not read. Allowed: a file inside the folder of the compose file. Fix: move the file into the ' +
        'project folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
  });

  test('a folder on the way swapped for a link after the check is caught on the open descriptor', () => {
    const { dir, outside } = project({ 'conf/app.env': 'MODE=inside\n' });
    fs.writeFileSync(path.join(outside, 'app.env'), `LEAK=${PLANTED}\n`);
    const swap = () => {
      fs.renameSync(path.join(dir, 'conf'), path.join(dir, 'conf-away'));
      fs.symlinkSync(outside, path.join(dir, 'conf'));
    };
    const err = refused(() =>
      readProjectFile(
        'env file',
        'conf/app.env',
        path.join(dir, 'conf/app.env'),
        { file: 'compose.yaml', path: '' },
        { confineTo: dir, afterCheck: swap },
      ),
    );
    expect(err.message).toContain('is outside the project folder (through a symbolic link) and was not read');
  });
});

describe('finding 6: extends is bounded, and a cycle is a located error that names it', () => {
  test('a service that extends itself through its own file', () => {
    const { dir } = project({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n    extends: {file: compose.yaml, service: web}\n',
    });
    expect(refused(() => load(dir)).message).toBe(
      'compose.yaml:4:14: services.web.extends: services extend each other in a cycle: ' +
        'web → compose.yaml:web. Fix: remove one of the extends, so that no service extends itself.',
    );
  });

  test('a cycle through two files', () => {
    const { dir } = project({
      'compose.yaml': 'services:\n  web:\n    extends: {file: base.yaml, service: a}\n',
      'base.yaml': 'services:\n  a:\n    extends: {file: compose.yaml, service: web}\n    image: nginx:1.27.2\n',
    });
    expect(refused(() => load(dir)).message).toMatch(
      /: services extend each other in a cycle: web → base\.yaml:a → compose\.yaml:web\./,
    );
  });

  test('a service extending a service of its own file through file: is not a cycle', () => {
    const { dir } = project({
      'compose.yaml':
        'services:\n  base:\n    image: nginx:1.27.2\n  web:\n    extends: {file: compose.yaml, service: base}\n',
    });
    expect(load(dir).model.services.find((s) => s.name === 'web')?.image).toBe('nginx:1.27.2');
  });

  test('a large file in a cycle fails at once, in bounded time', () => {
    const filler = Array.from({ length: 5000 }, (_, i) => `  s${i}:\n    image: nginx:1.27.2\n`).join('');
    const { dir } = project({
      'compose.yaml': `services:\n  web:\n    image: nginx:1.27.2\n    extends: {file: compose.yaml, service: web}\n${filler}`,
    });
    expect(refused(() => load(dir)).message).toContain('services extend each other in a cycle');
  });

  test('a chain of 5,000 extends in one file is refused past 64', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `  s${i}:\n    extends: s${i + 1}\n`).join('');
    const { dir } = project({ 'compose.yaml': `services:\n${chain}  s5000:\n    image: nginx:1.27.2\n` });
    const err = refused(() => load(dir));
    expect(err.message).toMatch(
      /^compose\.yaml:\d+:\d+: services\.s\d+\.extends: the chain of extends is longer than 64 services: s0 → s1 → s2 → … \(60 more\) → s63 → s64\./,
    );
  });
});

describe('finding 7: the project .env is bounded like env_file', () => {
  test('a 150 MB .env is refused without being read', () => {
    const { dir } = project({ 'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n' });
    // Sparse: the size without the disk space. Reading it would take gigabytes of memory.
    fs.closeSync(fs.openSync(path.join(dir, '.env'), 'w'));
    fs.truncateSync(path.join(dir, '.env'), 150 * 1024 * 1024);
    const heapBefore = process.memoryUsage().heapUsed;
    expect(refused(() => load(dir)).message).toBe(
      '.env: env file ".env" is larger than 1 MiB. ' +
        'Fix: make the file smaller; the limit keeps a hostile file from filling the memory.',
    );
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  test('an env file named with --env-file is bounded too', () => {
    const { dir } = project({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n',
      'big.env': `A=${'x'.repeat(1024 * 1024 + 1)}\n`,
    });
    expect(refused(() => load(dir, { envFiles: ['big.env'] })).message).toContain(
      'env file "big.env" is larger than 1 MiB',
    );
  });
});

describe('finding 8: the patterns of sensitive.ts run in linear time', () => {
  const MB = 1024 * 1024;
  /** Adversarial strings of 1 MB: long runs that a backtracking pattern retries from every position. */
  const ADVERSARIAL: [string, string][] = [
    ['letters', 'a'.repeat(MB)],
    ['scheme characters', 'a+.-'.repeat(MB / 4)],
    ['"://" repeated', 'a://'.repeat(MB / 4)],
    ['a user and colons without "@"', `a://${'b:'.repeat(MB / 2 - 2)}`],
    ['passwords without "@"', 'a://u:p'.repeat(MB / 7)],
    ['"password" and blanks without "="', `password${' '.repeat(MB - 8)}`],
    ['"password" repeated', ' password'.repeat(MB / 9)],
    ['"pwd=" repeated', ';pwd='.repeat(MB / 5)],
  ];

  test.each(ADVERSARIAL)('embeddedPasswords, isSensitiveName and the redactor on 1 MB of %s', (_what, text) => {
    const redactor = new Redactor();
    redactor.add('secret-value-1');
    // A generous bound: linear work on 1 MB takes milliseconds; the quadratic pattern took hours on 1.9 MB.
    for (const run of <(() => unknown)[]>[
      () => embeddedPasswords(text),
      () => isSensitiveName(text, DEFAULT_SENSITIVE_NAME_PATTERNS),
      () => redactor.redact(text),
      ...SENSITIVE_PATTERNS.map(
        (pattern) => () => [...text.matchAll(new RegExp(pattern.source, pattern.flags))].length,
      ),
    ]) {
      expect(runBounded(run, 2_000).kind).toBe('value');
    }
  });

  test('the redactor reads a text once, whatever the number of secrets: 1,000 secrets over 1 MB', () => {
    const redactor = new Redactor();
    for (let i = 0; i < 1000; i++) {
      redactor.add(`secret-${i}-${'x'.repeat(20)}`);
    }
    const text = `${'secret-'.repeat(MB / 7)}secret-999-${'x'.repeat(20)}`;
    const outcome = runBounded(() => redactor.redact(text), 2_000);
    expect(outcome.kind).toBe('value');
    expect((outcome as { value: string }).value.endsWith('secret-[redacted]')).toBe(true);
  });

  test('the scan finds what the pattern found', () => {
    expect(embeddedPasswords('postgresql://shop:pw-1@db:5432/shop and redis://:r3dis@cache/0')).toEqual([
      'pw-1',
      'r3dis',
    ]);
    expect(embeddedPasswords('x' + 'a'.repeat(1000) + '://u:p4ss@h')).toEqual(['p4ss']);
    expect(embeddedPasswords('9a://u:p4ss@h')).toEqual(['p4ss']);
    expect(embeddedPasswords('1://u:p@h /a://u:@h')).toEqual([]);
    expect(embeddedPasswords('addr=10.0.0.1,username=u,password=s3cret-cifs')).toEqual(['s3cret-cifs']);
  });
});

describe('finding 9: error messages quote no secret', () => {
  const DOTENV = `DB_PASSWORD=${PLANTED}\n`;

  test.each([
    [
      'an invalid service name whose environment holds a secret from .env',
      'services:\n  "bad name!":\n    image: nginx:1.27.2\n    environment:\n      DB_PASSWORD: ${DB_PASSWORD}\n',
    ],
    [
      'environment written as a plain string',
      `services:\n  web:\n    image: nginx:1.27.2\n    environment: DB_PASSWORD=${PLANTED}\n`,
    ],
    [
      'an invalid tmpfs size taken from a secret variable',
      'services:\n  web:\n    image: nginx:1.27.2\n    tmpfs: ["/cache:size=${DB_PASSWORD}"]\n',
    ],
    [
      'a port taken from a secret variable',
      'services:\n  web:\n    image: nginx:1.27.2\n    ports: ["${DB_PASSWORD}:80"]\n',
    ],
  ])('%s', (_what, compose) => {
    const { dir } = project({ 'compose.yaml': compose, '.env': DOTENV });
    const err = refused(() => load(dir));
    expect(err.message).not.toContain(PLANTED);
    expect(err.message).not.toContain(PLANTED.slice(0, 12));
  });

  test('the CLI prints no secret in its error line, and the value reads [redacted]', async () => {
    const { dir } = project({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n    ports: ["${DB_PASSWORD}:80"]\n',
      '.env': DOTENV,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain(PLANTED);
    expect(lastLine(run)).toContain('[redacted]');
  });
});

describe('findings 10 and 11: the bundle and the plain fields never hold a secret', () => {
  test('the golden-image bundle carries ${VAR} references: requirepass, CIFS password, labels, config contents', async () => {
    const { dir } = project({
      'compose.yaml': [
        'name: shop',
        'services:',
        '  cache:',
        '    image: redis:7.4',
        '    command: redis-server --requirepass ${REDIS_PASSWORD}',
        '    labels: {com.example.note: "auth ${REDIS_PASSWORD}"}',
        '    deploy:',
        '      labels: {com.example.deploy: "token ${REDIS_PASSWORD}"}',
        '    volumes: ["share:/data"]',
        '    configs: [app]',
        'volumes:',
        '  share:',
        '    driver: local',
        '    driver_opts: {type: cifs, device: //files/share, o: "addr=10.0.0.9,username=u,password=cifs-9d1e4b"}',
        '    labels: {com.example.vol: "v ${REDIS_PASSWORD}"}',
        'configs:',
        '  app:',
        '    content: "requirepass ${REDIS_PASSWORD}"',
        '',
      ].join('\n'),
      '.env': `REDIS_PASSWORD=${PLANTED}\n`,
    });
    const run = await runCli(
      ['convert', '-o', 'out', '--target', 'vm', '--image-base-url', 'https://images.example.com/shop'],
      { cwd: dir },
    );
    expect(run.stderr).not.toContain(PLANTED);
    expect(run.code).toBe(0);
    const out = path.join(dir, 'out');
    const bundle = listFiles(out).filter((f) => f.startsWith('golden-image/'));
    expect(bundle.length).toBeGreaterThan(5);
    for (const file of [...bundle, 'RUNBOOK.md']) {
      const text = fs.readFileSync(path.join(out, file), 'utf-8');
      expect({ file, planted: text.includes(PLANTED), cifs: text.includes('cifs-9d1e4b') }).toEqual({
        file,
        planted: false,
        cifs: false,
      });
    }
    const compose = fs.readFileSync(
      path.join(
        out,
        bundle.find((f) => f.endsWith('/app/compose.yaml'))!,
      ),
      'utf-8',
    );
    expect(compose).toMatch(/- --requirepass\n +- \$\{SECRET_1:\?set SECRET_1 in \/opt\/shop-vm\/\.env\}\n/);
    expect(compose).toContain('com.example.deploy: token ${SECRET_1:?');
    expect(compose).toContain('com.example.vol: v ${SECRET_1:?');
    expect(compose).toContain('password=${SECRET_2:?');
    // The values reach the VM through a Secret (the app folder's .env, written by cloud-init).
    const secrets = listFiles(out)
      .filter((f) => /-secret\.yaml$/.test(f))
      .map((f) => fs.readFileSync(path.join(out, f), 'utf-8'))
      .join('\n');
    const decoded = [...secrets.matchAll(/^ {2}[\w.-]+: ([A-Za-z0-9+/=]{8,})$/gm)]
      .map((m) => Buffer.from(m[1], 'base64').toString('utf-8'))
      .join('\n');
    expect(decoded).toContain(`SECRET_1='${PLANTED}'`);
    expect(decoded).toContain("SECRET_2='cifs-9d1e4b'");
    for (const manifest of listFiles(out).filter((f) => /^\d-/.test(f) && !/-secret\.yaml$/.test(f))) {
      const text = fs.readFileSync(path.join(out, manifest), 'utf-8');
      expect({ manifest, planted: text.includes(PLANTED) ? text : false }).toEqual({ manifest, planted: false });
    }
  });

  test.each([
    [
      'an Ingress host',
      '    labels: {kompose.service.expose: "${API_TOKEN}.example.com"}\n',
      'services.web.labels.kompose.service.expose',
    ],
    ['working_dir', '    working_dir: /srv/${API_TOKEN}\n', 'services.web.working_dir'],
    ['extra_hosts', '    extra_hosts: ["${API_TOKEN}:10.0.0.1"]\n', 'services.web.extra_hosts[0]'],
    [
      'kompose.init.containers.command',
      '    labels: {kompose.init.containers.name: init, kompose.init.containers.image: busybox:1.36, ' +
        'kompose.init.containers.command: "echo ${API_TOKEN}"}\n',
      'services.web.labels.kompose.init.containers.command',
    ],
  ])('a secret used as %s is refused, and the message does not quote it', async (_what, lines, field) => {
    const { dir } = project({
      'compose.yaml': `services:\n  web:\n    image: nginx:1.27.2\n    ports: ["8080:80"]\n${lines}`,
      '.env': `API_TOKEN=tok${PLANTED}\n`,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(lastLine(run)).toMatch(
      new RegExp(
        `^error: compose\\.yaml: ${field.replace(/[.[\]]/g, '\\$&')}: \\S+ holds a secret value, ` +
          'which would be written in plain text into the manifests and the runbook \\(this field cannot read from a Secret\\)\\. Fix: ',
      ),
    );
    expect(run.stderr).not.toContain(PLANTED);
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
  });
});

describe("finding 12: the cluster's own namespaces", () => {
  const COMPOSE = 'services:\n  web:\n    image: nginx:1.27.2\n    ports: ["8080:80"]\n';

  test.each([
    [['--namespace', 'kube-system'], 'kube-system'],
    [['--namespace', 'default'], 'default'],
    [['--namespace', 'kube-public'], 'kube-public'],
    [['--namespace', 'kube-node-lease'], 'kube-node-lease'],
    [['-p', 'kube-system'], 'kube-system'],
  ])('%j is refused without --allow-system-namespace', async (args, ns) => {
    const { dir } = project({ 'compose.yaml': COMPOSE });
    const run = await runCli(['convert', '-o', 'out', ...args], { cwd: dir });
    expect(run.code).toBe(1);
    expect(lastLine(run)).toBe(
      `error: cdk8s-compose/App: the namespace "${ns}" belongs to the cluster. Allowed: a namespace of the app's own, ` +
        'not default, kube-node-lease, kube-public, kube-system. Fix: choose another namespace (CLI: --namespace NAME, or a ' +
        'different project name), or allow it with allowSystemNamespace: true (CLI: --allow-system-namespace): its ' +
        "default-deny NetworkPolicy and quota then bind the cluster's own workloads.",
    );
  });

  test('name: kube-system in the compose file is refused too; the ComposeApp prop allows it', () => {
    const { dir } = project({ 'compose.yaml': `name: kube-system\n${COMPOSE}` });
    const { model } = load(dir);
    expect(() => new ComposeApp(new Chart(new App(), 'a'), 'app', { model })).toThrow(
      'the namespace "kube-system" belongs to the cluster',
    );
    expect(() => new ComposeApp(new Chart(new App(), 'b'), 'app', { model, allowSystemNamespace: true })).not.toThrow();
  });

  test('with --allow-system-namespace the runbook never proposes deleting the namespace', async () => {
    const { dir } = project({ 'compose.yaml': COMPOSE });
    const run = await runCli(['convert', '-o', 'out', '--namespace', 'kube-system', '--allow-system-namespace'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    const runbook = fs.readFileSync(path.join(dir, 'out', 'RUNBOOK.md'), 'utf-8');
    expect(runbook).not.toMatch(/kubectl delete (namespace|ns) kube-system/);
    expect(runbook).toContain('The app lives in `kube-system`, a namespace the cluster itself uses: never delete it.');
    expect(runbook).toMatch(/kubectl delete -f 2-app\//);
  });
});

describe('finding 13: messages that do not mislead', () => {
  test('50,000 services are "more values than the limit", not an alias bomb', () => {
    const services = Array.from({ length: 50_000 }, (_, i) => `  s${i}: {image: "nginx:1.27.2"}\n`).join('');
    const { dir } = project({ 'compose.yaml': `services:\n${services}` });
    const err = refused(() => load(dir, { limits: { maxFileBytes: 4 * 1024 * 1024 } }), 30_000);
    expect(err.message).not.toContain('alias');
    expect(err.message).toMatch(/the YAML holds more than \d+ (values|keys and values)/);
  });

  test('a compose file that is a loop of links says so, not "not found"', () => {
    const { dir } = project({});
    fs.symlinkSync('compose.yaml', path.join(dir, 'compose.yaml'));
    const err = refused(() => load(dir, { files: ['compose.yaml'] }));
    expect(err.message).toBe(
      'compose.yaml: compose file "compose.yaml" is a loop of symbolic links. Fix: make the link point at a file.',
    );
  });

  test('an env_file that is a loop of links says so', () => {
    const { dir } = project({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n    env_file: [loop.env]\n',
    });
    fs.symlinkSync('loop.env', path.join(dir, 'loop.env'));
    expect(refused(() => load(dir)).message).toContain('env file "loop.env" is a loop of symbolic links');
  });

  test('a 1 MB ${X:?message} is shortened in the message', () => {
    const { dir } = project({
      'compose.yaml': `services:\n  web:\n    image: "nginx:\${X:?${'m'.repeat(1024 * 1024)}}"\n`,
    });
    const err = refused(() => load(dir, { limits: { maxFileBytes: 4 * 1024 * 1024 } }));
    expect(err.message.length).toBeLessThan(2_000);
    expect(err.message).toMatch(/required variable X is missing a value: m+… \(\d+ more characters\)/);
  });
});
