import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Manifest } from '../support/problems';
import { YamlFile, readYamlFiles } from '../support/yaml-docs';
import { CORPUS_DIR } from '../support/shared';

/** The project folder. */
export const ROOT = path.resolve(__dirname, '../..');
/** The built CLI, as `npm` installs it. */
export const BIN = path.join(ROOT, 'bin', 'cdk8s-compose');
/** The shared corpus of real compose files (read only: tests copy a folder before converting it). */
export const CORPUS = CORPUS_DIR;
/** An environment with nothing but PATH, so that no variable of the machine reaches a conversion. */
export const CLEAN_ENV: Readonly<Record<string, string>> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** What one run of the CLI did. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fails at once, with the fix, when the CLI was not compiled (`npm test` compiles first). */
export function expectBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'build', 'lib', 'cli', 'main.js'))) {
    throw new Error('build/lib/cli/main.js is missing: run `npx tsc -b tsconfig.build.json` (npm test does) before these tests');
  }
}

/** Runs `node bin/cdk8s-compose <args>` as a child process. */
export function runCli(args: readonly string[], options: { cwd: string; env?: Readonly<Record<string, string>> }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...(options.env ?? CLEAN_ENV) } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({
      code: code ?? -1,
      stdout: Buffer.concat(stdout).toString('utf-8'),
      stderr: Buffer.concat(stderr).toString('utf-8'),
    }));
  });
}

/** Runs tasks with at most `limit` at a time (the CLI runs are CPU-bound). */
export async function inParallel<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** A fresh temporary folder; {@link removeTempDirs} deletes them all. */
export function tempDir(prefix = 'cli'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cdk8s-compose-test-${prefix}-`));
  created.push(dir);
  return dir;
}

const created: string[] = [];

export function removeTempDirs(): void {
  created.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
}

/** Copies a folder of the corpus (or any folder) into `into/<name>` and returns the copy. */
export function copyFolder(from: string, into: string, name = path.basename(from)): string {
  const target = path.join(into, name);
  fs.cpSync(from, target, { recursive: true });
  return target;
}

/** Every file under a folder, relative, sorted, with `/` separators. */
export function listFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const file = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        walk(file);
      } else {
        files.push(file);
      }
    }
  };
  walk('');
  return files.sort();
}

/** `yamllint -d relaxed` over folders in one call: the problems it reports at error level. */
export function yamllintErrors(folders: readonly string[]): string[] {
  const result = spawnSync('yamllint', ['-d', 'relaxed', '-f', 'parsable', ...folders], { encoding: 'utf-8' });
  if (result.error) {
    throw new Error(`yamllint did not run (scripts/install-tools.sh installs it): ${result.error.message}`);
  }
  return errorLines(result.stdout);
}

/** {@link yamllintErrors} in the background, so that other checks run meanwhile. */
export function yamllintErrorsLater(folders: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('yamllint', ['-d', 'relaxed', '-f', 'parsable', ...folders]);
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.on('error', (err) => reject(new Error(`yamllint did not run (scripts/install-tools.sh installs it): ${err.message}`)));
    child.on('close', () => resolve(errorLines(Buffer.concat(stdout).toString('utf-8'))));
  });
}

function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => line.includes('[error]'));
}

/** The manifests of an output folder: the YAML files of its wave folders (golden-image/ holds a bundle's own files). */
export function manifestFiles(dir: string): YamlFile[] {
  return readYamlFiles(dir).filter((f) => /^\d+-/.test(f.file));
}

/** The documents of {@link manifestFiles}. */
export function manifestDocs(dir: string): Manifest[] {
  return manifestFiles(dir).flatMap((f) => f.docs);
}
