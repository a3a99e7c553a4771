import { SpawnSyncReturns, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * The package as a user gets it: `npm run package` (scripts/pack.js), then the tarball installed into a fresh project shaped like
 * `cdk8s init typescript-app` (its package.json, tsconfig.json, jest.config.js and cdk8s.yaml, written here), with the
 * dependencies from the npm registry. The project compiles against the declarations under the template's
 * `target`/`lib` (no skipLibCheck), `cdk8s synth` runs an app with ComposeApp and GoldenImageVm, a `Testing.synth`
 * snapshot test passes, and the CLI runs from the installed package and from a global install. Installing from a path
 * (npm's symlink) is checked too: README "Install" says what works. One project is reused for every check.
 */

const ROOT = path.resolve(__dirname, '..', '..');
/** Generous: a cold npm cache downloads a few hundred packages. */
const INSTALL_TIMEOUT_MS = 300_000;
/** A compile, a synth or a jest run in the project, on a busy machine. */
const STEP_TIMEOUT_MS = 240_000;

/** Whether `npm ping` reaches the registry; the reason when it does not. */
function registryProblem(): string | undefined {
  const ping = spawnSync('npm', ['ping'], { encoding: 'utf-8', timeout: 30_000 });
  return ping.status === 0
    ? undefined
    : (ping.stderr || ping.error?.message || `exit ${ping.status}`).trim().split('\n').pop();
}

const problem = registryProblem();
const suite = problem === undefined ? describe : describe.skip;
if (problem !== undefined) {
  console.warn(`skipped: the consumer-project test needs the npm registry, which is unreachable (${problem})`);
}

/** The version of a package in this repository's node_modules, so that the install finds it in npm's cache. */
function installed(name: string): string {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf-8')).version;
}

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command; fails the test with its output when it exits non-zero (unless `allowFailure`). */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  options: { allowFailure?: boolean; timeout?: number } = {},
): Run {
  const result: SpawnSyncReturns<string> = spawnSync(command, [...args], {
    cwd,
    encoding: 'utf-8',
    timeout: options.timeout ?? STEP_TIMEOUT_MS,
    env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' },
  });
  if (!options.allowFailure && result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited ${result.status}${result.error ? ` (${result.error.message})` : ''}:\n` +
        `${result.stdout}\n${result.stderr}`,
    );
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A tool the project installed (what `npx` runs, without starting npm to find it). */
function bin(project: string, tool: string): string {
  return path.join(project, 'node_modules', '.bin', tool);
}

/** The README's five-line app ("Install"), as written there. */
function readmeApp(): string {
  const install = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf-8').split('\n## Install\n')[1].split('\n## ')[0];
  return /```ts\n([\s\S]*?)```/.exec(install)![1];
}

const COMPOSE_FILE = `name: shop
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    depends_on: [db]
    environment:
      DATABASE_URL: postgres://shop:\${DB_PASSWORD:-change-me}@db:5432/shop
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: \${DB_PASSWORD:-change-me}
    volumes: [db-data:/var/lib/postgresql/data]
volumes:
  db-data: {}
`;

const MAIN_TS = `import { Construct } from 'constructs';
import { App, Chart, ChartProps, Size } from 'cdk8s';
import { ComposeApp, DiskSource, GoldenImageVm } from 'cdk8s-compose';

export class ShopChart extends Chart {
  public readonly shop: ComposeApp;

  constructor(scope: Construct, id: string, props: ChartProps = { }) {
    super(scope, id, props);
    this.shop = new ComposeApp(this, 'shop', { composeFile: 'compose.yaml', loadOptions: { workingDir: __dirname, env: {} } });
    new GoldenImageVm(this, 'legacy', {
      image: DiskSource.fromHttp('https://images.example.com/legacy.qcow2'),
      storage: Size.gibibytes(20),
    });
  }
}

const app = new App();
new ShopChart(app, 'shop');
app.synth();
`;

const MAIN_TEST_TS = `import { ShopChart } from './main';
import { Testing } from 'cdk8s';

describe('ShopChart', () => {
  test('synthesizes the compose app and the VM', () => {
    const app = Testing.app();
    const chart = new ShopChart(app, 'test-chart');
    const results = Testing.synth(chart);
    expect(results.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name).sort()).toEqual(['db', 'web']);
    expect(results.some((o) => o.kind === 'VirtualMachine')).toBe(true);
    expect(results).toMatchSnapshot();
  });
});
`;

/** `cdk8s init typescript-app`'s tsconfig.json (cdk8s-cli's template): target ES2017, lib es2016, no skipLibCheck. */
function templateTsconfig(): unknown {
  return JSON.parse(
    fs.readFileSync(
      path.join(ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app', 'tsconfig.json'),
      'utf-8',
    ),
  );
}

suite('the packed package in a project made like `cdk8s init typescript-app`', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-consumer-'));
  const project = path.join(scratch, 'shop');
  let tarball = '';
  let install: Run = { status: null, stdout: '', stderr: '' };
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  beforeAll(() => {
    // As it is published (`npm run package`): packed from a copy whose package.json has no scripts, of the build/ that
    // `npm test` has just compiled (the `--install-links` install below runs prepare, as npm packs the folder).
    const packed = run('node', [path.join(ROOT, 'scripts', 'pack.js'), '--json', '--pack-destination', scratch], ROOT);
    tarball = path.join(scratch, JSON.parse(packed.stdout)[0].filename);
    fs.mkdirSync(project);
    // The template's package.json, with the versions this repository tests against (npm's cache holds them).
    const pkg = {
      name: 'shop',
      version: '1.0.0',
      main: 'main.js',
      types: 'main.ts',
      license: 'Apache-2.0',
      private: true,
      scripts: { import: 'cdk8s import', synth: 'cdk8s synth', compile: 'tsc --build', test: 'jest' },
      dependencies: {
        'cdk8s': `^${installed('cdk8s')}`,
        'cdk8s-plus-27': `^${installed('cdk8s-plus-27')}`,
        'constructs': `^${installed('constructs')}`,
        'cdk8s-compose': `file:${tarball}`,
      },
      devDependencies: {
        'cdk8s-cli': `^${installed('cdk8s-cli')}`,
        '@types/node': `^${installed('@types/node')}`,
        '@types/jest': `^${installed('@types/jest')}`,
        'jest': `^${installed('jest')}`,
        'ts-jest': `^${installed('ts-jest')}`,
        'typescript': installed('typescript'),
        'ts-node': `^${installed('ts-node')}`,
      },
    };
    fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), `${JSON.stringify(templateTsconfig(), null, 2)}\n`);
    fs.writeFileSync(
      path.join(project, 'jest.config.js'),
      `module.exports = {
  roots: ['<rootDir>'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'jsx', 'json', 'node'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\\\.tsx?$': 'ts-jest' },
};
`,
    );
    fs.writeFileSync(path.join(project, 'cdk8s.yaml'), 'language: typescript\napp: npx ts-node main.ts\n');
    fs.writeFileSync(path.join(project, 'compose.yaml'), COMPOSE_FILE);
    fs.writeFileSync(path.join(project, 'main.ts'), MAIN_TS);
    fs.writeFileSync(path.join(project, 'main.test.ts'), MAIN_TEST_TS);
    // Compiled with the app by the compile test, and synthesized from that by the README test.
    fs.writeFileSync(path.join(project, 'readme-app.ts'), readmeApp());
    install = run('npm', ['install', '--prefer-offline'], project, { timeout: INSTALL_TIMEOUT_MS });
  }, INSTALL_TIMEOUT_MS + 60_000);

  test('the installed package.json carries no scripts, and npm install says nothing of lifecycle scripts', () => {
    const manifest = JSON.parse(
      fs.readFileSync(path.join(project, 'node_modules', 'cdk8s-compose', 'package.json'), 'utf-8'),
    );
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ 'cdk8s-compose': 'bin/cdk8s-compose' });
    // npm 11 lists each package with a lifecycle script ("install-scripts … cdk8s-compose@0.1.0 (prepare: npm run -s
    // compile)"); other packages of the project (cdk8s-cli's) may be listed, this one is not.
    const output = `${install.stdout}\n${install.stderr}`;
    expect(output).not.toMatch(/cdk8s-compose@\S+ \(/);
    expect(output).not.toContain('npm run -s compile');
  });

  test('the tarball holds the compiled library with its declarations, the bin and its bundle, README and LICENSE, and nothing else', () => {
    const listed = run('tar', ['-tzf', tarball], scratch)
      .stdout.split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    const tops = [
      ...new Set(listed.map((f) => (f.startsWith('build/') ? f.split('/').slice(0, 2).join('/') : f.split('/')[0]))),
    ].sort();
    expect(tops).toEqual(['LICENSE', 'README.md', 'bin', 'build/bin', 'build/imports', 'build/lib', 'package.json']);
    expect(listed.filter((f) => f.startsWith('build/bin/')).sort()).toEqual([
      'build/bin/THIRD-PARTY-LICENSES.txt',
      'build/bin/cdk8s-compose.js',
      'build/bin/cdk8s-compose.js.cache',
      'build/bin/cdk8s-compose.js.map',
    ]);
    expect(listed).toContain('build/lib/index.d.ts');
    expect(listed).toContain('build/lib/index.js');
    expect(listed).toContain('bin/cdk8s-compose');
    expect(
      listed.filter((f) => /(^|\/)(test|bench|dist|examples)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts'))),
    ).toEqual([]);
    // The reference migration (main.ts and its charts) is this repository's example, not the library.
    expect(listed.filter((f) => /\/reference-(platform-)?chart\.|^build\/main\.js$/.test(f))).toEqual([]);
  });

  test("one copy of cdk8s, constructs and cdk8s-plus-27: the project's own (they are peer dependencies)", () => {
    const installedPkg = path.join(project, 'node_modules', 'cdk8s-compose');
    expect(fs.lstatSync(installedPkg).isSymbolicLink()).toBe(false);
    for (const peer of ['cdk8s', 'constructs', 'cdk8s-plus-27']) {
      expect(fs.existsSync(path.join(installedPkg, 'node_modules', peer))).toBe(false);
      expect(fs.existsSync(path.join(project, 'node_modules', peer, 'package.json'))).toBe(true);
    }
  });

  test(
    "the project (its app and the README's five-line app) compiles against the declarations with the template's tsconfig (target ES2017, lib es2016)",
    () => {
      expect(templateTsconfig()).toMatchObject({ compilerOptions: { target: 'ES2017', lib: ['es2016'] } });
      run(bin(project, 'tsc'), ['--build'], project);
      expect(fs.existsSync(path.join(project, 'main.js'))).toBe(true);
      expect(fs.existsSync(path.join(project, 'readme-app.js'))).toBe(true);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'cdk8s synth writes the app',
    () => {
      run(bin(project, 'cdk8s'), ['synth', '--no-check-upgrade'], project);
      const manifest = fs.readFileSync(path.join(project, 'dist', 'shop.k8s.yaml'), 'utf-8');
      expect(manifest).toMatch(/^kind: Deployment\n(?:.*\n)*?  name: web$/m);
      expect(manifest).toMatch(/^kind: VirtualMachine$/m);
      expect(manifest).toMatch(/^kind: NetworkPolicy$/m);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    "the README's five-line app, as written there, synthesizes the compose file",
    () => {
      expect(readmeApp().trim().split('\n')).toHaveLength(5);
      // The compile test type-checked it with the app (ts-node, which `cdk8s synth` runs, would check it the same way
      // and then run the same JavaScript).
      run(
        bin(project, 'cdk8s'),
        ['synth', '--no-check-upgrade', '--app', 'node readme-app.js', '--output', 'dist-readme'],
        project,
      );
      const manifest = fs.readFileSync(path.join(project, 'dist-readme', 'shop.k8s.yaml'), 'utf-8');
      expect(manifest).toMatch(/^kind: Deployment\n(?:.*\n)*?  name: web$/m);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'a Testing.synth snapshot test passes, and fails when the app changes',
    () => {
      run(bin(project, 'jest'), ['--ci=false'], project);
      const snapshot = path.join(project, '__snapshots__', 'main.test.ts.snap');
      expect(fs.readFileSync(snapshot, 'utf-8')).toContain('kind": "VirtualMachine');
      run(bin(project, 'jest'), ['--ci'], project);
      const original = fs.readFileSync(path.join(project, 'compose.yaml'), 'utf-8');
      fs.writeFileSync(path.join(project, 'compose.yaml'), original.replace('nginx:1.27', 'nginx:1.28'));
      try {
        const changed = run(bin(project, 'jest'), ['--ci'], project, { allowFailure: true });
        expect(changed.status).not.toBe(0);
        expect(changed.stderr).toContain('nginx:1.28');
      } finally {
        fs.writeFileSync(path.join(project, 'compose.yaml'), original);
      }
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'npx cdk8s-compose runs the installed CLI',
    () => {
      const help = run('npx', ['cdk8s-compose', '--help'], project);
      expect(help.stdout).toMatch(/^Usage: cdk8s-compose <command>/);
      const converted = run('npx', ['cdk8s-compose', 'convert', '-o', 'k8s'], project);
      expect(converted.stderr).toMatch(/^wrote \d+ files into k8s: 0-namespace\/ /m);
      expect(fs.existsSync(path.join(project, 'k8s', '2-app', 'web-deployment.yaml'))).toBe(true);
    },
    STEP_TIMEOUT_MS,
  );

  test(
    'a global install (npm i -g, here into a temporary prefix) runs the CLI',
    () => {
      const prefix = path.join(scratch, 'global');
      run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', tarball], scratch, {
        timeout: INSTALL_TIMEOUT_MS,
      });
      const analyzed = run(path.join(prefix, 'bin', 'cdk8s-compose'), ['analyze', '--json'], project);
      expect(JSON.parse(analyzed.stdout)).toMatchObject({ project: 'shop' });
    },
    INSTALL_TIMEOUT_MS,
  );

  test(
    "installed from a path: npm's symlink loads a second cdk8s and synth fails; --install-links works",
    () => {
      // `npm install ../cdk8s-compose` links the folder: the library then resolves cdk8s from the clone's own
      // node_modules (its dev dependencies), a second copy beside the project's.
      run('npm', ['install', '--prefer-offline', ROOT], project, { timeout: INSTALL_TIMEOUT_MS });
      expect(fs.lstatSync(path.join(project, 'node_modules', 'cdk8s-compose')).isSymbolicLink()).toBe(true);
      // The compiled app shows it as ts-node would, without type-checking it again first.
      const linked = run(
        bin(project, 'cdk8s'),
        ['synth', '--no-check-upgrade', '--app', 'node main.js', '--output', 'dist-linked'],
        project,
        { allowFailure: true },
      );
      expect(linked.status).not.toBe(0);
      expect(linked.stderr).toContain("can't render non-simple object of type 'Lazy'");
      expect(linked.stderr).toContain(path.join(ROOT, 'node_modules', 'cdk8s'));
      // `--install-links` packs the folder and installs the copy, as from the tarball.
      run('npm', ['install', '--prefer-offline', '--install-links', ROOT], project, { timeout: INSTALL_TIMEOUT_MS });
      expect(fs.lstatSync(path.join(project, 'node_modules', 'cdk8s-compose')).isSymbolicLink()).toBe(false);
      // The copy holds the tarball's files, whose declarations the app compiled against above: what is left to show is
      // which cdk8s the app loads, so the compiled app runs (ts-node would type-check it again first).
      run(
        bin(project, 'cdk8s'),
        ['synth', '--no-check-upgrade', '--app', 'node main.js', '--output', 'dist-links'],
        project,
      );
      expect(fs.readFileSync(path.join(project, 'dist-links', 'shop.k8s.yaml'), 'utf-8')).toMatch(
        /^kind: VirtualMachine$/m,
      );
    },
    2 * INSTALL_TIMEOUT_MS,
  );
});
