import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * `npm run package` (scripts/pack.js): the tarball holds the files `npm pack` takes from the repository, and a
 * package.json without the repository's scripts (no `prepare` for npm to warn about on install) or devDependencies.
 * The consumer-project test installs that tarball; this one needs no registry.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const built = fs.existsSync(path.join(ROOT, 'build', 'lib', 'index.js'));
const suite = built ? describe : describe.skip;
if (!built) {
  console.warn('skipped: scripts/pack.js packs build/, which is missing (run `npm run compile`)');
}

suite('scripts/pack.js', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-pack-test-'));
  let report: { filename: string; files: { path: string; mode: number }[] };
  let manifest: Record<string, unknown>;
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  beforeAll(() => {
    const out = execFileSync('node', [path.join(ROOT, 'scripts', 'pack.js'), '--json', '--pack-destination', scratch], {
      cwd: ROOT,
      encoding: 'utf-8',
    });
    report = JSON.parse(out)[0];
    manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', path.join(scratch, report.filename), 'package/package.json'], {
        encoding: 'utf-8',
      }),
    );
  }, 120_000);

  test("the packed package.json is the repository's without scripts and devDependencies", () => {
    const own = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8'));
    expect((own.scripts as Record<string, string>).prepare).toBeDefined();
    const { scripts, devDependencies, ...rest } = own;
    expect(scripts).toBeDefined();
    expect(devDependencies).toBeDefined();
    expect(manifest).toEqual(rest);
    expect(Object.keys(manifest)).toEqual(Object.keys(rest));
  });

  test('the files and their modes are the ones npm pack takes from the repository', () => {
    const direct = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf-8' }),
    )[0];
    const listing = (files: { path: string; mode: number }[]) =>
      files.filter((f) => f.path !== 'package.json').map((f) => `${f.path} ${f.mode.toString(8)}`);
    expect(listing(report.files)).toEqual(listing(direct.files));
    expect(report.files.find((f) => f.path === 'bin/cdk8s-compose')?.mode.toString(8)).toBe('755');
  });

  test('npm publish from the folder is refused, naming the tarball to publish instead', () => {
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync('node', [path.join(ROOT, 'scripts', 'pack.js'), '--refuse-publish'], {
        encoding: 'utf-8',
        stdio: 'pipe',
      });
    } catch (err) {
      failure = err as { status?: number; stderr?: string };
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toContain('publish the tarball that `npm run package` writes');
  });
});
