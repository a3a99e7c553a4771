import * as fs from 'fs';
import * as path from 'path';
import { ComposeError } from './errors';
import { ComposeLocation, FileContent } from './model';
import { secretFileKind } from './secret-files';

/** Largest file the loader reads into the model (secret, config and single-file bind contents). */
export const MAX_CONTENT_BYTES = 1024 * 1024;

/** Where a path written in a compose file points, seen from the project folder. */
export type ProjectPath = { readonly kind: 'inside'; readonly absolute: string } | { readonly kind: 'outside' };

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
      return path.join(fs.realpathSync.native(current), ...rest);
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
 * device: reading one can block forever or never end, so the loader never reads them), or nothing. A loop of
 * symbolic links reads as `loop`.
 */
export function statPath(
  absolute: string,
):
  | { kind: 'file'; size: number }
  | { kind: 'directory' }
  | { kind: 'special' }
  | { kind: 'missing' }
  | { kind: 'loop' } {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ELOOP' ? { kind: 'loop' } : { kind: 'missing' };
  }
  if (stat.isDirectory()) {
    return { kind: 'directory' };
  }
  return stat.isFile() ? { kind: 'file', size: stat.size } : { kind: 'special' };
}

/** How {@link readConfined} reads. */
export interface ConfinedReadOptions {
  /**
   * The folder the file must be in. It is checked twice: on the resolved path before the open, and on the open
   * descriptor after it, so that a link swapped in between is caught.
   * @default - anywhere
   */
  readonly confineTo?: string;
  /** Largest size read, in bytes: a larger file is not read past this. */
  readonly maxBytes: number;
  /**
   * Refuse a file with more than one hard link (checked on the open descriptor): its other name may be outside the
   * project, where no path check reaches.
   * @default false
   */
  readonly singleLink?: boolean;
  /**
   * Called between the path check and the open, where a swapped link would slip in. For tests of that race only.
   * @default - nothing
   */
  readonly afterCheck?: () => void;
}

/** What {@link readConfined} found. Only `file` carries bytes; every other kind read nothing. */
export type ConfinedRead =
  | { readonly kind: 'file'; readonly bytes: Buffer }
  | { readonly kind: 'missing' }
  | { readonly kind: 'directory' }
  | { readonly kind: 'special' }
  | { readonly kind: 'loop' }
  | { readonly kind: 'outside' }
  | { readonly kind: 'hard-link'; readonly links: number }
  | { readonly kind: 'too-large' };

/**
 * The one way the project reads a file it was pointed at (compose files, env files, secret, config and bound files,
 * the output's ledger). It resolves the path, checks that it stays inside `confineTo`, opens the resolved path with
 * `O_NOFOLLOW` (a link swapped in after the check fails the open) and `O_NONBLOCK` (a FIFO never blocks), and then
 * checks the open descriptor itself: a regular file (`fstat`), inside `confineTo` (the descriptor's own path), at
 * most `maxBytes`. What is checked is what is read. Other file system errors are thrown as they are.
 */
export function readConfined(absolute: string, options: ConfinedReadOptions): ConfinedRead {
  const root = options.confineTo === undefined ? undefined : realOrSelf(path.resolve(options.confineTo));
  let real: string;
  try {
    real = fs.realpathSync.native(absolute);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { kind: 'missing' };
    }
    if (code === 'ELOOP') {
      return { kind: 'loop' };
    }
    throw err;
  }
  if (root !== undefined && !isWithin(root, real)) {
    return { kind: 'outside' };
  }
  options.afterCheck?.();
  let fd: number;
  try {
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return { kind: 'missing' };
    }
    if (code === 'ELOOP' || code === 'EMLINK') {
      // The last part of the path became a link after the check.
      return root === undefined ? { kind: 'loop' } : { kind: 'outside' };
    }
    if (code === 'ENXIO') {
      return { kind: 'special' };
    }
    throw err;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) {
      return { kind: 'directory' };
    }
    if (!stat.isFile()) {
      return { kind: 'special' };
    }
    if (root !== undefined && !isWithin(root, descriptorPath(fd) ?? real)) {
      // A folder on the way became a link after the check.
      return { kind: 'outside' };
    }
    if (options.singleLink && stat.nlink > 1) {
      return { kind: 'hard-link', links: stat.nlink };
    }
    if (stat.size > options.maxBytes) {
      return { kind: 'too-large' };
    }
    const bytes = readAtMost(fd, options.maxBytes + 1);
    return bytes.length > options.maxBytes ? { kind: 'too-large' } : { kind: 'file', bytes };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where an open descriptor is, when it is outside `root` (a real path): the descriptor's own path, so that what was
 * opened through a swapped link can be named and removed. Undefined when it is inside, or the system does not say.
 */
export function descriptorOutside(fd: number, root: string): string | undefined {
  const where = descriptorPath(fd);
  return where !== undefined && !isWithin(root, where) ? where : undefined;
}

/** The path an open descriptor refers to (Linux's /proc/self/fd), or undefined where the system does not say. */
function descriptorPath(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * The buffer every read goes through (reads are synchronous, so one is enough): a zeroed 64 KiB buffer per file cost
 * more than the reading of the small files a project names.
 */
const SCRATCH = Buffer.alloc(64 * 1024);

/** Reads up to `limit` bytes: a file that grows while it is read cannot make the read unbounded. */
function readAtMost(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const read = fs.readSync(fd, SCRATCH, 0, Math.min(SCRATCH.length, limit - total), null);
    if (read === 0) {
      break;
    }
    chunks.push(Buffer.from(SCRATCH.subarray(0, read)));
    total += read;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/** The `maxBytes` as people say it: `1 MiB`, `2 MiB`, or bytes. */
export function sizeInWords(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/** Where a file named in the project lies, for {@link readProjectFile}. */
export interface ProjectFileOptions {
  /**
   * The folder the file must stay in.
   * @default - anywhere (the user allowed files outside the project, or named the file on the command line)
   */
  readonly confineTo?: string;
  /**
   * Largest size read.
   * @default MAX_CONTENT_BYTES
   */
  readonly maxBytes?: number;
  /** For tests of the race between check and open: see {@link ConfinedReadOptions.afterCheck}. */
  readonly afterCheck?: () => void;
  /**
   * Refuse a file with more than one hard link (a bound file: see {@link ConfinedReadOptions.singleLink}).
   * @default false
   */
  readonly singleLink?: boolean;
}

/**
 * Reads a file the compose project names, through {@link readConfined}; anything but a regular file of bounded size
 * inside the allowed folder becomes a `ComposeError` naming the file as written and the key path, never a raw `fs`
 * error. `what` says what the file is, e.g. `env file`.
 */
export function readProjectFile(
  what: string,
  written: string,
  absolute: string,
  at: ComposeLocation,
  options: ProjectFileOptions = {},
): Buffer {
  const maxBytes = options.maxBytes ?? MAX_CONTENT_BYTES;
  let found: ConfinedRead;
  try {
    found = readConfined(absolute, {
      confineTo: options.confineTo,
      maxBytes,
      afterCheck: options.afterCheck,
      singleLink: options.singleLink,
    });
  } catch (err) {
    throw new ComposeError(`cannot read ${what} "${written}": ${describeFsError(err)}`, {
      at,
      hint: 'make the file readable by the user running the conversion, or fix the path',
    });
  }
  switch (found.kind) {
    case 'file':
      return found.bytes;
    case 'missing':
      throw new ComposeError(`${what} "${written}" not found`, { at, hint: `create ${written}, or fix the path` });
    case 'directory':
      throw new ComposeError(`${what} "${written}" is a directory`, { at, hint: 'point it at a file' });
    case 'special':
      throw new ComposeError(`${what} "${written}" is not a regular file (a FIFO, socket or device) and was not read`, {
        at,
        hint: 'point it at a regular file',
      });
    case 'loop':
      throw new ComposeError(`${what} "${written}" is a loop of symbolic links`, {
        at,
        hint: 'make the link point at a file',
      });
    case 'outside':
      throw new ComposeError(
        `${what} "${written}" is outside the project folder (through a symbolic link) and was not read`,
        {
          at,
          allowed: 'a file inside the folder of the compose file',
          hint: 'move the file into the project folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project)',
        },
      );
    case 'hard-link':
      throw new ComposeError(
        `${what} "${written}" has ${found.links} hard links and was not read: another name of the same file can be ` +
          'outside the project, where no path check reaches',
        {
          at,
          allowed: 'a file with one link',
          hint: `replace it with a copy of its own (cp "${written}" tmp && mv tmp "${written}")`,
        },
      );
    case 'too-large':
      throw new ComposeError(`${what} "${written}" is larger than ${sizeInWords(maxBytes)}`, {
        at,
        hint: 'make the file smaller; the limit keeps a hostile file from filling the memory',
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
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
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
  throw new ComposeError(
    `${what} "${written}" is not a text file: ${why}${inFile ? '' : ` (line ${line}, column ${column})`}`,
    {
      at: inFile ? { ...at, line, column } : at,
      allowed: 'UTF-8 text',
      hint: `check that "${written}" is the ${what} (not an image, archive or other binary file), or save it as UTF-8`,
    },
  );
}

/**
 * The files one load has read, by absolute path, folder and size limit: a file that several references name is read
 * (resolved, checked, opened) once. Only what was read is kept, so every refusal is made, with each reference's own
 * words, where a reference names the file.
 */
export class ReadOnce {
  private readonly read = new Map<string, Buffer>();

  /** {@link readProjectFile}, or the bytes it gave for the same file before. */
  public bytes(
    what: string,
    written: string,
    absolute: string,
    at: ComposeLocation,
    options: ProjectFileOptions = {},
  ): Buffer {
    const key = `${absolute}\0${options.confineTo ?? ''}\0${options.maxBytes ?? MAX_CONTENT_BYTES}\0${options.singleLink === true}`;
    let bytes = this.read.get(key);
    if (bytes === undefined) {
      bytes = readProjectFile(what, written, absolute, at, options);
      this.read.set(key, bytes);
    }
    return bytes;
  }

  /** True when the file was read already (with these options). */
  public has(absolute: string, options: ProjectFileOptions = {}): boolean {
    return this.read.has(
      `${absolute}\0${options.confineTo ?? ''}\0${options.maxBytes ?? MAX_CONTENT_BYTES}\0${options.singleLink === true}`,
    );
  }
}

/**
 * Reads a file for the model: UTF-8 text when it decodes cleanly and holds no NUL, base64 otherwise; marked when it is
 * secret by nature.
 */
export function readContent(
  what: string,
  written: string,
  absolute: string,
  at: ComposeLocation,
  options: ProjectFileOptions = {},
): FileContent {
  return markedContentOf(written, readProjectFile(what, written, absolute, at, options));
}

/** Wraps bytes as a `FileContent`. */
export function contentOf(written: string, bytes: Buffer): FileContent {
  const text = bytes.toString('utf8');
  const binary = bytes.includes(0) || !Buffer.from(text, 'utf8').equals(bytes);
  return { path: written, text: binary ? bytes.toString('base64') : text, binary };
}

/**
 * Wraps the bytes of a file that may end up in a ConfigMap (a bound file, a config) as a `FileContent`, marked
 * `secret` when the file is secret by nature (see `secretFileKind`).
 */
export function markedContentOf(written: string, bytes: Buffer): FileContent {
  const secret = secretFileKind(written, bytes);
  return { ...contentOf(written, bytes), ...(secret !== undefined ? { secret } : {}) };
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
      return 'a loop of symbolic links';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return code ? `read error ${code}` : 'read error';
  }
}
