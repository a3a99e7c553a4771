import { ComposeWarning } from '../../lib/compose/errors';
import { SERVICE_KEYS } from '../../lib/compose/keys';
import { asBool, asInt, asListOrMap, asString, asStringList, checkKeys, extensionsOf } from '../../lib/compose/read';
import { parseYaml, YMap, YNode } from '../../lib/compose/yaml';
import { errorOf } from './helpers';

function node(text: string): YNode {
  return (parseYaml(`v: ${text}\n`, 'c.yaml') as YMap).entries.get('v') as YNode;
}

describe('typed reads', () => {
  test.each([
    ['true', true],
    ['"yes"', true],
    ['"On"', true],
    ['false', false],
    ['"n"', false],
    ['"off"', false],
  ])('asBool(%s) is %s', (text, value) => {
    expect(asBool(node(text))).toBe(value);
  });

  test('asBool refuses other values', () => {
    expect(errorOf(() => asBool(node('"maybe"'))).message).toBe(
      'c.yaml:1:4: v: expected a boolean, got a string (got "maybe"). Allowed: true or false.',
    );
  });

  test('asInt takes numbers and numeric strings within range', () => {
    expect(asInt(node('3'), 0, 5)).toBe(3);
    expect(asInt(node('"4"'), 0, 5)).toBe(4);
    expect(errorOf(() => asInt(node('6'), 0, 5)).problem).toBe('number out of range');
    expect(errorOf(() => asInt(node('1.5'), 0, 5)).problem).toBe('expected an integer, got a number');
  });

  test('asString takes numbers; asStringList takes a single string only where allowed', () => {
    expect(asString(node('1000'))).toBe('1000');
    expect(errorOf(() => asString(node('[a]'))).problem).toBe('expected a string, got a list');
    expect(asStringList(node('a'), { single: true })).toEqual(['a']);
    expect(errorOf(() => asStringList(node('a'))).problem).toBe('expected a list, got a string');
  });

  test('a secret read leaves the value out of the message', () => {
    expect(errorOf(() => asString(node('[hunter2]'), { secret: true })).message).toBe(
      'c.yaml:1:4: v: expected a string, got a list.',
    );
  });

  test('asListOrMap reads both forms, sorted', () => {
    expect(asListOrMap(node('[b=2, a=1, c]'))).toEqual({ a: '1', b: '2', c: '' });
    expect(asListOrMap(node('{b: 2, a: true}'))).toEqual({ a: 'true', b: '2' });
  });
});

describe('checkKeys', () => {
  test('x- keys pass, ignored keys warn, unknown keys throw', () => {
    const map = parseYaml('image: x\nx-mine: 1\nlogging: {}\n', 'c.yaml') as YMap;
    const warnings: ComposeWarning[] = [];
    checkKeys(map, SERVICE_KEYS, 'a service', (code, message, at) => warnings.push({ code, message, at }));
    expect(warnings.map((w) => [w.code, w.at.path])).toEqual([['unsupported-key', 'logging']]);
    expect(extensionsOf(map)).toEqual({ 'x-mine': 1 });
    const bad = parseYaml('imgae: x\n', 'c.yaml') as YMap;
    expect(errorOf(() => checkKeys(bad, SERVICE_KEYS, 'a service', undefined)).message).toBe(
      'c.yaml:1:1: imgae: unknown key "imgae" in a service. Allowed: the keys of a service in the compose ' +
        'specification, or x- extensions. Fix: did you mean "image"?',
    );
  });
});
