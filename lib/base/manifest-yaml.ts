import { Yaml } from 'cdk8s';
import { Document } from 'yaml';
import { ComposeError } from '../compose/errors';

/**
 * The YAML of one manifest: byte for byte what cdk8s's `Yaml.stringify` (the call `app.synth()` makes per file) writes,
 * in a tenth of the time, wherever that is safe; and safe where it is not.
 *
 * `Yaml.stringify` builds a node tree of the `yaml` library for each object and prints it; at 1,000 services that is
 * 6,500 trees and most of a `convert`'s time. Kubernetes manifests use a small part of YAML: block maps and sequences
 * of strings, integers and booleans. `fastManifestYaml` prints that part directly, following the `yaml`
 * library's rules for it (2-space indent, sequences indented under their key, `{}` and `[]` for empty collections,
 * no line folding as `lineWidth: 0` asks). A string is printed plain where the `yaml` library prints it plain (no
 * indicator at its start, no `: ` or ` #`, nothing that a YAML 1.1 or 1.2 reader would read as another type:
 * `"80"`, `"true"`, `"~"`, `"1e3"`, `"2024-01-01"`, `"0o17"`, `"="` …) and quoted as it quotes one line otherwise; a
 * string with line breaks is a literal block scalar (`|` or `|-`).
 *
 * The safety rule (issue 25, finding 1): a string holding a character that YAML readers treat specially and the
 * `yaml` library writes raw (U+2028 and U+2029, which YAML 1.1 readers such as PyYAML and go-yaml take for line
 * breaks; U+0085, which they fold into a space; the BOM; DEL and the other C1 controls, U+FFFE and U+FFFF, which they
 * refuse) is printed double-quoted on one line, each such character escaped (`\L`, `\P`, `\N`, `\x7F`, `\uFEFF`).
 * A lone UTF-16 surrogate has no escape that every reader takes (go-yaml refuses `\uD800`), nor a UTF-8 form: it is
 * refused. Anything else the fast path does not print (a control character, whitespace alone after the last line
 * break or several final line breaks, a document marker, a float, a null, an object that appears twice) makes the
 * whole object go through `Yaml.stringify` itself, unless the object holds one of those characters: then the
 * printer prints all of it, those strings double-quoted and escaped (see {@link safeManifestYaml}).
 * `test/base/manifest-yaml.test.ts` compares the printer with `Yaml.stringify` on every output of the project and on
 * generated values, and reads its output back with the `yaml` library, PyYAML and kubectl.
 */
export function manifestYaml(manifest: unknown): string {
  try {
    return (
      fastManifestYaml(manifest) ?? (holdsUnsafeText(manifest) ? safeManifestYaml(manifest) : Yaml.stringify(manifest))
    );
  } catch (e) {
    if (e instanceof LoneSurrogate) {
      throw new ComposeError(
        `${describe(manifest)} holds a string with a lone UTF-16 surrogate (U+${e.code.toString(16).toUpperCase()}) ` +
          `at ${e.path || 'its top'}, which neither UTF-8 nor YAML can carry`,
        { hint: 'remove the escape (such as "\\ud800") from the compose value, or write the whole character' },
      );
    }
    throw e;
  }
}

/** What cdk8s writes for `manifest`, or undefined where only `Yaml.stringify` can say. */
export function fastManifestYaml(manifest: unknown): string | undefined {
  return printDocument(manifest, { seen: new Set(), complete: false, path: [] });
}

/**
 * The printer on its own, for an object that holds a character only it escapes: every string `Yaml.stringify`
 * would print is double-quoted and escaped instead, a null is `null`, a float as the `yaml` library writes it, an
 * object met twice is printed twice (no alias).
 */
export function safeManifestYaml(manifest: unknown): string {
  const out = printDocument(manifest, { seen: new Set(), complete: true, path: [] });
  if (out === undefined) {
    throw new Error(`internal error: the YAML printer cannot print ${typeof manifest}`);
  }
  return out;
}

/** How the printer is printing: the objects above, whether it answers for everything, the key path (for errors). */
interface Printing {
  readonly seen: Set<object>;
  readonly complete: boolean;
  readonly path: string[];
}

function printDocument(manifest: unknown, ctx: Printing): string | undefined {
  try {
    if (Array.isArray(manifest)) {
      return `${manifest.length === 0 ? '[]' : seq(manifest, '', ctx)}\n`;
    }
    if (isPlainObject(manifest)) {
      return `${isEmptyMap(manifest, ctx) ? '{}' : map(manifest, '', ctx)}\n`;
    }
  } catch (e) {
    if (e === FALLBACK) {
      return undefined;
    }
    throw e;
  }
  return undefined;
}

/** A manifest as its messages name it. */
function describe(manifest: unknown): string {
  const m = manifest as { kind?: unknown; metadata?: { name?: unknown } } | undefined;
  return typeof m?.kind === 'string' ? `the ${m.kind} "${String(m.metadata?.name ?? '')}"` : 'a manifest';
}

/**
 * Characters the `yaml` library writes raw that YAML readers treat specially or refuse: DEL and the C1 controls
 * (U+0085 among them), U+2028, U+2029, the BOM, U+FFFE, U+FFFF, and surrogates that are not part of a pair.
 */
const UNSAFE =
  /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `Yaml.stringify` would print `text` so that a reader misreads or refuses it. */
function misread(text: string): boolean {
  return (
    UNSAFE.test(text) ||
    (text.includes('\t') && !text.includes('\n')) ||
    PYYAML_KEYS.test(text) ||
    (READ_OTHERWISE.some((test) => test.test(text)) && !YAML_11_TYPES.some((test) => test.test(text)))
  );
}

/** True when a string of `value` (a key or a value, at any depth) is one that `Yaml.stringify` would print unsafely. */
export function holdsUnsafeText(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') {
    return misread(value);
  }
  if (value === null || typeof value !== 'object' || depth > 1000) {
    return false;
  }
  if (Array.isArray(value)) {
    return value.some((item) => holdsUnsafeText(item, depth + 1));
  }
  return Object.entries(value).some(([k, v]) => misread(k) || holdsUnsafeText(v, depth + 1));
}

/** Thrown where a string holds a lone surrogate; `manifestYaml` turns it into a message. */
class LoneSurrogate {
  public constructor(
    public readonly code: number,
    public readonly path: string,
  ) {}
}

/** The escapes of a double-quoted scalar that YAML 1.1 and 1.2, PyYAML, go-yaml and the `yaml` library all read. */
const ESCAPES: Readonly<Record<number, string>> = {
  0x00: '\\0',
  0x09: '\\t',
  0x0a: '\\n',
  0x0d: '\\r',
  0x22: '\\"',
  0x5c: '\\\\',
  0x85: '\\N',
  0x2028: '\\L',
  0x2029: '\\P',
};

/** `value` double-quoted on one line, every character outside printable ASCII that a reader treats specially escaped. */
function escaped(value: string, ctx: Printing): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    const escape = ESCAPES[code];
    if (escape !== undefined) {
      out += escape;
    } else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) {
      out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      throw new LoneSurrogate(code, ctx.path.join('.'));
    } else if (code === 0xfeff || code === 0xfffe || code === 0xffff) {
      out += `\\u${code.toString(16).toUpperCase()}`;
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

/** Thrown (never out of this module) where the object needs `Yaml.stringify`. */
const FALLBACK = Symbol('fallback');

/**
 * The tests of the non-string tags of the YAML 1.1 schema (as the `yaml` library applies them before printing plain)
 * and of the 1.2 core schema (`0o17` is an integer there): a string either would read as another type is quoted.
 */
const OTHER_TYPES: readonly RegExp[] = (['1.1', '1.2'] as const).flatMap((version) => schemaTests(version));

/** The YAML 1.1 schema's tests alone: a string one of them matches `Yaml.stringify` quotes itself. */
const YAML_11_TYPES: readonly RegExp[] = schemaTests('1.1');

/**
 * What `Yaml.stringify` (YAML 1.1) prints plain and another reader reads as another type or refuses: the 1.2 core
 * schema's types (`0o17`); `=`, PyYAML's value key, and `<<`, the merge key, which its safe loader refuses as values.
 */
const READ_OTHERWISE: readonly RegExp[] = schemaTests('1.2');
const PYYAML_KEYS = /^(=|<<)$/;
// A tab in a plain scalar: the `yaml` library writes it plain, and PyYAML refuses it ("found character '\t' that
// cannot start any token"); such a string is quoted (`"a\tb"`).

function schemaTests(version: '1.1' | '1.2'): RegExp[] {
  const schema = new Document(null, { version }).schema;
  return [...schema.tags, ...(schema.compat ?? [])]
    .filter((tag) => tag.default && tag.tag !== 'tag:yaml.org,2002:str' && tag.test)
    .map((tag) => tag.test!);
}

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
function text(value: string, ctx: Printing): string {
  let out = printed.get(value);
  if (out === undefined && !printed.has(value)) {
    out = print(value);
    if (printed.size < 100_000) {
      printed.set(value, out);
    }
  }
  if (out === undefined) {
    if (ctx.complete || UNSAFE.test(value)) {
      return escaped(value, ctx);
    }
    throw FALLBACK;
  }
  return out;
}

function print(value: string): string | undefined {
  if (value === '<<') {
    // The YAML 1.1 merge key: the yaml library prints it plain, and PyYAML's safe loader refuses it as a value.
    return '"<<"';
  }
  if (
    value.length > 1024 ||
    UNSAFE.test(value) ||
    value.includes('\n') ||
    SPECIAL.test(value) ||
    DOCUMENT_MARKER.test(value)
  ) {
    return undefined;
  }
  if (
    !NOT_PLAIN.test(value) &&
    !value.includes('\t') &&
    !PYYAML_KEYS.test(value) &&
    !READ_OTHERWISE.some((test) => test.test(value)) &&
    !OTHER_TYPES.some((test) => test.test(value))
  ) {
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
function block(value: string, indent: string, ctx: Printing): string {
  if (SPECIAL.test(value) || UNSAFE.test(value) || /\n[\t ]+$/.test(value)) {
    return fallback(value, ctx);
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
    return fallback(value, ctx);
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

/** A string the fast path leaves to `Yaml.stringify`: escaped when it must be, or when the printer answers for all. */
function fallback(value: string, ctx: Printing): string {
  if (ctx.complete || UNSAFE.test(value)) {
    return escaped(value, ctx);
  }
  throw FALLBACK;
}

/** A scalar value; `indent` is where the lines of a block scalar start. */
function scalar(value: unknown, indent: string, ctx: Printing): string {
  switch (typeof value) {
    case 'string':
      return value.includes('\n') ? block(value, indent, ctx) : text(value, ctx);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
        return String(value);
      }
      if (ctx.complete) {
        // As the yaml library writes a number (stringifyNumber).
        return Number.isNaN(value)
          ? '.nan'
          : value === Infinity
            ? '.inf'
            : value === -Infinity
              ? '-.inf'
              : Object.is(value, -0)
                ? '-0'
                : String(value);
      }
      throw FALLBACK;
    default:
      if (ctx.complete && value === null) {
        return 'null';
      }
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
function collection(value: unknown, indent: string, ctx: Printing): { empty: string } | { text: string } | undefined {
  if (Array.isArray(value)) {
    return value.length === 0 ? { empty: '[]' } : { text: seq(value, indent, ctx) };
  }
  if (isPlainObject(value)) {
    return isEmptyMap(value, ctx) ? { empty: '{}' } : { text: map(value, indent, ctx) };
  }
  if (value !== null && typeof value === 'object') {
    throw FALLBACK;
  }
  return undefined;
}

/** True when a map prints as `{}` (the complete printer leaves out undefined values, as JSON does). */
function isEmptyMap(value: Record<string, unknown>, ctx: Printing): boolean {
  return Object.keys(value).every((key) => ctx.complete && value[key] === undefined);
}

/** A block map whose first line follows what is before it, and whose other lines start with `indent`. */
function map(value: Record<string, unknown>, indent: string, ctx: Printing): string {
  visit(value, ctx);
  const inner = `${indent}  `;
  let out = '';
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (item === undefined && ctx.complete) {
      // As JSON has it (a manifest from toJson() has none; a compose file written for a VM may).
      continue;
    }
    ctx.path.push(key);
    let line = `${text(key, ctx)}:`;
    const nested = collection(item, inner, ctx);
    if (nested === undefined) {
      line += ` ${scalar(item, inner, ctx)}`;
    } else if ('empty' in nested) {
      line += ` ${nested.empty}`;
    } else {
      line += `\n${inner}${nested.text}`;
    }
    ctx.path.pop();
    out += out === '' ? line : `\n${indent}${line}`;
  }
  leave(value, ctx);
  return out;
}

/** A block sequence, `- ` before each item, its other lines starting with `indent`. */
function seq(value: readonly unknown[], indent: string, ctx: Printing): string {
  visit(value, ctx);
  const inner = `${indent}  `;
  let out = '';
  value.forEach((item, i) => {
    ctx.path.push(`[${i}]`);
    const nested = collection(item, inner, ctx);
    const line = `- ${nested === undefined ? scalar(item, inner, ctx) : 'empty' in nested ? nested.empty : nested.text}`;
    ctx.path.pop();
    out += out === '' ? line : `\n${indent}${line}`;
  });
  leave(value, ctx);
  return out;
}

/**
 * An object met twice is an alias (`&a1` … `*a1`) in the `yaml` library's output: left to it, unless the printer
 * answers for everything, which prints it again (and refuses only a cycle).
 */
function visit(value: object, ctx: Printing): void {
  if (ctx.seen.has(value)) {
    if (ctx.complete) {
      throw new Error(`internal error: the manifest refers to itself at ${ctx.path.join('.')}`);
    }
    throw FALLBACK;
  }
  ctx.seen.add(value);
}

/** After an object is printed: the complete printer remembers only the objects above the one it prints. */
function leave(value: object, ctx: Printing): void {
  if (ctx.complete) {
    ctx.seen.delete(value);
  }
}
