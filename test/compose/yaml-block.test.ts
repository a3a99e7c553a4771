import * as fs from 'fs';
import * as path from 'path';
import { COMPOSE_FILE, generateApp } from '../../bench/generate';
import { parseYaml, parseYamlDocument, YNode } from '../../lib/compose/yaml';
import { readBlockYaml } from '../../lib/compose/yaml-block';
import { DEFAULT_YAML_LIMITS, YamlLimits } from '../../lib/compose/yaml-tokens';
import { CORPUS_DIR, SHARED_DIR } from '../support/shared';

/**
 * The block reader must build exactly the tree the full reader (yaml's parser and composer, then the walk) builds,
 * or give up. Trees are compared as text that keeps the order of keys and entries and tells an absent key from an
 * undefined one; a text the block reader reads that the full reader refuses is a failure too.
 */

function serialize(node: YNode | undefined): string {
  return JSON.stringify(node, (_key, value: unknown) =>
    value instanceof Map ? { entries: [...value] } : value === undefined ? '<undefined>' : value,
  );
}

/** The tree a reader builds, or its refusal, as text. */
function outcome(read: () => YNode | undefined): string {
  try {
    return serialize(read());
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

function full(text: string, limits: YamlLimits): string {
  return outcome(() => parseYamlDocument(text, 'compose.yaml', limits));
}

/** Whether the block reader read `text`; throws when its tree differs from the full reader's. */
function agrees(text: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): boolean {
  const block = readBlockYaml(text, 'compose.yaml', limits);
  if (block !== undefined) {
    expect({ text, tree: serialize(block) }).toEqual({ text, tree: full(text, limits) });
  }
  return block !== undefined;
}

function yamlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? yamlFiles(file) : /\.ya?ml$/.test(entry.name) ? [file] : [];
  });
}

/** A generated app's compose file: the shape the bench and most compose files have. */
const GENERATED = generateApp({ services: 25 }).files[COMPOSE_FILE];

describe('readBlockYaml', () => {
  test('reads a generated app as the full reader does', () => {
    expect(agrees(GENERATED)).toBe(true);
  });

  test('reads every construct of its subset as the full reader does', () => {
    const text = [
      '# a comment first',
      'name: demo',
      'services:',
      '  web:',
      '    image: "nginx:1.27"   # quoted, then a comment',
      "    user: '1000'",
      '    command:',
      '    - ignored-by-nothing',
    ];
    // a list at its key's indentation is outside the subset
    expect(agrees(text.join('\n'))).toBe(false);
    const inside = [
      ...text.slice(0, 7),
      '      - --flag',
      '      - -1',
      '      -',
      '      - # an empty item',
      '      - "yes"',
      '    ports:',
      '      - target: 80',
      '        published: 0x50',
      '      -   target: 443',
      '          protocol: tcp',
      '    environment:',
      '      A: ~',
      '      B: .inf',
      '      C: 1e3',
      '      D: 0o17',
      '      E: true',
      '      F: ${VAR:-a b} # a comment',
      '      G:',
      '      H:   ',
      '      I: a#b',
      '      J: http://host:80/path?q',
      '      K: {}',
      '      L: []  # empty',
      '      1: one',
      '      null: key',
      '',
      '    healthcheck:',
      '      test:',
      '        -',
      '          - nested',
      'networks:',
      '  default: {}',
    ].join('\n');
    expect(agrees(inside)).toBe(true);
    expect(agrees(`${inside}\n`)).toBe(true);
  });

  test.each([
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a merge key', 'a:\n  <<: {b: 1}\n'],
    ['a tag', 'a: !reset []\n'],
    ['a flow collection', 'a: [1, 2]\n'],
    ['a block scalar', 'a: |\n  text\n'],
    ['a multi-line plain scalar', 'a: one\n  two\n'],
    ['an escape', 'a: "tab\\t"\n'],
    ['a quote in single quotes', "a: 'it''s'\n"],
    ['a tab', 'a:\tb\n'],
    ['CRLF line ends', 'a: b\r\nc: d\r\n'],
    ['non-ASCII text', 'a: café\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a map in a one-line value', 'a: b: c\n'],
    ['a key it does not take', '"a": 1\n'],
    ['a document marker', '---\na: 1\n'],
    ['a list at the top', '- a\n'],
    ['only a comment', '# nothing\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a list item after a value', 'a:\n  - b\n    - c\n'],
  ])('gives up on %s', (_what, text) => {
    expect(readBlockYaml(text, 'compose.yaml', DEFAULT_YAML_LIMITS)).toBeUndefined();
    // parseYaml reads it, or refuses it, as the full reader does
    expect(outcome(() => parseYaml(text, 'compose.yaml'))).toBe(full(text, DEFAULT_YAML_LIMITS));
  });

  test('gives up past the limits, and the full reader refuses in its words', () => {
    for (const maxNodes of [1, 10, 200, 2000]) {
      for (const maxDepth of [0, 1, 2, 3, 4, 100]) {
        agrees(GENERATED, { ...DEFAULT_YAML_LIMITS, maxNodes, maxDepth });
      }
    }
    expect(readBlockYaml(GENERATED, 'compose.yaml', { ...DEFAULT_YAML_LIMITS, maxNodes: 200 })).toBeUndefined();
    expect(readBlockYaml(GENERATED, 'compose.yaml', { ...DEFAULT_YAML_LIMITS, maxDepth: 3 })).toBeUndefined();
  });

  test('reads the corpus and the peers’ fixtures as the full reader does', () => {
    const files = [...yamlFiles(CORPUS_DIR), ...yamlFiles(path.join(SHARED_DIR, 'peers'))];
    const read = files.filter((file) => agrees(fs.readFileSync(file, 'utf8')));
    expect(read.length).toBeGreaterThan(20);
  });

  test('agrees with the full reader on near-valid text (seeded mutations of compose files)', () => {
    let seed = 14;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = [' ', ':', '-', '#', '"', "'", '\n', 'a', '0', '.', '{', '[', ']', '}', '&', '!', '|', '?', '~'];
    const more = ['  ', '- ', ': ', ' #', '\n  ', '\n- ', '{}', '[]', 'null', '.5', '0x1', 'e3', '\t', 'é'];
    const bases = [GENERATED.slice(0, 3000), ...yamlFiles(CORPUS_DIR).map((f) => fs.readFileSync(f, 'utf8'))].filter(
      (text) => text.length < 6000 && readBlockYaml(text, 'compose.yaml', DEFAULT_YAML_LIMITS) !== undefined,
    );
    let read = 0;
    for (let i = 0; i < 400; i += 1) {
      let text = bases[random(bases.length)];
      for (let edits = 1 + random(2); edits > 0; edits -= 1) {
        const at = random(text.length);
        const piece = random(3) === 0 ? more[random(more.length)] : pieces[random(pieces.length)];
        const cut = random(3);
        text = text.slice(0, at) + (cut === 2 ? '' : piece) + text.slice(at + (cut === 0 ? 0 : 1));
      }
      read += agrees(text) ? 1 : 0;
    }
    expect(read).toBeGreaterThan(60);
  });
});
