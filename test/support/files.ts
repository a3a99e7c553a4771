import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

/** Folder listings and `yamllint`, shared by the library, CLI and VM tests. */

/** Every file under `dir` (or under `dir/prefix`), relative with `/`, sorted. */
export function listFiles(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      return entry.isDirectory() ? listFiles(dir, rel) : [rel];
    })
    .sort();
}

const YAMLLINT_ARGS = ['-d', 'relaxed', '-f', 'parsable'];
const NOT_INSTALLED = 'yamllint did not run (scripts/install-tools.sh installs it)';

/** What `yamllint -d relaxed` reports, except long lines (a warning in that profile: commands are long). */
function problems(output: string): string[] {
  return output.split('\n').filter((line) => line !== '' && !line.includes('(line-length)'));
}

/** `yamllint -d relaxed` over folders in one call (a Python start costs a tenth of a second): its problems. */
export function yamllintProblems(folders: readonly string[]): string[] {
  const result = spawnSync('yamllint', [...YAMLLINT_ARGS, ...folders], { encoding: 'utf-8' });
  if (result.error) {
    throw new Error(`${NOT_INSTALLED}: ${result.error.message}`);
  }
  return problems(result.stdout);
}

/** {@link yamllintProblems} in the background, so that other checks run meanwhile. */
export function yamllintProblemsLater(folders: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('yamllint', [...YAMLLINT_ARGS, ...folders]);
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.on('error', (err) => reject(new Error(`${NOT_INSTALLED}: ${err.message}`)));
    child.on('close', () => resolve(problems(Buffer.concat(stdout).toString('utf-8'))));
  });
}
