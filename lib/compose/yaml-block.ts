import { Document, isScalar } from 'yaml';
import { ComposeLocation } from './model';
import { childPath, YMap, YNode, YSeq } from './yaml-tree';
import { COMPOSER_OPTIONS, YamlLimits } from './yaml-tokens';

// The common shape of a compose file, read without the `yaml` library: block maps and lists, one-line plain and
// quoted scalars, comments. yaml's lexer, parser and composer build three trees for a file (tokens, syntax nodes,
// document nodes) before the walk builds the located tree; for a generated 1,000-service file that is most of the
// load. This reader builds the located tree straight from the text, and gives up (undefined) at the first thing
// outside that shape: anchors, aliases, tags, flow collections, block scalars, multi-line scalars, escapes, tabs,
// non-ASCII text, a duplicate key, or anything yaml might refuse. The full reader then reads the file as before,
// with its checks and messages; test/compose/yaml-block.test.ts compares both readers on every case.

/** Raised to leave the reader; caught in {@link readBlockYaml}. */
class Outside extends Error {}
const OUTSIDE = new Outside('outside the block subset');

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** Characters a plain scalar cannot start with (indicators, reserved), as YAML 1.2 says. */
const NOT_PLAIN_START = new Set([...',[]{}#&*!|>\'"%@`'].map((c) => c.charCodeAt(0)));

/** yaml's longest implicit key; longer keys are its error. */
const MAX_KEY = 1024;

/** A key of the subset: ASCII letters, digits, `_`, `.`, `-`, `/`, starting with a letter, digit or `_`. */
function isKeyChar(code: number, first: boolean): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f ||
    (!first && (code === 0x2e || code === DASH || code === 0x2f))
  );
}

interface ScalarTag {
  readonly default?: boolean | 'key';
  readonly test?: RegExp;
  resolve(value: string, onError: (message: string) => void, options: object): unknown;
}

/** yaml's own schema for the composer's options: plain scalars resolve to the values the composer gives them. */
let plainTags: { readonly tags: readonly ScalarTag[]; readonly options: object } | undefined;

function resolvePlain(source: string): string | number | boolean | null {
  if (!plainTags) {
    const doc = new Document(undefined, COMPOSER_OPTIONS);
    const tags = (doc.schema.tags as unknown as ScalarTag[]).filter((tag) => tag.default === true && tag.test);
    plainTags = { tags, options: doc.options };
  }
  const tag = plainTags.tags.find((t) => t.test!.test(source));
  if (!tag) {
    return source;
  }
  let failed = false;
  let resolved: unknown;
  try {
    resolved = tag.resolve(source, () => (failed = true), plainTags.options);
  } catch {
    failed = true;
  }
  if (failed) {
    throw OUTSIDE; // the composer's error
  }
  const raw = isScalar(resolved) ? resolved.value : resolved;
  if (raw === null || typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
    return raw;
  }
  return typeof raw === 'bigint' ? Number(raw) : String(raw);
}

/**
 * The located tree of a compose file in the block subset, exactly as {@link parseYaml}'s full reader builds it; or
 * undefined when the text leaves the subset, is not a non-empty map, or passes a limit (the full reader then says
 * so in its own words).
 */
export function readBlockYaml(text: string, file: string, limits: YamlLimits): YMap | undefined {
  // yaml's token check counts two indicators on a line such as `- key: value`.
  if (limits.maxDepth < 2) {
    return undefined;
  }
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if ((code < SPACE && code !== NEWLINE) || code > 0x7e) {
      return undefined;
    }
  }
  try {
    return new BlockReader(text, file, limits).root();
  } catch (err) {
    if (err === OUTSIDE) {
      return undefined;
    }
    throw err;
  }
}

class BlockReader {
  private nodes = 0;
  /** The current content line: its start, end (the newline or the end of text), indentation and number. */
  private start = 0;
  private end = -1;
  private indent = -1;
  private line = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
    private readonly limits: YamlLimits,
  ) {}

  root(): YMap {
    this.nextContent();
    if (this.indent !== 0) {
      throw OUTSIDE;
    }
    const root = this.map(this.start, 0, '', undefined);
    if (this.start < this.text.length) {
      throw OUTSIDE;
    }
    return root;
  }

  /** Moves to the next line that holds more than spaces and a comment; indent -1 at the end of the text. */
  private nextContent(): void {
    const text = this.text;
    let start = this.end + 1;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length;
      }
      this.line += 1;
      let i = start;
      while (i < end && text.charCodeAt(i) === SPACE) {
        i += 1;
      }
      if (i < end && text.charCodeAt(i) !== HASH) {
        this.start = start;
        this.end = end;
        this.indent = i - start;
        return;
      }
      start = end + 1;
    }
    this.start = text.length;
    this.end = text.length;
    this.indent = -1;
  }

  private at(offset: number, path: string): ComposeLocation {
    return { file: this.file, path, line: this.line, column: offset - this.start + 1 };
  }

  /** Counts a value against the limits, as the walk of the full reader does. */
  private count(depth: number): void {
    this.nodes += 1;
    if (this.nodes > this.limits.maxNodes || depth > this.limits.maxDepth) {
      throw OUTSIDE;
    }
  }

  /** Whether the current line holds a list item (`-` then a space or the end of the line) at `offset`. */
  private isItem(offset: number): boolean {
    return (
      this.text.charCodeAt(offset) === DASH && (offset + 1 === this.end || this.text.charCodeAt(offset + 1) === SPACE)
    );
  }

  /** The offset of the colon ending a key that starts at `offset`, or -1 when no key of the subset starts there. */
  private keyEnd(offset: number): number {
    const text = this.text;
    let i = offset;
    while (i < this.end && isKeyChar(text.charCodeAt(i), i === offset)) {
      i += 1;
    }
    if (
      i === offset ||
      i - offset > MAX_KEY ||
      text.charCodeAt(i) !== COLON ||
      (i + 1 < this.end && text.charCodeAt(i + 1) !== SPACE)
    ) {
      return -1;
    }
    return i;
  }

  /** The offset after the spaces from `offset`. */
  private skipSpaces(offset: number): number {
    let i = offset;
    while (i < this.end && this.text.charCodeAt(i) === SPACE) {
      i += 1;
    }
    return i;
  }

  /** A block node that starts at `offset` of the current line. */
  private block(offset: number, depth: number, path: string, keyAt: ComposeLocation | undefined): YNode {
    return this.isItem(offset) ? this.seq(offset, depth, path, keyAt) : this.map(offset, depth, path, keyAt);
  }

  /** The value after an indicator (`key:` or `-`) at `offset`, which leaves the current line at the next one. */
  private value(
    offset: number,
    indent: number,
    depth: number,
    path: string,
    keyAt: ComposeLocation | undefined,
  ): YNode {
    const first = this.skipSpaces(offset);
    if (first < this.end && this.text.charCodeAt(first) !== HASH) {
      const scalar = this.scalar(first, depth, path, keyAt);
      this.nextContent();
      if (this.indent > indent) {
        throw OUTSIDE; // a multi-line scalar, or a node after a scalar
      }
      return scalar;
    }
    const empty = this.at(first, path);
    this.nextContent();
    if (this.indent > indent) {
      return this.block(this.start + this.indent, depth, path, keyAt);
    }
    if (keyAt && this.indent === indent && this.isItem(this.start + indent)) {
      throw OUTSIDE; // a list at its key's indentation
    }
    this.count(depth);
    return keyAt
      ? { kind: 'scalar', value: null, at: empty, plain: '', keyAt }
      : { kind: 'scalar', value: null, at: empty, plain: '' };
  }

  private map(offset: number, depth: number, path: string, keyAt: ComposeLocation | undefined): YMap {
    this.count(depth);
    const indent = offset - this.start;
    const at = this.at(offset, path);
    const entries = new Map<string, YNode>();
    let keyStart = offset;
    for (;;) {
      const colon = this.keyEnd(keyStart);
      if (colon < 0) {
        throw OUTSIDE;
      }
      const key = this.text.slice(keyStart, colon);
      if (entries.has(key)) {
        throw OUTSIDE;
      }
      const keyPath = childPath(path, key);
      entries.set(key, this.value(colon + 1, indent, depth + 1, keyPath, this.at(keyStart, keyPath)));
      if (this.indent < indent) {
        return keyAt ? { kind: 'map', entries, at, keyAt } : { kind: 'map', entries, at };
      }
      if (this.indent > indent) {
        throw OUTSIDE;
      }
      keyStart = this.start + indent;
    }
  }

  private seq(offset: number, depth: number, path: string, keyAt: ComposeLocation | undefined): YSeq {
    this.count(depth);
    const indent = offset - this.start;
    const at = this.at(offset, path);
    const items: YNode[] = [];
    let dash = offset;
    for (;;) {
      const itemPath = childPath(path, items.length);
      const first = this.skipSpaces(dash + 1);
      if (first < this.end && this.isItem(first)) {
        throw OUTSIDE; // `- - x`
      }
      if (first < this.end && this.keyEnd(first) >= 0) {
        items.push(this.map(first, depth + 1, itemPath, undefined));
      } else {
        items.push(this.value(dash + 1, indent, depth + 1, itemPath, undefined));
      }
      if (this.indent < indent) {
        return keyAt ? { kind: 'seq', items, at, keyAt } : { kind: 'seq', items, at };
      }
      dash = this.start + indent;
      if (this.indent > indent || !this.isItem(dash)) {
        throw OUTSIDE;
      }
    }
  }

  /** Checks that nothing but spaces and a comment follow a value that ends before `offset`. */
  private endOfValue(offset: number): void {
    const after = this.skipSpaces(offset);
    if (after < this.end && (after === offset || this.text.charCodeAt(after) !== HASH)) {
      throw OUTSIDE;
    }
  }

  /** A one-line scalar at `offset` (plain, or quoted without escapes) or an empty `{}` or `[]`, then at most a comment. */
  private scalar(offset: number, depth: number, path: string, keyAt: ComposeLocation | undefined): YNode {
    this.count(depth);
    const text = this.text;
    const code = text.charCodeAt(offset);
    const at = this.at(offset, path);
    if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      const close = text.indexOf(code === DOUBLE_QUOTE ? '"' : "'", offset + 1);
      if (close < 0 || close >= this.end) {
        throw OUTSIDE;
      }
      const value = text.slice(offset + 1, close);
      if (code === DOUBLE_QUOTE && value.includes('\\')) {
        throw OUTSIDE;
      }
      this.endOfValue(close + 1);
      return keyAt ? { kind: 'scalar', value, at, keyAt } : { kind: 'scalar', value, at };
    }
    if ((code === OPEN_BRACE || code === OPEN_BRACKET) && text.charCodeAt(offset + 1) === code + 2) {
      // `{}` or `[]`, as `networks: { backend: {} }` writes a network with the defaults
      this.endOfValue(offset + 2);
      const empty = code === OPEN_BRACE;
      if (keyAt) {
        return empty ? { kind: 'map', entries: new Map(), at, keyAt } : { kind: 'seq', items: [], at, keyAt };
      }
      return empty ? { kind: 'map', entries: new Map(), at } : { kind: 'seq', items: [], at };
    }
    if (
      NOT_PLAIN_START.has(code) ||
      ((code === DASH || code === COLON || code === 0x3f) &&
        (offset + 1 === this.end || text.charCodeAt(offset + 1) === SPACE))
    ) {
      throw OUTSIDE;
    }
    let last = offset;
    for (let i = offset + 1; i < this.end; i += 1) {
      const c = text.charCodeAt(i);
      if (c === SPACE) {
        if (text.charCodeAt(i + 1) === HASH) {
          break;
        }
      } else if (c === COLON && (i + 1 === this.end || text.charCodeAt(i + 1) === SPACE)) {
        throw OUTSIDE; // a map inside a one-line value
      } else {
        last = i;
      }
    }
    const source = text.slice(offset, last + 1);
    const value = resolvePlain(source);
    return keyAt ? { kind: 'scalar', value, at, plain: source, keyAt } : { kind: 'scalar', value, at, plain: source };
  }
}
