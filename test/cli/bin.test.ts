import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vm from 'vm';
import { CLEAN_ENV, expectBuilt, removeTempDirs, tempDir } from './run-cli';

/**
 * bin/cdk8s-compose runs the bundle build/bin/cdk8s-compose.js with V8's code cache made beside it at build time
 * (scripts/bundle-cli.js). The cache is for this bundle and this Node; a cache made from another bundle is not used.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLE = path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js');
const HASH_BYTES = 32;

beforeAll(expectBuilt);
afterAll(removeTempDirs);

/** A copy of bin/ and build/bin/ in a temporary folder, for bundles and caches that do not match. */
function copyOfBin(): string {
  const dir = tempDir('bin');
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(ROOT, 'bin', 'cdk8s-compose'), path.join(dir, 'bin', 'cdk8s-compose'));
  fs.cpSync(path.join(ROOT, 'build', 'bin'), path.join(dir, 'build', 'bin'), { recursive: true });
  return dir;
}

const TWO_SERVICES =
  'services:\n  web:\n    image: nginx:1.27.2\n    ports: ["8080:80"]\n' + '  db:\n    image: postgres:16.4\n';

/** The CLI under `dir` run with `args` on a project of one compose file. */
function runBin(dir: string, compose: string, args: readonly string[]) {
  const project = tempDir('bin-project');
  fs.writeFileSync(path.join(project, 'compose.yaml'), compose);
  return spawnSync(process.execPath, [path.join(dir, 'bin', 'cdk8s-compose'), ...args], {
    cwd: project,
    encoding: 'utf-8',
    env: { ...CLEAN_ENV },
  });
}

/** `convert -o k8s` of a two-service project by the CLI under `dir`; the last line of stderr. */
function convert(dir: string): { status: number | null; summary: string } {
  const run = runBin(dir, TWO_SERVICES, ['convert', '-o', 'k8s']);
  return { status: run.status, summary: run.stderr.trimEnd().split('\n').slice(-1)[0] };
}

test('the bundle is ASCII, and the non-ASCII characters of its regular expressions still match', () => {
  // V8 would hold a bundle with one other character as a two-byte string (twice the memory to decode and compile).
  expect(fs.readFileSync(BUNDLE, 'latin1')).toMatch(/^[\0-\x7f]*$/);
  // The duration units of lib/compose/units.ts include the micro sign and the Greek mu, escaped in the bundle.
  const compose = (interval: string, timeout: string) =>
    'name: units\nservices:\n  web:\n    image: nginx:1.27.2\n' +
    `    healthcheck: { test: ["CMD", "true"], interval: ${interval}, timeout: ${timeout} }\n`;
  const micro = runBin(ROOT, compose('3000000\u00b5s', '2000000\u03bcs'), ['convert', '--stdout']);
  const seconds = runBin(ROOT, compose('3s', '2s'), ['convert', '--stdout']);
  expect(micro.status).toBe(0);
  expect(micro.stdout).toContain('periodSeconds: 3\n');
  expect(micro.stdout).toBe(seconds.stdout);
});

test("the build writes a code cache that leads with the bundle's SHA-256 and that this Node accepts", () => {
  const { load, CACHE } = require(path.join(ROOT, 'bin', 'cdk8s-compose'));
  expect(CACHE).toBe(`${BUNDLE}.cache`);
  const source = fs.readFileSync(BUNDLE, 'utf-8');
  const cache = fs.readFileSync(CACHE);
  expect(cache.subarray(0, HASH_BYTES).toString('hex')).toBe(
    require('crypto').createHash('sha256').update(source).digest('hex'),
  );
  const script = new vm.Script(require('module').wrap(source), {
    filename: BUNDLE,
    cachedData: cache.subarray(HASH_BYTES),
  });
  expect(script.cachedDataRejected).toBe(false);
  expect(typeof load().exports.main).toBe('function');
});

test('a cache made from another bundle is not used, and a missing one is not needed: the CLI runs its own code', () => {
  const expected = convert(ROOT);
  expect(expected.status).toBe(0);
  expect(expected.summary).toMatch(/^wrote \d+ files into k8s: /);

  // A bundle of the same length whose convert prints otherwise. V8 checks no more than the length: it would run the
  // cached functions of the old bundle (it did, before the cache carried the bundle's hash).
  const changed = copyOfBin();
  const bundle = path.join(changed, 'build', 'bin', 'cdk8s-compose.js');
  const source = fs.readFileSync(bundle, 'utf-8');
  expect(source).toContain('io.stderr(`wrote ${');
  fs.writeFileSync(bundle, source.replace('io.stderr(`wrote ${', 'io.stderr(`WROTE ${'));
  expect(fs.statSync(bundle).size).toBe(Buffer.byteLength(source));
  expect(convert(changed)).toEqual({ status: 0, summary: expected.summary.replace(/^wrote/, 'WROTE') });

  const without = copyOfBin();
  fs.rmSync(path.join(without, 'build', 'bin', 'cdk8s-compose.js.cache'));
  expect(convert(without)).toEqual(expected);
});
