import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { ComposeError, isComposeError } from '../../lib/compose/errors';
import { loadCompose, LoadComposeOptions, loadComposeFromString } from '../../lib/compose/load';
import { runBounded } from '../support/bounded';

/**
 * Files the compose file names, seen as hostile input: paths that leave the project folder are not read unless the
 * user allows it, special files (FIFOs, devices) are never read, and a file that cannot be read is a ComposeError
 * that names the file as written and the key path, never a raw `fs` error.
 */

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-files-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A file outside the project whose content must never reach an output unless allowed. */
const SENTINEL = 'outside-sentinel-4d1f0b9e';
const outside = path.join(root, 'outside');
const project = path.join(root, 'project');
fs.mkdirSync(outside);
fs.mkdirSync(path.join(project, 'conf'), { recursive: true });
fs.mkdirSync(path.join(project, 'folder'));
fs.writeFileSync(path.join(outside, 'sentinel.txt'), `${SENTINEL}\n`);
fs.writeFileSync(path.join(outside, 'sentinel.env'), `LEAKED=${SENTINEL}\n`);
fs.writeFileSync(path.join(project, 'conf/app.conf'), 'listen 8080\n');
fs.writeFileSync(path.join(project, 'app.env'), 'MODE=demo\n');
fs.writeFileSync(path.join(project, 'secret.txt'), 'project-secret-value\n');
fs.symlinkSync('../outside/sentinel.txt', path.join(project, 'escape.txt'));
fs.symlinkSync(outside, path.join(project, 'escape-dir'));
execFileSync('mkfifo', [path.join(project, 'pipe')]);

const PASSWD_LINE = /^root:.*:0:0:/m;

function synthText(text: string, options: Partial<LoadComposeOptions> = {}): string {
  const { model } = loadComposeFromString(text, { projectDir: project, env: {}, ...options });
  const chart = new Chart(new App({ outdir: path.join(root, 'out') }), 'files');
  const app = new ComposeApp(chart, 'app', { model });
  return JSON.stringify([Testing.synth(chart), app.warnings]);
}

function composeErrorOf(fn: () => unknown): ComposeError {
  const outcome = runBounded(fn, 5_000);
  if (outcome.kind === 'timeout') {
    throw new Error('no result within 5 s: the loader blocked on the file');
  }
  if (outcome.kind === 'value') {
    throw new Error('expected a ComposeError, got a result');
  }
  if (!isComposeError(outcome.error)) {
    throw outcome.error;
  }
  return outcome.error;
}

describe('files outside the compose project', () => {
  const REFERENCES: [string, string][] = [
    ['a relative path', '../outside/sentinel.txt'],
    ['an absolute path', path.join(outside, 'sentinel.txt')],
    ['a symlink inside the project', './escape.txt'],
    ['a path through a symlinked folder', './escape-dir/sentinel.txt'],
  ];

  function app(file: string): string {
    return [
      'services:',
      '  web:',
      '    image: nginx:1.27.2',
      `    volumes: ["${file}:/etc/app/bound.txt:ro"]`,
      '    secrets: [s]',
      '    configs: [c]',
      'secrets:',
      `  s: {file: "${file}"}`,
      'configs:',
      `  c: {file: "${file}"}`,
      '',
    ].join('\n');
  }

  test.each(REFERENCES)('%s is not read into a Secret, ConfigMap or mounted file', (_how, file) => {
    const output = synthText(app(file));
    expect(output).not.toContain(SENTINEL);
    expect(output).toContain('outside the project, which was not read');
  });

  test.each(REFERENCES)('%s is read when the user allows it (the check above can fail)', (_how, file) => {
    expect(synthText(app(file), { allowOutsideProject: true })).toContain(
      Buffer.from(`${SENTINEL}\n`).toString('base64'),
    );
  });

  test('/etc/passwd as a secret, a config and a bind is not read', () => {
    const output = synthText(app('/etc/passwd'));
    expect(fs.readFileSync('/etc/passwd', 'utf8')).toMatch(PASSWD_LINE);
    expect(output).not.toMatch(/root:[^"]*:0:0:/);
    expect(output).not.toContain(Buffer.from(fs.readFileSync('/etc/passwd')).toString('base64').slice(0, 24));
  });

  test.each([
    ['a relative path', '../outside/sentinel.env'],
    ['an absolute path', path.join(outside, 'sentinel.env')],
    ['a symlinked folder', './escape-dir/sentinel.env'],
    ['/etc/passwd', '/etc/passwd'],
  ])('env_file through %s is refused with a message that says how to allow it', (_how, file) => {
    const err = composeErrorOf(() =>
      loadComposeFromString(`services:\n  web:\n    image: x\n    env_file: ${file}\n`, {
        projectDir: project,
        env: {},
      }),
    );
    expect(err.message).toBe(
      `compose.yaml:4:15: services.web.env_file: env file "${file}" is outside the project folder and ` +
        'was not read. Allowed: a path inside the folder of the compose file. Fix: move the file into the project ' +
        'folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
  });
});

describe('special files are never read', () => {
  test.each([
    [
      'env_file',
      'services:\n  web:\n    image: x\n    env_file: ./pipe\n',
      'compose.yaml:4:15: services.web.env_file: env file "./pipe" is not a regular file (a FIFO, socket or device) and was not read. Fix: point env_file at a regular file.',
    ],
    [
      'a secret file',
      'services:\n  web:\n    image: x\n    secrets: [s]\nsecrets:\n  s: {file: ./pipe}\n',
      'compose.yaml:6:13: secrets.s.file: secret file "./pipe" is not a regular file (a FIFO, socket or device) (got "./pipe"). Fix: point secrets.s.file at a regular file.',
    ],
    [
      'a config file',
      'services:\n  web:\n    image: x\n    configs: [c]\nconfigs:\n  c: {file: ./pipe}\n',
      'compose.yaml:6:13: configs.c.file: config file "./pipe" is not a regular file (a FIFO, socket or device) (got "./pipe"). Fix: point configs.c.file at a regular file.',
    ],
  ])('a FIFO as %s is refused at once instead of blocking', (_what, text, message) => {
    expect(composeErrorOf(() => loadComposeFromString(text, { projectDir: project, env: {} })).message).toBe(message);
  });

  test('a FIFO bound into a container is a warning, not a read', () => {
    const outcome = runBounded(
      () =>
        loadComposeFromString('services:\n  web:\n    image: x:1\n    volumes: ["./pipe:/run/app.sock"]\n', {
          projectDir: project,
          env: {},
        }),
      5_000,
    );
    expect(outcome.kind).toBe('value');
    const { model, warnings } = (outcome as { value: ReturnType<typeof loadComposeFromString> }).value;
    expect(model.services[0].volumes[0].bind).toEqual({ kind: 'file' });
    expect(warnings.map((w) => `${w.code}: ${w.message}`)).toEqual([
      'special-bind-file: the bound path "./pipe" is not a regular file (a FIFO, socket or device) and was not read',
    ]);
  });

  test('a device allowed from outside the project is refused at once, with bounded memory', () => {
    const before = process.memoryUsage().heapUsed;
    const err = composeErrorOf(() =>
      loadComposeFromString('services:\n  web:\n    image: x\n    configs: [c]\nconfigs:\n  c: {file: /dev/zero}\n', {
        projectDir: project,
        env: {},
        allowOutsideProject: true,
      }),
    );
    expect(err.problem).toBe('config file "/dev/zero" is not a regular file (a FIFO, socket or device)');
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('a file that cannot be read is a ComposeError naming the file and key path', () => {
  const target = (name: string) => path.join(project, name);

  /** The fs module object itself (an `import *` gives a frozen copy), so a spy reaches the loader's reads. */
  const nodeFs: typeof fs = require('fs');

  /** Runs `fn` with reads of `file` failing as for a file the user may not read (root reads everything). */
  function denied(file: string, fn: () => unknown): ComposeError {
    // Files are read by descriptor (lib/compose/files.ts readConfined): the open is what fails.
    const open = nodeFs.openSync;
    const spy = jest.spyOn(nodeFs, 'openSync').mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
      if (p === file) {
        throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES', path: file });
      }
      return (open as any)(p, ...rest);
    }) as typeof fs.openSync);
    try {
      return composeErrorOf(fn);
    } finally {
      spy.mockRestore();
    }
  }

  test.each([
    [
      'env_file',
      'app.env',
      'services:\n  web:\n    image: x\n    env_file: app.env\n',
      'compose.yaml:4:15: services.web.env_file: cannot read env file "app.env": permission denied.',
    ],
    [
      'a secret file',
      'secret.txt',
      'services:\n  web:\n    image: x\n    secrets: [s]\nsecrets:\n  s: {file: secret.txt}\n',
      'compose.yaml:6:13: secrets.s.file: cannot read secret file "secret.txt": permission denied.',
    ],
    [
      'a config file',
      'conf/app.conf',
      'services:\n  web:\n    image: x\n    configs: [c]\nconfigs:\n  c: {file: conf/app.conf}\n',
      'compose.yaml:6:13: configs.c.file: cannot read config file "conf/app.conf": permission denied.',
    ],
    [
      'a bound file',
      'conf/app.conf',
      'services:\n  web:\n    image: x\n    volumes: ["./conf/app.conf:/etc/app.conf"]\n',
      'compose.yaml:4:15: services.web.volumes[0]: cannot read bound file "./conf/app.conf": permission denied.',
    ],
  ])('permission denied on %s', (_what, file, text, message) => {
    const err = denied(target(file), () => loadComposeFromString(text, { projectDir: project, env: {} }));
    expect(err.message).toBe(
      `${message} Fix: make the file readable by the user running the conversion, or fix the path.`,
    );
    expect(err.message).not.toContain(root);
  });

  test('permission denied on the compose file and on the .env file', () => {
    fs.writeFileSync(target('compose.yaml'), 'services:\n  web: {image: x}\n');
    fs.writeFileSync(target('.env'), 'A=1\n');
    try {
      expect(denied(target('compose.yaml'), () => loadCompose({ workingDir: project, env: {} })).message).toBe(
        'compose.yaml: cannot read compose file "compose.yaml": permission denied. ' +
          'Fix: make the file readable by the user running the conversion, or fix the path.',
      );
      expect(denied(target('.env'), () => loadCompose({ workingDir: project, env: {} })).message).toBe(
        '.env: cannot read env file ".env": permission denied. ' +
          'Fix: make the file readable by the user running the conversion, or fix the path.',
      );
    } finally {
      fs.rmSync(target('compose.yaml'));
      fs.rmSync(target('.env'));
    }
  });

  const unreadable = process.getuid?.() === 0 ? test.skip : test;
  unreadable('a real chmod 000 file (skipped as root, who reads every file)', () => {
    fs.writeFileSync(target('locked.env'), 'A=1\n', { mode: 0o000 });
    const err = composeErrorOf(() =>
      loadComposeFromString('services:\n  web:\n    image: x\n    env_file: locked.env\n', {
        projectDir: project,
        env: {},
      }),
    );
    expect(err.problem).toBe('cannot read env file "locked.env": permission denied');
  });

  test.each([
    [
      'env_file',
      'services:\n  web:\n    image: x\n    env_file: folder\n',
      'compose.yaml:4:15: services.web.env_file: env file "folder" is a directory. Fix: point env_file at a file.',
    ],
    [
      'a secret file',
      'services:\n  web:\n    image: x\n    secrets: [s]\nsecrets:\n  s: {file: folder}\n',
      'compose.yaml:6:13: secrets.s.file: secret file "folder" is a directory (got "folder"). Fix: point secrets.s.file at a regular file.',
    ],
    [
      'a config file',
      'services:\n  web:\n    image: x\n    configs: [c]\nconfigs:\n  c: {file: folder}\n',
      'compose.yaml:6:13: configs.c.file: config file "folder" is a directory (got "folder"). Fix: point configs.c.file at a regular file.',
    ],
  ])('a directory where %s is expected', (_what, text, message) => {
    expect(composeErrorOf(() => loadComposeFromString(text, { projectDir: project, env: {} })).message).toBe(message);
  });

  test('a directory given as the compose file or as an env file', () => {
    expect(composeErrorOf(() => loadCompose({ workingDir: project, files: ['folder'], env: {} })).message).toBe(
      'folder: compose file "folder" is not a file.',
    );
    expect(
      composeErrorOf(() =>
        loadCompose({ workingDir: project, files: ['conf/app.conf'], envFiles: ['folder'], env: {} }),
      ).message,
    ).toBe('folder: env file "folder" is a directory. Fix: point it at a file.');
  });
});
