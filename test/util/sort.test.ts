import { compare, sortedRecord } from '../../lib/util/sort';

test('compare orders by code point, not by locale', () => {
  expect(['b', 'a.b', 'B', 'a-b', 'a'].sort(compare)).toEqual(['B', 'a', 'a-b', 'a.b', 'b']);
  expect(compare('x', 'x')).toBe(0);
});

test('sortedRecord puts the keys in code-point order and keeps the values', () => {
  const sorted = sortedRecord({ 'z': '1', 'app.kubernetes.io/name': '2', 'Z': '3' });
  expect(Object.keys(sorted)).toEqual(['Z', 'app.kubernetes.io/name', 'z']);
  expect(sorted).toEqual({ 'z': '1', 'app.kubernetes.io/name': '2', 'Z': '3' });
});
