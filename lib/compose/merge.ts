import { ComposeError } from './errors';
import { splitShort } from './volumes';
import { childPath, keepMergeTag, YMap, YNode, YScalar, YSeq } from './yaml';

/**
 * Canonical forms and the merge of several compose files, following the compose specification's merge rules
 * (`13-merge.md`): maps merge key by key, later files win for scalars, sequences append, with these exceptions:
 * - `command`, `entrypoint` and `healthcheck.test` are replaced;
 * - `ports` are unique by their host IP, published port, target and protocol; `volumes` by target;
 *   `secrets` and `configs` by target (or source);
 * - `environment`, `labels`, `annotations`, `sysctls`, `extra_hosts`, `build.args`, `deploy.labels`,
 *   `depends_on` and `networks` are turned into maps first and merge by key;
 * - plain string lists (`dns`, `cap_add`, `expose`, `profiles`, …) append the entries not already present;
 * - a value tagged `!override` replaces what earlier files gave, and one tagged `!reset` removes the attribute.
 */

/** Service keys written as a list of `KEY=value` or a map; merged by key. */
const LIST_OR_DICT_KEYS = new Set(['environment', 'labels', 'annotations', 'sysctls']);

/** Service keys written as a string or a list of strings. */
const STRING_OR_LIST_KEYS = new Set(['dns', 'dns_search', 'dns_opt', 'tmpfs', 'env_file', 'label_file']);

/** Service keys whose list entries are unique by value. */
const UNIQUE_LIST_KEYS = new Set([
  'cap_add',
  'cap_drop',
  'devices',
  'dns',
  'dns_opt',
  'dns_search',
  'env_file',
  'expose',
  'external_links',
  'group_add',
  'links',
  'profiles',
  'security_opt',
  'tmpfs',
  'volumes_from',
  'device_cgroup_rules',
  'label_file',
]);

/** Service keys replaced as a whole by a later file. */
const REPLACED_KEYS = new Set(['command', 'entrypoint']);

/**
 * Rewrites one file's services into canonical form so that files can be merged: list-or-map keys become maps,
 * list `depends_on` and `networks` become maps, and string-or-list keys become lists. Other shapes are left for
 * the normaliser to report.
 */
export function canonicalize(root: YMap): YMap {
  const services = root.entries.get('services');
  if (!services || services.kind !== 'map') {
    return root;
  }
  const out = new Map<string, YNode>();
  for (const [name, service] of services.entries) {
    out.set(name, service.kind === 'map' ? canonicalizeService(service) : service);
  }
  const entries = new Map(root.entries);
  entries.set(
    'services',
    keepMergeTag(services, { kind: 'map', entries: out, at: services.at, keyAt: services.keyAt }),
  );
  return keepMergeTag(root, { kind: 'map', entries, at: root.at, keyAt: root.keyAt });
}

function canonicalizeService(service: YMap): YMap {
  const entries = new Map<string, YNode>();
  for (const [key, value] of service.entries) {
    let next = value;
    if (LIST_OR_DICT_KEYS.has(key)) {
      next = listToMap(value, '=');
    } else if (key === 'extra_hosts') {
      next = listToMap(value, 'host');
    } else if (key === 'depends_on' || key === 'networks') {
      next = namesToMap(value, key === 'depends_on');
    } else if (STRING_OR_LIST_KEYS.has(key) && value.kind === 'scalar' && typeof value.value === 'string') {
      next = { kind: 'seq', items: [value], at: value.at, keyAt: value.keyAt };
    } else if (key === 'build' && value.kind === 'map') {
      next = withEntry(value, 'args', listToMap);
    } else if (key === 'deploy' && value.kind === 'map') {
      next = withEntry(value, 'labels', listToMap);
    }
    entries.set(key, keepMergeTag(value, next));
  }
  return keepMergeTag(service, { kind: 'map', entries, at: service.at, keyAt: service.keyAt });
}

function withEntry(map: YMap, key: string, rewrite: (node: YNode, separator: '=') => YNode): YMap {
  const value = map.entries.get(key);
  if (!value) {
    return map;
  }
  const entries = new Map(map.entries);
  entries.set(key, keepMergeTag(value, rewrite(value, '=')));
  return keepMergeTag(map, { kind: 'map', entries, at: map.at, keyAt: map.keyAt });
}

/** `["A=1", "B"]` → `{A: "1", B: null}`; for `extra_hosts`, `host:ip` or `host=ip`. Maps pass through. */
function listToMap(node: YNode, separator: '=' | 'host'): YNode {
  if (node.kind !== 'seq' || !node.items.every((item) => item.kind === 'scalar' && typeof item.value === 'string')) {
    return node;
  }
  const entries = new Map<string, YNode>();
  for (const item of node.items as YScalar[]) {
    const text = item.value as string;
    let index = text.indexOf('=');
    if (separator === 'host' && index < 0) {
      index = text.indexOf(':');
    }
    const key = index < 0 ? text : text.slice(0, index);
    // The value's own written text (after `KEY=`) when the key was written as it reads, else the item's whole text.
    const written = item.written?.startsWith(`${key}=`) ? item.written.slice(key.length + 1) : item.written;
    const value: YScalar =
      index < 0
        ? { kind: 'scalar', value: null, at: item.at }
        : { kind: 'scalar', value: text.slice(index + 1), at: item.at, ...(written !== undefined ? { written } : {}) };
    entries.set(key, value);
  }
  return { kind: 'map', entries, at: node.at, keyAt: node.keyAt };
}

/** `[db, cache]` → `{db: {condition: service_started}, cache: …}` (depends_on) or `{db: null, …}` (networks). */
function namesToMap(node: YNode, dependsOn: boolean): YNode {
  if (node.kind !== 'seq' || !node.items.every((item) => item.kind === 'scalar' && typeof item.value === 'string')) {
    return node;
  }
  const entries = new Map<string, YNode>();
  for (const item of node.items as YScalar[]) {
    const name = item.value as string;
    if (dependsOn) {
      entries.set(name, {
        kind: 'map',
        entries: new Map<string, YNode>([['condition', { kind: 'scalar', value: 'service_started', at: item.at }]]),
        at: item.at,
      });
    } else {
      entries.set(name, { kind: 'scalar', value: null, at: item.at });
    }
  }
  return { kind: 'map', entries, at: node.at, keyAt: node.keyAt };
}

/** Merges the canonical trees of several files, later files overriding earlier ones. */
export function mergeFiles(trees: readonly YMap[]): YMap {
  let result = trees[0];
  for (const tree of trees.slice(1)) {
    result = mergeMaps(result, tree, '', mergeTopLevelValue);
  }
  return withoutResets(result) as YMap;
}

/**
 * The tree without the attributes tagged `!reset` that are left once the files are merged: those of the first
 * file, and those of later files that had nothing to reset. Tags are dropped, so no later merge sees them.
 */
export function withoutResets(node: YNode): YNode {
  // An untagged list or map whose values did not change is returned as it is (most files have no tags); a copy is
  // made from the first value that changes.
  switch (node.kind) {
    case 'map': {
      let entries: Map<string, YNode> | undefined;
      let index = 0;
      for (const [key, value] of node.entries) {
        const next = value.mergeTag === 'reset' ? undefined : withoutResets(value);
        if (next !== value && entries === undefined) {
          entries = new Map([...node.entries].slice(0, index));
        }
        if (next !== undefined) {
          entries?.set(key, next);
        }
        index += 1;
      }
      if (entries === undefined && node.mergeTag === undefined) {
        return node;
      }
      return { kind: 'map', entries: entries ?? new Map(node.entries), at: node.at, keyAt: node.keyAt };
    }
    case 'seq': {
      let items: YNode[] | undefined;
      node.items.forEach((item, index) => {
        const next = item.mergeTag === 'reset' ? undefined : withoutResets(item);
        if (next !== item && items === undefined) {
          items = node.items.slice(0, index);
        }
        if (next !== undefined) {
          items?.push(next);
        }
      });
      if (items === undefined && node.mergeTag === undefined) {
        return node;
      }
      return { kind: 'seq', items: items ?? [...node.items], at: node.at, keyAt: node.keyAt };
    }
    default:
      return node.mergeTag === undefined ? node : { ...node, mergeTag: undefined };
  }
}

type ValueMerger = (base: YNode, override: YNode, key: string, path: string) => YNode;

function mergeMaps(base: YMap, override: YMap, path: string, mergeValue: ValueMerger): YMap {
  const entries = new Map(base.entries);
  for (const [key, value] of override.entries) {
    const existing = entries.get(key);
    if (value.mergeTag === 'reset') {
      // Kept, tagged, so that a later file or the final pass removes it; what earlier files gave goes now.
      entries.set(key, value);
    } else {
      entries.set(
        key,
        existing && existing.mergeTag !== 'reset' && value.mergeTag !== 'override'
          ? mergeValue(existing, value, key, childPath(path, key))
          : value,
      );
    }
  }
  return keepMergeTag(override, { kind: 'map', entries, at: base.at, keyAt: base.keyAt });
}

function mergeTopLevelValue(base: YNode, override: YNode, key: string, path: string): YNode {
  if (key === 'services' && base.kind === 'map' && override.kind === 'map') {
    return mergeMaps(base, override, path, (b, o, _name, servicePath) =>
      b.kind === 'map' && o.kind === 'map' ? mergeMaps(b, o, servicePath, mergeServiceValue) : o,
    );
  }
  return mergeGeneric(base, override, key, path);
}

function mergeServiceValue(base: YNode, override: YNode, key: string, path: string): YNode {
  if (REPLACED_KEYS.has(key) || base.kind !== override.kind) {
    return override;
  }
  if (base.kind === 'seq' && override.kind === 'seq') {
    switch (key) {
      case 'ports':
        return mergeUnique(base, override, portKey);
      case 'volumes':
        return mergeUnique(base, override, volumeTarget);
      case 'secrets':
        return mergeUnique(base, override, (node) => fileReferenceTarget(node, '/run/secrets/'));
      case 'configs':
        return mergeUnique(base, override, (node) => fileReferenceTarget(node, '/'));
      default:
        return UNIQUE_LIST_KEYS.has(key) ? mergeUnique(base, override, scalarKey) : append(base, override);
    }
  }
  if (key === 'healthcheck' && base.kind === 'map' && override.kind === 'map') {
    return mergeMaps(base, override, path, (b, o, k, p) => (k === 'test' ? o : mergeGeneric(b, o, k, p)));
  }
  return mergeGeneric(base, override, key, path);
}

function mergeGeneric(base: YNode, override: YNode, _key: string, path: string): YNode {
  if (base.kind === 'map' && override.kind === 'map') {
    return mergeMaps(base, override, path, mergeGeneric);
  }
  if (base.kind === 'seq' && override.kind === 'seq') {
    return append(base, override);
  }
  return override;
}

function append(base: YSeq, override: YSeq): YSeq {
  return { kind: 'seq', items: [...base.items, ...override.items], at: base.at, keyAt: base.keyAt };
}

/** Appends override entries; an entry with the same key as an earlier one replaces it in place. */
function mergeUnique(base: YSeq, override: YSeq, keyOf: (node: YNode) => string | undefined): YSeq {
  const items = [...base.items];
  for (const item of override.items) {
    const key = keyOf(item);
    const index = key === undefined ? -1 : items.findIndex((existing) => keyOf(existing) === key);
    if (index >= 0) {
      items[index] = item;
    } else {
      items.push(item);
    }
  }
  return { kind: 'seq', items, at: base.at, keyAt: base.keyAt };
}

function scalarKey(node: YNode): string | undefined {
  return node.kind === 'scalar' && node.value !== null ? String(node.value) : undefined;
}

function entryText(map: YMap, key: string): string | undefined {
  const value = map.entries.get(key);
  return value && value.kind === 'scalar' && value.value !== null ? String(value.value) : undefined;
}

function portKey(node: YNode): string | undefined {
  if (node.kind === 'scalar') {
    return scalarKey(node);
  }
  if (node.kind === 'map') {
    return JSON.stringify(['host_ip', 'published', 'target', 'protocol'].map((key) => entryText(node, key) ?? ''));
  }
  return undefined;
}

/** The container path of a short (`src:/dst:ro`) or long volume entry. */
export function volumeTarget(node: YNode): string | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    const parts = splitShort(node.value);
    return parts.length === 1 ? parts[0] : parts[1];
  }
  return node.kind === 'map' ? entryText(node, 'target') : undefined;
}

function fileReferenceTarget(node: YNode, prefix: string): string | undefined {
  if (node.kind === 'scalar') {
    return node.value === null ? undefined : prefix + String(node.value);
  }
  if (node.kind === 'map') {
    const target = entryText(node, 'target') ?? entryText(node, 'source');
    return target === undefined ? undefined : target.startsWith('/') ? target : prefix + target;
  }
  return undefined;
}

/**
 * Loads another compose file named by `extends.file`, interpolated and canonical but with its own `extends` not yet
 * resolved, with a key that is the same for every name of the same file (its absolute path).
 */
export type ExtendsFileLoader = (written: string, at: YNode['at']) => { readonly key: string; readonly root: YMap };

/** Longest chain of `extends`: compose sets no limit, but a deeper chain is a hostile file, not a real project. */
export const MAX_EXTENDS_DEPTH = 64;

/** A chain for a message: its first three and last two links when it is long. */
export function shortChain(chain: readonly string[]): string {
  return chain.length <= 6
    ? chain.join(' → ')
    : [...chain.slice(0, 3), `… (${chain.length - 5} more)`, ...chain.slice(-2)].join(' → ');
}

/**
 * Resolves `extends` in one file's services: the base service (from this file, or from `extends.file`) is merged
 * under the service, recursively. A service reached again on the way (in any file) closes a cycle, and a chain
 * longer than {@link MAX_EXTENDS_DEPTH} is refused: both are located errors that name the chain.
 * `fileKey` is this file's key, as the loader's keys are made (its absolute path).
 */
export function resolveExtends(root: YMap, loadFile: ExtendsFileLoader, fileKey = ''): YMap {
  const services = root.entries.get('services');
  if (!services || services.kind !== 'map') {
    return root;
  }
  const resolved = new Map<string, YNode>();
  // Every service resolved in this call, by file key and name; and the chain being resolved, as keys and as names.
  const done = new Map<string, YNode>();
  const resolving: string[] = [];
  const names: string[] = [];
  const keyOf = (file: string, name: string) => `${file}\0${name}`;

  const resolveIn = (pool: YMap, poolKey: string, poolName: string | undefined, name: string): YNode => {
    const key = keyOf(poolKey, name);
    const cached = done.get(key);
    if (cached) {
      return cached;
    }
    const service = pool.entries.get(name) as YNode;
    if (service.kind !== 'map' || !service.entries.has('extends')) {
      return service;
    }
    const label = poolName === undefined ? name : `${poolName}:${name}`;
    if (resolving.includes(key)) {
      throw new ComposeError(`services extend each other in a cycle: ${shortChain([...names, label])}`, {
        at: (service.entries.get('extends') as YNode).at,
        hint: 'remove one of the extends, so that no service extends itself',
      });
    }
    if (resolving.length >= MAX_EXTENDS_DEPTH) {
      throw new ComposeError(
        `the chain of extends is longer than ${MAX_EXTENDS_DEPTH} services: ${shortChain([...names, label])}`,
        {
          at: (service.entries.get('extends') as YNode).at,
          hint: 'extend a shared base service directly instead of through a long chain',
        },
      );
    }
    resolving.push(key);
    names.push(label);
    try {
      const ext = service.entries.get('extends') as YNode;
      let baseName: string;
      let file: string | undefined;
      if (ext.kind === 'scalar' && typeof ext.value === 'string') {
        baseName = ext.value;
      } else if (ext.kind === 'map' && ext.entries.get('service')?.kind === 'scalar') {
        baseName = String((ext.entries.get('service') as YScalar).value);
        const fileNode = ext.entries.get('file');
        file = fileNode && fileNode.kind === 'scalar' && fileNode.value !== null ? String(fileNode.value) : undefined;
      } else {
        throw new ComposeError('invalid extends', {
          at: ext.at,
          allowed: 'a service name, or {service, file}',
          hint: 'write extends: {service: base} or extends: {service: base, file: common.yaml}',
        });
      }
      let basePool = pool;
      let baseKey = poolKey;
      let baseFile = poolName;
      if (file !== undefined) {
        const other = loadFile(file, ext.at);
        const otherServices = other.root.entries.get('services');
        if (!otherServices || otherServices.kind !== 'map') {
          throw new ComposeError(`extends: file "${file}" has no services`, { at: ext.at });
        }
        basePool = otherServices;
        baseKey = other.key;
        baseFile = file;
      }
      if (!basePool.entries.has(baseName)) {
        throw new ComposeError(`extends: service "${baseName}" not found${file ? ` in ${file}` : ''}`, {
          at: ext.at,
          hint: 'name a service defined in that file',
        });
      }
      const base = resolveIn(basePool, baseKey, baseFile, baseName);
      const own = new Map(service.entries);
      own.delete('extends');
      const ownMap: YMap = { kind: 'map', entries: own, at: service.at, keyAt: service.keyAt };
      if (base.kind !== 'map') {
        return ownMap;
      }
      const baseMap: YMap = {
        kind: 'map',
        entries: new Map([...base.entries].filter(([k]) => k !== 'extends')),
        at: service.at,
      };
      const merged = mergeMaps(baseMap, ownMap, service.at.path, mergeServiceValue);
      done.set(key, merged);
      return merged;
    } finally {
      resolving.pop();
      names.pop();
    }
  };

  for (const name of services.entries.keys()) {
    resolved.set(name, resolveIn(services, fileKey, undefined, name));
  }
  const entries = new Map(root.entries);
  entries.set('services', { kind: 'map', entries: resolved, at: services.at, keyAt: services.keyAt });
  return { kind: 'map', entries, at: root.at, keyAt: root.keyAt };
}
