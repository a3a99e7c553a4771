import * as fs from 'fs';
import * as path from 'path';
import { ComposeError, isComposeError } from '../../compose/errors';
import { descriptorOutside } from '../../compose/files';
import {
  OutputFile,
  STAGE_PREFIX,
  hasLinkOnTheWay,
  isEmptyFolder,
  isRunning,
  lstatOrUndefined,
  removeIfEmpty,
  writeError,
} from './output-files';

// The commit of the output writer (lib/cli/output/output.ts): the files written, moved into place and rolled back.

/** Called before each file is written (`write`) and before each is moved into place (`move`). For tests of races. */
export type BeforeStep = (step: 'write' | 'move', relative: string) => void;

/** One step of the commit: a file moved into place, or a stale file moved out. */
interface Move {
  /** Relative to the output folder. */
  readonly path: string;
  /** The new content, written beside the target (or in its new folder) first; undefined for a stale file that goes. */
  readonly temp?: string;
  /** Where the file that was there went, until the commit is done. */
  backup?: string;
  done?: boolean;
}

/**
 * A folder the output adds. It is made under a staging name beside its place, its files are written in it under
 * their own names, and it is renamed into place whole: its files need no rename of their own, and no check of their
 * folder or look for a file in their way each, and none is ever seen in place half-written.
 */
interface NewFolder {
  /** Relative to the output folder. */
  readonly path: string;
  /** The staging name, relative to the output folder. */
  readonly temp: string;
  /** Its files, in the order of the output. */
  readonly moves: Move[];
  /** The staging folder as made (device, inode): the folder renamed into place must be this one. */
  identity?: string;
  renamed?: boolean;
}

/**
 * All or nothing: the folders are checked writable, every new file is written beside its target (or in its new
 * folder, under a staging name beside the folder's place), so that moving it into place is a rename in one folder,
 * which never crosses a mount; then the renames run, and the files they replace and the stale ones are moved aside
 * first. Any failure puts every file back and removes what was added. `found` holds the files the checks found.
 */
export function commit(
  root: string,
  rootName: string,
  files: readonly OutputFile[],
  stale: readonly string[],
  found: ReadonlySet<string>,
  beforeStep: BeforeStep | undefined,
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
  const added = new Map<string, NewFolder>();
  /** The new folder `relative` is in (or is). */
  const addedOf = (relative: string): NewFolder | undefined => {
    for (let end = relative.indexOf('/'); ; end = relative.indexOf('/', end + 1)) {
      const folder = added.get(end < 0 ? relative : relative.slice(0, end));
      if (folder || end < 0) {
        return folder;
      }
    }
  };
  /** Where `relative` is now: under its new folder's staging name until that folder is renamed into place. */
  const now = (relative: string): string => {
    const folder = addedOf(relative);
    return folder && !folder.renamed ? `${folder.temp}${relative.slice(folder.path.length)}` : relative;
  };
  const realRoot = fs.realpathSync(root);
  let step = '';
  try {
    for (const folder of folders) {
      const parts = folder === '.' ? [] : folder.split('/');
      for (let i = 1; i <= parts.length; i++) {
        const relative = parts.slice(0, i).join('/');
        const inAdded = addedOf(relative) !== undefined;
        if (inAdded ? created.includes(relative) : lstatOrUndefined(path.join(root, relative))) {
          continue;
        }
        step = relative;
        if (inAdded) {
          fs.mkdirSync(path.join(root, now(relative)));
          created.push(relative);
          continue;
        }
        const temp = `${path.posix.dirname(relative)}/${STAGE_PREFIX}${process.pid}-${added.size}.dir`;
        fs.mkdirSync(path.join(root, temp));
        const folderAdded: NewFolder = { path: relative, temp, moves: [] };
        added.set(relative, folderAdded);
        created.push(relative);
        folderAdded.identity = identityOf(lstatOrUndefined(path.join(root, temp)));
      }
    }
    // What a killed run staged goes first: in the folders written into, beside the new ones, and in the output folder.
    const addedParents = [...added.keys()].map((folder) => path.posix.dirname(folder));
    [...new Set(['.', ...folders.filter((folder) => !addedOf(folder)), ...addedParents])].forEach((folder) =>
      removeAbandoned(path.join(root, folder)),
    );
    files.forEach((file, index) => {
      step = file.path;
      const folder = addedOf(file.path);
      const temp = folder
        ? now(file.path)
        : `${path.posix.dirname(file.path)}/${STAGE_PREFIX}${process.pid}-${index}.new`;
      const move: Move = { path: file.path, temp };
      moves.push(move);
      folder?.moves.push(move);
      beforeStep?.('write', file.path);
      writeConfined(root, realRoot, rootName, temp, path.posix.dirname(file.path), file.content);
    });
    stale.forEach((file) => moves.push({ path: file }));
    moves.forEach((move, index) => {
      if (move.done) {
        // Moved with its new folder.
        return;
      }
      const folder = move.temp === undefined ? undefined : addedOf(move.path);
      if (folder) {
        folder.moves.forEach((m) => {
          step = m.path;
          beforeStep?.('move', m.path);
        });
        step = move.path;
        moveFolder(root, rootName, folder);
        return;
      }
      step = move.path;
      beforeStep?.('move', move.path);
      checkNoLink(root, rootName, move.path);
      const target = path.join(root, move.path);
      // A file the checks found (or a stale one) is moved aside at once: it is there unless it went since, and then
      // the rename says ENOENT, as the lstat would have. Any other file is looked for, in case one appeared since.
      if (move.temp === undefined || found.has(move.path) || lstatOrUndefined(target)) {
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
    rollBack(root, moves, created.map(now));
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
 * Renames a new folder into place, with its files: its place must still be free and the folders above it folders,
 * and what lands there must be the staging folder as made (not a link or another folder swapped in for it).
 */
function moveFolder(root: string, rootName: string, folder: NewFolder): void {
  checkNoLink(root, rootName, folder.path);
  const target = path.join(root, folder.path);
  if (lstatOrUndefined(target)) {
    throw Object.assign(new Error(`EEXIST: ${folder.path}`), { code: 'EEXIST' });
  }
  fs.renameSync(path.join(root, folder.temp), target);
  folder.renamed = true;
  folder.moves.forEach((move) => (move.done = true));
  const stat = lstatOrUndefined(target);
  if (!stat?.isDirectory() || identityOf(stat) !== folder.identity) {
    throw changedError(folder.path, rootName, stat?.isSymbolicLink() ? 'a symbolic link' : 'another folder');
  }
}

/** A folder's device and inode, which no swap can keep. */
function identityOf(stat: fs.Stats | undefined): string | undefined {
  return stat && `${stat.dev}:${stat.ino}`;
}

/** Removes what a process that is gone staged here (killed between writing and moving): files, and new folders. */
function removeAbandoned(folder: string): void {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const match = /^\.cdk8s-compose-(\d+)-\d+\.(new|dir)$/.exec(entry.name);
    if (match && (match[2] === 'new' ? entry.isFile() : entry.isDirectory()) && !isRunning(Number(match[1]))) {
      fs.rmSync(path.join(folder, entry.name), { recursive: match[2] === 'dir', force: true });
    }
  }
}

/**
 * Writes a new file by descriptor: created exclusively without following a link, then checked to be inside the
 * output folder on the open descriptor before any byte goes in (a folder swapped for a link gets an empty file at
 * most, which is removed at once). `folder` is the file's folder as messages name it.
 */
function writeConfined(
  root: string,
  realRoot: string,
  rootName: string,
  relative: string,
  folder: string,
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
      throw changedError(folder, rootName, 'a symbolic link');
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

/**
 * Puts every moved file back and removes what the commit added (`created`: the folders it made, where they are now).
 * Best effort: each step runs even when one fails.
 */
function rollBack(root: string, moves: readonly Move[], created: readonly string[]): void {
  for (const move of [...moves].reverse()) {
    // The folder touched: the target's, or the staged file's while it is not in place (in a new folder, they differ).
    const folder = path.posix.dirname(move.temp !== undefined && !move.done ? move.temp : move.path);
    if (hasLinkOnTheWay(root, folder)) {
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
      throw changedError(
        folder,
        rootName,
        stat?.isSymbolicLink() ? 'a symbolic link' : 'something other than a folder',
      );
    }
  }
}

/** A folder of the output that changed during the conversion. */
function changedError(folder: string, rootName: string, what: string): ComposeError {
  return new ComposeError(
    `refusing to write into ${folder}, which changed into ${what} ` +
      `in the output folder ${rootName} during the conversion; nothing was written`,
    {
      hint: 'remove the link, or choose another output folder; cdk8s-compose never writes through a link',
    },
  );
}
