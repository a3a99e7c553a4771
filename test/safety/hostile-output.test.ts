import { ChildProcess, execFileSync, spawn, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { LEDGER_FILE } from '../../lib/cli/output/output-ledger';
import { createStage, removeStage } from '../../lib/cli/output/output-stage';
import { isComposeError } from '../../lib/compose/errors';
import { HEADER, writeFiles } from '../support/write-output';
import { BIN, CLEAN_ENV, expectBuilt, listFiles, removeTempDirs, runCli, tempDir } from '../cli/run-cli';

/**
 * Hostile output folders (issue 17, findings 1-4 and the output half of 13): a crafted ledger, folders that cannot be
 * written, other mounts, a full disk, a folder swapped for a link while the files are moved, and a signal in the
 * middle. The output is all or nothing, nothing outside the output folder is touched, and every message is in words
 * with a fix, without Node's errno text or an absolute path.
 */

const COMPOSE = [
  'name: shop',
  'services:',
  '  web:',
  '    image: nginx:1.27.2',
  '    ports: ["8080:80"]',
  '  api:',
  '    image: ghcr.io/example/api:1.0',
  '    expose: ["8000"]',
  '  db:',
  '    image: postgres:16.4',
  '    environment:',
  '      POSTGRES_PASSWORD: pw-4d2a91c',
  '    volumes: ["db-data:/var/lib/postgresql/data"]',
  'volumes:',
  '  db-data: {}',
  '',
].join('\n');

beforeAll(expectBuilt);

/** A project folder with the compose file, inside a fresh folder that also holds `victims/`. */
function project(): { cwd: string; victims: string } {
  const base = tempDir('hostile-out');
  fs.chmodSync(base, 0o755);
  const cwd = path.join(base, 'shop');
  const victims = path.join(base, 'victims');
  fs.mkdirSync(cwd);
  fs.mkdirSync(victims);
  fs.writeFileSync(path.join(cwd, 'compose.yaml'), COMPOSE);
  fs.writeFileSync(path.join(victims, 'x.txt'), "the user's own file\n");
  return { cwd, victims };
}

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Every file under a folder with its content. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf-8')]));
}

function stagesIn(dir: string): string[] {
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith('.cdk8s-compose-')) : [];
}

/** Every entry under a folder, folders (empty ones too) and links included; links are not followed. */
function entriesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? [rel, ...entriesUnder(dir, rel)] : [rel];
  });
}

/**
 * Every `.cdk8s-compose-` entry anywhere under a folder (staging folders, empty or not, new folders under their
 * staging names, files staged beside their targets).
 */
function leftovers(dir: string): string[] {
  return entriesUnder(dir)
    .filter((f) => f.split('/').some((part) => part.startsWith('.cdk8s-compose-') && part !== LEDGER_FILE))
    .sort();
}

/** The new folders staged in a folder, under their staging names. */
function stagedFolders(dir: string): string[] {
  return stagesIn(dir).filter((f) => f.endsWith('.dir'));
}

/**
 * Writes `files` into `root` while an attacker, just before `at.step` of `at.relative`, moves the folder `at.folder()`
 * names (relative to root) to `moved-away` and puts a link to `victims` in its place: the writer must refuse, and
 * write nothing in `victims`.
 */
function expectSwapRefused(
  root: string,
  victims: string,
  files: Record<string, string>,
  at: { step: 'write' | 'move'; relative: string; folder: () => string },
): void {
  const beforeStep = (step: 'write' | 'move', relative: string) => {
    if (step === at.step && relative === at.relative) {
      const folder = at.folder();
      fs.renameSync(path.join(root, folder), path.join(root, 'moved-away'));
      fs.symlinkSync(victims, path.join(root, folder));
    }
  };
  expect(() => writeFiles(root, files, { beforeStep })).toThrow(
    'refusing to write into 2-app, which changed into a symbolic link in the output folder',
  );
  expect(fs.readdirSync(victims).sort()).toEqual(['x.txt']);
}

function lastLine(stderr: string): string {
  return stderr.trimEnd().split('\n').slice(-1)[0];
}

/** Messages in words: no errno code of Node, no absolute path, no stack. */
function expectPlainMessage(stderr: string): void {
  expect(stderr).not.toMatch(/\b(EACCES|EXDEV|ENOSPC|EROFS|ENOENT|ELOOP|EPERM)\b/);
  expect(stderr).not.toMatch(/\s\/(tmp|work|home|root)\//);
  expect(stderr).not.toMatch(/\n\s+at /);
}

/** Whether this machine lets the test mount a tmpfs (root in a container that allows it). */
const canMount = (() => {
  if (process.getuid?.() !== 0) {
    return false;
  }
  const probe = fs.mkdtempSync(path.join(tempDir('mount-probe'), 'm'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'none', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const mounted: string[] = [];
afterAll(() => {
  mounted
    .splice(0)
    .reverse()
    .forEach((dir) => {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    });
  removeTempDirs();
});
function mountTmpfs(dir: string, options: string): void {
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'none', dir]);
  mounted.push(dir);
}
const withMount = canMount ? test : test.skip;
if (!canMount) {
  // One line, as the suite's convention asks of skipped tests.
  console.log('hostile-output: the mount tests are skipped: mounting a tmpfs needs root in a container that allows it');
}

/** The unprivileged user the permission tests run the CLI as, when the tests run as root (root ignores modes). */
const UNPRIVILEGED = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
/** The unprivileged user can run the built CLI only where every folder above it lets others in (a clone in a mkdtemp folder does not). */
const canRunAs =
  UNPRIVILEGED === undefined ||
  spawnSync(process.execPath, [BIN, '--help'], { cwd: '/', stdio: 'ignore', ...UNPRIVILEGED }).status === 0;
const withRunAs = canRunAs ? test : test.skip;
if (!canRunAs) {
  console.log(
    `hostile-output: the permission test is skipped: uid 65534 cannot reach ${BIN} (a folder above it is closed to others)`,
  );
}

function runAs(args: readonly string[], cwd: string): Promise<{ code?: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...CLEAN_ENV }, ...(UNPRIVILEGED ?? {}) });
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? undefined, stderr: Buffer.concat(stderr).toString('utf8') }));
  });
}

describe('finding 1: the ledger is not trusted', () => {
  test('a ledger line that climbs out of the output folder deletes nothing and names the line', async () => {
    const { cwd, victims } = project();
    const ledger = path.join(cwd, 'out', 'golden-image', LEDGER_FILE);
    fs.mkdirSync(path.dirname(ledger), { recursive: true });
    const hash = sha256(fs.readFileSync(path.join(victims, 'x.txt')));
    fs.writeFileSync(ledger, `${HEADER}\n${hash}  golden-image/../../../victims/x.txt\n`);

    const run = await runCli(['convert', '-o', 'out'], { cwd });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      'error: the ledger golden-image/.cdk8s-compose-files in the output folder out lists ' +
        '"golden-image/../../../victims/x.txt" on line 2, which is not a file inside golden-image/: nothing was written or removed. ' +
        'Allowed: paths inside golden-image/ without "..", "." or empty parts, as cdk8s-compose writes them. ' +
        'Fix: the ledger was changed by hand or by someone else: check golden-image/, then delete golden-image/.cdk8s-compose-files ' +
        '(the next conversion writes it again).',
    );
    expect(fs.readFileSync(path.join(victims, 'x.txt'), 'utf-8')).toBe("the user's own file\n");
    expect(listFiles(path.join(cwd, 'out'))).toEqual([`golden-image/${LEDGER_FILE}`]);
  });

  test.each([
    ['an absolute path', (v: string) => path.join(v, 'x.txt')],
    ['a path outside the ledger folder', () => 'RUNBOOK.md'],
    ['a "." part', () => 'golden-image/./app/x.txt'],
    ['an empty part', () => 'golden-image//x.txt'],
  ])('a ledger line with %s is refused', (_what, line) => {
    const root = path.join(tempDir('ledger-line'), 'out');
    fs.mkdirSync(path.join(root, 'golden-image'), { recursive: true });
    fs.writeFileSync(path.join(root, 'golden-image', LEDGER_FILE), `${HEADER}\n${'a'.repeat(64)}  ${line(root)}\n`);
    let error: unknown;
    try {
      writeFiles(root, { 'golden-image/app/packer.json': '{}\n' });
    } catch (err) {
      error = err;
    }
    expect(isComposeError(error)).toBe(true);
    expect((error as Error).message).toContain('which is not a file inside golden-image/');
    expect(listFiles(root)).toEqual([`golden-image/${LEDGER_FILE}`]);
  });

  test('a listed file reached through a link in the ledger folder is neither deleted nor its folders removed', () => {
    const { victims } = project();
    const root = path.join(tempDir('ledger-link'), 'out');
    fs.mkdirSync(path.join(root, 'golden-image'), { recursive: true });
    fs.symlinkSync(victims, path.join(root, 'golden-image', 'app'));
    const hash = sha256(fs.readFileSync(path.join(victims, 'x.txt')));
    fs.writeFileSync(path.join(root, 'golden-image', LEDGER_FILE), `${HEADER}\n${hash}  golden-image/app/x.txt\n`);

    const result = writeFiles(root, { 'golden-image/other/packer.json': '{}\n' });
    expect(result.removed).toEqual([]);
    expect(result.foreign).toEqual(['golden-image/app/x.txt']);
    expect(fs.readFileSync(path.join(victims, 'x.txt'), 'utf-8')).toBe("the user's own file\n");
  });

  test('a crafted ledger cannot vouch for a file behind a link: convert refuses to overwrite it without --force', async () => {
    const { cwd, victims } = project();
    // The bundle folder of the project is a link to the user's folder, and the ledger vouches for the file there.
    fs.writeFileSync(path.join(victims, 'packer.json'), "the user's template\n");
    fs.mkdirSync(path.join(cwd, 'out', 'golden-image'), { recursive: true });
    fs.symlinkSync(victims, path.join(cwd, 'out', 'golden-image', 'shop-vm'));
    fs.writeFileSync(
      path.join(cwd, 'out', 'golden-image', LEDGER_FILE),
      `${HEADER}\n${sha256("the user's template\n")}  golden-image/shop-vm/packer.json\n`,
    );
    const run = await runCli(
      ['convert', '-o', 'out', '--target', 'vm', '--image-base-url', 'https://images.example.com/shop'],
      { cwd },
    );
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toMatch(
      /^error: refusing to write into golden-image\/shop-vm, a symbolic link in the output folder out\./,
    );
    expect(fs.readFileSync(path.join(victims, 'packer.json'), 'utf-8')).toBe("the user's template\n");
  });

  test("a listed file is hashed only up to a bound: a huge file is not read, and is kept as not the tool's", () => {
    const root = path.join(tempDir('ledger-big'), 'out');
    fs.mkdirSync(path.join(root, 'golden-image', 'app'), { recursive: true });
    const big = path.join(root, 'golden-image', 'app', 'big.img');
    // Sparse: 2 GiB in size, no space on the disk. Reading it whole would take 2 GiB of memory.
    fs.closeSync(fs.openSync(big, 'w'));
    fs.truncateSync(big, 2 * 1024 * 1024 * 1024);
    fs.writeFileSync(
      path.join(root, 'golden-image', LEDGER_FILE),
      `${HEADER}\n${'0'.repeat(64)}  golden-image/app/big.img\n`,
    );
    const heapBefore = process.memoryUsage().heapUsed;
    const result = writeFiles(root, { 'golden-image/app/packer.json': '{}\n' });
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * 1024 * 1024);
    expect(result.foreign).toEqual(['golden-image/app/big.img']);
    expect(fs.statSync(big).size).toBe(2 * 1024 * 1024 * 1024);
  });
});

describe('finding 2: output is all or nothing, across permissions and mounts', () => {
  withRunAs('an unwritable wave folder: exit 1 in words, before any file moved, and the output as it was', async () => {
    const { cwd } = project();
    fs.chmodSync(cwd, 0o777);
    const first = await runAs(['convert', '-o', 'out'], cwd);
    expect(first.code).toBe(0);
    const before = snapshot(path.join(cwd, 'out'));
    fs.writeFileSync(path.join(cwd, 'compose.yaml'), COMPOSE.replace('8080:80', '8081:80'));
    fs.chmodSync(path.join(cwd, 'out', '2-app'), 0o555);

    const run = await runAs(['convert', '-o', 'out'], cwd);
    fs.chmodSync(path.join(cwd, 'out', '2-app'), 0o755);
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      'error: cannot write into 2-app in out: permission denied; nothing was written. ' +
        'Fix: make the folder writable by the user running the conversion, or choose another output folder.',
    );
    expectPlainMessage(run.stderr);
    expect(snapshot(path.join(cwd, 'out'))).toEqual(before);
    expect([...stagesIn(cwd), ...leftovers(path.join(cwd, 'out'))]).toEqual([]);
  });

  test('each file is staged beside its target, so that moving it into place never crosses a mount (EXDEV)', () => {
    const root = path.join(tempDir('exdev-beside'), 'out');
    writeFiles(root, {
      '0-namespace/a.yaml': `${HEADER}\n`,
      '2-app/b.yaml': `${HEADER}\n`,
      'RUNBOOK.md': `${HEADER}\n`,
    });
    const seen: string[] = [];
    writeFiles(
      root,
      {
        '0-namespace/a.yaml': `${HEADER}\nv2\n`,
        '2-app/b.yaml': `${HEADER}\nv2\n`,
        '2-app/c.yaml': `${HEADER}\n`,
        'RUNBOOK.md': `${HEADER}\ny\n`,
      },
      {
        beforeStep: (step, relative) => {
          if (step !== 'move') {
            return;
          }
          const folder = path.dirname(path.join(root, relative));
          seen.push(`${relative}: ${fs.readdirSync(folder).filter((f) => f.endsWith('.new')).length > 0}`);
        },
      },
    );
    expect(seen).toEqual(['0-namespace/a.yaml: true', '2-app/b.yaml: true', '2-app/c.yaml: true', 'RUNBOOK.md: true']);
    expect(leftovers(root)).toEqual([]);
    expect(fs.readFileSync(path.join(root, '2-app/b.yaml'), 'utf-8')).toBe(`${HEADER}\nv2\n`);
  });

  withMount('a wave folder on another mount, and an output folder that is a mount point, are written', async () => {
    const { cwd } = project();
    mountTmpfs(path.join(cwd, 'out', '2-app'), 'size=4m');
    const run = await runCli(['convert', '-o', 'out'], { cwd });
    expect(run.stderr).not.toContain('EXDEV');
    expect(run.code).toBe(0);
    expect(listFiles(path.join(cwd, 'out', '2-app')).length).toBeGreaterThan(0);

    const other = project();
    mountTmpfs(path.join(other.cwd, 'out'), 'size=4m');
    const again = await runCli(['convert', '-o', 'out'], { cwd: other.cwd });
    expect(again.code).toBe(0);
    expect(stagesIn(other.cwd)).toEqual([]);
  });

  withMount('a full disk: exit 1 in words, nothing written, nothing left behind', async () => {
    const { cwd } = project();
    mountTmpfs(path.join(cwd, 'out'), 'size=16k');
    const run = await runCli(['convert', '-o', 'out'], { cwd });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toMatch(
      /^error: cannot write \S+ in the output folder out: the disk is full; nothing was written\. Fix: free some space/,
    );
    expectPlainMessage(run.stderr);
    expect(listFiles(path.join(cwd, 'out'))).toEqual([]);
  });

  withMount('a read-only output: exit 1 saying so, not "ENOENT … mkdir"', async () => {
    const { cwd } = project();
    mountTmpfs(path.join(cwd, 'out'), 'size=1m,ro');
    const run = await runCli(['convert', '-o', 'out/k8s'], { cwd });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      'error: cannot create the output folder out/k8s: the file system is read-only. ' +
        'Fix: choose an output folder on a writable file system.',
    );
    expectPlainMessage(run.stderr);
  });

  test('a failure after the first rename puts every file back as it was', () => {
    const root = path.join(tempDir('rollback'), 'out');
    const v1 = {
      '0-namespace/ns.yaml': `${HEADER}\nv1\n`,
      '2-app/a.yaml': `${HEADER}\nv1\n`,
      '2-app/old.yaml': `${HEADER}\nold\n`,
      'RUNBOOK.md': `${HEADER}\n`,
    };
    writeFiles(root, v1);
    const before = snapshot(root);
    let moved = 0;
    expect(() =>
      writeFiles(
        root,
        {
          '0-namespace/ns.yaml': `${HEADER}\nv2\n`,
          '2-app/a.yaml': `${HEADER}\nv2\n`,
          '3-vm/new.yaml': `${HEADER}\n`,
          'RUNBOOK.md': `${HEADER}\nv2\n`,
        },
        {
          beforeStep: (step) => {
            if (step !== 'move') {
              return;
            }
            moved += 1;
            if (moved === 4) {
              throw Object.assign(new Error("ENOSPC: no space left on device, rename '/x' -> '/y'"), {
                code: 'ENOSPC',
              });
            }
          },
        },
      ),
    ).toThrow(/^cannot write RUNBOOK\.md in the output folder .*: the disk is full; nothing was written\. Fix: /);
    expect(snapshot(root)).toEqual(before);
    expect(leftovers(root)).toEqual([]);
  });
});

describe('finding 3: what is checked is what is written', () => {
  test('a wave folder swapped for a link while the files are moved: refused, nothing written outside, rolled back', () => {
    const { victims } = project();
    const root = path.join(tempDir('swap'), 'out');
    writeFiles(root, { '2-app/a.yaml': `${HEADER}\nv1\n` });
    const before = snapshot(root);
    // The attacker's move, at the worst moment: the folder becomes a link to a folder outside.
    expectSwapRefused(
      root,
      victims,
      { '1-stateful/db.yaml': `${HEADER}\n`, '2-app/a.yaml': `${HEADER}\nv2\n`, '2-app/b.yaml': `${HEADER}\n` },
      { step: 'move', relative: '2-app/a.yaml', folder: () => '2-app' },
    );
    // The folder moved away keeps its file as it was (and the staged files, which are never removed through a link).
    fs.unlinkSync(path.join(root, '2-app'));
    fs.renameSync(path.join(root, 'moved-away'), path.join(root, '2-app'));
    expect(Object.fromEntries(Object.entries(snapshot(root)).filter(([f]) => !f.endsWith('.new')))).toEqual(before);
    expect(listFiles(root).filter((f) => !f.startsWith('2-app/'))).toEqual([]);
  });

  test('a wave folder swapped for a link before a new file is written: the open descriptor is checked, nothing lands outside', () => {
    const { victims } = project();
    const root = path.join(tempDir('swap-write'), 'out');
    writeFiles(root, { '2-app/a.yaml': `${HEADER}\nv1\n` });
    expectSwapRefused(
      root,
      victims,
      { '1-stateful/db.yaml': `${HEADER}\n`, '2-app/a.yaml': `${HEADER}\nv2\n` },
      { step: 'write', relative: '2-app/a.yaml', folder: () => '2-app' },
    );
    // Only the attacker's link, and the folder moved away with its file as it was.
    expect(listFiles(root).filter((f) => !f.startsWith('moved-away/'))).toEqual(['2-app']);
    expect(fs.readFileSync(path.join(root, 'moved-away', 'a.yaml'), 'utf-8')).toBe(`${HEADER}\nv1\n`);
  });
});

describe('finding 3: a new folder is moved into place whole', () => {
  test('it is filled under a staging name beside its place, and renamed into place with its files', () => {
    const root = path.join(tempDir('new-folder'), 'out');
    writeFiles(root, { 'RUNBOOK.md': `${HEADER}\n` });
    const seen: string[] = [];
    writeFiles(
      root,
      {
        '2-app/a.yaml': `${HEADER}\na\n`,
        'golden-image/vm/packer.json': '{}\n',
        '2-app/b.yaml': `${HEADER}\nb\n`,
        'RUNBOOK.md': `${HEADER}\ny\n`,
      },
      {
        beforeStep: (step, relative) => {
          if (step === 'move') {
            const staged = stagedFolders(root)
              .sort()
              .map((f) => `${f.replace(/-\d+-/, '-PID-')}: ${entriesUnder(path.join(root, f)).sort()}`);
            seen.push(`${relative}: 2-app ${fs.existsSync(path.join(root, '2-app'))}; ${staged.join('; ')}`);
          }
        },
      },
    );
    // golden-image is new too: it holds the bundle folder and the ledger.
    const bundle = `.cdk8s-compose-PID-1.dir: ${LEDGER_FILE},vm,vm/packer.json`;
    expect(seen).toEqual([
      `2-app/a.yaml: 2-app false; .cdk8s-compose-PID-0.dir: a.yaml,b.yaml; ${bundle}`,
      `2-app/b.yaml: 2-app false; .cdk8s-compose-PID-0.dir: a.yaml,b.yaml; ${bundle}`,
      `golden-image/vm/packer.json: 2-app true; ${bundle}`,
      `golden-image/${LEDGER_FILE}: 2-app true; ${bundle}`,
      'RUNBOOK.md: 2-app true; ',
    ]);
    expect(snapshot(root)).toEqual({
      '2-app/a.yaml': `${HEADER}\na\n`,
      '2-app/b.yaml': `${HEADER}\nb\n`,
      'RUNBOOK.md': `${HEADER}\ny\n`,
      'golden-image/.cdk8s-compose-files': expect.any(String),
      'golden-image/vm/packer.json': '{}\n',
    });
    expect(leftovers(root)).toEqual([]);
  });

  test('its staging folder swapped for a link before it is moved: refused, nothing written outside, rolled back', () => {
    const { victims } = project();
    const root = path.join(tempDir('swap-new'), 'out');
    writeFiles(root, { 'RUNBOOK.md': `${HEADER}\nv1\n` });
    expectSwapRefused(
      root,
      victims,
      { '2-app/a.yaml': `${HEADER}\n`, 'RUNBOOK.md': `${HEADER}\nv2\n` },
      { step: 'move', relative: '2-app/a.yaml', folder: () => stagedFolders(root)[0] },
    );
    // The attacker's link (which the rename carried to 2-app), and the staging folder moved away with the new file.
    expect(entriesUnder(root).sort()).toEqual(['2-app', 'RUNBOOK.md', 'moved-away', 'moved-away/a.yaml']);
    expect(fs.readlinkSync(path.join(root, '2-app'))).toBe(victims);
    expect(fs.readFileSync(path.join(root, 'RUNBOOK.md'), 'utf-8')).toBe(`${HEADER}\nv1\n`);
  });

  test('its staging folder swapped for a link before a file is written: the open descriptor is checked, nothing lands outside', () => {
    const { victims } = project();
    const root = path.join(tempDir('swap-new-write'), 'out');
    fs.mkdirSync(root);
    let staged = '';
    expectSwapRefused(
      root,
      victims,
      { '2-app/a.yaml': `${HEADER}\n`, '2-app/b.yaml': `${HEADER}\n` },
      { step: 'write', relative: '2-app/b.yaml', folder: () => ([staged] = stagedFolders(root))[0] },
    );
    expect(entriesUnder(root).sort()).toEqual([staged, 'moved-away', 'moved-away/a.yaml'].sort());
    expect(fs.lstatSync(path.join(root, staged)).isSymbolicLink()).toBe(true);
  });

  test('a folder that appears in its place meanwhile: refused in words, rolled back, the folder kept', () => {
    const root = path.join(tempDir('appeared'), 'out');
    writeFiles(root, { 'RUNBOOK.md': `${HEADER}\nv1\n` });
    expect(() =>
      writeFiles(
        root,
        { 'RUNBOOK.md': `${HEADER}\nv2\n`, '2-app/a.yaml': `${HEADER}\n` },
        {
          beforeStep: (step, relative) => {
            if (step === 'move' && relative === '2-app/a.yaml') {
              fs.mkdirSync(path.join(root, '2-app'));
              fs.writeFileSync(path.join(root, '2-app', 'theirs.yaml'), 'theirs\n');
            }
          },
        },
      ),
    ).toThrow(
      /^cannot write 2-app\/a\.yaml in the output folder .*: a file appeared there during the conversion; nothing was written\. Fix: convert again\.$/,
    );
    expect(snapshot(root)).toEqual({ '2-app/theirs.yaml': 'theirs\n', 'RUNBOOK.md': `${HEADER}\nv1\n` });
    expect(leftovers(root)).toEqual([]);
  });
});

describe('finding 4: no staging folder is left behind', () => {
  const BIG = [
    'name: big',
    'services:',
    ...Array.from({ length: 150 }, (_, i) => [
      `  s${i}:`,
      '    image: nginx:1.27.2',
      '    ports: ["80"]',
      '    environment: {A: "1"}',
    ]).flat(),
    '',
  ].join('\n');

  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s during a conversion: no staging folder, output complete or absent',
    async (signal) => {
      const { cwd } = project();
      fs.writeFileSync(path.join(cwd, 'compose.yaml'), BIG);
      const child: ChildProcess = spawn(process.execPath, [BIN, 'convert'], { cwd, env: { ...CLEAN_ENV } });
      const exited = new Promise<string>((resolve) => child.on('exit', (code, sig) => resolve(sig ?? `exit ${code}`)));
      // The default output is the project folder itself: the staging folder appears there, then the signal is sent.
      for (let i = 0; i < 3000 && stagesIn(cwd).length === 0 && child.exitCode === null; i++) {
        await new Promise((r) => setTimeout(r, 5));
      }
      const sawStage = stagesIn(cwd).length > 0;
      child.kill(signal);
      const ended = await exited;
      expect(sawStage).toBe(true);
      expect(stagesIn(cwd)).toEqual([]);
      expect(stagesIn(path.dirname(cwd))).toEqual([]);
      expect(leftovers(cwd)).toEqual([]);
      // Ended by the signal itself (the shell shows 130 or 143), after the staging folder went.
      expect(ended).toBe(signal);
      const manifests = listFiles(cwd).filter((f) => /^\d-/.test(f));
      // The conversion either finished before the signal was handled (every file) or had not written any.
      expect(manifests.length === 0 || manifests.filter((f) => f.startsWith('2-app/')).length >= 150).toBe(true);
    },
    120_000,
  );

  test('a staging folder or a staged file of a process that is gone is removed by the next run; one of a running process is kept', () => {
    const root = path.join(tempDir('abandoned'), 'out');
    fs.mkdirSync(root);
    const dead = spawn(process.execPath, ['-e', '']);
    const deadPid = dead.pid!;
    execFileSync(process.execPath, ['-e', '']);
    fs.mkdirSync(path.join(root, `.cdk8s-compose-${deadPid}-AbC123`));
    fs.mkdirSync(path.join(root, `.cdk8s-compose-${process.ppid}-XyZ789`));
    fs.mkdirSync(path.join(root, '2-app'));
    fs.writeFileSync(path.join(root, '2-app', `.cdk8s-compose-${deadPid}-3.new`), 'half-written\n');
    // New folders staged by the dead process, one in the output folder and one in a wave folder.
    fs.mkdirSync(path.join(root, `.cdk8s-compose-${deadPid}-0.dir`, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(root, `.cdk8s-compose-${deadPid}-0.dir`, 'sub', 'x.yaml'), 'half-written\n');
    fs.mkdirSync(path.join(root, '2-app', `.cdk8s-compose-${deadPid}-1.dir`));
    return new Promise<void>((resolve) =>
      dead.on('exit', () => {
        const stage = createStage(root);
        removeStage(stage);
        expect(stagesIn(root).sort()).toEqual(
          [`.cdk8s-compose-${deadPid}-0.dir`, `.cdk8s-compose-${process.ppid}-XyZ789`].sort(),
        );
        writeFiles(root, { '2-app/a.yaml': `${HEADER}\n` });
        expect(fs.readdirSync(path.join(root, '2-app'))).toEqual(['a.yaml']);
        expect(stagesIn(root)).toEqual([`.cdk8s-compose-${process.ppid}-XyZ789`]);
        resolve();
      }),
    );
  });
});

describe('finding 13: output messages in words', () => {
  test('an output that is a loop of links says so', async () => {
    const { cwd } = project();
    fs.symlinkSync('loop', path.join(cwd, 'loop'));
    const run = await runCli(['convert', '-o', 'loop'], { cwd });
    expect(run.code).toBe(1);
    expect(lastLine(run.stderr)).toBe(
      'error: the output loop is a symbolic link that leads nowhere (a loop, or a missing folder). ' +
        'Fix: fix or remove the link, or choose another output folder.',
    );
  });

  test('-o LINK to a folder outside is followed: the user named it', async () => {
    const { cwd, victims } = project();
    const target = path.join(path.dirname(victims), 'elsewhere');
    fs.mkdirSync(target);
    fs.symlinkSync(target, path.join(cwd, 'k8s'));
    const run = await runCli(['convert', '-o', 'k8s'], { cwd });
    expect(run.code).toBe(0);
    expect(listFiles(target)).toContain('RUNBOOK.md');
    expect(stagesIn(target)).toEqual([]);
  });
});
