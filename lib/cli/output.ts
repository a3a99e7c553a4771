import * as fs from 'fs';
import * as path from 'path';
import { ComposeError, isComposeError } from '../compose/errors';
import { descriptorOutside } from '../compose/files';
import { Ledger } from './output-ledger';
import {
  OutputFile,
  STAGE_PREFIX,
  YAML_HEADER,
  hasLinkOnTheWay,
  isEmptyFolder,
  isGenerated,
  isRunning,
  lstatOrUndefined,
  lstatOrUndefinedQuiet,
  removeIfEmpty,
  writeError,
} from './output-files';

export type { OutputFile } from './output-files';

/** What {@link writeOutput} does. */
export interface WriteRequest {
  /** The output folder. Created when missing. */
  readonly root: string;
  /**
   * The output folder as messages name it.
   * @default - root
   */
  readonly rootName?: string;
  readonly files: readonly OutputFile[];
  /**
   * Folders (relative to root) the tool fills: files in them that carry the header and are no longer produced are
   * removed, so that `kubectl apply -f <folder>` applies no leftovers. The pattern is matched against the folder name.
   */
  readonly ownedFolders?: RegExp;
  /**
   * A folder (relative to root) whose files cannot carry the header (a Packer template, scripts, a systemd unit):
   * a ledger in it lists each file written with its hash. Such a file is the tool's while it still has that hash;
   * one the user changed is treated as theirs.
   * @default - none
   */
  readonly ledgerFolder?: string;
  /** Overwrite files that do not carry the header. */
  readonly force: boolean;
  /**
   * Called before each file is written beside its target (`write`) and before each is moved into place (`move`),
   * where a folder swapped for a link would slip in. For tests of that race only.
   * @default - nothing
   */
  readonly beforeStep?: (step: 'write' | 'move', relative: string) => void;
}

/** What {@link writeOutput} did. */
export interface WriteResult {
  readonly written: readonly string[];
  readonly removed: readonly string[];
  /** Files in owned folders that the tool did not generate, left in place. */
  readonly foreign: readonly string[];
}

/** Removes new files staged by a process that is gone (killed between writing them and moving them into place). */
function removeAbandonedFiles(folder: string): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const match = /^\.cdk8s-compose-(\d+)-\d+\.new$/.exec(entry.name);
    if (match && entry.isFile() && !isRunning(Number(match[1]))) {
      fs.rmSync(path.join(folder, entry.name), { force: true });
    }
  }
}

/**
 * Writes files into the output folder without losing data:
 * - every check runs before the first write, so on any error nothing is written;
 * - a file that does not carry the tool's header is not overwritten unless `force` is set;
 * - no symbolic link inside the output folder is followed (a link in place of a file is replaced, with `force`);
 * - each file is written into the staging folder, then renamed into place.
 */
export function writeOutput(request: WriteRequest): WriteResult {
  const root = path.resolve(request.root);
  const rootName = request.rootName ?? request.root;
  const rootStat = lstatOrUndefined(root);
  if (rootStat && !fs.statSync(root).isDirectory()) {
    throw new ComposeError(`the output ${rootName} is a file, not a folder`, {
      hint: 'give a folder with -o, or a file name ending in .yaml for one file',
    });
  }
  const ledger = request.ledgerFolder === undefined ? undefined : new Ledger(root, request.ledgerFolder, rootName);
  const files = ledger ? ledger.withLedger(request.files) : request.files;
  const produced = new Set(files.map((f) => f.path));
  /** True when the file at `relative` (a regular file) was written by the tool and not changed since. */
  const isOurs = (relative: string) =>
    ledger?.covers(relative) ? ledger.isUnchanged(relative) : isGenerated(path.join(root, relative));

  const conflicts: string[] = [];
  /** The files found in place by the checks: each is moved aside without asking again whether it is there. */
  const existing = new Set<string>();
  // Each folder is looked at once (a wave folder holds thousands of files): whether it exists, or is missing.
  const folderExists = new Map<string, boolean>();
  for (const file of files) {
    const parts = file.path.split('/');
    let missing = false;
    for (let i = 1; i < parts.length && !missing; i++) {
      const folder = parts.slice(0, i).join('/');
      const known = folderExists.get(folder);
      if (known !== undefined) {
        missing = !known;
        continue;
      }
      const stat = lstatOrUndefined(path.join(root, folder));
      if (stat?.isSymbolicLink()) {
        throw new ComposeError(`refusing to write into ${folder}, a symbolic link in the output folder ${rootName}`, {
          hint: `remove the link, or choose another output folder; cdk8s-compose never writes through a link`,
        });
      }
      if (stat && !stat.isDirectory()) {
        throw new ComposeError(`${folder} in the output folder ${rootName} is a file where the output needs a folder`, {
          hint: 'move the file away, or choose another output folder',
        });
      }
      folderExists.set(folder, stat !== undefined);
      missing = stat === undefined;
    }
    const stat = missing ? undefined : lstatOrUndefined(path.join(root, file.path));
    if (!stat) {
      continue;
    }
    existing.add(file.path);
    if (stat.isDirectory()) {
      throw new ComposeError(
        `${file.path} in the output folder ${rootName} is a folder where the output needs a file`,
        {
          hint: 'move the folder away, or choose another output folder',
        },
      );
    }
    if (stat.isSymbolicLink() || !stat.isFile() || !isOurs(file.path)) {
      conflicts.push(stat.isSymbolicLink() ? `${file.path} (a symbolic link)` : file.path);
    }
  }
  if (conflicts.length > 0 && !request.force) {
    throw new ComposeError(
      `refusing to overwrite ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} that ` +
        `cdk8s-compose did not generate (without the "${YAML_HEADER}" header, or changed since): ${conflicts.join(', ')}`,
      {
        hint:
          conflicts.length === 1
            ? 'move it away or choose another output folder, or pass --force to overwrite it'
            : 'move them away or choose another output folder, or pass --force to overwrite them',
      },
    );
  }

  const stale: string[] = [];
  const foreign: string[] = [];
  if (request.ownedFolders && rootStat) {
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory() || !request.ownedFolders.test(entry.name)) {
        continue;
      }
      for (const child of fs.readdirSync(path.join(root, entry.name), { withFileTypes: true })) {
        const relative = `${entry.name}/${child.name}`;
        if (!produced.has(relative)) {
          (child.isFile() && isOurs(relative) ? stale : foreign).push(relative);
        }
      }
    }
  }
  for (const relative of ledger?.listed() ?? []) {
    if (produced.has(relative)) {
      continue;
    }
    // lstat of each folder on the way, never through a link: a listed file behind a link is foreign.
    const linked = hasLinkOnTheWay(root, relative);
    const stat = linked ? undefined : lstatOrUndefinedQuiet(path.join(root, relative));
    if (linked || stat) {
      (stat?.isFile() && ledger!.isUnchanged(relative) ? stale : foreign).push(relative);
    }
  }
  if (ledger?.existed && !produced.has(ledger.file)) {
    stale.push(ledger.file);
  }

  if (!rootStat) {
    try {
      fs.mkdirSync(root, { recursive: true });
    } catch (err) {
      throw writeError(err, `cannot create the output folder ${rootName}`, 'choose an output folder you can write to');
    }
  }
  commit(root, rootName, files, stale, existing, request.beforeStep);
  return { written: [...produced].sort(), removed: stale.sort(), foreign: foreign.sort() };
}

/** One step of the commit: a file moved into place, or a stale file moved out. */
interface Move {
  /** Relative to the output folder. */
  readonly path: string;
  /** The new content, written beside the target first; undefined for a stale file that goes. */
  readonly temp?: string;
  /** Where the file that was there went, until the commit is done. */
  backup?: string;
  done?: boolean;
}

/**
 * All or nothing: the folders are checked writable, every new file is written beside its target (so that moving it
 * into place is a rename in one folder, which never crosses a mount), then the renames run; the files they replace
 * and the stale ones are moved aside first. Any failure puts every file back and removes what was added.
 */
function commit(
  root: string,
  rootName: string,
  files: readonly OutputFile[],
  stale: readonly string[],
  existing: ReadonlySet<string>,
  beforeStep: WriteRequest['beforeStep'],
): void {
  const folders = [
    ...new Set([...files.map((f) => path.posix.dirname(f.path)), ...stale.map((f) => path.posix.dirname(f))]),
  ].sort();
  for (const folder of folders) {
    const existing = nearestExisting(root, folder);
    try {
      fs.accessSync(path.join(root, existing), fs.constants.W_OK);
    } catch (err) {
      throw writeError(
        err,
        `cannot write into ${existing === '.' ? 'the output folder' : existing} in ${rootName}`,
        'make it writable by the user running the conversion, or choose another output folder',
        true,
      );
    }
  }
  const created: string[] = [];
  const moves: Move[] = [];
  const realRoot = fs.realpathSync(root);
  let step = '';
  try {
    for (const folder of folders) {
      const parts = folder === '.' ? [] : folder.split('/');
      for (let i = 1; i <= parts.length; i++) {
        const relative = parts.slice(0, i).join('/');
        if (!lstatOrUndefined(path.join(root, relative))) {
          step = relative;
          fs.mkdirSync(path.join(root, relative));
          created.push(relative);
        }
      }
    }
    folders.forEach((folder) => removeAbandonedFiles(path.join(root, folder)));
    files.forEach((file, index) => {
      step = file.path;
      const temp = `${path.posix.dirname(file.path)}/${STAGE_PREFIX}${process.pid}-${index}.new`;
      moves.push({ path: file.path, temp });
      beforeStep?.('write', file.path);
      writeConfined(root, realRoot, rootName, temp, file.content);
    });
    stale.forEach((file) => moves.push({ path: file }));
    moves.forEach((move, index) => {
      step = move.path;
      beforeStep?.('move', move.path);
      checkNoLink(root, rootName, move.path);
      const target = path.join(root, move.path);
      // A file the checks found (or a stale one) is moved aside at once: it is there unless it went since, and then
      // the rename says ENOENT, as the lstat would have. Any other file is looked for, in case one appeared since.
      if (move.temp === undefined || existing.has(move.path) || lstatOrUndefined(target)) {
        move.backup = `${path.posix.dirname(move.path)}/${STAGE_PREFIX}${process.pid}-${index}.old`;
        if (!renameUnlessMissing(target, path.join(root, move.backup))) {
          move.backup = undefined;
        }
      }
      if (move.temp) {
        fs.renameSync(path.join(root, move.temp), target);
      }
      move.done = true;
    });
  } catch (err) {
    rollBack(root, moves, created);
    throw isComposeError(err)
      ? err
      : writeError(
          err,
          `cannot write ${step} in the output folder ${rootName}`,
          'free the space or fix the permission, then convert again',
          true,
        );
  }
  for (const move of moves) {
    if (move.backup) {
      removeFile(path.join(root, move.backup));
    }
  }
  // Folders the removed files leave empty go too, never above the output folder.
  for (const file of stale) {
    for (
      let folder = path.posix.dirname(file);
      folder !== '.' && isEmptyFolder(path.join(root, folder));
      folder = path.posix.dirname(folder)
    ) {
      fs.rmdirSync(path.join(root, folder));
    }
  }
}

/**
 * Writes a new file by descriptor: created exclusively without following a link, then checked to be inside the
 * output folder on the open descriptor before any byte goes in (a folder swapped for a link gets an empty file at
 * most, which is removed at once).
 */
function writeConfined(
  root: string,
  realRoot: string,
  rootName: string,
  relative: string,
  content: string | Buffer,
): void {
  const fd = fs.openSync(
    path.join(root, relative),
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW,
    0o666,
  );
  try {
    const outside = descriptorOutside(fd, realRoot);
    if (outside !== undefined) {
      fs.rmSync(outside, { force: true });
      throw new ComposeError(
        `refusing to write into ${path.posix.dirname(relative)}, which changed into a symbolic link ` +
          `in the output folder ${rootName} during the conversion; nothing was written`,
        {
          hint: 'remove the link, or choose another output folder; cdk8s-compose never writes through a link',
        },
      );
    }
    fs.writeFileSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
}

/** Renames `from` to `to`; false when `from` is missing. */
function renameUnlessMissing(from: string, to: string): boolean {
  try {
    fs.renameSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return false;
    }
    throw err;
  }
}

/**
 * Removes a file moved aside. unlink alone in the common case (rmSync asks lstat first, and there is one such file per
 * file rewritten); whatever unlink refuses (a folder put there meanwhile) goes to rmSync, which answers as before.
 */
function removeFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    fs.rmSync(file, { force: true });
  }
}

/** Puts every moved file back and removes what the commit added. Best effort: each step runs even when one fails. */
function rollBack(root: string, moves: readonly Move[], created: readonly string[]): void {
  for (const move of [...moves].reverse()) {
    if (hasLinkOnTheWay(root, path.posix.dirname(move.path))) {
      // Its folder was swapped for a link: nothing is removed or moved through it.
      continue;
    }
    const attempt = (fn: () => void) => {
      try {
        fn();
      } catch {
        // Keep going: the other files must go back too.
      }
    };
    if (move.done && move.temp) {
      attempt(() => fs.unlinkSync(path.join(root, move.path)));
    }
    if (move.backup) {
      attempt(() => fs.renameSync(path.join(root, move.backup!), path.join(root, move.path)));
    }
    if (move.temp && !move.done) {
      attempt(() => fs.rmSync(path.join(root, move.temp!), { force: true }));
    }
  }
  [...created].reverse().forEach((folder) => removeIfEmpty(path.join(root, folder)));
}

/** The deepest part of `folder` (relative, `/` separators) that exists, `.` for the output folder itself. */
function nearestExisting(root: string, folder: string): string {
  let current = folder;
  while (current !== '.' && !lstatOrUndefined(path.join(root, current))) {
    current = path.posix.dirname(current);
  }
  return current;
}

/** Refuses a file whose folders became a symbolic link since the checks (the race the issue measured). */
function checkNoLink(root: string, rootName: string, relative: string): void {
  const parts = relative.split('/');
  for (let i = 1; i < parts.length; i++) {
    const folder = parts.slice(0, i).join('/');
    const stat = lstatOrUndefined(path.join(root, folder));
    if (!stat?.isDirectory()) {
      throw new ComposeError(
        `refusing to write into ${folder}, which changed into ${stat?.isSymbolicLink() ? 'a symbolic link' : 'something other than a folder'} ` +
          `in the output folder ${rootName} during the conversion; nothing was written`,
        {
          hint: 'remove the link, or choose another output folder; cdk8s-compose never writes through a link',
        },
      );
    }
  }
}
