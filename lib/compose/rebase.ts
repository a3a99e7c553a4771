import * as path from 'path';
import { YMap, YNode, YScalar, YSeq, keepMergeTag } from './yaml';

/**
 * Relative paths of a file that another one brings in (`extends.file`, `include`) resolve from that file's folder
 * (or the include's `project_directory`), as in compose. The loader resolves every path from the project folder, so
 * this rewrites the relative paths of such a file's tree to be relative to the project folder: `env_file`,
 * `label_file`, `build` (its context; a missing context is the file's folder), bind sources, `extends.file`, the
 * top-level `secrets` and `configs` files, and `include` entries. Absolute paths, `~` and URLs stay as written.
 */
export function rebasePaths(root: YMap, dir: string): YMap {
  const base = path.posix.normalize(dir);
  if (base === '.' || base === '') {
    return root;
  }
  const file = (node: YNode): YNode => mapScalar(node, (p) => rebase(p, base));
  return mapEntries(root, {
    services: (services) =>
      eachValue(services, (service) =>
        mapEntries(service, {
          // A build without a context builds this file's folder, unless it extends a service that names one.
          build: (node) =>
            node.kind === 'map'
              ? mapEntries(
                  service.kind === 'map' && service.entries.has('extends') ? node : withDefault(node, 'context', '.'),
                  { context: file },
                )
              : file(node),
          env_file: (node) =>
            stringOrList(node, (item) => (item.kind === 'map' ? mapEntries(item, { path: file }) : file(item))),
          label_file: (node) => stringOrList(node, file),
          volumes: (node) => (node.kind === 'seq' ? seq(node, (item) => volume(item, base)) : node),
          extends: (node) => (node.kind === 'map' ? mapEntries(node, { file }) : node),
        }),
      ),
    secrets: (secrets) => eachValue(secrets, (secret) => mapEntries(secret, { file })),
    configs: (configs) => eachValue(configs, (config) => mapEntries(config, { file })),
    include: (node) =>
      node.kind === 'seq'
        ? seq(node, (item) =>
            item.kind === 'map'
              ? mapEntries(item, {
                  path: (p) => stringOrList(p, file),
                  project_directory: file,
                  env_file: (e) => stringOrList(e, file),
                })
              : file(item),
          )
        : node,
  }) as YMap;
}

/** True for a path written as a URL or a git remote (a build context), which no folder changes. */
export function isRemote(written: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(written) || written.startsWith('git@') || written.startsWith('github.com/');
}

function rebase(written: string, base: string): string {
  if (
    written === '' ||
    path.posix.isAbsolute(written) ||
    written === '~' ||
    written.startsWith('~/') ||
    isRemote(written) ||
    /^[A-Za-z]:[\\/]/.test(written)
  ) {
    return written;
  }
  return path.posix.join(base, written);
}

/** A bind source of the short syntax must start with `.` to stay a bind (`sub/x` would name a volume). */
function volume(item: YNode, base: string): YNode {
  if (item.kind === 'scalar' && typeof item.value === 'string' && item.value.startsWith('.')) {
    const colon = item.value.indexOf(':');
    const source = colon < 0 ? undefined : item.value.slice(0, colon);
    if (source === undefined) {
      return item;
    }
    const moved = rebase(source, base);
    const shown = moved.startsWith('.') || moved.startsWith('/') ? moved : `./${moved}`;
    return { ...item, value: shown + item.value.slice(colon) };
  }
  if (item.kind === 'map') {
    const type = item.entries.get('type');
    if (type?.kind === 'scalar' && type.value === 'bind') {
      return mapEntries(item, { source: (node) => mapScalar(node, (p) => rebase(p, base)) });
    }
  }
  return item;
}

type Rewrite = (node: YNode) => YNode;

function mapEntries(node: YNode, rewrites: Readonly<Record<string, Rewrite>>): YNode {
  if (node.kind !== 'map') {
    return node;
  }
  const entries = new Map<string, YNode>();
  for (const [key, value] of node.entries) {
    const rewrite = rewrites[key];
    entries.set(key, rewrite ? keepMergeTag(value, rewrite(value)) : value);
  }
  return keepMergeTag(node, { kind: 'map', entries, at: node.at, keyAt: node.keyAt } as YMap) as YMap;
}

function withDefault(map: YMap, key: string, value: string): YMap {
  if (map.entries.has(key)) {
    return map;
  }
  const entries = new Map(map.entries);
  entries.set(key, { kind: 'scalar', value, at: map.at });
  return keepMergeTag(map, { kind: 'map', entries, at: map.at, keyAt: map.keyAt });
}

function eachValue(node: YNode, rewrite: Rewrite): YNode {
  if (node.kind !== 'map') {
    return node;
  }
  return mapEntries(
    node,
    Object.fromEntries([...node.entries.keys()].filter((k) => !k.startsWith('x-')).map((k) => [k, rewrite])),
  );
}

function seq(node: YSeq, rewrite: Rewrite): YSeq {
  return keepMergeTag(node, {
    kind: 'seq',
    items: node.items.map((item) => keepMergeTag(item, rewrite(item))),
    at: node.at,
    keyAt: node.keyAt,
  });
}

function stringOrList(node: YNode, rewrite: Rewrite): YNode {
  return node.kind === 'seq' ? seq(node, rewrite) : rewrite(node);
}

function mapScalar(node: YNode, rewrite: (text: string) => string): YNode {
  if (node.kind !== 'scalar' || typeof node.value !== 'string') {
    return node;
  }
  const value = rewrite(node.value);
  return value === node.value ? node : ({ ...node, value } as YScalar);
}
