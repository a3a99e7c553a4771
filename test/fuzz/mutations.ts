import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { CORPUS_DIR } from '../support/shared';

/**
 * Mutations of real compose files, as fast-check values: each is plain data (so it shrinks and prints) applied by
 * {@link applyMutation}. Structural mutations work on the parsed document (anchors and merge keys resolved) and
 * print it again; text mutations (duplicate keys, garbage bytes) work on the file's bytes.
 */

export const CORPUS = CORPUS_DIR;
export const CORPUS_DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();

/** A corpus file: its text, its parsed document, and images for its build-only services (no build contexts). */
export interface CorpusFile {
  readonly dir: string;
  readonly text: string;
  readonly doc: any;
  readonly images: Record<string, string>;
}

/** Every corpus file, read once. */
export function readCorpus(): CorpusFile[] {
  return CORPUS_DIRS.map((dir) => {
    const text = fs.readFileSync(path.join(CORPUS, dir, 'compose.yaml'), 'utf8');
    const doc = parse(text, { merge: true });
    const images: Record<string, string> = {};
    for (const [name, service] of Object.entries<any>(doc.services ?? {})) {
      if (service && service.build !== undefined && service.image === undefined) {
        images[name] = `registry.example.com/${dir}/${name.toLowerCase()}:1.0`;
      }
    }
    return { dir, text, doc, images };
  });
}

/** Strings that break parsers of ports, sizes, durations and names. */
export const weirdString = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(
    '',
    ' ',
    '-1',
    '0',
    '65536',
    '99999999999999999999',
    '1e400',
    'NaN',
    'Infinity',
    '0x50',
    '80:',
    ':80',
    '80-70',
    '1-99999',
    '1.5',
    '${UNSET}',
    '${A:?must be set}',
    '$$',
    '$',
    '\u0000',
    '../../etc/passwd',
    'a\nb',
    '10GB',
    '-5m',
    '1h2x',
    '∞',
    '🐳',
    '1:2:3:4:5',
    '[::1]:80:80',
    'tcp',
    '80/xyz',
    'CMD',
    '.',
    '..',
    'A'.repeat(300),
    '0.0.0.0:80:80/udp',
    '1m1m',
    '-0',
    '+5',
    '0b101',
    '1_000',
    'yes',
    '~',
    'null',
  ),
);

/** Any YAML value, to swap in for a node of another type. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  weirdString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(weirdString, { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), weirdString, { maxKeys: 3 }),
);

export type Mutation =
  | { readonly op: 'delete'; readonly pick: number }
  | { readonly op: 'swap'; readonly pick: number; readonly value: unknown }
  | { readonly op: 'string'; readonly category: Category; readonly pick: number; readonly value: string }
  | { readonly op: 'rename'; readonly pick: number; readonly value: string }
  | { readonly op: 'nest'; readonly pick: number; readonly depth: number }
  | { readonly op: 'duplicate-key'; readonly pick: number }
  | { readonly op: 'garbage'; readonly pick: number; readonly bytes: readonly number[] };

type Category = 'ports' | 'sizes' | 'durations' | 'names';

/** Keys whose values are parsed as ports, sizes, durations or names. */
const CATEGORIES: Record<Category, RegExp> = {
  ports: /^(ports|expose|published|target|host_ip|protocol|mode)$|^\d+$/,
  sizes:
    /^(memory|cpus|mem_limit|mem_reservation|memswap_limit|shm_size|size|pids|pids_limit|cpu_shares|replicas|count|retries|uid|gid)$/,
  durations: /^(interval|timeout|start_period|start_interval|stop_grace_period|delay|window)$/,
  names: /^(image|container_name|hostname|name|networks|depends_on|secrets|configs|source|network_mode|user|profiles)$/,
};

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), pick: fc.nat(), value: anyValue }),
  fc.record({
    op: fc.constant('string' as const),
    category: fc.constantFrom<Category>('ports', 'sizes', 'durations', 'names'),
    pick: fc.nat(),
    value: weirdString,
  }),
  fc.record({ op: fc.constant('rename' as const), pick: fc.nat(), value: weirdString }),
  fc.record({ op: fc.constant('nest' as const), pick: fc.nat(), depth: fc.integer({ min: 20, max: 400 }) }),
  fc.record({ op: fc.constant('duplicate-key' as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant('garbage' as const),
    pick: fc.nat(),
    bytes: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 8 }),
  }),
);

type Path = (string | number)[];

/** Every node's path in a document, parents before children, in document order. */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...at, i]);
      paths(item, [...at, i], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push([...at, key]);
      paths(item, [...at, key], out);
    }
  }
  return out;
}

function parentOf(doc: any, at: Path): any {
  return at.slice(0, -1).reduce((node, key) => node[key], doc);
}

function replaceAt(doc: any, at: Path, value: unknown): void {
  parentOf(doc, at)[at[at.length - 1]] = value;
}

/** Renames a map key in place, keeping the key's position. */
function renameAt(doc: any, at: Path, name: string): void {
  const parent = parentOf(doc, at);
  const old = at[at.length - 1] as string;
  const entries = Object.entries(parent).map(([k, v]) => (k === old ? [name, v] : [k, v]));
  for (const key of Object.keys(parent)) {
    delete parent[key];
  }
  for (const [k, v] of entries) {
    parent[k as string] = v;
  }
}

function nest(value: unknown, depth: number): unknown {
  let node = value;
  for (let i = 0; i < depth; i += 1) {
    node = i % 2 === 0 ? [node] : { n: node };
  }
  return node;
}

/** The mutated file: text for structural and duplicate-key mutations, bytes for garbage. */
export function applyMutation(file: CorpusFile, m: Mutation): string | Buffer {
  switch (m.op) {
    case 'duplicate-key': {
      const lines = file.text.split('\n');
      const keyLines = lines.map((l, i) => [l, i] as const).filter(([l]) => /^\s*[\w.-]+:/.test(l));
      const [line, index] = keyLines[m.pick % keyLines.length];
      const key = line.replace(/:.*$/, ':');
      lines.splice(index + 1, 0, `${key} duplicate`);
      return lines.join('\n');
    }
    case 'garbage': {
      const bytes = Buffer.from(file.text, 'utf8');
      const at = m.pick % (bytes.length + 1);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(m.bytes), bytes.subarray(at)]);
    }
    default:
      break;
  }
  const doc = structuredClone(file.doc);
  const all = paths(doc);
  switch (m.op) {
    case 'delete': {
      const at = all[m.pick % all.length];
      const parent = parentOf(doc, at);
      if (Array.isArray(parent)) {
        parent.splice(at[at.length - 1] as number, 1);
      } else {
        delete parent[at[at.length - 1]];
      }
      break;
    }
    case 'swap':
      replaceAt(doc, all[m.pick % all.length], m.value);
      break;
    case 'string': {
      const matching = all.filter((p) => p.some((k) => typeof k === 'string' && CATEGORIES[m.category].test(k)));
      const candidates = matching.length > 0 ? matching : all;
      replaceAt(doc, candidates[m.pick % candidates.length], m.value);
      break;
    }
    case 'rename': {
      // Names of services, networks, volumes, secrets and configs, and keys inside them.
      const keys = all.filter((p) => typeof p[p.length - 1] === 'string' && p.length <= 3);
      renameAt(doc, keys[m.pick % keys.length], m.value);
      break;
    }
    case 'nest':
      replaceAt(
        doc,
        all[m.pick % all.length],
        nest(parentOf(doc, all[m.pick % all.length])[all[m.pick % all.length].at(-1)!], m.depth),
      );
      break;
  }
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** A short description of a mutation for messages (the value shortened). */
export function describeMutation(file: CorpusFile, m: Mutation): string {
  return `${file.dir}: ${JSON.stringify(m, (_k, v) => (typeof v === 'string' && v.length > 60 ? `${v.slice(0, 60)}…` : v))}`;
}
