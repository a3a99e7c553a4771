import { Alias, Document, isAlias, isMap, isScalar, isSeq, LineCounter, Node as YamlNode, Scalar } from 'yaml';
import { ComposeError, isComposeError } from './errors';
import { ComposeLocation } from './model';
import { readBlockYaml } from './yaml-block';
import { DEFAULT_YAML_LIMITS, YamlLimits, parseChecked } from './yaml-tokens';
import { childPath, MergeTag, YMap, YNode, YScalar } from './yaml-tree';

export { childPath } from './yaml-tree';
export type { MergeTag, YMap, YNode, YScalar, YSeq } from './yaml-tree';

/** `to` with the merge tag of `from`: for the passes that rebuild nodes (interpolation, canonical forms). */
export function keepMergeTag<T extends YNode>(from: YNode, to: T): T {
  return from.mergeTag === undefined || to === from || to.mergeTag === from.mergeTag
    ? to
    : { ...to, mergeTag: from.mergeTag };
}

export { DEFAULT_YAML_LIMITS } from './yaml-tokens';
export type { YamlLimits } from './yaml-tokens';

/**
 * Parses one YAML document into the located tree. Throws `ComposeError` for malformed YAML, duplicate keys,
 * undefined or recursive aliases, and input past the limits.
 */
export function parseYaml(text: string, file: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): YNode | undefined {
  return readBlockYaml(text, file, limits) ?? parseYamlDocument(text, file, limits);
}

/**
 * {@link parseYaml} through the `yaml` library, for any YAML: what parseYaml does when the text leaves the block
 * subset that `readBlockYaml` reads.
 */
export function parseYamlDocument(text: string, file: string, limits: YamlLimits): YNode | undefined {
  const lineCounter = new LineCounter();
  let doc: Document.Parsed | undefined;
  try {
    doc = parseChecked(text, file, limits, lineCounter);
  } catch (err) {
    if (isComposeError(err)) {
      throw err;
    }
    throw new ComposeError('the YAML is nested too deeply to parse', {
      at: { file, path: '' },
      hint: 'a compose file needs only a few levels of nesting; check the file is really a compose file',
    });
  }
  const position = (offset: number | undefined): { line?: number; column?: number } => {
    if (offset === undefined) {
      return {};
    }
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const message = first.message.replace(/ at line \d+, column \d+:?[\s\S]*$/, '');
    throw new ComposeError(`invalid YAML: ${message}`, {
      at: { file, path: '', ...position(first.pos?.[0]) },
      hint:
        'fix the YAML syntax at that line (indentation, quotes, a missing ":" or closing bracket); ' +
        'yamllint shows the same spot',
    });
  }
  const walker = new Walker(file, limits, position);
  return walker.walk(doc.contents as YamlNode | null, '', 0);
}

/**
 * Builds the located tree in one walk of yaml's document. Aliases are resolved as the walk meets them: yaml's
 * Alias.resolve searches the whole document on each call, which an alias bomb turns into quadratic time. Anchors may
 * be redefined; an alias refers to the latest one before it in the text. The walk goes in the order of the text, so
 * it has met that anchor when it first meets the alias; it records no anchor inside an alias's expansion (earlier
 * text seen again), and an alias met again there keeps the target it had where it is written.
 */
class Walker {
  private nodes = 0;
  private aliases = 0;
  private readonly active = new Set<YamlNode>();
  private readonly anchors = new Map<string, YamlNode>();
  /** Each alias's target, from where the alias is written. */
  private readonly targets = new Map<Alias, YamlNode | undefined>();

  constructor(
    private readonly file: string,
    private readonly limits: YamlLimits,
    private readonly position: (offset: number | undefined) => { line?: number; column?: number },
  ) {}

  walk(node: YamlNode | null | undefined, path: string, depth: number, fallback?: ComposeLocation): YNode | undefined {
    const out = this.walkNode(node, path, depth, fallback);
    const tag = node && !isAlias(node) ? node.tag : undefined;
    return out && (tag === '!reset' || tag === '!override') ? { ...out, mergeTag: tag.slice(1) as MergeTag } : out;
  }

  private walkNode(
    node: YamlNode | null | undefined,
    path: string,
    depth: number,
    fallback?: ComposeLocation,
  ): YNode | undefined {
    if (node === null || node === undefined) {
      return undefined;
    }
    this.anchor(node);
    this.nodes += 1;
    if (this.nodes > this.limits.maxNodes) {
      // An alias bomb only when aliases did the expanding: a file that is simply large (50,000 services) is told so.
      throw new ComposeError(
        this.aliases > 0
          ? `the YAML expands to more than ${this.limits.maxNodes} values through anchors and aliases`
          : `the YAML holds more than ${this.limits.maxNodes} values`,
        {
          at: this.at(node, path),
          hint:
            this.aliases > 0
              ? "the file looks like an alias bomb; use each anchor a few times only, or raise the loader's limits.maxNodes if the file is genuine"
              : "a compose file holds a few thousand values at most; split the project, or raise the loader's limits.maxNodes if the file is genuine",
        },
      );
    }
    if (depth > this.limits.maxDepth) {
      throw new ComposeError(`the YAML is nested more than ${this.limits.maxDepth} levels deep`, {
        at: this.at(node, path),
        hint: 'a compose file needs only a few levels of nesting; check the file is really a compose file',
      });
    }
    if (isAlias(node)) {
      return this.walkAlias(node, path, depth);
    }
    if (isScalar(node)) {
      return this.scalar(node, path, fallback);
    }
    if (isMap(node)) {
      return this.walkMap(node, path, depth);
    }
    if (isSeq(node)) {
      const items: YNode[] = [];
      node.items.forEach((item, index) => {
        const itemPath = childPath(path, index);
        const child = this.walk(item as YamlNode | null, itemPath, depth + 1);
        items.push(child ?? { kind: 'scalar', value: null, at: this.at(node, itemPath) });
      });
      return { kind: 'seq', items, at: this.at(node, path) };
    }
    throw new ComposeError('unsupported YAML node', { at: this.at(node, path) });
  }

  private walkAlias(node: Alias, path: string, depth: number): YNode | undefined {
    this.aliases += 1;
    if (this.aliases > this.limits.maxAliases) {
      throw new ComposeError(`the YAML uses more than ${this.limits.maxAliases} aliases`, {
        at: this.at(node, path),
        hint: "the file looks like an alias bomb; raise the loader's limits.maxAliases if the file is genuine",
      });
    }
    // An alias keeps the anchor it had where it is written, also when an expansion meets it again later.
    if (!this.targets.has(node)) {
      this.targets.set(node, this.anchors.get(node.source));
    }
    const target = this.targets.get(node);
    if (!target) {
      throw new ComposeError(`alias *${node.source} refers to an anchor that is not defined before it`, {
        at: this.at(node, path),
        hint: `define &${node.source} earlier in the file`,
      });
    }
    if (this.active.has(target)) {
      throw new ComposeError(`alias *${node.source} refers to a value that contains it`, {
        at: this.at(node, path),
        hint: 'an alias cannot point into its own anchor',
      });
    }
    this.active.add(target);
    try {
      return this.walk(target, path, depth + 1);
    } finally {
      this.active.delete(target);
    }
  }

  private walkMap(node: import('yaml').YAMLMap, path: string, depth: number): YMap {
    const entries = new Map<string, YNode>();
    const merged = new Map<string, YNode>();
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      if (keyNode) {
        this.anchor(keyNode);
      }
      if (isScalar(keyNode) && keyNode.value === '<<' && keyNode.type === 'PLAIN') {
        this.mergeInto(merged, pair.value as YamlNode | null, path, depth);
        continue;
      }
      const key = this.keyOf(keyNode, path);
      const keyAt = this.at(keyNode as YamlNode, childPath(path, key));
      if (entries.has(key)) {
        throw new ComposeError(`duplicate key "${key}": the keys of a YAML map must be unique`, {
          at: keyAt,
          hint: 'remove one of the two, or merge what they hold',
        });
      }
      const value = this.walk(pair.value as YamlNode | null, childPath(path, key), depth + 1, keyAt);
      entries.set(key, value ? { ...value, keyAt } : { kind: 'scalar', value: null, at: keyAt, keyAt });
    }
    // Keys written in the map win over merged ones; among merged maps the first one wins (YAML merge key spec).
    for (const [key, value] of merged) {
      if (!entries.has(key)) {
        entries.set(key, value);
      }
    }
    return { kind: 'map', entries, at: this.at(node, path) };
  }

  private mergeInto(merged: Map<string, YNode>, source: YamlNode | null, path: string, depth: number): void {
    const sources = isSeq(source) ? (source.items as YamlNode[]) : [source];
    for (const item of sources) {
      const value = this.walk(item, path, depth + 1);
      if (!value || value.kind !== 'map') {
        throw new ComposeError('a merge key "<<" must refer to a map or a list of maps', {
          at: value?.at ?? { file: this.file, path },
          allowed: '<<: *anchor or <<: [*anchor1, *anchor2], where each anchor is a map',
        });
      }
      for (const [key, child] of value.entries) {
        if (!merged.has(key)) {
          merged.set(key, child);
        }
      }
    }
  }

  /** Records the node's anchor, unless the walk is inside an alias's expansion (text met before). */
  private anchor(node: YamlNode): void {
    if (node.anchor && !isAlias(node) && this.active.size === 0) {
      this.anchors.set(node.anchor, node);
    }
  }

  private keyOf(keyNode: YamlNode | null, path: string): string {
    // Plain keys are taken as written: `NULL:`, `yes:` or `1.0:` name a variable or label, not a YAML value.
    if (isScalar(keyNode) && keyNode.type === 'PLAIN' && typeof keyNode.source === 'string' && keyNode.source !== '') {
      return keyNode.source;
    }
    if (isScalar(keyNode) && keyNode.value !== null && typeof keyNode.value !== 'object') {
      return String(keyNode.value);
    }
    throw new ComposeError('a map key must be a string', {
      at: keyNode ? this.at(keyNode, path) : { file: this.file, path },
      hint: 'write keys as plain text, for example `image:`',
    });
  }

  private scalar(node: Scalar, path: string, fallback?: ComposeLocation): YScalar {
    const raw = node.value;
    let value: string | number | boolean | null;
    if (raw === null || typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
      value = raw;
    } else if (typeof raw === 'bigint') {
      value = Number(raw);
    } else {
      value = String(raw);
    }
    const at = node.range ? this.at(node, path) : (fallback ?? { file: this.file, path });
    if (node.type === 'PLAIN' && typeof node.source === 'string') {
      return { kind: 'scalar', value, at, plain: node.source };
    }
    return { kind: 'scalar', value, at };
  }

  private at(node: YamlNode, path: string): ComposeLocation {
    return { file: this.file, path, ...this.position(node.range?.[0]) };
  }
}

/** The plain JavaScript value of a located node (for `x-` extensions and quoting values in messages). */
export function toPlain(node: YNode | undefined): unknown {
  if (!node) {
    return null;
  }
  switch (node.kind) {
    case 'scalar':
      return node.value;
    case 'seq':
      return node.items.map(toPlain);
    case 'map': {
      const out: Record<string, unknown> = {};
      for (const key of [...node.entries.keys()].sort()) {
        out[key] = toPlain(node.entries.get(key));
      }
      return out;
    }
  }
}

/** What a message may quote for a node: the text as written where interpolation changed it. */
export function quotable(node: YNode): unknown {
  if (node.kind === 'scalar' && node.written !== undefined) {
    return node.written;
  }
  return toPlain(node);
}

/** A readable name of a node's type for messages. */
export function kindName(node: YNode | undefined): string {
  if (!node || (node.kind === 'scalar' && node.value === null)) {
    return 'nothing (null)';
  }
  if (node.kind === 'map') {
    return 'a map';
  }
  if (node.kind === 'seq') {
    return 'a list';
  }
  return typeof node.value === 'string' ? 'a string' : typeof node.value === 'number' ? 'a number' : 'a boolean';
}
