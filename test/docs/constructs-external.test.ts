import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { parseYamlDocs } from '../support/yaml-docs';

/**
 * docs/constructs-external.md, as a reader runs it: its compose file is written into a project folder, every ```ts
 * block is type-checked against the package's declarations (build/lib, `import … from 'cdk8s-compose'`) and run there,
 * and every `cdk8s-compose` command of its ```sh blocks runs with the built CLI. The snapshot example runs on several
 * "machines" (shell variables, a .env file, neither) and must record the same bytes, without a password.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const DOC = path.join(ROOT, 'docs', 'constructs-external.md');
const DECLARATIONS = path.join(ROOT, 'build', 'lib', 'index.d.ts');
const CLI = path.join(ROOT, 'bin', 'cdk8s-compose');

interface Block {
  readonly lang: string;
  readonly code: string;
}

function blocks(): Block[] {
  const text = fs.readFileSync(DOC, 'utf-8');
  return [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }));
}

const all = blocks();
const tsBlocks = all.filter((b) => b.lang === 'ts').map((b) => b.code);
const compose = all.find((b) => b.lang === 'yaml')!.code;
const commands = all
  .filter((b) => b.lang === 'sh')
  .flatMap((b) => b.code.split('\n'))
  .filter((line) => line.startsWith('cdk8s-compose '));

let project: string;
const saved = { ...process.env };

beforeAll(() => {
  expect(fs.existsSync(DECLARATIONS)).toBe(true);
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-external-'));
  fs.writeFileSync(path.join(project, 'compose.yaml'), compose);
});

afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

afterEach(() => {
  for (const key of Object.keys(process.env)) {
    if (!(key in saved)) {
      delete process.env[key];
    }
  }
  Object.assign(process.env, saved);
  fs.rmSync(path.join(project, '.env'), { force: true });
});

/** What the snapshot example's `expect(…).toMatchSnapshot()` was given, one entry per call. */
let recorded: string[] = [];

/** Runs a ```ts block as a module of the project folder, `cdk8s-compose` being this repository's library. */
function runBlock(code: string): void {
  const js = ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020, esModuleInterop: true },
  }).outputText;
  const load = (id: string) => (id === 'cdk8s-compose' ? require('../../lib/index') : require(id));
  const module = { exports: {} };
  const testFn = (_name: string, fn: () => void) => fn();
  const expectFn = (value: unknown) => ({ toMatchSnapshot: () => recorded.push(JSON.stringify(value)) });
  new Function('require', 'module', 'exports', '__dirname', 'test', 'expect', 'console', js)(
    load,
    module,
    module.exports,
    project,
    testFn,
    expectFn,
    { log: () => undefined },
  );
}

test('the page has its compose file, three TypeScript examples and two commands', () => {
  expect(compose).toContain('db:');
  expect(tsBlocks).toHaveLength(3);
  expect(commands).toHaveLength(2);
});

test('every TypeScript example compiles against the declarations the package ships', () => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'docs', '.examples-'));
  try {
    const files = tsBlocks.map((code, i) => {
      const file = path.join(dir, `example-${i + 1}.ts`);
      fs.writeFileSync(file, code);
      return file;
    });
    const program = ts.createProgram(files, {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2020,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      esModuleInterop: true,
      types: ['node', 'jest'],
      typeRoots: [path.join(ROOT, 'node_modules', '@types')],
      baseUrl: ROOT,
      paths: { 'cdk8s-compose': [path.relative(ROOT, DECLARATIONS)] },
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(problems).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

test('the external database example: the Service db resolves to the endpoint, and db has no workload', () => {
  process.env.CDK8S_OUTDIR = path.join(project, 'dist-1');
  runBlock(tsBlocks[0]);
  const docs = parseYamlDocs(fs.readFileSync(path.join(project, 'dist-1', 'shop.k8s.yaml'), 'utf-8'), 'shop.k8s.yaml');
  const db = docs.filter((d) => d.metadata?.name === 'db');
  expect(db.map((d) => d.kind)).toEqual(['Service']);
  expect(db[0].spec).toMatchObject({ type: 'ExternalName', externalName: 'shop.abc123.eu-west-1.rds.amazonaws.com' });
  expect(docs.filter((d) => d.kind === 'PersistentVolumeClaim' || d.kind === 'CronJob')).toEqual([]);
});

test('the IP example: an EndpointSlice maps 5432 to 6543, and web may leave to 10.20.0.7/32', () => {
  process.env.CDK8S_OUTDIR = path.join(project, 'dist-2');
  runBlock(tsBlocks[1]);
  const docs = parseYamlDocs(fs.readFileSync(path.join(project, 'dist-2', 'shop.k8s.yaml'), 'utf-8'), 'shop.k8s.yaml');
  const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
  expect(find('Service', 'db').spec.ports).toEqual([
    { name: 'tcp-5432', port: 5432, targetPort: 6543, protocol: 'TCP' },
  ]);
  expect(find('EndpointSlice', 'db-external').endpoints).toEqual([
    { addresses: ['10.20.0.7'], conditions: { ready: true } },
  ]);
  expect(find('NetworkPolicy', 'allow-web').spec.egress).toContainEqual({
    to: [{ ipBlock: { cidr: '10.20.0.7/32' } }],
    ports: [{ protocol: 'TCP', port: 6543 }],
  });
});

test('the snapshot example records the same bytes on every machine, and no password', () => {
  const machines: [Record<string, string>, string | undefined][] = [
    [{}, undefined],
    [{ DB_PASSWORD: 's3cret-from-the-shell' }, undefined],
    [{}, 'DB_PASSWORD=s3cret-from-dotenv\n'],
    [{ DB_PASSWORD: 's3cret-again', COMPOSE_PROJECT_NAME: 'elsewhere' }, 'DB_PASSWORD=s3cret-too\n'],
  ];
  recorded = [];
  for (const [shell, dotenv] of machines) {
    Object.assign(process.env, shell);
    if (dotenv !== undefined) {
      fs.writeFileSync(path.join(project, '.env'), dotenv);
    }
    runBlock(tsBlocks[2]);
    fs.rmSync(path.join(project, '.env'), { force: true });
    for (const key of Object.keys(shell)) {
      delete process.env[key];
    }
  }
  expect(recorded).toHaveLength(machines.length);
  expect(new Set(recorded).size).toBe(1);
  expect(recorded[0]).not.toMatch(/s3cret|elsewhere/);
  expect(recorded[0]).toContain('"externalName":"shop.abc123.eu-west-1.rds.amazonaws.com"');
  expect(recorded[0]).toContain('"namespace":"shop"');
});

test('the commands run with the built CLI and succeed', () => {
  expect(fs.existsSync(path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js'))).toBe(true);
  for (const command of commands) {
    const args = command.split(' ').slice(1);
    const run = spawnSync(process.execPath, [CLI, ...args], {
      cwd: project,
      encoding: 'utf-8',
      env: { PATH: process.env.PATH },
    });
    expect({ command, status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({
      command,
      status: 0,
      stderr: '',
    });
  }
  expect(fs.existsSync(path.join(project, 'k8s', '2-app', 'db-service.yaml'))).toBe(true);
}, 60_000);
