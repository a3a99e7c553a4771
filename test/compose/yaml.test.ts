import { parseYaml, toPlain, YMap, YNode } from '../../lib/compose/yaml';
import { errorOf } from './helpers';

function parse(text: string): YNode {
  return parseYaml(text, 'compose.yaml') as YNode;
}

function entry(node: YNode, ...keys: Array<string | number>): YNode {
  let current = node;
  for (const key of keys) {
    current =
      typeof key === 'number'
        ? (current as unknown as { items: YNode[] }).items[key]
        : ((current as YMap).entries.get(key) as YNode);
  }
  return current;
}

describe('parseYaml', () => {
  test('keeps the key path, line and column of every value', () => {
    const root = parse('services:\n  web:\n    image: nginx\n    ports:\n      - "80:80"\n');
    expect(entry(root, 'services', 'web', 'image').at).toEqual({
      file: 'compose.yaml',
      path: 'services.web.image',
      line: 3,
      column: 12,
    });
    expect(entry(root, 'services', 'web', 'ports', 0).at).toEqual({
      file: 'compose.yaml',
      path: 'services.web.ports[0]',
      line: 5,
      column: 9,
    });
  });

  test('resolves anchors and aliases at the place of use', () => {
    const root = parse('x-env: &env\n  A: "1"\nservices:\n  web:\n    environment: *env\n');
    const value = entry(root, 'services', 'web', 'environment', 'A');
    expect(value).toMatchObject({ value: '1', at: { path: 'services.web.environment.A', line: 2, column: 6 } });
  });

  test('resolves merge keys: keys written in the map win, the first merged map wins over later ones', () => {
    const root = parse(
      [
        'x-a: &a {image: a, user: a, restart: always}',
        'x-b: &b {image: b, user: b, hostname: b}',
        'services:',
        '  one:',
        '    <<: *a',
        '    image: own',
        '  two:',
        '    <<: [*a, *b]',
        '',
      ].join('\n'),
    );
    expect(toPlain(entry(root, 'services', 'one'))).toEqual({ image: 'own', user: 'a', restart: 'always' });
    expect(toPlain(entry(root, 'services', 'two'))).toEqual({
      image: 'a',
      user: 'a',
      restart: 'always',
      hostname: 'b',
    });
  });

  test('keeps x- fields and the plain text of unquoted scalars', () => {
    const root = parse('x-custom: {a: [1, 2]}\nmode: 0440\nquoted: "0440"\n');
    expect(toPlain(entry(root, 'x-custom'))).toEqual({ a: [1, 2] });
    expect(entry(root, 'mode')).toMatchObject({ value: 440, plain: '0440' });
    expect(entry(root, 'quoted')).toMatchObject({ value: '0440' });
    expect(entry(root, 'quoted')).not.toHaveProperty('plain');
  });

  test('plain keys are taken as written', () => {
    expect(Object.keys(toPlain(parse('NULL: 1\nyes: 2\n1.0: 3\n"quoted": 4\n')) as object).sort()).toEqual([
      '1.0',
      'NULL',
      'quoted',
      'yes',
    ]);
  });

  test('reads YAML 1.2: yes, no and 22:22 stay strings', () => {
    const root = parse('a: no\nb: yes\nc: 22:22\n');
    expect(toPlain(root)).toEqual({ a: 'no', b: 'yes', c: '22:22' });
  });

  test('throws on malformed YAML with the line and column', () => {
    expect(errorOf(() => parse('services:\n  web:\n    image: nginx\n   ports: [80\n')).message).toBe(
      'compose.yaml:4:1: invalid YAML: All mapping items must start at the same column. ' +
        'Fix: fix the YAML syntax at that line (indentation, quotes, a missing ":" or closing bracket); ' +
        'yamllint shows the same spot.',
    );
  });

  test('throws on duplicate keys', () => {
    expect(errorOf(() => parse('services:\n  web:\n    image: a\n    image: b\n')).message).toBe(
      'compose.yaml:4:5: services.web.image: duplicate key "image": the keys of a YAML map must be unique. ' +
        'Fix: remove one of the two, or merge what they hold.',
    );
  });

  test("checks unique keys in linear time (yaml's own check is quadratic: 40000 keys took 33 s)", () => {
    const keys = Array.from({ length: 40_000 }, (_, i) => `  k${i}: 1`).join('\n');
    const started = Date.now();
    expect(parse(`x-many:\n${keys}\n`)).toBeDefined();
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test('refuses an alias bomb quickly with bounded work', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    const names = 'abcdefghij';
    for (let i = 1; i < names.length; i += 1) {
      const prev = names[i - 1];
      levels.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const started = Date.now();
    const err = errorOf(() => parse(`${levels.join('\n')}\n`));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.message).toBe(
      'compose.yaml:3:32: e[0][0][8]: the YAML uses more than 1000 aliases. ' +
        "Fix: the file looks like an alias bomb; raise the loader's limits.maxAliases if the file is genuine.",
    );
  });

  test('bounds the expanded size even with few aliases', () => {
    const text = `big: &big [${Array(500).fill('1').join(',')}]\nuse: [${Array(300).fill('*big').join(',')}]\n`;
    expect(errorOf(() => parse(text)).problem).toBe(
      'the YAML expands to more than 100000 values through anchors and aliases',
    );
  });

  test('throws on an alias to an undefined anchor', () => {
    expect(errorOf(() => parse('a: *nope\n')).message).toBe(
      'compose.yaml:1:4: a: alias *nope refers to an anchor that is not defined before it. ' +
        'Fix: define &nope earlier in the file.',
    );
  });

  test('throws on nesting deeper than the limit', () => {
    const err = errorOf(() =>
      parseYaml(`${'['.repeat(30)}${']'.repeat(30)}`, 'c.yaml', {
        maxAliases: 10,
        maxNodes: 1000,
        maxDepth: 20,
      }),
    );
    expect(err.problem).toBe('the YAML is nested more than 20 levels deep');
  });

  test('throws on a map key that is not a scalar', () => {
    expect(errorOf(() => parse('? [a, b]\n: c\n')).problem).toBe('a map key must be a string');
  });

  test('returns undefined for an empty document', () => {
    expect(parseYaml('# nothing\n', 'compose.yaml')).toBeUndefined();
  });
});
