import { execFile } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { listFiles } from '../support/files';

export { listFiles };

/**
 * The field tools the VM target's files are checked with: `cloud-init schema`, `packer validate` and
 * `systemd-analyze verify`. Each check spawns the tool once per distinct input (cached by content hash for the
 * test file's lifetime), in a scratch folder that is removed when the process exits. The checks are asynchronous so
 * that a test file can start all of its spawns at once in `beforeAll` and await them where it asserts.
 */

export interface ToolResult {
  readonly ok: boolean;
  /** stdout and stderr together. */
  readonly output: string;
}

const cache = new Map<string, Promise<ToolResult>>();
let scratch: string | undefined;

// Removed after the importing test file's tests (a process exit handler does not run in a jest worker).
afterAll(() => {
  if (scratch) {
    fs.rmSync(scratch, { recursive: true, force: true });
    scratch = undefined;
  }
});

/** A fresh folder under one scratch folder of the test file. */
export function tempDir(prefix: string): string {
  if (!scratch) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-vm-'));
  }
  return fs.mkdtempSync(path.join(scratch, `${prefix}-`));
}

function cached(key: string, run: () => Promise<ToolResult>): Promise<ToolResult> {
  const hash = createHash('sha256').update(key).digest('hex');
  const hit = cache.get(hash);
  if (hit) {
    return hit;
  }
  const result = run();
  cache.set(hash, result);
  return result;
}

function spawn(command: string, args: string[], cwd?: string, env?: NodeJS.ProcessEnv): Promise<ToolResult> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env: env ?? process.env, encoding: 'utf-8', timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = (error as NodeJS.ErrnoException | null)?.code;
        if (typeof code === 'string') {
          reject(error);
          return;
        }
        resolve({ ok: !error, output: `${stdout ?? ''}${stderr ?? ''}` });
      },
    );
  });
}

/**
 * `cloud-init schema -c FILE`. Deprecations count as failures: cloud-init exits 0 on them, but a deprecated key is
 * a key the next release refuses.
 */
export function cloudInitSchema(userData: string): Promise<ToolResult> {
  return cached(`cloud-init\0${userData}`, async () => {
    const file = path.join(tempDir('cloud-init'), 'user-data');
    fs.writeFileSync(file, userData);
    const result = await spawn('cloud-init', ['schema', '-c', file]);
    const deprecated = /deprecations: \S/.test(result.output);
    return { ok: result.ok && !deprecated, output: result.output };
  });
}

/**
 * `packer validate` (1.6.6, offline) run in the bundle folder, as the README says, so that the scripts, the HTTP
 * folder and the uploaded folders must exist; `ssh_password` is passed as a user variable like an operator would.
 */
export function packerValidate(bundleDir: string, template = 'packer.json'): Promise<ToolResult> {
  const key = listFiles(bundleDir)
    .map((f) => `${f}\0${fs.readFileSync(path.join(bundleDir, f), 'utf-8')}`)
    .join('\0');
  return cached(`packer\0${template}\0${key}`, () =>
    spawn('packer', ['validate', '-var', 'ssh_password=only-for-validate', template], bundleDir, {
      ...process.env,
      CHECKPOINT_DISABLE: '1',
      PACKER_CACHE_DIR: tempDir('packer-cache'),
    }),
  );
}

/**
 * `systemd-analyze verify --root=DIR --recursive-errors=no` on a unit, in a minimal root that holds the unit, an
 * executable `/usr/bin/docker` and `/bin/bash`, a `docker.service` and the working directory: what the unit references. Without
 * `--recursive-errors=no` the missing dependencies of docker.service would fail it; without a root, warnings exit 0.
 */
export function systemdVerify(unitName: string, unit: string, workingDirectory: string): Promise<ToolResult> {
  return cached(`systemd\0${unitName}\0${workingDirectory}\0${unit}`, () => {
    const root = tempDir('systemd-root');
    const units = path.join(root, 'etc/systemd/system');
    fs.mkdirSync(units, { recursive: true });
    fs.writeFileSync(path.join(units, unitName), unit);
    fs.writeFileSync(
      path.join(units, 'docker.service'),
      '[Unit]\nDescription=Docker stand-in\n\n[Service]\nExecStart=/usr/bin/docker\n',
    );
    fs.mkdirSync(path.join(root, 'usr/bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'usr/bin/docker'), '#!/bin/sh\n', { mode: 0o755 });
    // The dependency waits of a hybrid app's unit run in bash.
    fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(root, 'bin/bash'), '#!/bin/sh\n', { mode: 0o755 });
    fs.mkdirSync(path.join(root, workingDirectory.replace(/^\/+/, '')), { recursive: true });
    return spawn('systemd-analyze', ['verify', `--root=${root}`, '--recursive-errors=no', unitName]);
  });
}

/** `sh -n FILE`: the script parses. */
export function shellSyntax(script: string): Promise<ToolResult> {
  return cached(`sh\0${script}`, () => {
    const file = path.join(tempDir('sh'), 'script.sh');
    fs.writeFileSync(file, script);
    return spawn('sh', ['-n', file]);
  });
}

/**
 * `docker-compose config -q` (1.29) in a folder, with the given environment for `${VAR:?}` references. 1.29 predates
 * the top-level `name:` (compose v2, which the golden image installs, reads it), so it checks a copy without it.
 */
export function composeConfig(dir: string, env: Record<string, string>): Promise<ToolResult> {
  const key = fs.readFileSync(path.join(dir, 'compose.yaml'), 'utf-8');
  fs.writeFileSync(path.join(dir, 'compose.v1.yaml'), key.replace(/^name: .*\n/m, ''));
  return cached(`compose\0${JSON.stringify(env)}\0${key}`, () =>
    spawn('docker-compose', ['-f', 'compose.v1.yaml', 'config', '-q'], dir, { PATH: process.env.PATH ?? '', ...env }),
  );
}
