/**
 * Kubernetes quantities (k8s.io/apimachinery/pkg/api/resource) as exact fractions, so that `1Gi` vs `1073741824`
 * or `0.5` vs `500m` compare without floating-point error. Kept apart from the library's own parser on purpose:
 * the tests check the library's output with an independent reading of the grammar.
 */
export interface Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Ti: 40, Gi: 30, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = {
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
const GRAMMAR = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** The quantity, or undefined when `value` does not follow the grammar. Numbers are read as their decimal text. */
export function parseQuantity(value: unknown): Quantity | undefined {
  // JavaScript prints numbers in the quantity grammar itself (`0.5`, `1e+21`, `1e-7`).
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  const match = typeof text === 'string' ? GRAMMAR.exec(text) : null;
  if (!match) {
    return undefined;
  }
  const [, sign, digits, suffix = ''] = match;
  const [whole, fraction = ''] = digits.split('.');
  let numerator = BigInt(`${whole || '0'}${fraction}`) * (sign === '-' ? -1n : 1n);
  let denominator = 10n ** BigInt(fraction.length);
  let exponent10 = 0;
  if (suffix in BINARY) {
    numerator *= 2n ** BigInt(BINARY[suffix]);
  } else if (suffix in DECIMAL) {
    exponent10 = DECIMAL[suffix];
  } else {
    exponent10 = Number(suffix.slice(1));
  }
  if (exponent10 >= 0) {
    numerator *= 10n ** BigInt(exponent10);
  } else {
    denominator *= 10n ** BigInt(-exponent10);
  }
  return { numerator, denominator };
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}
