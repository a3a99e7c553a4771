import * as fs from 'fs';
import * as path from 'path';
import { ComposeError } from './errors';
import { ComposeLocation, FileContent } from './model';

/** Largest file the loader reads into the model (secret, config and single-file bind contents). */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/** Where a path written in a compose file points, seen from the project folder. */
export type ProjectPath =
  | { readonly kind: 'inside'; readonly absolute: string }
  | { readonly kind: 'outside' };

/**
 * Resolves a path as written (relative to the project folder, or absolute) and says whether it stays inside the
 * project folder. Symbolic links are followed where they exist, so a link inside the project that points out of
 * it counts as outside. `~` paths are always outside.
 */
export function resolveInProject(projectDir: string, written: string): ProjectPath {
  if (written === '~' || written.startsWith('~/')) {
    return { kind: 'outside' };
  }
  const absolute = path.resolve(projectDir, written);
  const root = realOrSelf(projectDir);
  if (!isWithin(projectDir, absolute) || !isWithin(root, realOrSelf(absolute))) {
    return { kind: 'outside' };
  }
  return { kind: 'inside', absolute };
}

function isWithin(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The real path of a file, or of its nearest existing ancestor joined with the rest, so missing files resolve. */
function realOrSelf(target: string): string {
  let current = target;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) {
        return target;
      }
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

/**
 * What is at an absolute path: a regular file (with its size), a directory, something else (a FIFO, a socket or a
 * device: reading one can block forever or never end, so the loader never reads them), or nothing.
 */
export function statPath(absolute: string):
  { kind: 'file'; size: number } | { kind: 'directory' } | { kind: 'special' } | { kind: 'missing' } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    return { kind: 'missing' };
  }
  if (stat.isDirectory()) {
    return { kind: 'directory' };
  }
  return stat.isFile() ? { kind: 'file', size: stat.size } : { kind: 'special' };
}

/**
 * Reads a file the compose file names; a read error (permission denied, a directory, a vanished file) becomes a
 * `ComposeError` naming the file as written and the key path. `what` says what the file is, e.g. `env file`.
 */
export function readProjectFile(what: string, written: string, absolute: string, at: ComposeLocation): Buffer {
  try {
    return fs.readFileSync(absolute);
  } catch (err) {
    throw new ComposeError(`cannot read ${what} "${written}": ${describeFsError(err)}`, {
      at,
      hint: 'make the file readable by the user running the conversion, or fix the path',
    });
  }
}

/**
 * The text of a file that must be text (a compose file, an env file): UTF-8 without NUL and without the control
 * characters YAML and env files cannot hold (tab, line feed and carriage return are fine). Otherwise a `ComposeError`
 * says it is not a text file, where the first offending byte is, and what the file should be.
 */
export function textOf(what: string, written: string, bytes: Buffer, at: ComposeLocation): string {
  const text = bytes.toString('utf8');
  let offset = -1;
  let why = '';
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    const bad = text.indexOf('\ufffd');
    offset = bad < 0 ? 0 : Buffer.byteLength(text.slice(0, bad), 'utf8');
    why = `byte 0x${bytes[offset].toString(16).padStart(2, '0')} is not UTF-8`;
  } else {
    const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.exec(text);
    if (control) {
      offset = Buffer.byteLength(text.slice(0, control.index), 'utf8');
      why = `it holds the control character 0x${control[0].charCodeAt(0).toString(16).padStart(2, '0')}`;
    }
  }
  if (offset < 0) {
    return text;
  }
  const before = bytes.subarray(0, offset).toString('utf8');
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  // The place is in the file itself when the location is that file; otherwise (an env_file named in compose.yaml) the
  // location stays the key that names it, and the message gives the place.
  const inFile = at.file === written;
  throw new ComposeError(`${what} "${written}" is not a text file: ${why}${inFile ? '' : ` (line ${line}, column ${column})`}`, {
    at: inFile ? { ...at, line, column } : at,
    allowed: 'UTF-8 text',
    hint: `check that "${written}" is the ${what} (not an image, archive or other binary file), or save it as UTF-8`,
  });
}

/** Reads a file for the model: UTF-8 text when it decodes cleanly and holds no NUL, base64 otherwise. */
export function readContent(what: string, written: string, absolute: string, at: ComposeLocation): FileContent {
  return contentOf(written, readProjectFile(what, written, absolute, at));
}

/** Wraps bytes as a `FileContent`. */
export function contentOf(written: string, bytes: Buffer): FileContent {
  const text = bytes.toString('utf8');
  const binary = bytes.includes(0) || !Buffer.from(text, 'utf8').equals(bytes);
  return { path: written, text: binary ? bytes.toString('base64') : text, binary };
}

/** A file system error in words, without the absolute path Node puts in its message (messages stay machine-free). */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOENT':
      return 'it does not exist';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return code ? `read error ${code}` : 'read error';
  }
}
