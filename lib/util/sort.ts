/**
 * Sorting by code point, the order every rendered list and record follows: unlike `localeCompare` it does not depend
 * on the machine's locale, so the output is the same everywhere.
 */

/** Compares two strings by code point (`'B' < 'a'`, `'a-b' < 'a.b'`), for `Array.prototype.sort`. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The record with its keys in code-point order (what `JSON.stringify` and YAML then print in that order). */
export function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
