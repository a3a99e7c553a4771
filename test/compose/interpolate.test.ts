import { interpolateString, interpolateTree } from '../../lib/compose/interpolate';
import { parseYaml, toPlain, YMap } from '../../lib/compose/yaml';
import { errorOf } from './helpers';

const env: Record<string, string> = { SET: 'value', EMPTY: '', PORT: '8080', NAME: 'web' };
const lookup = (name: string): string | undefined => env[name];
const at = { file: 'compose.yaml', path: 'services.web.image', line: 3, column: 12 };

function run(text: string): string {
  return interpolateString(text, lookup, at);
}

describe('interpolateString', () => {
  test.each([
    ['$SET', 'value'],
    ['${SET}', 'value'],
    ['pre-${SET}-post', 'pre-value-post'],
    ['$SET.$PORT', 'value.8080'],
    ['${UNSET:-d}', 'd'],
    ['${EMPTY:-d}', 'd'],
    ['${SET:-d}', 'value'],
    ['${UNSET-d}', 'd'],
    ['${EMPTY-d}', ''],
    ['${SET:+alt}', 'alt'],
    ['${EMPTY:+alt}', ''],
    ['${EMPTY+alt}', 'alt'],
    ['${UNSET+alt}', ''],
    ['${UNSET:-${SET}}', 'value'],
    ['${UNSET:-${ALSO_UNSET:-deep}}', 'deep'],
    ['${UNSET:-$PORT}', '8080'],
    ['${UNSET:-127.0.0.1:13306}:3306', '127.0.0.1:13306:3306'],
    ['${UNSET:-a b}', 'a b'],
    ['$$SET', '$SET'],
    ['$${SET}', '${SET}'],
    ['cost $$5', 'cost $5'],
    ['${SET:?must be set}', 'value'],
    ['${EMPTY?must be set}', ''],
    ['no dollars', 'no dollars'],
  ])('%s → %s', (input, expected) => {
    expect(run(input)).toBe(expected);
  });

  test('an unset variable without default is empty and reported once per use', () => {
    const unset: string[] = [];
    expect(interpolateString('a${UNSET}b$UNSET', lookup, at, (name) => unset.push(name))).toBe('ab');
    expect(unset).toEqual(['UNSET', 'UNSET']);
  });

  test('defaults are evaluated only when used', () => {
    const unset: string[] = [];
    expect(interpolateString('${SET:-${NOT_USED}}', lookup, at, (name) => unset.push(name))).toBe('value');
    expect(unset).toEqual([]);
  });

  test('an unset ${X:?msg} throws with the message', () => {
    expect(errorOf(() => run('${TAG:?set TAG to the release}')).message).toBe(
      'compose.yaml:3:12: services.web.image: required variable TAG is missing a value: set TAG to the release. ' +
        'Fix: set TAG in the environment or in the .env file (or pass an env file).',
    );
    expect(errorOf(() => run('${EMPTY:?}')).problem).toBe('required variable EMPTY is missing a value');
    expect(errorOf(() => run('${UNSET?gone}')).problem).toBe('required variable UNSET is missing a value: gone');
  });

  test.each(['${', '${SET', '${}', '${1A}', '${SET:x}', 'a$(date) ${'])('%s is an invalid template', (input) => {
    const err = errorOf(() => run(input));
    expect(err.problem).toBe('invalid interpolation');
    expect(err.value).toBe(input);
  });

  // compose-go keeps these as written (loader_test.go, and full-example.yml's dockerfile_inline).
  test.each([
    ['$', '$'],
    ['a $ b', 'a $ b'],
    ['$1', '$1'],
    ['cost $5', 'cost $5'],
    ['a$(date)', 'a$(date)'],
    ['end$', 'end$'],
    ['$$SET $SET$', '$SET value$'],
    ['-$-${SET}', '-$-value'],
  ])('a $ that no name, { or $ follows stays literal: %s', (input, output) => {
    expect(run(input)).toBe(output);
  });

  test('the invalid-template message says what is allowed', () => {
    expect(errorOf(() => run('price: ${5}')).message).toBe(
      'compose.yaml:3:12: services.web.image: invalid interpolation (got "price: ${5}"). ' +
        'Allowed: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message}, ' +
        '${VAR:+replacement}, ${VAR+replacement} and $$ for a literal $. ' +
        'Fix: write $$ for a literal $, and close every ${ with }.',
    );
  });
});

describe('interpolateTree', () => {
  test('interpolates values, not keys, and keeps the written text of changed scalars', () => {
    const root = parseYaml('services:\n  $NAME:\n    image: "nginx:${SET}"\n    ports: [80]\n', 'c.yaml') as YMap;
    const out = interpolateTree(root, lookup) as YMap;
    expect(toPlain(out)).toEqual({ services: { $NAME: { image: 'nginx:value', ports: [80] } } });
    const image = ((out.entries.get('services') as YMap).entries.get('$NAME') as YMap).entries.get('image');
    expect(image).toMatchObject({ value: 'nginx:value', written: 'nginx:${SET}', at: { line: 3, column: 12 } });
  });

  test('an invalid template in an environment value is reported without the value', () => {
    const root = parseYaml('services:\n  web:\n    environment: ["PASSWORD=abc${"]\n', 'c.yaml') as YMap;
    const err = errorOf(() => interpolateTree(root, lookup));
    expect(err.message).toBe(
      'c.yaml:3:19: services.web.environment[0]: invalid interpolation. ' +
        'Allowed: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message}, ' +
        '${VAR:+replacement}, ${VAR+replacement} and $$ for a literal $. ' +
        'Fix: write $$ for a literal $, and close every ${ with }.',
    );
  });
});
