import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ComposeApp, ComposeAppProps } from '../../lib/app/compose-app';

// ComposeApp.hermeticLoadOptions(): the same compose project gives the same bytes whatever the shell's environment
// and whether the project has a .env file.

const COMPOSE = `services:
  web:
    image: shop/web:\${WEB_TAG:-1.0}
    environment:
      DATABASE_URL: postgres://shop:\${DB_PASSWORD:-}@db:5432/shop
      LOG_LEVEL: \${LOG_LEVEL:-info}
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: \${DB_PASSWORD:-}
`;

let dir: string;
const saved = { ...process.env };

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermetic-'));
  fs.mkdirSync(path.join(dir, 'shop'));
  fs.writeFileSync(path.join(dir, 'shop', 'compose.yaml'), COMPOSE);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

afterEach(() => {
  for (const key of Object.keys(process.env)) {
    if (!(key in saved)) {
      delete process.env[key];
    }
  }
  Object.assign(process.env, saved);
  fs.rmSync(path.join(dir, 'shop', '.env'), { force: true });
});

/** The app's YAML, synthesized in the given shell environment, with or without a .env file. */
function synth(
  loadOptions: (workingDir: string) => ComposeAppProps['loadOptions'],
  shell: Record<string, string>,
  dotenv?: string,
): string {
  Object.assign(process.env, shell);
  if (dotenv !== undefined) {
    fs.writeFileSync(path.join(dir, 'shop', '.env'), dotenv);
  }
  const chart = new Chart(Testing.app(), 'test');
  new ComposeApp(chart, 'app', { composeFile: 'compose.yaml', loadOptions: loadOptions(path.join(dir, 'shop')) });
  return JSON.stringify(Testing.synth(chart));
}

const MACHINES: [string, Record<string, string>, string | undefined][] = [
  ['a bare shell, no .env', {}, undefined],
  ['a shell with the variables', { DB_PASSWORD: 'from-the-shell', LOG_LEVEL: 'debug', WEB_TAG: '9.9' }, undefined],
  ['a .env with the variables', {}, 'DB_PASSWORD=from-dotenv\nCOMPOSE_PROJECT_NAME=other\n'],
  ['both', { COMPOSE_PROJECT_NAME: 'elsewhere', DB_PASSWORD: 'x' }, 'LOG_LEVEL=trace\n'],
];

test('hermetic: the same bytes on every machine', () => {
  const outputs = MACHINES.map(([, shell, dotenv]) =>
    synth((workingDir) => ComposeApp.hermeticLoadOptions({ workingDir }), shell, dotenv),
  );
  expect(new Set(outputs).size).toBe(1);
  // Nothing of the machine reached the output; the unset password is empty, so no password is in it either.
  for (const text of ['from-the-shell', 'from-dotenv', 'debug', 'trace', '9.9', 'elsewhere', 'other']) {
    expect(outputs[0]).not.toContain(text);
  }
  expect(outputs[0]).toContain('"namespace":"shop"');
});

test('hermetic with pinned variables: the test gives them, the machine does not', () => {
  const pinned = (workingDir: string) => ComposeApp.hermeticLoadOptions({ workingDir, env: { LOG_LEVEL: 'warn' } });
  const outputs = MACHINES.map(([, shell, dotenv]) => synth(pinned, shell, dotenv));
  expect(new Set(outputs).size).toBe(1);
  expect(outputs[0]).toContain('"LOG_LEVEL":"warn"');
});

test('without the preset the output follows the machine (what the preset is for)', () => {
  const outputs = MACHINES.map(([, shell, dotenv]) => synth((workingDir) => ({ workingDir }), shell, dotenv));
  expect(new Set(outputs).size).toBe(MACHINES.length);
});

test('the preset keeps the other options and copies what it pins', () => {
  const env = { A: '1' };
  const options = ComposeApp.hermeticLoadOptions({ projectName: 'p', env });
  expect(options).toEqual({ projectName: 'p', env: { A: '1' }, envFiles: [] });
  expect(options.env).not.toBe(env);
});
