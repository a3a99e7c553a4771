import { ComposeError } from './errors';
import { INCLUDE_KEYS } from './keys';
import { ComposeLocation } from './model';
import { asSeq, asString, asStringList, checkKeys, isNull, optionalString } from './read';
import { toPlain, YMap, YNode } from './yaml';

/** One `include` entry of the compose specification, in its long form. */
export interface IncludeEntry {
  /** The files, merged in this order (later ones override), as written (relative to the including project). */
  readonly paths: readonly string[];
  /** The folder the included files' relative paths resolve from. @default - the folder of the first path */
  readonly projectDirectory?: string;
  /** Env files for the included files' interpolation. @default - `.env` in the project directory, if present */
  readonly envFiles?: readonly string[];
  readonly at: ComposeLocation;
}

const INCLUDE_ALLOWED = 'a list of paths, or of {path, project_directory, env_file}';

/** The entries of a top-level `include`, in all three forms: a path, `{path: file}` and `{path: [files], …}`. */
export function includeEntries(node: YNode | undefined): IncludeEntry[] {
  if (isNull(node)) {
    return [];
  }
  return asSeq(node!, { allowed: INCLUDE_ALLOWED }).items.map((item) => {
    if (item.kind !== 'map') {
      return { paths: [asString(item, { allowed: INCLUDE_ALLOWED })], at: item.at };
    }
    checkKeys(item, INCLUDE_KEYS, 'an include entry', undefined);
    const pathNode = item.entries.get('path');
    if (isNull(pathNode)) {
      throw new ComposeError('an include entry needs a path', { at: item.at, hint: 'add path: ./other/compose.yaml' });
    }
    const paths = asStringList(pathNode!, { single: true });
    if (paths.length === 0) {
      throw new ComposeError('an include entry needs a path', {
        at: pathNode!.at,
        hint: 'list at least one file under path',
      });
    }
    const envNode = item.entries.get('env_file');
    const projectDirectory = optionalString(item.entries.get('project_directory'));
    return {
      paths,
      ...(projectDirectory !== undefined ? { projectDirectory } : {}),
      ...(isNull(envNode) ? {} : { envFiles: asStringList(envNode!, { single: true }) }),
      at: item.at,
    };
  });
}

const RESOURCES = ['services', 'volumes', 'networks', 'secrets', 'configs'] as const;

/**
 * The including file's tree with the included projects' resources added. A name defined both by the file and by an
 * included project (or by two included projects, differently) is an error, as in compose; the same definition
 * included twice is one.
 */
export function mergeIncluded(
  root: YMap,
  included: readonly { readonly tree: YMap; readonly entry: IncludeEntry }[],
): YMap {
  if (included.length === 0) {
    return root;
  }
  const entries = new Map(root.entries);
  entries.delete('include');
  for (const kind of RESOURCES) {
    const own = root.entries.get(kind);
    const merged = new Map<string, YNode>(own?.kind === 'map' ? own.entries : []);
    const from = new Map<string, IncludeEntry>();
    for (const { tree, entry } of included) {
      const theirs = tree.entries.get(kind);
      if (theirs?.kind !== 'map') {
        continue;
      }
      for (const [name, value] of theirs.entries) {
        const existing = merged.get(name);
        if (existing !== undefined && JSON.stringify(toPlain(existing)) !== JSON.stringify(toPlain(value))) {
          const where = from.get(name);
          throw new ComposeError(`${kind}.${name} conflicts with the one included from ${entry.paths.join(', ')}`, {
            at: where === undefined ? existing.at : entry.at,
            hint: `rename one of them; ${where === undefined ? 'the file' : `the include of ${where.paths.join(', ')}`} defines ${kind}.${name} too`,
          });
        }
        if (existing === undefined) {
          merged.set(name, value);
          from.set(name, entry);
        }
      }
    }
    if (merged.size > 0 || own !== undefined) {
      entries.set(kind, { kind: 'map', entries: merged, at: own?.at ?? root.at, keyAt: own?.keyAt ?? root.keyAt });
    }
  }
  return { kind: 'map', entries, at: root.at, keyAt: root.keyAt };
}
