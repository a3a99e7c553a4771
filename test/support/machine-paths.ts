import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * Finds absolute paths of the machine in an output: the repository, `/work/`, the home folder, what exists in the
 * temp folder (and any extra folder given, such as the output folder itself). A path the user wrote in the compose file (a mount
 * target such as `/root/.ollama` or `/tmp/heartbeat`) is theirs, not the machine's, and is not reported.
 */

const ROOT = path.resolve(__dirname, '../..');

/** The prefixes that mark a path of this machine. */
export function machinePrefixes(extra: readonly string[] = []): string[] {
  const home = os.homedir();
  const prefixes = [ROOT, '/work/', `${os.tmpdir()}/`, process.cwd(), ...extra];
  if (home && home !== '/') {
    prefixes.push(`${home}/`);
  }
  return [...new Set(prefixes)];
}

/** Each machine path in `text` (with the file it is in), except those that occur in one of `inputs`. */
export function machinePaths(
  name: string,
  text: string,
  inputs: readonly string[],
  extra: readonly string[] = [],
): string[] {
  const found: string[] = [];
  const tmp = `${os.tmpdir()}/`;
  for (const prefix of machinePrefixes(extra)) {
    let at = text.indexOf(prefix);
    while (at >= 0) {
      // A prefix counts where a path starts: `/work/` inside `/check/work/main/…` is part of another path (which the
      // repository prefix reports when it is the machine's).
      if (at > 0 && /[^\s"'`,;()[\]{}<>=:]/.test(text[at - 1])) {
        at = text.indexOf(prefix, at + 1);
        continue;
      }
      const token = /^[^\s"'`,;()[\]{}<>]+/.exec(text.slice(at))?.[0] ?? prefix;
      // Under the temp folder only what exists here is the machine's: `/tmp/app` in a guest's Packer template is not.
      const ours = prefix !== tmp || fs.existsSync(tmp + token.slice(tmp.length).split('/')[0]);
      if (ours && !inputs.some((input) => input.includes(token))) {
        found.push(`${name}: ${token}`);
      }
      at = text.indexOf(prefix, at + prefix.length);
    }
  }
  return [...new Set(found)].sort();
}
