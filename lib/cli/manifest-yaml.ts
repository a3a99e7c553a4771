import { Yaml } from 'cdk8s';
import { Document } from 'yaml';

/**
 * The YAML of one manifest, byte for byte what cdk8s's `Yaml.stringify` (the call `app.synth()` makes per file)
 * writes, in a tenth of the time.
 *
 * `Yaml.stringify` builds a node tree of the `yaml` library for each object and prints it; at 1,000 services that is
 * 6,500 trees and most of a `convert`'s time. Kubernetes manifests use a small part of YAML: block maps and sequences
 * of strings, integers and booleans. `fastManifestYaml` prints that part directly, following the `yaml`
 * library's rules for it (2-space indent, sequences indented under their key, `{}` and `[]` for empty collections,
 * no line folding as `lineWidth: 0` asks). A string is printed plain where the `yaml` library prints it plain (no
 * indicator at its start, no `: ` or ` #`, nothing that the YAML 1.1 schema cdk8s writes would read as another type:
 * `"80"`, `"true"`, `"~"`, `"1e3"`, `"2024-01-01"` …) and quoted as it quotes one line otherwise; a string with line
 * breaks is a literal block scalar (`|` or `|-`). Anything else (a control character, whitespace alone after the last
 * line break or several final line breaks, a document marker, U+2028 or U+2029, a float, a null, an object that
 * appears twice) makes the whole object go through `Yaml.stringify` itself, so the output never depends on which path
 * was taken.
 * `test/cli/manifest-yaml.test.ts` compares the two on every output of the project and on generated values.
 */
export function manifestYaml(manifest: unknown): string {
  return fastManifestYaml(manifest) ?? Yaml.stringify(manifest);
}

/** What cdk8s writes for `manifest`, or undefined where only `Yaml.stringify` can say. */
export function fastManifestYaml(manifest: unknown): string | undefined {
  const seen = new Set<object>();
  try {
    if (Array.isArray(manifest)) {
      return `${manifest.length === 0 ? '[]' : seq(manifest, '', seen)}\n`;
    }
    if (isPlainObject(manifest)) {
      return `${Object.keys(manifest).length === 0 ? '{}' : map(manifest, '', seen)}\n`;
    }
  } catch (e) {
    if (e === FALLBACK) {
      return undefined;
    }
    throw e;
  }
  return undefined;
}

/** Thrown (never out of this module) where the object needs `Yaml.stringify`. */
const FALLBACK = Symbol('fallback');

/** The tests of the YAML 1.1 schema's non-string tags, as the `yaml` library applies them before printing plain. */
const OTHER_TYPES: readonly RegExp[] = (() => {
  const schema = new Document(null, { version: '1.1' }).schema;
  return [...schema.tags, ...(schema.compat ?? [])]
    .filter((tag) => tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test)
    .map((tag) => tag.test!);
})();

/** The `yaml` library's test for a string it cannot print plain (`plainString` in its stringifyString.js). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
/** What makes it escape a string in double quotes (control characters other than tab and line feed). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/**
 * A document marker at the start of a line changes how the `yaml` library prints a string. Its test is a multi-line
 * regular expression, for which U+2028 and U+2029 start a line too: strings with them are left to it.
 */
const DOCUMENT_MARKER = /^(%|---|\.\.\.)|[\u2028\u2029]/;

/** Strings as printed, by their text: a manifest repeats labels, names and images many times. */
const printed = new Map<string, string | undefined>();

/**
 * A single-line string as the `yaml` library prints it: plain where it can be read back as the same string, otherwise
 * quoted the way its `quotedString` does for one line (single quotes around a string with `"` and no `'`, JSON's
 * double quotes otherwise, which escape nothing but `"`, `\` and tab in a string without control characters).
 */
function text(value: string): string {
  let out = printed.get(value);
  if (out === undefined && !printed.has(value)) {
    out = print(value);
    if (printed.size < 100_000) {
      printed.set(value, out);
    }
  }
  if (out === undefined) {
    throw FALLBACK;
  }
  return out;
}

function print(value: string): string | undefined {
  // `<<` is the YAML 1.1 merge key, which the yaml library identifies as its own type and prints its own way.
  if (
    value === '<<' ||
    value.length > 1024 ||
    value.includes('\n') ||
    SPECIAL.test(value) ||
    DOCUMENT_MARKER.test(value)
  ) {
    return undefined;
  }
  if (!NOT_PLAIN.test(value) && !OTHER_TYPES.some((test) => test.test(value))) {
    return value;
  }
  return value.includes('"') && !value.includes("'") ? `'${value}'` : JSON.stringify(value);
}

/**
 * A string with line breaks, as the `yaml` library prints a value that has them (`blockString`, which with
 * `lineWidth: 0` always chooses a literal): `|` with the chomping its end asks (`-` without a final line break,
 * none with exactly one), `2` when it starts with a space, each line after `indent`, blank lines left empty.
 * Whitespace alone after the last line break, or more than one final line break (`|+`), is left to `Yaml.stringify`.
 */
function block(value: string, indent: string): string {
  if (SPECIAL.test(value) || /[\u2028\u2029]/.test(value) || /\n[\t ]+$/.test(value)) {
    throw FALLBACK;
  }
  let endStart = value.length;
  while (
    endStart > 0 &&
    (value[endStart - 1] === '\n' || value[endStart - 1] === '\t' || value[endStart - 1] === ' ')
  ) {
    endStart--;
  }
  let end = value.substring(endStart);
  const endNewline = end.indexOf('\n');
  if (endStart === 0 || (endNewline !== -1 && endNewline !== end.length - 1)) {
    throw FALLBACK;
  }
  const chomp = endNewline === -1 ? '-' : '';
  let body = value.substring(0, endStart);
  if (end.endsWith('\n')) {
    end = end.slice(0, -1);
  }
  let startWithSpace = false;
  let startEnd = 0;
  let startNewline = -1;
  for (; startEnd < body.length; ++startEnd) {
    const ch = body[startEnd];
    if (ch === ' ') {
      startWithSpace = true;
    } else if (ch === '\n') {
      startNewline = startEnd;
    } else {
      break;
    }
  }
  let start = body.substring(0, startNewline + 1);
  if (start) {
    body = body.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startWithSpace ? '2' : '') + chomp;
  return `|${header}\n${indent}${start}${body.replace(/\n+/g, `$&${indent}`)}${end}`;
}

/** A scalar value; `indent` is where the lines of a block scalar start. */
function scalar(value: unknown, indent: string): string {
  switch (typeof value) {
    case 'string':
      return value.includes('\n') ? block(value, indent) : text(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
        return String(value);
      }
      throw FALLBACK;
    default:
      throw FALLBACK;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') {
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A collection's text after `key:` or `- `, or undefined for a scalar. */
function collection(
  value: unknown,
  indent: string,
  seen: Set<object>,
): { empty: string } | { text: string } | undefined {
  if (Array.isArray(value)) {
    return value.length === 0 ? { empty: '[]' } : { text: seq(value, indent, seen) };
  }
  if (isPlainObject(value)) {
    return Object.keys(value).length === 0 ? { empty: '{}' } : { text: map(value, indent, seen) };
  }
  if (value !== null && typeof value === 'object') {
    throw FALLBACK;
  }
  return undefined;
}

/** A block map whose first line follows what is before it, and whose other lines start with `indent`. */
function map(value: Record<string, unknown>, indent: string, seen: Set<object>): string {
  visit(value, seen);
  const inner = `${indent}  `;
  let out = '';
  for (const key of Object.keys(value)) {
    const item = value[key];
    let line = `${text(key)}:`;
    const nested = collection(item, inner, seen);
    if (nested === undefined) {
      line += ` ${scalar(item, inner)}`;
    } else if ('empty' in nested) {
      line += ` ${nested.empty}`;
    } else {
      line += `\n${inner}${nested.text}`;
    }
    out += out === '' ? line : `\n${indent}${line}`;
  }
  return out;
}

/** A block sequence, `- ` before each item, its other lines starting with `indent`. */
function seq(value: readonly unknown[], indent: string, seen: Set<object>): string {
  visit(value, seen);
  const inner = `${indent}  `;
  let out = '';
  for (const item of value) {
    const nested = collection(item, inner, seen);
    const line = `- ${nested === undefined ? scalar(item, inner) : 'empty' in nested ? nested.empty : nested.text}`;
    out += out === '' ? line : `\n${indent}${line}`;
  }
  return out;
}

/** An object met twice is an alias (`&a1` … `*a1`) in the `yaml` library's output. */
function visit(value: object, seen: Set<object>): void {
  if (seen.has(value)) {
    throw FALLBACK;
  }
  seen.add(value);
}
