import * as fs from 'fs';
import * as path from 'path';
import { ComposeError, isComposeError } from '../../compose/errors';

// What the output writer checks on the file system: the headers that mark a file as the tool's, links on the way,
// processes that are gone, and file system errors in words.

export {
  JSON_HEADER,
  MARKDOWN_HEADER,
  STAGE_PREFIX,
  TEMPLATE_HEADER,
  YAML_HEADER,
  isGenerated,
} from '../../compose/tool-output';

/** One file of an output, by its path relative to the output folder (`/` separators). */
export interface OutputFile {
  readonly path: string;
  readonly content: string | Buffer;
}

/**
 * A file system error as a ComposeError: what failed, in words, without Node's text (which holds absolute paths),
 * with a fix for the code.
 */
export function writeError(err: unknown, what: string, fallbackHint: string, nothingWritten = false): ComposeError {
  if (isComposeError(err)) {
    return err;
  }
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const words: Record<string, [string, string]> = {
    ENOSPC: ['the disk is full', 'free some space on the disk of the output folder, or choose another output folder'],
    EDQUOT: ['the disk quota is used up', 'free some space, or choose another output folder'],
    EROFS: ['the file system is read-only', 'choose an output folder on a writable file system'],
    EACCES: [
      'permission denied',
      'make the folder writable by the user running the conversion, or choose another output folder',
    ],
    EPERM: [
      'permission denied',
      'make the folder writable by the user running the conversion, or choose another output folder',
    ],
    EXDEV: ['the folder is on another file system', 'choose an output folder whose sub-folders are on one file system'],
    ELOOP: ['a loop of symbolic links', 'remove the link loop, or choose another output folder'],
    ENOTDIR: ['a part of the path is a file, not a folder', 'move the file away, or choose another output folder'],
    ENOENT: ['a folder on the way does not exist', 'check the path of the output folder'],
    EEXIST: ['a file appeared there during the conversion', 'convert again'],
  };
  const [problem, hint] = (code && words[code]) ?? [code ? `write error ${code}` : 'write error', fallbackHint];
  return new ComposeError(`${what}: ${problem}${nothingWritten ? '; nothing was written' : ''}`, { hint });
}

/** True when the process runs (this one always does). */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) {
    return true;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes a folder when it is empty. */
export function removeIfEmpty(folder: string): void {
  try {
    fs.rmdirSync(folder);
  } catch {
    // Not empty, or gone: either way it is not ours to remove.
  }
}

/** True when a folder on the way to `relative`, or the file itself, is a symbolic link. */
export function hasLinkOnTheWay(root: string, relative: string): boolean {
  const parts = relative.split('/');
  for (let i = 1; i <= parts.length; i++) {
    if (lstatOrUndefinedQuiet(path.join(root, ...parts.slice(0, i)))?.isSymbolicLink()) {
      return true;
    }
  }
  return false;
}

/** True when `folder` is a folder with nothing in it. */
export function isEmptyFolder(folder: string): boolean {
  const stat = lstatOrUndefined(folder);
  return stat !== undefined && stat.isDirectory() && fs.readdirSync(folder).length === 0;
}

/** lstat that answers undefined for a path through a file (ENOTDIR) as for a missing one. */
export function lstatOrUndefinedQuiet(file: string): fs.Stats | undefined {
  try {
    return lstatOrUndefined(file);
  } catch {
    return undefined;
  }
}

/**
 * lstat that answers undefined for a missing file. Without an exception: the writer asks about thousands of files that
 * do not exist yet, and an error object with its stack for each was a tenth of a 1,000-service convert.
 */
export function lstatOrUndefined(file: string): fs.Stats | undefined {
  return fs.lstatSync(file, { throwIfNoEntry: false });
}
