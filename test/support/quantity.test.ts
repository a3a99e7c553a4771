import { compareQuantities, parseQuantity } from './quantity';

const cmp = (a: unknown, b: unknown) => compareQuantities(parseQuantity(a)!, parseQuantity(b)!);

describe('parseQuantity', () => {
  test.each([
    ['1Gi', '1073741824'],
    ['0.5', '500m'],
    [0.5, '500m'],
    [2, '2000m'],
    ['1k', '1000'],
    ['1e3', '1k'],
    ['1M', '1000k'],
    ['1.5Gi', '1536Mi'],
    ['100n', '0.1u'],
    ['.5', '0.5'],
    ['1E', '1000P'],
    ['1Ei', '1024Pi'],
    ['+1', '1'],
  ])('%s equals %s', (a, b) => {
    expect(cmp(a, b)).toBe(0);
  });

  test.each([
    ['1Gi', '1G'],
    ['501m', '0.5'],
    ['128Mi', '128M'],
    ['1', '999m'],
    ['1e-2', '9m'],
  ])('%s is more than %s', (a, b) => {
    expect(cmp(a, b)).toBe(1);
    expect(cmp(b, a)).toBe(-1);
  });

  test.each(['', '1 Gi', '1GB', '1gi', 'Gi', '1.2.3', '--1', 'one', null, {}, Infinity])('rejects %p', (value) => {
    expect(parseQuantity(value)).toBeUndefined();
  });
});
