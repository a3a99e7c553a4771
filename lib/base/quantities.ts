import { Size, SizeRoundingBehavior } from 'cdk8s';
import { Cpu } from 'cdk8s-plus-27';
import { ComposeError } from '../compose/errors';
import { ComposeLocation } from '../compose/model';

/**
 * Kubernetes resource quantities for cpu and memory, read the way the API server reads them.
 *
 * Internally cpu is a whole number of millicores and memory a whole number of bytes, so sums and comparisons
 * are exact. Parsing is exact too (decimal fractions are scaled as integers, never as floats), and rounds up to
 * the unit: Kubernetes keeps cpu to 1m precision, and a pod never gets less than it asked for.
 *
 * @example
 * parseCpuMillicores('500m');      // 500
 * parseCpuMillicores(1.5);         // 1500
 * parseMemoryBytes('512Mi');       // 536870912
 * parseMemoryBytes('1G');          // 1000000000
 * formatCpu(2500);                 // '2500m'
 * formatMemory(1610612736);        // '1536Mi'
 */

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  'n': -9,
  'u': -6,
  'm': -3,
  '': 0,
  'k': 3,
  'M': 6,
  'G': 9,
  'T': 12,
  'P': 15,
  'E': 18,
};

// The exponent form is tried before the bare `E` (exa) suffix, so `1E3` is 1000 and `1E` is 10^18.
const QUANTITY = /^\+?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/;

const CPU_ALLOWED = 'a non-negative Kubernetes quantity of cores, such as "500m", "0.5", "1.5" or 2';
const MEMORY_ALLOWED = 'a non-negative Kubernetes quantity of bytes, such as "512Mi", "1Gi", "1G", "1.5Gi" or 1048576';

/** An exact non-negative rational number. */
interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** Parses a quantity into an exact ratio; undefined when it is not a valid non-negative quantity. */
function parseRatio(value: string | number): { ratio: Ratio; suffix: string } | undefined {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  if (text === undefined) {
    return undefined;
  }
  const match = QUANTITY.exec(text);
  if (!match) {
    return undefined;
  }
  const [whole, fraction = ''] = match[1].split('.');
  let num = BigInt((whole || '0') + fraction);
  let den = 10n ** BigInt(fraction.length);
  const suffix = match[2] ?? '';
  let exponent10 = 0;
  if (suffix in BINARY_SUFFIXES) {
    num *= 1024n ** BigInt(BINARY_SUFFIXES[suffix]);
  } else if (/^[eE]/.test(suffix)) {
    exponent10 = Number(suffix.slice(1));
  } else {
    exponent10 = DECIMAL_SUFFIXES[suffix];
  }
  if (Math.abs(exponent10) > 30) {
    return undefined;
  }
  if (exponent10 >= 0) {
    num *= 10n ** BigInt(exponent10);
  } else {
    den *= 10n ** BigInt(-exponent10);
  }
  return { ratio: { num, den }, suffix };
}

// The shapes manifests are written in (`500m`, `2`, `0.25`, `512Mi`, `1G`, `1048576`), short enough that Numbers hold
// them exactly: read without the exact ratio above, which allocates BigInts and was most of the quota's reading.
const QUICK_CPU = /^(\d{1,9})(?:\.(\d{1,3}))?(m?)$/;
const QUICK_MEMORY = /^(\d{1,9})(Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const QUICK_MEMORY_FACTORS: Readonly<Record<string, number>> = {
  '': 1,
  'Ki': KIB,
  'Mi': MIB,
  'Gi': GIB,
  'Ti': 1024 * GIB,
  'k': 1e3,
  'M': 1e6,
  'G': 1e9,
  'T': 1e12,
};

/** Millicores of a cpu quantity in one of the plain shapes (no fraction of a millicore); undefined otherwise. */
function quickMillicores(text: string): number | undefined {
  const match = QUICK_CPU.exec(text);
  if (!match || (match[3] === 'm' && match[2] !== undefined)) {
    return undefined;
  }
  const whole = Number(match[1]);
  return match[3] === 'm' ? whole : whole * 1000 + Number((match[2] ?? '').padEnd(3, '0'));
}

/** Bytes of a memory quantity in one of the plain shapes; undefined otherwise. */
function quickBytes(text: string): number | undefined {
  const match = QUICK_MEMORY.exec(text);
  const bytes = match ? Number(match[1]) * QUICK_MEMORY_FACTORS[match[2] ?? ''] : undefined;
  // Beyond 2^53 the product is not exact (the exact reading refuses such an amount).
  return bytes !== undefined && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** Plain decimal text for a finite non-negative number (`String(1e21)` is exponent form, which parses too). */
function numberText(value: number): string | undefined {
  return Number.isFinite(value) && value >= 0 ? String(value) : undefined;
}

function ceilDiv(num: bigint, den: bigint): bigint {
  return (num + den - 1n) / den;
}

function toSafeNumber(value: bigint): number | undefined {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

/**
 * Parses a cpu quantity (`500m`, `0.5`, `1.5`, `2`, or a number of cores) into millicores, rounded up to a whole
 * millicore.
 *
 * @throws ComposeError naming `at` when the value is not a non-negative quantity
 */
export function parseCpuMillicores(value: string | number, at?: ComposeLocation): number {
  const quick = typeof value === 'string' ? quickMillicores(value) : undefined;
  if (quick !== undefined) {
    return quick;
  }
  const parsed = parseRatio(value);
  const millicores = parsed ? toSafeNumber(ceilDiv(parsed.ratio.num * 1000n, parsed.ratio.den)) : undefined;
  if (millicores === undefined) {
    throw new ComposeError('invalid cpu quantity', {
      at,
      value,
      allowed: CPU_ALLOWED,
      hint: 'write millicores with an "m" ("250m") or cores as a decimal number ("0.25")',
    });
  }
  return millicores;
}

/**
 * Parses a memory quantity (`512Mi`, `1Gi`, `1G`, `1.5Gi`, `128974848`, or a number of bytes) into bytes, rounded up
 * to a whole byte.
 *
 * @throws ComposeError naming `at` when the value is not a non-negative quantity, or uses the milli (`m`), micro
 * (`u`) or nano (`n`) suffix: `500m` of memory is half a byte, almost always meant as `500Mi`
 */
export function parseMemoryBytes(value: string | number, at?: ComposeLocation): number {
  const quick = typeof value === 'string' ? quickBytes(value) : undefined;
  if (quick !== undefined) {
    return quick;
  }
  const parsed = parseRatio(value);
  if (parsed && ['m', 'u', 'n'].includes(parsed.suffix)) {
    throw new ComposeError(`invalid memory quantity: "${parsed.suffix}" is a fraction of a byte`, {
      at,
      value,
      allowed: MEMORY_ALLOWED,
      hint: `write mebibytes with "Mi" (for example "${String(value).trim().slice(0, -1)}Mi") or megabytes with "M"`,
    });
  }
  const bytes = parsed ? toSafeNumber(ceilDiv(parsed.ratio.num, parsed.ratio.den)) : undefined;
  if (bytes === undefined) {
    throw new ComposeError('invalid memory quantity', {
      at,
      value,
      allowed: MEMORY_ALLOWED,
      hint: 'write binary units as "Ki", "Mi", "Gi" or decimal units as "k", "M", "G"',
    });
  }
  return bytes;
}

/** Millicores as the shortest quantity: whole cores as `2`, anything else as `2500m`. */
export function formatCpu(millicores: number): string {
  assertWhole(millicores, 'millicores');
  return millicores % 1000 === 0 ? String(millicores / 1000) : `${millicores}m`;
}

/**
 * Bytes in the largest binary unit that holds them exactly: `1Gi`, `1536Mi`, `100Ki`; a plain byte count when no
 * unit divides them.
 */
export function formatMemory(bytes: number): string {
  assertWhole(bytes, 'bytes');
  if (bytes === 0) {
    return '0';
  }
  const units: ReadonlyArray<[string, number]> = [
    ['Ei', 6],
    ['Pi', 5],
    ['Ti', 4],
    ['Gi', 3],
    ['Mi', 2],
    ['Ki', 1],
  ];
  for (const [unit, power] of units) {
    const size = 1024 ** power;
    if (bytes % size === 0) {
      return `${bytes / size}${unit}`;
    }
  }
  return String(bytes);
}

/** Cores (fractional, as the compose model holds them) to millicores, rounded up to a whole millicore. */
export function coresToMillicores(cores: number): number {
  // toFixed drops float noise first: 0.1 * 1000 is 100.00000000000001, which must stay 100.
  return Math.ceil(Number((cores * 1000).toFixed(6)));
}

/** Millicores to (fractional) cores. */
export function millicoresToCores(millicores: number): number {
  return millicores / 1000;
}

/** A kplus `Cpu` for a number of millicores (whole cores render as `2`, others as `1500m`). */
export function cpuFromMillicores(millicores: number): Cpu {
  assertWhole(millicores, 'millicores');
  return millicores % 1000 === 0 ? Cpu.units(millicores / 1000) : Cpu.millis(millicores);
}

/** Millicores of a kplus `Cpu`. */
export function cpuToMillicores(cpu: Cpu): number {
  return parseCpuMillicores(cpu.amount);
}

/**
 * A cdk8s `Size` for a number of bytes, rounded up to a whole mebibyte: kplus renders container memory in `Mi`
 * and fails on anything finer.
 */
export function sizeFromBytes(bytes: number): Size {
  return Size.mebibytes(Math.ceil(bytes / MIB));
}

/** Bytes of a cdk8s `Size`. */
export function sizeToBytes(size: Size): number {
  return Math.round(size.toKibibytes({ rounding: SizeRoundingBehavior.NONE }) * KIB);
}

/**
 * Rounds millicores up to a clean step for a quota: a multiple of 100m up to 2 cores, of 500m above.
 * `1234m` becomes `1300m`, `2100m` becomes `2500m`.
 */
export function roundUpCpuMillicores(millicores: number): number {
  const step = millicores <= 2000 ? 100 : 500;
  return Math.ceil(millicores / step) * step;
}

/**
 * Rounds bytes up to a clean step for a quota: a multiple of 64Mi up to 1Gi, of 256Mi above.
 * `300Mi` becomes `320Mi`, `1.1Gi` becomes `1280Mi`.
 */
export function roundUpMemoryBytes(bytes: number): number {
  const step = bytes <= GIB ? 64 * MIB : 256 * MIB;
  return Math.ceil(bytes / step) * step;
}

function assertWhole(value: number, unit: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ComposeError(`invalid number of ${unit}`, { value, allowed: `a whole number of ${unit}, 0 or more` });
  }
}
