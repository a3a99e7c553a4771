import { isMap, isPair, isScalar, isSeq, Node, parseDocument, visit } from 'yaml';

/**
 * Reorders a compose file the ways compose treats as meaningless, by moving whole lines of the text (so every
 * scalar keeps its exact text: `0440` stays octal, `$$` stays escaped, comments travel with their entry): the
 * entries of every block map, and the items of the block lists compose reads as sets. An entry that defines an
 * anchor, and every entry before it, stays in place, so aliases still follow their anchors.
 */

/** Keys whose block-list items compose treats as unordered. */
export const UNORDERED_LISTS: ReadonlySet<string> = new Set([
  'environment',
  'ports',
  'expose',
  'volumes',
  'networks',
  'depends_on',
  'labels',
  'secrets',
  'configs',
  'cap_add',
  'cap_drop',
  'extra_hosts',
  'profiles',
  'links',
  'external_links',
  'tmpfs',
  'security_opt',
  'sysctls',
  'devices',
  'aliases',
]);

/** Lists of `NAME=value` whose duplicate names make the order matter (the last one wins). */
const NAMED_LISTS: ReadonlySet<string> = new Set(['environment', 'labels', 'sysctls']);

/** A random index below `n`. */
export type Pick = (n: number) => number;

interface Entry {
  /** Offset where the entry's first line starts. */
  readonly start: number;
  /** The entry's value, for nested reordering. */
  readonly value: Node | null;
  readonly anchored: boolean;
  readonly name?: string;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** True when only spaces (or `- ` for nothing else) stand before `offset` on its line: the entry starts its line. */
function startsLine(text: string, offset: number): boolean {
  return /^ *$/.test(text.slice(lineStart(text, offset), offset));
}

function anchored(node: unknown): boolean {
  let found = false;
  if (node && typeof node === 'object') {
    if ((node as Node).anchor) {
      return true;
    }
    visit(node as Node, {
      Node(_key, n) {
        if (n.anchor) {
          found = true;
          return visit.BREAK;
        }
        return undefined;
      },
    });
  }
  return found;
}

/** The entries of a block collection whose entries each start a line, or undefined when it is not one. */
function entriesOf(text: string, node: Node, key: string | undefined): Entry[] | undefined {
  if (isMap(node) && !node.flow) {
    const entries = node.items.map((pair) => {
      const k = pair.key as Node | null;
      return k?.range && startsLine(text, k.range[0])
        ? {
            start: lineStart(text, k.range[0]),
            value: pair.value as Node | null,
            anchored: anchored(pair.key) || anchored(pair.value),
          }
        : undefined;
    });
    return entries.every((e) => e !== undefined) ? (entries as Entry[]) : undefined;
  }
  if (isSeq(node) && !node.flow && key !== undefined && UNORDERED_LISTS.has(key)) {
    const entries = node.items.map((item) => {
      const n = item as Node;
      if (!n?.range) {
        return undefined;
      }
      // The `- ` indicator stands before the item on its line.
      const start = lineStart(text, n.range[0]);
      if (!/^ *- +$/.test(text.slice(start, n.range[0])) || !isScalar(n)) {
        return undefined;
      }
      return { start, value: null, anchored: anchored(n), name: String(n.value).split(/[=:]/)[0] };
    });
    if (!entries.every((e) => e !== undefined)) {
      return undefined;
    }
    const names = (entries as Entry[]).map((e) => e.name);
    return NAMED_LISTS.has(key) && new Set(names).size !== names.length ? undefined : (entries as Entry[]);
  }
  return undefined;
}

function keyOf(node: Node, index: number): string | undefined {
  if (isMap(node)) {
    const pair = node.items[index];
    return isPair(pair) && isScalar(pair.key) ? String(pair.key.value) : undefined;
  }
  return undefined;
}

/** The text of [start, end), which holds `node` starting on a line of its own, with its entries reordered. */
function render(text: string, start: number, end: number, node: Node, key: string | undefined, pick: Pick): string {
  const entries = entriesOf(text, node, key);
  if (!entries || entries.length === 0 || entries[0].start !== start) {
    return text.slice(start, end);
  }
  const segments = entries.map((entry, i) => {
    const segmentEnd = i + 1 < entries.length ? entries[i + 1].start : end;
    let segment = text.slice(entry.start, segmentEnd);
    const value = entry.value;
    if (value && (isMap(value) || isSeq(value)) && value.range) {
      const inner = lineStart(text, value.range[0]);
      if (inner > entry.start && inner < segmentEnd) {
        segment = text.slice(entry.start, inner) + render(text, inner, segmentEnd, value, keyOf(node, i), pick);
      }
    }
    return segment.endsWith('\n') ? segment : `${segment}\n`;
  });
  const fixed = entries.reduce((last, entry, i) => (entry.anchored ? i + 1 : last), 0);
  const rest = segments.splice(fixed);
  while (rest.length > 0) {
    segments.push(rest.splice(pick(rest.length), 1)[0]);
  }
  return segments.join('');
}

/** The compose text with block maps and unordered block lists reordered by `pick`. */
export function permuteCompose(text: string, pick: Pick): string {
  const doc = parseDocument(text);
  const root = doc.contents as Node | null;
  if (!root?.range) {
    return text;
  }
  const start = lineStart(text, root.range[0]);
  return text.slice(0, start) + render(text, start, text.length, root, undefined, pick);
}
