import { ComposeError, isComposeError } from './errors';

/**
 * Rule 3: which values are sensitive. A value is sensitive when its variable's name says so, or when it is a URL or
 * DSN that carries a password. Sensitive values go into Secrets; everything else may go into ConfigMaps.
 */

/**
 * Name fragments that mark an environment variable as sensitive, matched case-insensitively anywhere in the name.
 * Extend it through `ComposeAppProps.sensitiveNamePatterns`, e.g. `[...DEFAULT_SENSITIVE_NAME_PATTERNS, 'LICENSE']`.
 */
export const DEFAULT_SENSITIVE_NAME_PATTERNS: readonly string[] = [
  'ACCESS_KEY',
  'API_KEY',
  'APIKEY',
  'AUTH_KEY',
  'CLIENT_KEY',
  'CREDENTIAL',
  'ENCRYPTION_KEY',
  'PASSPHRASE',
  'PASSWD',
  'PASSWORD',
  'PRIVATE_KEY',
  'SECRET',
  'SIGNING_KEY',
  'TOKEN',
];

/**
 * Abbreviations of "password" that are sensitive as a whole word of a longer name only (`MONGO_PASS`, `DB_PWD`): not
 * inside another word (`COMPASS_URL`, `BYPASS_CACHE`), nor alone (`PWD` is the shell's working directory).
 */
export const SENSITIVE_NAME_WORDS: readonly string[] = ['PASS', 'PWD'];

/**
 * Words that, right after one of `SENSITIVE_NAME_WORDS`, make the name a setting about passwords rather than a
 * password: `MAILCOW_PASS_SCHEME=BLF-CRYPT`, `PWD_MIN_LENGTH=12`.
 */
const PASSWORD_SETTING_WORDS: readonly string[] = ['ALGO', 'ALGORITHM', 'LENGTH', 'POLICY', 'SCHEME'];

/**
 * True when the variable name matches one of the patterns, or has one of `SENSITIVE_NAME_WORDS` as a word. Names
 * ending in `_FILE` hold a path to a mounted secret (the official images' convention), not the secret itself, so they
 * are not sensitive by name.
 */
export function isSensitiveName(name: string, patterns: readonly string[]): boolean {
  const upper = name.toUpperCase();
  if (upper.endsWith('_FILE')) {
    return false;
  }
  if (patterns.some((pattern) => pattern !== '' && upper.includes(pattern.toUpperCase()))) {
    return true;
  }
  // The words are needed only when the name holds one of SENSITIVE_NAME_WORDS (most names hold none).
  if (!SENSITIVE_NAME_WORDS.some((word) => upper.includes(word))) {
    return false;
  }
  const words = upper.split(/[^A-Z0-9]+/).filter((w) => w !== '');
  return (
    words.length > 1 &&
    words.some(
      (word, i) =>
        SENSITIVE_NAME_WORDS.includes(word) && !(i + 1 < words.length && PASSWORD_SETTING_WORDS.includes(words[i + 1])),
    )
  );
}

// key=value DSNs (libpq, ADO.NET, JDBC query strings, mount options): password=..., pwd=... Linear: the one
// unbounded part, `\s*=\s*`, can only start after the keyword, which starts after a delimiter.
const DSN_PASSWORD = /(?:^|[\s;?&,])(?:password|passwd|pwd)\s*=\s*([^\s;&,]+)/gi;

/** DSN_PASSWORD's keywords, anywhere (no `g` flag: `test` keeps no state; embeddedPasswords' test runs it). */
const DSN_KEYWORD = /password|passwd|pwd/i;

/** The patterns of this file, for the test that runs each on adversarial input. */
export const SENSITIVE_PATTERNS: readonly RegExp[] = [DSN_PASSWORD];

/** The passwords embedded in a value as URL userinfo or DSN `password=` pairs, in order of appearance. */
export function embeddedPasswords(value: string): string[] {
  const found: { at: number; password: string }[] = urlPasswords(value);
  // DSN_PASSWORD matches only where one of its keywords is: most values hold none, and matchAll copies the expression.
  if (DSN_KEYWORD.test(value)) {
    for (const match of value.matchAll(DSN_PASSWORD)) {
      if (match[1]) {
        found.push({ at: match.index ?? 0, password: match[1] });
      }
    }
  }
  return found.length === 0 ? [] : found.sort((a, b) => a.at - b.at).map((f) => f.password);
}

const SCHEME_CHAR = /[a-z0-9+.-]/i;
const LETTER = /[a-z]/i;
const BLANK = /\s/;

/**
 * `scheme://user:password@host`: the password is the part between the first ":" of the userinfo and the "@". A
 * scan from each `://`, not a regular expression: the expression `[a-z][a-z0-9+.-]*://…` is retried from every
 * letter of a long word, which takes quadratic time (a 100,000-letter value took 22 s). Each character is looked at
 * a bounded number of times here.
 */
function urlPasswords(value: string): { at: number; password: string }[] {
  const found: { at: number; password: string }[] = [];
  let from = 0;
  for (;;) {
    const sep = value.indexOf('://', from);
    if (sep < 0) {
      return found;
    }
    from = sep + 3;
    // The scheme: the run of scheme characters before "://", starting at its first letter.
    let start = sep;
    while (start > 0 && SCHEME_CHAR.test(value[start - 1])) {
      start -= 1;
    }
    while (start < sep && !LETTER.test(value[start])) {
      start += 1;
    }
    if (start === sep) {
      continue;
    }
    // The user: up to the first ":" (no "/", blank or "@" before it).
    let i = sep + 3;
    while (i < value.length && value[i] !== ':' && value[i] !== '/' && value[i] !== '@' && !BLANK.test(value[i])) {
      i += 1;
    }
    if (value[i] !== ':') {
      continue;
    }
    // The password: up to the "@" (no "/" or blank before it).
    const begin = i + 1;
    let j = begin;
    while (j < value.length && value[j] !== '@' && value[j] !== '/' && !BLANK.test(value[j])) {
      j += 1;
    }
    if (value[j] === '@' && j > begin) {
      found.push({ at: start, password: value.slice(begin, j) });
      from = j + 1;
    }
  }
}

/** True when the value is (or contains) a URL or DSN with a password in it. */
export function hasEmbeddedPassword(value: string): boolean {
  return embeddedPasswords(value).length > 0;
}

/**
 * Shortest secret that is searched for inside other values and files. Shorter ones (`1`, `yes`) would flag
 * unrelated text; they are still kept in Secrets where they were declared.
 */
export const MIN_SCANNED_SECRET_LENGTH = 4;

/**
 * The set of secret strings of one app (sensitive env values, embedded passwords, compose secret contents), so
 * that any other value or file that contains one of them is kept in a Secret too.
 */
export class SecretValues {
  private readonly values = new Set<string>();

  /** Records a secret string (and its trimmed form, as files usually end with a newline). */
  public add(value: string): void {
    for (const candidate of [value, value.trim()]) {
      if (candidate.length >= MIN_SCANNED_SECRET_LENGTH) {
        this.values.add(candidate);
      }
    }
  }

  /** True when `text` contains one of the recorded secrets. */
  public foundIn(text: string): boolean {
    for (const value of this.values) {
      if (text.includes(value)) {
        return true;
      }
    }
    return false;
  }

  /** The recorded secrets that `text` contains, sorted. */
  public valuesIn(text: string): string[] {
    return [...this.values].filter((value) => text.includes(value)).sort();
  }

  /** The recorded secrets, sorted (for tests that scan the output). */
  public list(): string[] {
    return [...this.values].sort();
  }
}

/** What a redacted secret reads as. */
export const REDACTED = '[redacted]';

/**
 * The one redactor: every message, warning, runbook line and golden-image bundle file passes through it before it is
 * printed or written. It knows every value the project classified as secret (sensitive environment values from the
 * compose file, `.env`, env files and the shell, embedded passwords, secret files) and writes each as `[redacted]`.
 */
export class Redactor extends SecretValues {
  private readonly names: string[] = [];
  /** The values to hide, longest first; computed once per change (messages are many, secrets and names few). */
  private hidden?: string[];
  private matcher?: Matcher;
  /** Every value, weak ones included, for {@link foundIn}. */
  private all?: Matcher;

  public add(value: string): void {
    super.add(value);
    this.hidden = undefined;
    this.all = undefined;
  }

  /** True when `text` contains one of the recorded secrets (weak ones too), in one pass over the text. */
  public foundIn(text: string): boolean {
    this.all ??= new Matcher(this.list());
    return this.all.spans(text, true).length > 0;
  }

  /**
   * Records public names (the project, its services and images). A secret that is part of one (a "weak secret", such
   * as `POSTGRES_PASSWORD=postgres`) is public anyway and is not redacted: redacting it would hide the names.
   */
  public keepNames(names: Iterable<string>): this {
    for (const name of names) {
      this.names.push(name.toLowerCase());
    }
    this.hidden = undefined;
    return this;
  }

  /**
   * The secrets that `text` contains, sorted, less those that are part of a public name: such a secret (`airflow`)
   * shows outside the Secret whatever is done, is reported as `weak-secret`, and is not chased in commands.
   */
  public valuesIn(text: string): string[] {
    // One pass over the text says whether any secret is in it (most texts hold none); only then each is looked for.
    const matcher = this.prepare();
    if (matcher.spans(text, true).length === 0) {
      return [];
    }
    return matcher.values.filter((value) => text.includes(value)).sort();
  }

  /** The secrets that are not part of a public name, longest first. */
  public hiddenValues(): string[] {
    return [...this.prepare().values];
  }

  /** True when the text holds a secret that {@link redact} would hide. */
  public hides(text: string): boolean {
    return this.prepare().spans(text, true).length > 0;
  }

  /**
   * The text with every recorded secret replaced by `[redacted]` (secrets that overlap become one). One pass over the
   * text, whatever the number and length of the secrets (Aho-Corasick).
   */
  public redact(text: string): string {
    const spans = this.prepare().spans(text, false);
    if (spans.length === 0) {
      return text;
    }
    let out = '';
    let last = 0;
    for (const [start, end] of spans) {
      out += text.slice(last, start) + REDACTED;
      last = end;
    }
    return out + text.slice(last);
  }

  /** Records every value of another set. */
  public addAll(values: Iterable<string>): this {
    for (const value of values) {
      this.add(value);
    }
    return this;
  }

  private prepare(): Matcher {
    if (this.hidden === undefined || this.matcher === undefined) {
      const joined = this.names.join('\0');
      this.hidden = this.list()
        .filter((value) => !joined.includes(value.toLowerCase()))
        .sort((a, b) => b.length - a.length);
      this.matcher = new Matcher(this.hidden);
    }
    return this.matcher;
  }
}

/** Values longer than this (secret files) are searched for one by one: an automaton node per character would cost memory. */
const AUTOMATON_VALUE_CHARS = 256;

/** Unicode's code points: 0x110000. A node and a code point make one key of the transitions. */
const CODE_POINTS = 0x110000;

/** ASCII's code points: their transitions have keys of their own, small integers, which a Map hashes fastest. */
const ASCII = 0x80;

/**
 * An Aho-Corasick automaton over a set of strings: every occurrence in a text, in one pass over it. Long values
 * (whole secret files, few) are searched for with `indexOf`, each in one pass too.
 */
class Matcher {
  /**
   * The transitions of every node on ASCII code points, in one map keyed by `node * ASCII + code point` (a map per
   * node costs more); {@link other} holds the rest, keyed by `node * CODE_POINTS + code point`.
   */
  private readonly ascii = new Map<number, number>();
  private readonly other = new Map<number, number>();
  private readonly fail: number[] = [0];
  /** The longest value that ends at each node, itself or through its suffix links (0: none). */
  private readonly longest: number[] = [0];
  private readonly long: readonly string[];
  private readonly empty: boolean;

  constructor(public readonly values: readonly string[]) {
    this.long = values.filter((v) => v.length > AUTOMATON_VALUE_CHARS);
    const short = values.filter((v) => v.length <= AUTOMATON_VALUE_CHARS && v !== '');
    this.empty = short.length === 0;
    // Each node's parent, the code point that leads to it and its depth, to visit the nodes breadth first below.
    const parent: number[] = [0];
    const via: number[] = [0];
    const depth: number[] = [0];
    for (const value of short) {
      let node = 0;
      for (let i = 0; i < value.length;) {
        const cp = value.codePointAt(i)!;
        i += cp > 0xffff ? 2 : 1;
        let child = this.edge(node, cp);
        if (child === undefined) {
          child = this.fail.length;
          this.fail.push(0);
          this.longest.push(0);
          parent.push(node);
          via.push(cp);
          depth.push(depth[node] + 1);
          if (cp < ASCII) {
            this.ascii.set(node * ASCII + cp, child);
          } else {
            this.other.set(node * CODE_POINTS + cp, child);
          }
        }
        node = child;
      }
      this.longest[node] = Math.max(this.longest[node], value.length);
    }
    // Breadth first (by depth, which a counting sort gives): each node's suffix link is known before its children's.
    const byDepth: number[][] = [];
    for (let node = 1; node < depth.length; node++) {
      (byDepth[depth[node]] ??= []).push(node);
    }
    for (const level of byDepth.slice(2)) {
      for (const child of level ?? []) {
        const cp = via[child];
        let f = this.fail[parent[child]];
        let target = this.edge(f, cp);
        while (target === undefined && f !== 0) {
          f = this.fail[f];
          target = this.edge(f, cp);
        }
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        this.longest[child] = Math.max(this.longest[child], this.longest[this.fail[child]]);
      }
    }
  }

  /** The node a transition on `cp` leads to from `node`, if there is one. */
  private edge(node: number, cp: number): number | undefined {
    return cp < ASCII ? this.ascii.get(node * ASCII + cp) : this.other.get(node * CODE_POINTS + cp);
  }

  /**
   * The stretches of the text covered by values, as [start, end) pairs, merged where they overlap. For each end
   * position the longest value ending there is enough: it covers every shorter one ending there.
   */
  public spans(text: string, firstOnly: boolean): [number, number][] {
    const spans = this.shortSpans(text, firstOnly);
    if (this.long.length === 0 || (firstOnly && spans.length > 0)) {
      return spans;
    }
    const all = [...spans];
    for (const value of this.long) {
      for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
        all.push([at, at + value.length]);
        if (firstOnly) {
          return all;
        }
      }
    }
    all.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const [start, end] of all) {
      const last = merged[merged.length - 1];
      if (last && start <= last[1]) {
        last[1] = Math.max(last[1], end);
      } else {
        merged.push([start, end]);
      }
    }
    return merged;
  }

  private shortSpans(text: string, firstOnly: boolean): [number, number][] {
    const spans: [number, number][] = [];
    if (this.empty) {
      return spans;
    }
    let node = 0;
    // Positions in UTF-16 units, as the values were inserted by code point: keep both in step.
    let index = 0;
    while (index < text.length) {
      const cp = text.codePointAt(index)!;
      index += cp > 0xffff ? 2 : 1;
      let next = this.edge(node, cp);
      while (next === undefined && node !== 0) {
        node = this.fail[node];
        next = this.edge(node, cp);
      }
      node = next ?? 0;
      const length = this.longest[node];
      if (length > 0) {
        const start = index - length;
        const previous = spans[spans.length - 1];
        if (previous && start <= previous[1]) {
          previous[0] = Math.min(previous[0], start);
          previous[1] = index;
          // A long value may reach back over earlier stretches too.
          while (spans.length > 1 && spans[spans.length - 2][1] >= spans[spans.length - 1][0]) {
            const last = spans.pop()!;
            const before = spans[spans.length - 1];
            before[0] = Math.min(before[0], last[0]);
            before[1] = Math.max(before[1], last[1]);
          }
        } else {
          spans.push([start, index]);
        }
        if (firstOnly) {
          return spans;
        }
      }
    }
    return spans;
  }
}

/** A ComposeError (or a cdk8s validation error) with every secret it quotes written as `[redacted]`. */
export function redactError(err: unknown, redactor: Redactor): unknown {
  if (!isComposeError(err)) {
    if (err instanceof Error && redactor.foundIn(err.message)) {
      const copy = new Error(redactor.redact(err.message));
      copy.stack = copy.message;
      return copy;
    }
    return err;
  }
  const redact = (text: string | undefined) => (text === undefined ? undefined : redactor.redact(text));
  const at =
    err.file === undefined
      ? undefined
      : {
          file: err.file,
          path: err.path ?? '',
          ...(err.line !== undefined ? { line: err.line } : {}),
          ...(err.column !== undefined ? { column: err.column } : {}),
        };
  return new ComposeError(redactor.redact(err.problem), {
    at,
    ...(err.value !== undefined ? { value: redactDeep(err.value, redactor) } : {}),
    allowed: redact(err.allowed),
    hint: redact(err.hint),
  });
}

function redactDeep(value: unknown, redactor: Redactor): unknown {
  if (typeof value === 'string') {
    return redactor.redact(value);
  }
  if (Array.isArray(value)) {
    return value.map((item) => redactDeep(item, redactor));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactor.redact(k), redactDeep(v, redactor)]));
  }
  return value;
}
