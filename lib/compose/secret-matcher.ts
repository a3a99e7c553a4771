/** Values longer than this (secret files) are searched for one by one: an automaton node per character would cost memory. */
const AUTOMATON_VALUE_CHARS = 256;

/** Multipliers of the transitions' hash (Knuth's and MurmurHash3's): they spread nearby nodes and code points apart. */
const HASH_NODE = 0x9e3779b1;
const HASH_CODE_POINT = 0x85ebca6b;

/**
 * An Aho-Corasick automaton over a set of strings, some of them strong (the redactor's hidden secrets) and the others
 * weak: every occurrence in a text of any value, or of the strong ones only, in one pass over it. The redactor asks
 * both questions of the one automaton, built once. Long values (whole secret files, few) are searched for with
 * `indexOf`, each in one pass too.
 *
 * The automaton is flat, built without an object per node or per transition (thousands of secrets make tens of
 * thousands of nodes): a node is an index into typed arrays, and the transitions are one open-addressing hash table
 * keyed by node and code point.
 */
export class SecretMatcher {
  /** The transitions' table: the node and code point of each slot, and the node it leads to (0: an empty slot). */
  private readonly fromNode: Int32Array;
  private readonly onCodePoint: Int32Array;
  private readonly toNode: Int32Array;
  /** The table's size is a power of two: a hash keeps its top `bits` bits. */
  private readonly shift: number;
  private readonly mask: number;
  private readonly fail: Int32Array;
  /** The longest value (strong value) that ends at each node, itself or through its suffix links (0: none). */
  private readonly longestAny: Int32Array;
  private readonly longestStrong: Int32Array;
  private readonly longAny: readonly string[];
  private readonly longStrong: readonly string[];
  private readonly empty: boolean;

  constructor(values: readonly string[], strong: ReadonlySet<string>) {
    this.longAny = values.filter((v) => v.length > AUTOMATON_VALUE_CHARS);
    this.longStrong = this.longAny.filter((v) => strong.has(v));
    const short = values.filter((v) => v.length <= AUTOMATON_VALUE_CHARS && v !== '');
    this.empty = short.length === 0;
    // At most a node per UTF-16 unit, and the root; the table at most half full.
    const capacity = short.reduce((sum, v) => sum + v.length, 1);
    const bits = Math.max(4, Math.ceil(Math.log2(capacity * 2)));
    this.shift = 32 - bits;
    this.mask = (1 << bits) - 1;
    this.fromNode = new Int32Array(1 << bits);
    this.onCodePoint = new Int32Array(1 << bits);
    this.toNode = new Int32Array(1 << bits);
    this.fail = new Int32Array(capacity);
    this.longestAny = new Int32Array(capacity);
    this.longestStrong = new Int32Array(capacity);
    // Each node's parent, the code point that leads to it and its depth, to visit the nodes breadth first below.
    const parent = new Int32Array(capacity);
    const via = new Int32Array(capacity);
    const depth = new Int32Array(capacity);
    let nodes = 1;
    for (const value of short) {
      let node = 0;
      for (let i = 0; i < value.length;) {
        const cp = value.codePointAt(i)!;
        i += cp > 0xffff ? 2 : 1;
        let child = this.edge(node, cp);
        if (child === 0) {
          child = nodes++;
          this.insert(node, cp, child);
          parent[child] = node;
          via[child] = cp;
          depth[child] = depth[node] + 1;
        }
        node = child;
      }
      this.longestAny[node] = value.length;
      if (strong.has(value)) {
        this.longestStrong[node] = value.length;
      }
    }
    this.link(breadthFirst(depth, nodes), parent, via, depth);
  }

  /**
   * The stretches of the text covered by values (strong ones only, or any), as [start, end) pairs, merged where they
   * overlap. For each end position the longest value ending there is enough: it covers every shorter one ending there.
   */
  public spans(text: string, firstOnly: boolean, strongOnly: boolean): [number, number][] {
    const spans = this.shortSpans(text, firstOnly, strongOnly ? this.longestStrong : this.longestAny);
    const long = strongOnly ? this.longStrong : this.longAny;
    if (long.length === 0 || (firstOnly && spans.length > 0)) {
      return spans;
    }
    const all = [...spans];
    for (const value of long) {
      for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        all.push([at, at + value.length]);
        if (firstOnly) {
          return all;
        }
      }
    }
    all.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of all) {
      const last = merged[merged.length - 1];
      if (last && start <= last[1]) {
        last[1] = Math.max(last[1], end);
      } else {
        merged.push([start, end]);
      }
    }
    return merged;
  }

  /** Sets each node's suffix link and the longest values ending there, visiting the nodes in `order` (by depth). */
  private link(order: Int32Array, parent: Int32Array, via: Int32Array, depth: Int32Array): void {
    for (const child of order) {
      if (depth[child] < 2) {
        continue;
      }
      const cp = via[child];
      let f = this.fail[parent[child]];
      let target = this.edge(f, cp);
      while (target === 0 && f !== 0) {
        f = this.fail[f];
        target = this.edge(f, cp);
      }
      this.fail[child] = target;
      this.longestAny[child] = Math.max(this.longestAny[child], this.longestAny[target]);
      this.longestStrong[child] = Math.max(this.longestStrong[child], this.longestStrong[target]);
    }
  }

  /** The first slot to look at for the transition of `node` on `cp`. */
  private slot(node: number, cp: number): number {
    return Math.imul(Math.imul(node, HASH_NODE) ^ cp, HASH_CODE_POINT) >>> this.shift;
  }

  /** The node a transition on `cp` leads to from `node`; 0 (the root, which no transition leads to) when none does. */
  private edge(node: number, cp: number): number {
    for (let slot = this.slot(node, cp); ; slot = (slot + 1) & this.mask) {
      const to = this.toNode[slot];
      if (to === 0 || (this.fromNode[slot] === node && this.onCodePoint[slot] === cp)) {
        return to;
      }
    }
  }

  private insert(node: number, cp: number, child: number): void {
    let slot = this.slot(node, cp);
    while (this.toNode[slot] !== 0) {
      slot = (slot + 1) & this.mask;
    }
    this.fromNode[slot] = node;
    this.onCodePoint[slot] = cp;
    this.toNode[slot] = child;
  }

  private shortSpans(text: string, firstOnly: boolean, longest: Int32Array): [number, number][] {
    const spans: [number, number][] = [];
    if (this.empty) {
      return spans;
    }
    let node = 0;
    // Positions in UTF-16 units, as the values were inserted by code point: keep both in step.
    let index = 0;
    while (index < text.length) {
      const cp = text.codePointAt(index)!;
      index += cp > 0xffff ? 2 : 1;
      let next = this.edge(node, cp);
      while (next === 0 && node !== 0) {
        node = this.fail[node];
        next = this.edge(node, cp);
      }
      node = next;
      const length = longest[node];
      if (length > 0) {
        const start = index - length;
        const previous = spans[spans.length - 1];
        if (previous && start <= previous[1]) {
          previous[0] = Math.min(previous[0], start);
          previous[1] = index;
          // A long value may reach back over earlier stretches too.
          while (spans.length > 1 && spans[spans.length - 2][1] >= spans[spans.length - 1][0]) {
            const last = spans.pop()!;
            const before = spans[spans.length - 1];
            before[0] = Math.min(before[0], last[0]);
            before[1] = Math.max(before[1], last[1]);
          }
        } else {
          spans.push([start, index]);
        }
        if (firstOnly) {
          return spans;
        }
      }
    }
    return spans;
  }
}

/**
 * The nodes 1 to `nodes - 1` by depth (a counting sort): breadth first, so that each node's suffix link is known
 * before its children's.
 */
function breadthFirst(depth: Int32Array, nodes: number): Int32Array {
  let maxDepth = 0;
  for (let node = 1; node < nodes; node++) {
    maxDepth = Math.max(maxDepth, depth[node]);
  }
  const start = new Int32Array(maxDepth + 2);
  for (let node = 1; node < nodes; node++) {
    start[depth[node] + 1] += 1;
  }
  for (let d = 1; d < start.length; d++) {
    start[d] += start[d - 1];
  }
  const order = new Int32Array(nodes - 1);
  for (let node = 1; node < nodes; node++) {
    order[start[depth[node]]++] = node;
  }
  return order;
}
