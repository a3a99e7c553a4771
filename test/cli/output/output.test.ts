import * as fs from 'fs';
import * as path from 'path';
import { writeOutput } from '../../../lib/cli/output/output';
import { LEDGER_FILE } from '../../../lib/cli/output/output-ledger';
import { createStage, removeStage } from '../../../lib/cli/output/output-stage';
import {
  CliRun,
  GENERATED_HEADER as HEADER,
  expectBuilt,
  listFiles,
  removeTempDirs,
  runCli,
  tempDir,
} from '../run-cli';

/**
 * Writing loses no data: a file the tool did not generate is not overwritten without --force, no symbolic link in the
 * output folder is followed, an error writes nothing, and files the tool no longer generates are removed. The tests
 * run concurrently, each in its own folder: the CLI runs are CPU-bound and sequential within a test.
 */

beforeAll(expectBuilt);
afterAll(removeTempDirs);

const COMPOSE = [
  'name: shop',
  'services:',
  '  web:',
  '    image: nginx:1.27.2',
  '    ports: ["8080:80"]',
  '    depends_on: [api]',
  '  api:',
  '    image: ghcr.io/example/api:1.0',
  '    expose: ["8000"]',
  '    environment:',
  '      DATABASE_URL: postgresql://shop:pw-4d2a91@db:5432/shop',
  '    depends_on: [db]',
  '  worker:',
  '    image: ghcr.io/example/worker:1.0',
  '    volumes: ["reports:/reports"]',
  '    depends_on: [db]',
  '  db:',
  '    image: postgres:16.4',
  '    environment:',
  '      POSTGRES_PASSWORD: pw-4d2a91',
  '    volumes: ["db-data:/var/lib/postgresql/data"]',
  'volumes:',
  '  db-data: {}',
  '  reports: {}',
  '',
].join('\n');

/** A fresh project folder: a web front end, an API, a worker and a database. */
function reference(): string {
  const dir = path.join(tempDir('output'), 'shop');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'compose.yaml'), COMPOSE);
  return dir;
}

function lastLine(run: CliRun): string {
  return run.stderr.trimEnd().split('\n').slice(-1)[0];
}

/** Every file under a folder with its content, to show that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf-8')]));
}

/** No staging folder is left next to the output. */
function expectNoStage(parent: string): void {
  expect(fs.readdirSync(parent).filter((f) => f.startsWith('.cdk8s-compose-'))).toEqual([]);
}

test.concurrent(
  'a file without the header stops the run and nothing is written; --force overwrites it; a re-run overwrites its own files',
  async () => {
    const cwd = reference();
    const mine = path.join(cwd, 'k8s', '2-app', 'web-deployment.yaml');
    fs.mkdirSync(path.dirname(mine), { recursive: true });
    fs.writeFileSync(mine, 'kind: Deployment # my own\n');

    const refused = await runCli(['convert', '-o', 'k8s'], { cwd });
    expect(refused.code).toBe(1);
    expect(lastLine(refused)).toBe(
      'error: refusing to overwrite a file that cdk8s-compose did not generate (without the ' +
        `"${HEADER}" header, or changed since): 2-app/web-deployment.yaml. Fix: move it away or choose another output folder, or pass --force to overwrite it.`,
    );
    expect(listFiles(path.join(cwd, 'k8s'))).toEqual(['2-app/web-deployment.yaml']);
    expect(fs.readFileSync(mine, 'utf-8')).toBe('kind: Deployment # my own\n');
    expectNoStage(cwd);

    const forced = await runCli(['convert', '-o', 'k8s', '--force'], { cwd });
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(mine, 'utf-8').split('\n')[0]).toBe(HEADER);
    const first = snapshot(path.join(cwd, 'k8s'));

    const again = await runCli(['convert', '-o', 'k8s'], { cwd });
    expect(again.code).toBe(0);
    expect(snapshot(path.join(cwd, 'k8s'))).toEqual(first);
    expectNoStage(cwd);
  },
);

test.concurrent('files no longer generated are removed, files of others are kept and reported', async () => {
  const cwd = reference();
  expect((await runCli(['convert', '-o', 'k8s'], { cwd })).code).toBe(0);
  const before = listFiles(path.join(cwd, 'k8s'));
  fs.writeFileSync(path.join(cwd, 'k8s', '2-app', 'extra-configmap.yaml'), 'kind: ConfigMap\n');
  // Without the worker service, its objects and the claim only it used go.
  fs.writeFileSync(
    path.join(cwd, 'compose.yaml'),
    COMPOSE.replace(
      '  worker:\n    image: ghcr.io/example/worker:1.0\n' +
        '    volumes: ["reports:/reports"]\n    depends_on: [db]\n',
      '',
    ),
  );

  const run = await runCli(['convert', '-o', 'k8s'], { cwd });
  expect(run.code).toBe(0);
  const files = listFiles(path.join(cwd, 'k8s'));
  const gone = before.filter((f) => !files.includes(f));
  expect(gone).toEqual(
    expect.arrayContaining([
      '2-app/worker-deployment.yaml',
      '2-app/reports-persistentvolumeclaim.yaml',
      '0-namespace/allow-worker-networkpolicy.yaml',
    ]),
  );
  expect(gone.filter((f) => !f.includes('worker') && !f.includes('reports'))).toEqual([]);
  expect(files).toContain('2-app/extra-configmap.yaml');
  expect(run.stderr).toContain(
    'warning: k8s: 2-app/extra-configmap.yaml was not generated by cdk8s-compose; ' +
      '"kubectl apply -f 2-app/" applies it too\n',
  );
  expect(lastLine(run)).toMatch(new RegExp(`; removed ${gone.length} that are no longer generated$`));
});

test.concurrent(
  'a symbolic link to a folder in the output stops the run, and nothing is written through it',
  async () => {
    const cwd = reference();
    const elsewhere = tempDir('elsewhere');
    fs.writeFileSync(path.join(elsewhere, 'keep.txt'), 'keep\n');
    fs.mkdirSync(path.join(cwd, 'k8s'));
    fs.symlinkSync(elsewhere, path.join(cwd, 'k8s', '2-app'));

    for (const args of [
      ['convert', '-o', 'k8s'],
      ['convert', '-o', 'k8s', '--force'],
    ]) {
      const run = await runCli(args, { cwd });
      expect(run.code).toBe(1);
      expect(lastLine(run)).toBe(
        'error: refusing to write into 2-app, a symbolic link in the output folder k8s. ' +
          'Fix: remove the link, or choose another output folder; cdk8s-compose never writes through a link.',
      );
    }
    expect(fs.readdirSync(elsewhere)).toEqual(['keep.txt']);
    expect(fs.readdirSync(path.join(cwd, 'k8s'))).toEqual(['2-app']);
  },
);

test.concurrent(
  'a symbolic link in place of a file is refused, and --force replaces the link, not what it points to',
  async () => {
    const cwd = reference();
    const target = path.join(tempDir('elsewhere'), 'notes.md');
    fs.writeFileSync(target, 'my notes\n');
    fs.mkdirSync(path.join(cwd, 'k8s'));
    fs.symlinkSync(target, path.join(cwd, 'k8s', 'RUNBOOK.md'));

    const refused = await runCli(['convert', '-o', 'k8s'], { cwd });
    expect(refused.code).toBe(1);
    expect(lastLine(refused)).toContain(
      'refusing to overwrite a file that cdk8s-compose did not generate (without the ' +
        `"${HEADER}" header, or changed since): RUNBOOK.md (a symbolic link).`,
    );

    const forced = await runCli(['convert', '-o', 'k8s', '--force'], { cwd });
    expect(forced.code).toBe(0);
    expect(fs.lstatSync(path.join(cwd, 'k8s', 'RUNBOOK.md')).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(target, 'utf-8')).toBe('my notes\n');
  },
);

test.concurrent('bad input writes nothing: exit 1, the message, no output folder and no staging folder', async () => {
  const cwd = reference();
  fs.writeFileSync(
    path.join(cwd, 'compose.yaml'),
    COMPOSE.replace('\nservices:\n', '\nservices:\n  extra:\n    image: busybox:1.36\n    portz: ["80"]\n'),
  );
  const run = await runCli(['convert', '-o', 'k8s'], { cwd });
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(/^error: compose\.yaml:5:5: services\.extra\.portz: unknown key "portz" in a service\. /);
  expect(run.stderr).toContain('Fix: did you mean "ports"?');
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(fs.existsSync(path.join(cwd, 'k8s'))).toBe(false);
  expectNoStage(cwd);

  const debug = await runCli(['convert', '-o', 'k8s', '--debug'], { cwd });
  expect(debug.code).toBe(1);
  expect(debug.stderr).toMatch(/\n\s+at \S+ \(.*\/build\/lib\/compose\/.*\.js:\d+:\d+\)/);
});

test.concurrent('an output that is a file is refused', async () => {
  const cwd = reference();
  fs.writeFileSync(path.join(cwd, 'k8s'), 'not a folder\n');
  const run = await runCli(['convert', '-o', 'k8s'], { cwd });
  expect(run.code).toBe(1);
  expect(lastLine(run)).toBe(
    'error: the output k8s is a file, not a folder. Fix: give a folder with -o, or a file name ending in .yaml for one file.',
  );
});

describe('writeOutput: files that cannot carry the header are vouched for by a ledger', () => {
  const write = (root: string, files: Record<string, string>, force = false) => {
    const stage = createStage(root);
    try {
      return writeOutput({
        root,
        force,
        ledgerFolder: 'golden-image',
        files: Object.entries(files).map(([p, content]) => ({ path: p, content })),
      });
    } finally {
      removeStage(stage);
    }
  };

  test('a re-run overwrites unchanged files, removes the ones no longer made, and keeps changed and added ones', () => {
    const root = path.join(tempDir('ledger'), 'out');
    write(root, {
      'golden-image/app/packer.json': '{}\n',
      'golden-image/app/old.sh': 'echo old\n',
      'golden-image/app/edited.sh': 'echo 1\n',
    });
    expect(fs.readFileSync(path.join(root, 'golden-image', LEDGER_FILE), 'utf-8').split('\n')[0]).toBe(HEADER);
    fs.writeFileSync(path.join(root, 'golden-image/app/edited.sh'), 'echo mine\n');
    fs.writeFileSync(path.join(root, 'golden-image/app/secret.txt'), 'added by hand\n');

    const result = write(root, { 'golden-image/app/packer.json': '{"v":2}\n' });
    expect(result.removed).toEqual(['golden-image/app/old.sh']);
    expect(result.foreign).toEqual(['golden-image/app/edited.sh']);
    expect(listFiles(root)).toEqual([
      `golden-image/${LEDGER_FILE}`,
      'golden-image/app/edited.sh',
      'golden-image/app/packer.json',
      'golden-image/app/secret.txt',
    ]);
  });

  test('a changed file is not overwritten without force', () => {
    const root = path.join(tempDir('ledger'), 'out');
    write(root, { 'golden-image/app/packer.json': '{}\n' });
    fs.writeFileSync(path.join(root, 'golden-image/app/packer.json'), '{"mine":true}\n');
    expect(() => write(root, { 'golden-image/app/packer.json': '{"v":2}\n' })).toThrow(
      'refusing to overwrite a file that cdk8s-compose did not generate (without the "# Generated by cdk8s-compose. Do not edit." header, ' +
        'or changed since): golden-image/app/packer.json.',
    );
    write(root, { 'golden-image/app/packer.json': '{"v":2}\n' }, true);
    expect(fs.readFileSync(path.join(root, 'golden-image/app/packer.json'), 'utf-8')).toBe('{"v":2}\n');
  });

  test('when nothing is left in the folder, the ledger and the emptied folders go too', () => {
    const root = path.join(tempDir('ledger'), 'out');
    write(root, {
      'golden-image/app/packer.json': '{}\n',
      'RUNBOOK.md': `${'<!-- Generated by cdk8s-compose. Do not edit. -->'}\n`,
    });
    const result = write(root, { 'RUNBOOK.md': `${'<!-- Generated by cdk8s-compose. Do not edit. -->'}\n# v2\n` });
    expect(result.removed).toEqual([`golden-image/${LEDGER_FILE}`, 'golden-image/app/packer.json']);
    expect(listFiles(root)).toEqual(['RUNBOOK.md']);
    expect(fs.readdirSync(root)).toEqual(['RUNBOOK.md']);
  });
});
