import { ComposeError } from './errors';
import { closestKey, KeyTable, MODELLED } from './keys';
import { ComposeLocation } from './model';
import { childPath, kindName, quotable, toPlain, YMap, YNode, YSeq } from './yaml';

/**
 * Typed reads of located nodes. Each throws a `ComposeError` naming the key path, line and column, the value
 * received (unless `secret`), and what is allowed.
 */

/** Reports a warning; the loader collects them. */
export type Warn = (code: string, message: string, at: ComposeLocation) => void;

/** How a reader reports a bad value: what is allowed, how to fix it, and whether the value may be shown. */
export interface ReadOptions {
  /** What is allowed, for the message. */
  readonly allowed?: string;
  /** How to fix the value, for the message. */
  readonly hint?: string;
  /** Leave the value out of the message (environment values, secret and config contents). */
  readonly secret?: boolean;
}

export function isNull(node: YNode | undefined): boolean {
  return !node || (node.kind === 'scalar' && node.value === null);
}

export function wrongType(node: YNode, expected: string, options: ReadOptions = {}): ComposeError {
  return new ComposeError(`expected ${expected}, got ${kindName(node)}`, {
    at: node.at,
    ...(options.secret ? {} : { value: quotable(node) }),
    allowed: options.allowed,
    hint: options.hint,
  });
}

export function invalid(node: YNode, problem: string, options: ReadOptions = {}): ComposeError {
  return new ComposeError(problem, {
    at: node.at,
    ...(options.secret ? {} : { value: quotable(node) }),
    allowed: options.allowed,
    hint: options.hint,
  });
}

export function asMap(node: YNode, options: ReadOptions = {}): YMap {
  if (node.kind !== 'map') {
    throw wrongType(node, 'a map', options);
  }
  return node;
}

/** A map, or undefined for a missing or null value. */
export function optionalMap(node: YNode | undefined, options: ReadOptions = {}): YMap | undefined {
  return isNull(node) ? undefined : asMap(node as YNode, options);
}

export function asSeq(node: YNode, options: ReadOptions = {}): YSeq {
  if (node.kind !== 'seq') {
    throw wrongType(node, 'a list', options);
  }
  return node;
}

/** A string; numbers are accepted and written in decimal (compose reads `user: 1000` as "1000"). */
export function asString(node: YNode, options: ReadOptions = {}): string {
  if (node.kind === 'scalar' && (typeof node.value === 'string' || typeof node.value === 'number')) {
    return String(node.value);
  }
  throw wrongType(node, 'a string', options);
}

export function optionalString(node: YNode | undefined, options: ReadOptions = {}): string | undefined {
  return isNull(node) ? undefined : asString(node as YNode, options);
}

/** A scalar as text: strings, numbers and booleans (`true`), for labels, environment values and the like. */
export function asText(node: YNode, options: ReadOptions = {}): string {
  if (node.kind === 'scalar' && node.value !== null) {
    return String(node.value);
  }
  if (node.kind === 'scalar') {
    return '';
  }
  throw wrongType(node, 'a string, number or boolean', options);
}

const TRUE_WORDS = new Set(['true', 'yes', 'y', 'on']);
const FALSE_WORDS = new Set(['false', 'no', 'n', 'off']);

/** A boolean; after interpolation the strings `true`/`false` (and yes/no, on/off) count, as in compose. */
export function asBool(node: YNode, options: ReadOptions = {}): boolean {
  if (node.kind === 'scalar') {
    if (typeof node.value === 'boolean') {
      return node.value;
    }
    if (typeof node.value === 'string') {
      const word = node.value.toLowerCase();
      if (TRUE_WORDS.has(word)) {
        return true;
      }
      if (FALSE_WORDS.has(word)) {
        return false;
      }
    }
  }
  throw wrongType(node, 'a boolean', { allowed: 'true or false', ...options });
}

export function optionalBool(node: YNode | undefined, fallback: boolean, options: ReadOptions = {}): boolean {
  return isNull(node) ? fallback : asBool(node as YNode, options);
}

/** An integer in [min, max]; numeric strings count (they come from interpolation). */
export function asInt(node: YNode, min: number, max: number, options: ReadOptions = {}): number {
  let value: number | undefined;
  if (node.kind === 'scalar') {
    if (typeof node.value === 'number') {
      value = node.value;
    } else if (typeof node.value === 'string' && /^[-+]?\d+$/.test(node.value.trim())) {
      value = Number(node.value);
    }
  }
  if (value === undefined || !Number.isInteger(value)) {
    throw wrongType(node, 'an integer', { allowed: `an integer from ${min} to ${max}`, ...options });
  }
  if (value < min || value > max) {
    throw invalid(node, 'number out of range', { allowed: `an integer from ${min} to ${max}`, ...options });
  }
  return value;
}

/** A list of strings; a single string counts as a list of one where `single` is set (string-or-list keys). */
export function asStringList(node: YNode, options: ReadOptions & { single?: boolean } = {}): string[] {
  if (options.single && node.kind === 'scalar' && typeof node.value === 'string') {
    return [node.value];
  }
  return asSeq(node, {
    allowed: options.single ? 'a string or a list of strings' : 'a list of strings',
    ...options,
  }).items.map((item) => asString(item, options));
}

/** A map of scalars as text (labels, sysctls, driver options). A null value reads as an empty string. */
export function asTextMap(node: YNode | undefined, options: ReadOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  if (isNull(node)) {
    return out;
  }
  const map = asMap(node as YNode, { allowed: 'a map of names to values, or a list of NAME=value', ...options });
  for (const key of [...map.entries.keys()].sort()) {
    out[key] = asText(map.entries.get(key) as YNode, options);
  }
  return out;
}

/** A list-or-map of text values (labels written as a list are canonicalised earlier, but not everywhere). */
export function asListOrMap(node: YNode | undefined, options: ReadOptions = {}): Record<string, string> {
  if (node && node.kind === 'seq') {
    const out: Record<string, string> = {};
    for (const item of node.items) {
      const text = asString(item, options);
      const index = text.indexOf('=');
      out[index < 0 ? text : text.slice(0, index)] = index < 0 ? '' : text.slice(index + 1);
    }
    return Object.fromEntries(
      Object.keys(out)
        .sort()
        .map((key) => [key, out[key]]),
    );
  }
  return asTextMap(node, options);
}

/**
 * Checks a map's keys against a table from keys.ts: `x-` keys pass, modelled keys pass, known but unused keys
 * give one `unsupported-key` warning each, and unknown keys throw with a "did you mean".
 */
export function checkKeys(map: YMap, table: KeyTable, what: string, warn: Warn | undefined): void {
  for (const [key, value] of map.entries) {
    if (key.startsWith('x-')) {
      continue;
    }
    const use = table[key];
    if (use === undefined) {
      const close = closestKey(key, table);
      throw new ComposeError(`unknown key "${key}" in ${what}`, {
        at: { ...(value.keyAt ?? value.at), path: childPath(map.at.path, key) },
        allowed: `the keys of ${what} in the compose specification, or x- extensions`,
        hint: close
          ? `did you mean "${close}"?`
          : 'remove it, or rename it with an x- prefix to keep it as an extension',
      });
    }
    if (use !== MODELLED && warn) {
      warn('unsupported-key', `ignored key "${key}": ${use}`, {
        ...(value.keyAt ?? value.at),
        path: childPath(map.at.path, key),
      });
    }
  }
}

/** The `x-` entries of a map as plain values, sorted by key. */
export function extensionsOf(map: YMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...map.entries.keys()].filter((k) => k.startsWith('x-')).sort()) {
    out[key] = toPlain(map.entries.get(key));
  }
  return out;
}

/** A scalar's text, for parsers of short syntaxes. */
export function scalarText(node: YNode, options: ReadOptions = {}): string {
  if (node.kind === 'scalar' && (typeof node.value === 'string' || typeof node.value === 'number')) {
    return String(node.value);
  }
  throw wrongType(node, 'a string', options);
}
