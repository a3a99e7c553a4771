import * as fs from 'fs';
import * as path from 'path';
import { FileContent } from './model';

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

/** What is at an absolute path: a file (with its size), a directory, or nothing. */
export function statPath(absolute: string): { kind: 'file'; size: number } | { kind: 'directory' } | { kind: 'missing' } {
  try {
    const stat = fs.statSync(absolute);
    if (stat.isDirectory()) {
      return { kind: 'directory' };
    }
    return { kind: 'file', size: stat.size };
  } catch {
    return { kind: 'missing' };
  }
}

/** Reads a file for the model: UTF-8 text when it decodes cleanly and holds no NUL, base64 otherwise. */
export function readContent(written: string, absolute: string): FileContent {
  return contentOf(written, fs.readFileSync(absolute));
}

/** Wraps bytes as a `FileContent`. */
export function contentOf(written: string, bytes: Buffer): FileContent {
  const text = bytes.toString('utf8');
  const binary = bytes.includes(0) || !Buffer.from(text, 'utf8').equals(bytes);
  return { path: written, text: binary ? bytes.toString('base64') : text, binary };
}
