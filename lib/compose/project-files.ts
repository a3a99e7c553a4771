import * as fs from 'fs';
import * as path from 'path';
import { parseDotenv } from './dotenv';
import { ComposeError } from './errors';
import { readProjectFile, resolveInProject, textOf } from './files';
import { includeEntries, IncludeEntry, mergeIncluded } from './include';
import { interpolateTree, UnsetVariableHandler, VariableLookup } from './interpolate';
import { canonicalize, mergeFiles, resolveExtends } from './merge';
import { ComposeLocation } from './model';
import { isNull } from './read';
import { rebasePaths } from './rebase';
import { ToolOutput } from './tool-output';
import { YMap, YNode } from './yaml';

/** Most includes one project takes, counting a file each time an include names it. */
export const MAX_INCLUDES = 256;

export interface ComposeFilesSettings {
  /** Absolute project folder; paths in the files are relative to it once rebased. */
  readonly projectDir: string;
  readonly allowOutsideProject: boolean;
  /** What the tool wrote: an include or an include's env file there is refused. */
  readonly toolOutput: ToolOutput;
  /** Reads and parses a compose file named relative to the project folder (not interpolated). */
  read(written: string, at: ComposeLocation): YMap;
  readonly onUnset: UnsetVariableHandler;
}

/**
 * The files a project brings in (`extends.file`, `include`), each read once per environment, their paths rebased
 * onto the project folder, their own includes and extends resolved.
 */
export class ComposeFiles {
  private readonly extended = new Map<string, { readonly key: string; readonly root: YMap }>();
  /** Included files already expanded, by file, folder and environment: a file included again is not read again. */
  private readonly included = new Map<string, YMap>();
  /** Include entries' files taken so far, memoised ones too, against {@link MAX_INCLUDES}. */
  private includeCount = 0;
  /** The environment each lookup stands for, as text: the include env files' values on the way to it. */
  private readonly scopes = new WeakMap<VariableLookup, string>();
  private readonly projectDir: string;

  constructor(private readonly settings: ComposeFilesSettings) {
    this.projectDir = settings.projectDir;
  }

  /**
   * A file's tree, interpolated with `lookup`, its relative paths made relative to the project folder (they were
   * relative to `dir`), its includes merged in and its extends resolved. `chain` holds the files including it.
   */
  expand(root: YMap, dir: string, lookup: VariableLookup, chain: readonly string[]): YMap {
    // The file's key for resolveExtends is its absolute path: a service reached again through any file is a cycle.
    const key = path.resolve(this.projectDir, chain[chain.length - 1]);
    return resolveExtends(
      this.prepare(root, dir, lookup, chain),
      (written, at) => this.extendsFile(written, at, lookup, chain),
      key,
    );
  }

  /** A file's tree interpolated, rebased and with its includes merged in; its extends are still to resolve. */
  private prepare(root: YMap, dir: string, lookup: VariableLookup, chain: readonly string[]): YMap {
    const tree = rebasePaths(canonicalize(interpolateTree(root, lookup, this.settings.onUnset) as YMap), dir);
    const included = includeEntries(tree.entries.get('include')).map((entry) => ({
      entry,
      tree: this.include(entry, lookup, chain),
    }));
    return mergeIncluded(tree, included);
  }

  /**
   * A file named by `extends.file`, prepared once per including project, with its extends left to resolveExtends,
   * which follows them service by service and so sees a cycle through files (a file extending itself included).
   */
  private extendsFile(
    written: string,
    at: ComposeLocation,
    lookup: VariableLookup,
    chain: readonly string[],
  ): { key: string; root: YMap } {
    const cacheKey = `${chain[0]}\0${written}`;
    let tree = this.extended.get(cacheKey);
    if (!tree) {
      this.checkInside(written, 'extends: file', at);
      tree = {
        key: path.resolve(this.projectDir, written),
        root: this.prepare(this.settings.read(written, at), path.posix.dirname(written), lookup, chain),
      };
      this.extended.set(cacheKey, tree);
    }
    return tree;
  }

  /** One include entry: its files merged as a project of their own, with their own environment. */
  private include(entry: IncludeEntry, outer: VariableLookup, chain: readonly string[]): YMap {
    const dir = entry.projectDirectory ?? path.posix.dirname(entry.paths[0]);
    entry.paths.forEach((file) => this.checkInside(file, 'include', entry.at));
    const values = new Map<string, string>();
    const envFiles = entry.envFiles ?? [path.posix.join(dir, '.env')];
    for (const file of envFiles) {
      this.checkInside(file, 'include: env_file', entry.at);
      const absolute = path.resolve(this.projectDir, file);
      if (!isFile(absolute)) {
        if (entry.envFiles === undefined) {
          continue;
        }
        throw new ComposeError(`include: env file "${file}" not found`, {
          at: entry.at,
          hint: 'create it, or fix env_file',
        });
      }
      const confineTo = this.settings.allowOutsideProject ? undefined : this.projectDir;
      const text = textOf(
        'env file',
        file,
        readProjectFile('env file', file, absolute, entry.at, { confineTo }),
        entry.at,
      );
      for (const variable of parseDotenv(text, file, (name) => outer(name) ?? values.get(name))) {
        if (variable.value !== undefined) {
          values.set(variable.name, variable.value);
        }
      }
    }
    // The including project's environment wins over the include's env files, as in compose.
    const lookup: VariableLookup = (name) => outer(name) ?? values.get(name);
    const scope = `${this.scopes.get(outer) ?? ''}\0${JSON.stringify([...values])}`;
    this.scopes.set(lookup, scope);
    const trees = entry.paths.map((file) => {
      if (chain.includes(file)) {
        throw new ComposeError(`include cycle detected: ${[...chain, file].join(' → ')}`, {
          at: entry.at,
          hint: 'remove the include that brings a file back in',
        });
      }
      this.includeCount += 1;
      if (this.includeCount > MAX_INCLUDES) {
        throw new ComposeError(`the project includes more than ${MAX_INCLUDES} files (counting each include)`, {
          at: entry.at,
          value: file,
          hint: 'include each file once; a file included by several files is merged once anyway',
        });
      }
      // The same file, in the same folder and environment, expands to the same tree: a diamond of includes is
      // expanded once per file, not once per path to it.
      const key = `${file}\0${dir}\0${scope}`;
      let tree = this.included.get(key);
      if (tree === undefined) {
        tree = resolveEnvironment(
          this.expand(this.settings.read(file, entry.at), dir, lookup, [...chain, file]),
          values,
        );
        this.included.set(key, tree);
      }
      return tree;
    });
    return mergeFiles(trees);
  }

  private checkInside(written: string, what: string, at: ComposeLocation): void {
    this.settings.toolOutput.refuse(path.resolve(this.projectDir, written), written, what, at);
    if (!this.settings.allowOutsideProject && resolveInProject(this.projectDir, written).kind === 'outside') {
      throw new ComposeError(`${what} "${written}" is outside the project folder and was not read`, {
        at,
        hint: 'move it into the project folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project)',
      });
    }
  }
}

/**
 * `environment` entries without a value and `build.args` without one take their value from the included project's
 * env files, which the rest of the project does not see.
 */
function resolveEnvironment(root: YMap, values: ReadonlyMap<string, string>): YMap {
  const services = root.entries.get('services');
  if (values.size === 0 || services?.kind !== 'map') {
    return root;
  }
  const fill = (map: YNode | undefined): YNode | undefined => {
    if (map?.kind !== 'map') {
      return map;
    }
    const entries = new Map<string, YNode>();
    for (const [name, value] of map.entries) {
      const given = values.get(name);
      entries.set(
        name,
        isNull(value) && given !== undefined ? { kind: 'scalar', value: given, at: value.at, written: '' } : value,
      );
    }
    return { ...map, entries };
  };
  const out = new Map<string, YNode>();
  for (const [name, service] of services.entries) {
    if (service.kind !== 'map') {
      out.set(name, service);
      continue;
    }
    const entries = new Map(service.entries);
    if (entries.has('environment')) {
      entries.set('environment', fill(entries.get('environment'))!);
    }
    const build = entries.get('build');
    if (build?.kind === 'map' && build.entries.has('args')) {
      entries.set('build', {
        ...build,
        entries: new Map([...build.entries, ['args', fill(build.entries.get('args'))!]]),
      });
    }
    out.set(name, { ...service, entries });
  }
  return { ...root, entries: new Map([...root.entries, ['services', { ...services, entries: out }]]) };
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
