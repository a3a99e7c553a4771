import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** Runs the built `bin/cdk8s-compose` as a child process, bounded in time: the one runner of every CLI test. */

const ROOT = path.resolve(__dirname, '../..');
export const BIN = path.join(ROOT, 'bin', 'cdk8s-compose');
/** An environment with nothing but PATH, so that no variable of the machine reaches a conversion. */
export const CLEAN_ENV: Readonly<Record<string, string>> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** What one run of the CLI did. */
export interface CliRun {
  /** The exit code, or undefined when the run was killed at the time limit. */
  readonly code?: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export interface CliRunOptions {
  readonly cwd: string;
  /** @default CLEAN_ENV */
  readonly env?: Readonly<Record<string, string>>;
  /** Killed after this long: a hang fails the test with its input instead of stalling the suite. @default 60 s */
  readonly timeoutMs?: number;
}

/** Fails at once, with the fix, when the CLI was not compiled (`npm test` compiles first). */
export function expectBuilt(): void {
  if (!fs.existsSync(path.join(ROOT, 'build', 'bin', 'cdk8s-compose.js'))) {
    throw new Error('build/bin/cdk8s-compose.js is missing: run `npm run compile` (npm test does) before these tests');
  }
}

/** `node bin/cdk8s-compose <args>` in `cwd`. */
export function runCli(args: readonly string[], options: CliRunOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...(options.env ?? CLEAN_ENV) } });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
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
export async function inParallel<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
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
