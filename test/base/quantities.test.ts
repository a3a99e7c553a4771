import { Size } from 'cdk8s';
import { Cpu } from 'cdk8s-plus-27';
import {
  coresToMillicores,
  cpuFromMillicores,
  cpuToMillicores,
  formatCpu,
  formatMemory,
  millicoresToCores,
  parseCpuMillicores,
  parseMemoryBytes,
  roundUpCpuMillicores,
  roundUpMemoryBytes,
  sizeFromBytes,
  sizeToBytes,
} from '../../lib/base/quantities';

const MI = 1024 * 1024;
const GI = 1024 * MI;
const at = { file: 'compose.yaml', path: 'services.web.deploy.resources.limits.cpus' };

describe('parseCpuMillicores', () => {
  test.each([
    ['500m', 500],
    ['0.5', 500],
    ['1.5', 1500],
    ['2', 2000],
    [' 250m ', 250],
    ['.1', 100],
    ['1.', 1000],
    ['+3', 3000],
    ['1e3', 1_000_000],
    ['1E-1', 100],
    ['100000u', 100],
    ['1k', 1_000_000],
    ['0', 0],
    ['0.0001', 1],
    [0.1, 100],
    [1.5, 1500],
    [4, 4000],
  ])('%p is %p millicores', (value, expected) => {
    expect(parseCpuMillicores(value)).toBe(expected);
  });

  test.each(['', 'abc', '-1', '1.5.2', '500 m', 'm', '1Mi5', '1e', '1e3m', NaN, -0.5, Infinity])(
    'rejects %p',
    (value) => {
      expect(() => parseCpuMillicores(value)).toThrow('invalid cpu quantity');
    },
  );

  test('throws an exact message naming the location and the value', () => {
    expect(() => parseCpuMillicores('half', at)).toThrow(
      'compose.yaml: services.web.deploy.resources.limits.cpus: invalid cpu quantity (got "half"). ' +
        'Allowed: a non-negative Kubernetes quantity of cores, such as "500m", "0.5", "1.5" or 2. ' +
        'Fix: write millicores with an "m" ("250m") or cores as a decimal number ("0.25").',
    );
  });
});

describe('parseMemoryBytes', () => {
  test.each([
    ['512Mi', 512 * MI],
    ['1Gi', GI],
    ['1.5Gi', 1.5 * GI],
    ['1G', 1_000_000_000],
    ['1M', 1_000_000],
    ['100Ki', 102_400],
    ['1k', 1000],
    ['128974848', 128_974_848],
    ['129e6', 129_000_000],
    ['1.1Gi', 1_181_116_007],
    ['2Ti', 2 * 1024 * GI],
    [1048576, MI],
    ['0', 0],
  ])('%p is %p bytes', (value, expected) => {
    expect(parseMemoryBytes(value)).toBe(expected);
  });

  test.each(['', '1GB', '1gi', '-1Gi', 'lots', '10Ei'])('rejects %p', (value) => {
    expect(() => parseMemoryBytes(value)).toThrow('invalid memory quantity');
  });

  test('rejects millibytes with a message that suggests Mi', () => {
    expect(() => parseMemoryBytes('500m', { file: 'compose.yaml', path: 'services.db.mem_limit' })).toThrow(
      'compose.yaml: services.db.mem_limit: invalid memory quantity: "m" is a fraction of a byte (got "500m"). ' +
        'Allowed: a non-negative Kubernetes quantity of bytes, such as "512Mi", "1Gi", "1G", "1.5Gi" or 1048576. ' +
        'Fix: write mebibytes with "Mi" (for example "500Mi") or megabytes with "M".',
    );
  });
});

describe('the plain shapes read without the exact ratio', () => {
  // A leading "+" is valid and not one of the plain shapes, so it takes the exact (BigInt) reading: both must agree.
  const digits = ['0', '7', '07', '250', '1000', '123456789', '999999999', '9007199'];
  const shapes = [
    ...digits.flatMap((d) => [d, `${d}m`, `${d}.5`, `${d}.25`, `${d}.125`, `${d}.0`, `${d}.999`]),
    ...digits.flatMap((d) => ['', 'Ki', 'Mi', 'Gi', 'Ti', 'k', 'M', 'G', 'T'].map((unit) => `${d}${unit}`)),
    '1.5m',
    '1.2345',
    '1234567890',
    '99999999999Mi',
  ];

  test.each(shapes)('%p reads as with "+" before it', (text) => {
    // A refusal is made by the exact reading in both cases (the plain one only answers what it can hold exactly).
    const read = (parse: (v: string) => number, v: string) => {
      try {
        return parse(v);
      } catch {
        return 'refused';
      }
    };
    expect(read(parseCpuMillicores, text)).toBe(read(parseCpuMillicores, `+${text}`));
    expect(read(parseMemoryBytes, text)).toBe(read(parseMemoryBytes, `+${text}`));
  });
});

describe('formatting', () => {
  test.each([
    [0, '0'],
    [1, '1m'],
    [500, '500m'],
    [1000, '1'],
    [2500, '2500m'],
    [16000, '16'],
  ])('cpu %p millicores is %p', (millicores, expected) => {
    expect(formatCpu(millicores)).toBe(expected);
  });

  test.each([
    [0, '0'],
    [512 * MI, '512Mi'],
    [GI, '1Gi'],
    [1.5 * GI, '1536Mi'],
    [100 * 1024, '100Ki'],
    [1_000_000_000, '1000000000'],
    [4 * 1024 * GI, '4Ti'],
    [1023, '1023'],
  ])('memory %p bytes is %p', (bytes, expected) => {
    expect(formatMemory(bytes)).toBe(expected);
  });

  test('round-trips through parse', () => {
    for (const millicores of [0, 1, 999, 1000, 1001, 123456]) {
      expect(parseCpuMillicores(formatCpu(millicores))).toBe(millicores);
    }
    for (const bytes of [0, 1, 1023, 1024, 3 * MI, 7 * GI + 1024]) {
      expect(parseMemoryBytes(formatMemory(bytes))).toBe(bytes);
    }
  });

  test('refuses fractions and negatives', () => {
    expect(() => formatCpu(1.5)).toThrow(
      'invalid number of millicores (got 1.5). Allowed: a whole number of millicores, 0 or more.',
    );
    expect(() => formatMemory(-1)).toThrow('invalid number of bytes (got -1)');
  });
});

describe('conversions', () => {
  test('cores and millicores without float noise', () => {
    expect(coresToMillicores(0.1)).toBe(100);
    expect(coresToMillicores(0.3)).toBe(300);
    expect(coresToMillicores(1.0005)).toBe(1001);
    expect(coresToMillicores(2)).toBe(2000);
    expect(millicoresToCores(250)).toBe(0.25);
  });

  test('kplus Cpu', () => {
    expect(cpuFromMillicores(1500).amount).toBe('1500m');
    expect(cpuFromMillicores(2000).amount).toBe('2');
    expect(cpuToMillicores(Cpu.millis(250))).toBe(250);
    expect(cpuToMillicores(Cpu.units(1.5))).toBe(1500);
  });

  test('cdk8s Size, rounded up to whole mebibytes for kplus', () => {
    expect(sizeFromBytes(512 * MI).toMebibytes()).toBe(512);
    expect(sizeFromBytes(512 * MI + 1).toMebibytes()).toBe(513);
    expect(sizeToBytes(Size.gibibytes(1.5))).toBe(1.5 * GI);
    expect(sizeToBytes(Size.kibibytes(3))).toBe(3072);
  });
});

describe('clean rounding for quotas', () => {
  test.each([
    [0, 0],
    [1, 100],
    [1234, 1300],
    [2000, 2000],
    [2001, 2500],
    [7600, 8000],
  ])('cpu %p millicores rounds up to %p', (millicores, expected) => {
    expect(roundUpCpuMillicores(millicores)).toBe(expected);
  });

  test.each([
    [0, 0],
    [300 * MI, 320 * MI],
    [GI, GI],
    [GI + 1, 1280 * MI],
    [5 * GI + 1, 5.25 * GI],
  ])('memory %p bytes rounds up to %p', (bytes, expected) => {
    expect(roundUpMemoryBytes(bytes)).toBe(expected);
  });
});
