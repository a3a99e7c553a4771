import * as fs from 'fs';
import * as path from 'path';
import { checkConfigKey } from './config-keys';
import { MAX_CONTENT_BYTES, markedContentOf, readContent, readProjectFile, resolveInProject, statPath } from './files';
import { ComposeLocation, VolumeMount } from './model';
import { Warn } from './read';
import { ToolOutput } from './tool-output';

// What a bind mount's source is: a file read for a ConfigMap, a folder walked for its files (bounded whatever its
// links do), or a host path that is not read. The tool's own output is never read back.

/** What reading a bind source needs from the loader. */
export interface BindContext {
  /** Absolute project folder (never written into the model). */
  readonly projectDir: string;
  readonly allowOutsideProject: boolean;
  /** The user's home folder, for `~` binds when paths outside the project are allowed. */
  readonly home?: string;
  /**
   * What the tool wrote: never read back (see `LoadComposeOptions.outputDir`).
   * @default - the marks only (staging folders, ledgers, the tool's header)
   */
  readonly toolOutput?: ToolOutput;
  readonly warn: Warn;
}

/** A Windows path: a drive (`C:\data`, `c:/data`) or a UNC or named-pipe path (`\\.\pipe\x`). */
export const WINDOWS_PATH = /^(?:[A-Za-z]:[\\/]|\\\\)/;

/** What a bind source is, reading a small single file's content. Nothing outside the project is touched. */
export function inspectBind(source: string, ctx: BindContext, at: ComposeLocation): NonNullable<VolumeMount['bind']> {
  if (WINDOWS_PATH.test(source)) {
    return { kind: 'outside' };
  }
  let absolute: string;
  const where = resolveInProject(ctx.projectDir, source);
  if (where.kind === 'inside') {
    absolute = where.absolute;
  } else if (!ctx.allowOutsideProject) {
    return { kind: 'outside' };
  } else if (source === '~' || source.startsWith('~/')) {
    if (ctx.home === undefined) {
      return { kind: 'outside' };
    }
    absolute = path.join(ctx.home, source.slice(1));
  } else {
    absolute = path.resolve(ctx.projectDir, source);
  }
  const stat = statPath(absolute);
  if (stat.kind === 'file' || stat.kind === 'directory') {
    toolOutputOf(ctx).refuse(absolute, source, 'the bound path', at);
  }
  if (stat.kind === 'special') {
    // A FIFO or socket bound into a container (e.g. a daemon's socket): a host resource, never read.
    ctx.warn(
      'special-bind-file',
      `the bound path "${source}" is not a regular file (a FIFO, socket or device) and was not read`,
      at,
    );
    return { kind: 'file' };
  }
  if (stat.kind === 'loop') {
    ctx.warn('special-bind-file', `the bound path "${source}" is a loop of symbolic links and was not read`, at);
    return { kind: 'missing' };
  }
  if (stat.kind === 'directory') {
    return readBindDirectory(source, absolute, ctx, at);
  }
  if (stat.kind !== 'file') {
    return { kind: stat.kind };
  }
  if (stat.size > MAX_CONTENT_BYTES) {
    ctx.warn('large-bind-file', `the bound file "${source}" is larger than 1 MiB and was not read`, at);
    return { kind: 'file' };
  }
  const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
  checkConfigKey(bindFileName(source), 'bound file', source, at);
  return { kind: 'file', content: readContent('bound file', source, absolute, at, { confineTo, singleLink: true }) };
}

/** The name a bound file is kept under: the last part of its path (as the app names its key). */
function bindFileName(source: string): string {
  const parts = source.split('/').filter((p) => p !== '' && p !== '.');
  return parts[parts.length - 1] ?? 'file';
}

/** Most files read from one bound directory; a larger tree is reported, not read. */
export const MAX_BIND_DIRECTORY_FILES = 256;
/** Most folders a bound directory's walk opens (each real folder once): a larger tree is reported, not read. */
export const MAX_BIND_DIRECTORY_FOLDERS = 256;
/** Deepest folder a bound directory's walk enters. */
const MAX_BIND_DIRECTORY_DEPTH = 8;

/** One file found below a bound directory: its path below the folder the walk started in, and its size. */
interface FoundFile {
  readonly relative: string;
  readonly absolute: string;
  readonly size: number;
}

/** The walk stopped: the tree is more than a ConfigMap holds, or more than the walk reads. */
class TreeTooLarge extends Error {}

/**
 * The files of a bound directory inside the project, for a ConfigMap, when they add up to at most 1 MiB (what a
 * ConfigMap holds): regular files only, sorted by their path below the directory, links that leave the project,
 * special files and what the tool wrote (see {@link ToolOutput}) left out. A larger tree keeps only its size, so the
 * app can say so.
 *
 * The work is bounded whatever the links do: each real folder is read once (a folder reached again through another
 * link gives the files found the first time), at most {@link MAX_BIND_DIRECTORY_FOLDERS} folders are read, at most
 * {@link MAX_BIND_DIRECTORY_FILES} files are listed, and a folder reached again inside itself (a loop) ends the walk.
 */
function readBindDirectory(
  source: string,
  absolute: string,
  ctx: BindContext,
  at: ComposeLocation,
): NonNullable<VolumeMount['bind']> {
  const output = toolOutputOf(ctx);
  const skipped: string[] = [];
  const walked = new Map<string, readonly FoundFile[]>();
  const inProgress = new Set<string>();
  let bytes = 0;
  const collect = (dir: string, depth: number): readonly FoundFile[] => {
    const real = realPath(dir);
    const known = walked.get(real);
    if (known !== undefined) {
      return known;
    }
    if (inProgress.has(real) || depth > MAX_BIND_DIRECTORY_DEPTH || walked.size >= MAX_BIND_DIRECTORY_FOLDERS) {
      throw new TreeTooLarge();
    }
    inProgress.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      throw new TreeTooLarge();
    }
    const found: FoundFile[] = [];
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = path.join(dir, entry.name);
      if (resolveInProject(ctx.projectDir, child).kind !== 'inside' && !ctx.allowOutsideProject) {
        continue;
      }
      const stat = statPath(child);
      const own =
        stat.kind === 'directory' ? output.folder(child) : stat.kind === 'file' ? output.file(child) : undefined;
      if (own !== undefined) {
        skipped.push(path.relative(absolute, child).split(path.sep).join('/'));
        continue;
      }
      if (stat.kind === 'directory') {
        for (const file of collect(child, depth + 1)) {
          found.push({ ...file, relative: `${entry.name}/${file.relative}` });
          if (found.length > MAX_BIND_DIRECTORY_FILES) {
            throw new TreeTooLarge();
          }
        }
      } else if (stat.kind === 'file') {
        found.push({ relative: entry.name, absolute: child, size: stat.size });
        bytes += stat.size;
        if (found.length > MAX_BIND_DIRECTORY_FILES) {
          throw new TreeTooLarge();
        }
      }
    }
    inProgress.delete(real);
    walked.set(real, found);
    return found;
  };
  let files: readonly FoundFile[];
  try {
    files = collect(absolute, 0);
  } catch (err) {
    if (!(err instanceof TreeTooLarge)) {
      throw err;
    }
    return { kind: 'directory', sizeBytes: bytes };
  }
  if (skipped.length > 0) {
    ctx.warn(
      'bind-skips-output',
      `the bound directory "${source}" holds what cdk8s-compose wrote (${skipped.slice(0, 3).join(', ')}` +
        `${skipped.length > 3 ? `, and ${skipped.length - 3} more` : ''}); it is left out of the mounted files`,
      at,
    );
  }
  // The files as mounted: a folder reached through two links is mounted, and counted, twice.
  bytes = files.reduce((sum, f) => sum + f.size, 0);
  if (bytes > MAX_CONTENT_BYTES) {
    return { kind: 'directory', sizeBytes: bytes };
  }
  const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
  const contents = files.map((f) => {
    const written = `${source.replace(/\/+$/, '')}/${f.relative}`;
    checkConfigKey(f.relative, 'bound file', written, at);
    return markedContentOf(
      f.relative,
      readProjectFile('bound file', written, f.absolute, at, { confineTo, singleLink: true }),
    );
  });
  return { kind: 'directory', sizeBytes: bytes, files: contents };
}

/** What the tool wrote, as the context knows it, or its marks alone. */
function toolOutputOf(ctx: BindContext): ToolOutput {
  return ctx.toolOutput ?? new ToolOutput(ctx.projectDir);
}

function realPath(dir: string): string {
  try {
    return fs.realpathSync.native(dir);
  } catch {
    return path.resolve(dir);
  }
}
