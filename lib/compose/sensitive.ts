import { ComposeError, isComposeError } from './errors';
import { SecretMatcher } from './secret-matcher';

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
 * Words that end in `PASS` or `PWD` without being a password: `BYPASS_CACHE`, `COMPASS_URL`, the shell's `OLDPWD`.
 * Any other word that ends so is one glued to its owner (`REDISPASS`, `DBPASS`, `MYSQLPWD`).
 */
const NOT_PASSWORD_WORDS: readonly string[] = [
  'BYPASS',
  'COMPASS',
  'ENCOMPASS',
  'OLDPWD',
  'OVERPASS',
  'SURPASS',
  'TRESPASS',
  'UNDERPASS',
];

/** `KEY` as the last word of a longer name. */
const KEY_WORD = /[A-Z0-9][^A-Z0-9]+KEY$/;

/** Whole words that name a root password with no password word in them (mailcow's `DBROOT`). */
const ROOT_PASSWORD_WORDS: readonly string[] = ['DBROOT'];

/**
 * True when the variable name matches one of the patterns, or has one of `SENSITIVE_NAME_WORDS` as a word, or a word
 * that ends in one glued to its owner (`REDISPASS`), or is a root password's name (`DBROOT`). Names
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
  // A key named after its owner (`SPAMHAUS_DQS_KEY`, `STRIPE_KEY`, `SSH_KEY`): the last word of a longer name. A
  // public key in a Secret costs nothing; a private one in a ConfigMap is readable by anyone who reads ConfigMaps.
  if (KEY_WORD.test(upper)) {
    return true;
  }
  // The words are needed only when the name holds one of SENSITIVE_NAME_WORDS (most names hold none).
  if (
    !SENSITIVE_NAME_WORDS.some((word) => upper.includes(word)) &&
    !ROOT_PASSWORD_WORDS.some((w) => upper.includes(w))
  ) {
    return false;
  }
  const words = upper.split(/[^A-Z0-9]+/).filter((w) => w !== '');
  const glued = (word: string, i: number) =>
    ROOT_PASSWORD_WORDS.includes(word) ||
    (SENSITIVE_NAME_WORDS.some((w) => word.length > w.length && word.endsWith(w)) &&
      !NOT_PASSWORD_WORDS.includes(word) &&
      !(i + 1 < words.length && PASSWORD_SETTING_WORDS.includes(words[i + 1])));
  return (
    words.some(glued) ||
    (words.length > 1 &&
      words.some(
        (word, i) =>
          SENSITIVE_NAME_WORDS.includes(word) &&
          !(i + 1 < words.length && PASSWORD_SETTING_WORDS.includes(words[i + 1])),
      ))
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
  protected readonly values = new Set<string>();

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

/** The length of the runs of characters by which {@link PublicNames} indexes the names. */
const NAME_RUN = 4;

/**
 * Public names (the project, its services and images), in lower case, and whether a value is part of one. One search
 * in all the names joined by NUL is quadratic in the app's size when every secret is searched for; here the names are
 * indexed by each run of 4 characters they hold, and a value is looked for only in the names that hold its first run
 * (most secrets' first run is in no name). A value with NUL is looked for in the joined text, as it always was.
 */
export class PublicNames {
  private readonly names: readonly string[];
  private readonly byRun = new Map<string, string[]>();
  private joinedText?: string;

  /** @param names lower case */
  constructor(names: readonly string[]) {
    this.names = names;
    for (const name of new Set(names)) {
      for (let at = 0; at + NAME_RUN <= name.length; at++) {
        const run = name.slice(at, at + NAME_RUN);
        const holders = this.byRun.get(run);
        if (holders === undefined) {
          this.byRun.set(run, [name]);
        } else if (holders[holders.length - 1] !== name) {
          holders.push(name);
        }
      }
    }
  }

  /** True when `value` (lower case) is part of a name, or spans names joined by NUL. */
  public has(value: string): boolean {
    if (value.length < NAME_RUN || value.includes('\0')) {
      this.joinedText ??= this.names.join('\0');
      return this.joinedText.includes(value);
    }
    return this.byRun.get(value.slice(0, NAME_RUN))?.some((name) => name.includes(value)) ?? false;
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
  /** Every value, the hidden ones marked, for {@link foundIn} and the rest alike. */
  private matcher?: SecretMatcher;

  public add(value: string): void {
    const known = this.values.size;
    super.add(value);
    if (this.values.size !== known) {
      this.hidden = undefined;
    }
  }

  /** True when `text` contains one of the recorded secrets (weak ones too), in one pass over the text. */
  public foundIn(text: string): boolean {
    return this.prepare().spans(text, true, false).length > 0;
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
    if (this.prepare().spans(text, true, true).length === 0) {
      return [];
    }
    return this.hidden!.filter((value) => text.includes(value)).sort();
  }

  /** The secrets that are not part of a public name, longest first. */
  public hiddenValues(): string[] {
    this.prepare();
    return [...this.hidden!];
  }

  /** True when the text holds a secret that {@link redact} would hide. */
  public hides(text: string): boolean {
    return this.prepare().spans(text, true, true).length > 0;
  }

  /**
   * The text with every recorded secret replaced by `[redacted]` (secrets that overlap become one). One pass over the
   * text, whatever the number and length of the secrets (Aho-Corasick).
   */
  public redact(text: string): string {
    const spans = this.prepare().spans(text, false, true);
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

  /** The automaton over every value, built again after a value or a name is added. */
  private prepare(): SecretMatcher {
    if (this.hidden === undefined || this.matcher === undefined) {
      const names = new PublicNames(this.names);
      const all = this.list();
      this.hidden = all.filter((value) => !names.has(value.toLowerCase())).sort((a, b) => b.length - a.length);
      this.matcher = new SecretMatcher(all, new Set(this.hidden));
    }
    return this.matcher;
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
