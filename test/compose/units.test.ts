import { parseCpus, parseDuration, parseSize } from '../../lib/compose/units';

describe('parseDuration', () => {
  test.each([
    ['10s', 10],
    ['1m30s', 90],
    ['1h', 3600],
    ['500ms', 0.5],
    ['1.5h', 5400],
    ['2m', 120],
    ['0', 0],
    ['0s', 0],
    ['100us', 0.0001],
    ['1h2m3s4ms', 3723.004],
    ['.5s', 0.5],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  test.each(['', '10', 'abc', '-1s', '1x', '10 s', 's'])('%j is not a duration', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('parseSize', () => {
  test.each<[number | string, number]>([
    [10000, 10000],
    ['1024', 1024],
    ['512m', 512 * 1024 ** 2],
    ['1g', 1024 ** 3],
    ['1G', 1024 ** 3],
    ['10000Mb', 10000 * 1024 ** 2],
    ['64k', 65536],
    ['1.5g', 1.5 * 1024 ** 3],
    ['2gb', 2 * 1024 ** 3],
    ['1GiB', 1024 ** 3],
    ['100b', 100],
    ['1t', 1024 ** 4],
  ])('%j is %d bytes', (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });

  test.each<number | string>(['', 'lots', '-1m', '1x', -5, '1 gig'])('%j is not a size', (text) => {
    expect(parseSize(text)).toBeUndefined();
  });
});

describe('parseCpus', () => {
  test.each<[number | string, number]>([
    [0.5, 0.5],
    ['0.5', 0.5],
    [2, 2],
    ['1.25', 1.25],
    ['.5', 0.5],
  ])('%j is %d cores', (text, cores) => {
    expect(parseCpus(text)).toBe(cores);
  });

  test.each<number | string>(['half', '-1', -1, '1m'])('%j is not a cpu amount', (text) => {
    expect(parseCpus(text)).toBeUndefined();
  });
});
