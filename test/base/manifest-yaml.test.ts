import { Yaml } from 'cdk8s';
import * as fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { fastManifestYaml, holdsUnsafeText, manifestYaml } from '../../lib/base/manifest-yaml';
import { fuzzAssert } from '../fuzz/fuzz-settings';

/**
 * The CLI's printer against cdk8s's `Yaml.stringify`, which it must equal byte for byte. Every output of the project
 * is compared in test/conformance/every-output.test.ts; here the strings the `yaml` library treats specially, and
 * generated values.
 */

const cdk8s = (value: unknown) => Yaml.stringify(value);

/**
 * The printer's output for `value`: `Yaml.stringify`'s bytes, unless `value` holds a string that `Yaml.stringify`
 * prints unsafely (issue 25, finding 1); then a YAML 1.1 and a 1.2 reader read back `value` itself (test/safety/
 * yaml-readers.test.ts reads it with PyYAML and kubectl too).
 */
function expectPrinted(value: unknown): void {
  const printed = manifestYaml(value);
  if (!holdsUnsafeText(value)) {
    expect(printed).toBe(cdk8s(value));
    return;
  }
  for (const version of ['1.1', '1.2'] as const) {
    const docs = parseAllDocuments(printed, { version });
    expect(docs.map((d) => d.errors.map((e) => e.message))).toEqual([[]]);
    const plain = (v: unknown) => JSON.stringify(v, (_k, x) => (x === undefined ? null : x));
    expect(plain(docs[0].toJS())).toBe(plain(value));
  }
}

describe('strings print as the yaml library prints them', () => {
  const cases: Record<string, unknown> = {
    'plain': { a: 'nginx:1.25', b: 'a b c', c: 'http://x:80/y', d: 'x#y', e: 'a-b', f: '-x', g: '?x', h: ':x' },
    'read as another type in YAML 1.1': {
      a: '80',
      b: 'true',
      c: 'yes',
      d: 'y',
      e: '~',
      f: '1e3',
      g: '0x1F',
      h: '2024-01-01',
      i: '1:30',
      j: '.inf',
      k: '',
      l: 'null',
      m: '0777',
      n: '3.5',
      o: '<<',
    },
    'indicators and separators': {
      a: '*',
      b: '&x',
      c: '!x',
      d: '|x',
      e: '>x',
      f: "'x",
      g: '"x',
      h: '%x',
      i: '@x',
      j: '`x',
      k: '- x',
      l: '-',
      m: 'a: b',
      n: 'a #b',
      o: 'a:',
      p: ' a',
      q: 'a ',
      r: '[x]',
      s: '{x}',
      t: ',x',
      u: '#x',
    },
    'quotes inside': { a: 'say "hi": now', b: "it's: here", c: 'both \' and ": x', d: 'back\\slash: x' },
    'keys': { 'a b': 1, '80': 2, 'y': 3, 'a: b': 4, 'x-y.z/w': 5, '"q"': 6, '': 7 },
    'tabs': { a: 'a\tb', b: '\tx', c: 'x\t', d: 'a\t#b' },
    'block scalars': {
      a: 'one\ntwo',
      b: 'one\ntwo\n',
      c: '  indented\nnext',
      d: '\nleading',
      e: 'a\n\n\nb',
      f: 'trailing  \nx',
      g: 'x\n  more\n',
      h: 'x\n---\ny',
    },
    'left to Yaml.stringify': {
      'a': 'x\n  ',
      'b': 'x\n\n',
      'c': 'bell\u0007',
      'd': '---x',
      'e': 1.5,
      'f': null,
      'g': -0,
      '\u2028...': 'a\u2028---',
      'h': '<<',
    },
    'collections': { a: {}, b: [], c: [{}, [], [1, [2, [3]]], { x: { y: [{ z: 'w' }] } }], d: { e: { f: [] } } },
    'numbers and booleans': { a: 0, b: -12, c: 2 ** 40, d: true, e: false },
  };
  test.each(Object.entries(cases))('%s', (_name, value) => {
    expectPrinted(value);
    const fast = fastManifestYaml(value);
    if (fast !== undefined && !holdsUnsafeText(value)) {
      expect(fast).toBe(cdk8s(value));
    }
  });

  test('a manifest of plain strings, quoted strings and block scalars takes the fast path', () => {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { 'app': 'web', 'kompose.version': '1.0' }, annotations: { note: 'a: b' } },
      spec: {
        replicas: 1,
        template: { spec: { containers: [{ name: 'web', args: ['sh', '-c', 'echo "a: b"\nexit 0\n'], ports: [] }] } },
      },
    };
    expect(fastManifestYaml(manifest)).toBe(cdk8s(manifest));
  });

  test('what only Yaml.stringify can print is left to it', () => {
    expect(fastManifestYaml({ a: 'x\n\n' })).toBeUndefined();
    expect(fastManifestYaml({ a: 1.5 })).toBeUndefined();
    expect(fastManifestYaml({ a: null })).toBeUndefined();
    expect(fastManifestYaml({ a: undefined })).toBeUndefined();
    expect(fastManifestYaml({ a: 'bell\u0007' })).toBeUndefined();
    expect(fastManifestYaml(new Date(0))).toBeUndefined();
    expect(fastManifestYaml('top-level scalar')).toBeUndefined();
    // An object met twice is an alias in the yaml library's output.
    const shared = { app: 'web' };
    expect(fastManifestYaml({ a: shared, b: shared })).toBeUndefined();
    expect(manifestYaml({ a: shared, b: shared })).toBe(cdk8s({ a: shared, b: shared }));
  });
});

/** Strings made of what the yaml library's rules look at. */
const tricky = fc.stringOf(
  fc.constantFrom(
    'a',
    'Z',
    '0',
    '1',
    '9',
    '.',
    '-',
    '_',
    '/',
    ':',
    ' ',
    '\t',
    '\n',
    '#',
    '"',
    "'",
    '\\',
    '[',
    ']',
    '{',
    '}',
    ',',
    '&',
    '*',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    '?',
    '~',
    'e',
    'x',
    'y',
    'n',
    'true',
    'yes',
    'null',
    '---',
    '...',
    '<<',
    'é',
    '\u2028',
    '\u0007',
    '2024-01-01',
    '0x',
    '.inf',
  ),
  { maxLength: 8 },
);

/** Mostly what manifests hold (names, images, paths), sometimes a tricky string. */
const text = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z][a-z0-9./:-]{0,12}$/), weight: 6 },
  { arbitrary: tricky, weight: 1 },
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('map'), tie('seq')),
  leaf: fc.oneof(text, text, tricky, fc.integer(), fc.boolean(), fc.constantFrom(1.5, null, 0, -1)),
  map: fc.dictionary(text, tie('node'), { maxKeys: 5 }),
  seq: fc.array(tie('node'), { maxLength: 4 }),
})).node;

test('generated values: the printer equals Yaml.stringify whenever it answers, and often answers', () => {
  let answered = 0;
  let total = 0;
  fuzzAssert(
    fc.property(fc.dictionary(text, value, { minKeys: 1, maxKeys: 6 }), (doc) => {
      total++;
      expectPrinted(doc);
      const fast = fastManifestYaml(doc);
      if (fast !== undefined && !holdsUnsafeText(doc)) {
        answered++;
        expect(fast).toBe(cdk8s(doc));
      }
    }),
    500,
  );
  expect(total).toBe(500);
  expect(answered).toBeGreaterThan(total / 5);
});
