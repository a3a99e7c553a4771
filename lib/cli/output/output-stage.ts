import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ComposeError } from '../../compose/errors';
import { STAGE_PREFIX, isRunning, lstatOrUndefinedQuiet, removeIfEmpty, writeError } from './output-files';

/** Staging folders of this process, and the output folders it created for them, removed on exit and on signals. */
const stages = new Map<string, string[]>();

/**
 * A fresh staging folder inside the output folder (created when missing), so that it is on the output's file system
 * and is never left beside it. Staging folders of processes that are gone (a `kill -9`, an out-of-memory crash) are
 * removed first. SIGINT and SIGTERM remove the staging folder before the process ends.
 */
export function createStage(root: string, rootName = root): string {
  const absolute = path.resolve(root);
  checkNotSystemFolder(absolute, rootName);
  const created: string[] = [];
  if (lstatOrUndefinedQuiet(absolute)?.isSymbolicLink() && !fs.existsSync(absolute)) {
    throw new ComposeError(
      `the output ${rootName} is a symbolic link that leads nowhere (a loop, or a missing folder)`,
      {
        hint: 'fix or remove the link, or choose another output folder',
      },
    );
  }
  if (fs.existsSync(absolute) && !fs.statSync(absolute).isDirectory()) {
    throw new ComposeError(`the output ${rootName} is a file, not a folder`, {
      hint: 'give a folder with -o, or a file name ending in .yaml for one file',
    });
  }
  try {
    let existing = absolute;
    for (; !fs.existsSync(existing); existing = path.dirname(existing)) {
      created.unshift(existing);
    }
    // Asked first: a recursive mkdir on a read-only file system answers ENOENT, which would mislead.
    fs.accessSync(existing, fs.constants.W_OK);
    fs.mkdirSync(absolute, { recursive: true });
    removeAbandonedStages(absolute);
    handleSignals();
    const stage = fs.mkdtempSync(path.join(absolute, `${STAGE_PREFIX}${process.pid}-`));
    stages.set(stage, created);
    return stage;
  } catch (err) {
    created.reverse().forEach(removeIfEmpty);
    throw writeError(err, `cannot create the output folder ${rootName}`, 'choose an output folder you can write to');
  }
}

/** Folders of the system that are never an output folder themselves (the home folder is added where it is known). */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/',
  '/bin',
  '/boot',
  '/dev',
  '/dev/shm',
  '/etc',
  '/home',
  '/lib',
  '/lib32',
  '/lib64',
  '/media',
  '/mnt',
  '/opt',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/srv',
  '/sys',
  '/tmp',
  '/usr',
  '/usr/bin',
  '/usr/lib',
  '/usr/local',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/share',
  '/var',
  '/var/lib',
  '/var/log',
  '/var/tmp',
];
/** Folders of the system below which nothing is an output folder: the system's configuration, programs and devices. */
const SYSTEM_TREES: readonly string[] = [
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/proc',
  '/sbin',
  '/sys',
];

/** Scratch space inside a system tree: a folder of one's own there is fine (the bench writes to tmpfs there). */
const SCRATCH_TREES: readonly string[] = ['/dev/shm'];

/**
 * Refuses an output folder that is a system folder (`/`, `/etc`, `/usr`, the home folder itself, …) or lies in the
 * system's configuration, programs or devices (`/etc/x`, `/proc/x`): the writer puts its wave folders, RUNBOOK.md
 * and kustomization.yaml at the top of the output folder and removes the files it wrote before, which has no place
 * there. The real path is checked, so a link to `/` is refused too.
 */
export function checkNotSystemFolder(absolute: string, rootName: string): void {
  const candidates = new Set([absolute, realOrSelf(absolute)]);
  const home = os.homedir();
  const homes = home === '' ? [] : [path.resolve(home), realOrSelf(path.resolve(home))];
  for (const candidate of candidates) {
    const exact = SYSTEM_FOLDERS.includes(candidate) || homes.includes(candidate);
    const inside =
      SYSTEM_TREES.some((tree) => candidate.startsWith(`${tree}/`)) &&
      !SCRATCH_TREES.some((tree) => candidate.startsWith(`${tree}/`));
    if (exact || inside) {
      throw new ComposeError(
        `the output ${rootName} is ${exact ? (homes.includes(candidate) ? 'the home folder' : 'a system folder') : 'inside a system folder'} ` +
          `(${candidate}), and cdk8s-compose does not write there`,
        {
          hint: 'give a folder of its own with -o, for example -o k8s',
        },
      );
    }
  }
}

function realOrSelf(absolute: string): string {
  try {
    return fs.realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}

/** A staging folder in the system's temporary folder (for output that is printed, not written), removed like the others. */
export function createTempStage(): string {
  handleSignals();
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-'));
  stages.set(stage, []);
  return stage;
}

/** Removes a staging folder and everything in it, and the output folder it created when that stayed empty. */
export function removeStage(stage: string): void {
  fs.rmSync(stage, { recursive: true, force: true });
  const created = stages.get(stage) ?? [];
  stages.delete(stage);
  [...created].reverse().forEach(removeIfEmpty);
}

let handlingSignals = false;

/** Installed before the first staging folder exists, once, and kept: a signal during a conversion is handled after it. */
function handleSignals(): void {
  if (!handlingSignals) {
    handlingSignals = true;
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
}

/**
 * Node runs a signal handler between two steps of the event loop: a conversion (synchronous) finishes or fails
 * first, so the output is never half-written; then the staging folders go and the signal is raised again, so the
 * process ends as the signal's default says (exit status 130 for SIGINT, 143 for SIGTERM).
 */
function onSignal(signal: NodeJS.Signals): void {
  [...stages.keys()].forEach(removeStage);
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  process.kill(process.pid, signal);
}

/** Removes `.cdk8s-compose-<pid>-…` staging folders in the output folder whose process no longer runs. */
function removeAbandonedStages(root: string): void {
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    const match = new RegExp(`^${STAGE_PREFIX.replace(/\./g, '\\.')}(\\d+)-[A-Za-z0-9]+$`).exec(entry.name);
    if (match && entry.isDirectory() && !isRunning(Number(match[1]))) {
      fs.rmSync(path.join(root, entry.name), { recursive: true, force: true });
    }
  }
}
