import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * `npm run synth` runs the compiled app itself (the cdk8s CLI's start-up alone costs more than the app), so it must
 * write exactly what `cdk8s synth` writes. Both run here on the compiled app (`npm test` compiles before jest) into
 * their own folders, and both must equal the committed dist/.
 */

const ROOT = path.resolve(__dirname, '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-script-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** Every file under `dir`, by relative path, with its content. */
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        walk(child);
      } else {
        files[child] = fs.readFileSync(path.join(dir, child), 'utf-8');
      }
    }
  };
  walk('');
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

const COMPILE = 'tsc -b tsconfig.build.json && ';

test('the synth script compiles, clears dist/ and runs the compiled app, as cdk8s synth does', () => {
  const script: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8')).scripts.synth;
  expect(script).toBe(`${COMPILE}rm -rf dist && CDK8S_OUTDIR=dist node build/main.js`);
  const cdk8sYaml = fs.readFileSync(path.join(ROOT, 'cdk8s.yaml'), 'utf-8');
  expect(cdk8sYaml).toMatch(/^app: node build\/main\.js$/m);
  expect(cdk8sYaml).toMatch(/^output: dist$/m);
  // No validation plugins: with them, cdk8s synth would do more than run the app.
  expect(cdk8sYaml).not.toMatch(/^validations:/m);
});

test('npm run synth and cdk8s synth --no-check-upgrade write the same files, equal to the committed dist/', () => {
  // The script after its compile step, in a folder whose build/ is the project's, so that dist/ is written there.
  const viaScript = path.join(scratch, 'script');
  fs.mkdirSync(viaScript);
  fs.symlinkSync(path.join(ROOT, 'build'), path.join(viaScript, 'build'), 'dir');
  fs.mkdirSync(path.join(viaScript, 'dist'));
  fs.writeFileSync(path.join(viaScript, 'dist', 'stale.yaml'), 'kind: Stale\n');
  const script: string = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8')).scripts.synth;
  execFileSync('sh', ['-c', script.slice(COMPILE.length)], { cwd: viaScript, stdio: 'pipe' });

  const viaCdk8s = path.join(scratch, 'cdk8s');
  execFileSync(
    path.join(ROOT, 'node_modules', '.bin', 'cdk8s'),
    ['synth', '--no-check-upgrade', '--output', viaCdk8s],
    { cwd: ROOT, stdio: 'pipe' },
  );

  const committed = filesOf(path.join(ROOT, 'dist'));
  expect(Object.keys(committed).length).toBeGreaterThan(0);
  expect(filesOf(path.join(viaScript, 'dist'))).toEqual(committed);
  expect(filesOf(viaCdk8s)).toEqual(committed);
});
