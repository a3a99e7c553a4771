import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** Runs the built `bin/cdk8s-compose` as a child process, bounded in time, for the cross-cutting tests. */

const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin', 'cdk8s-compose');

export interface CliResult {
  /** The exit code, or undefined when the run was killed at the time limit. */
  readonly code?: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Throws with the fix when the CLI was not compiled (`npm test` compiles first). */
export function expectCliBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'build', 'lib', 'cli', 'main.js'))) {
    throw new Error('build/lib/cli/main.js is missing: run `npx tsc -b tsconfig.build.json` (npm test does) first');
  }
}

/** `node bin/cdk8s-compose <args>` in `cwd` with nothing but PATH in the environment; killed after `timeoutMs`. */
export function runCli(args: readonly string[], cwd: string, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code: code ?? undefined,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        timedOut,
      });
    });
  });
}

/** Runs tasks at most `limit` at a time (CLI runs are CPU-bound). */
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
