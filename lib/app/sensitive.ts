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
 * True when the variable name matches one of the patterns, or has one of `SENSITIVE_NAME_WORDS` as a word. Names
 * ending in `_FILE` hold a path to a mounted secret (the official images' convention), not the secret itself, so they
 * are not sensitive by name.
 */
export function isSensitiveName(name: string, patterns: readonly string[]): boolean {
  const upper = name.toUpperCase();
  if (upper.endsWith('_FILE')) {
    return false;
  }
  const words = upper.split(/[^A-Z0-9]+/).filter((w) => w !== '');
  return patterns.some((pattern) => pattern !== '' && upper.includes(pattern.toUpperCase()))
    || (words.length > 1 && SENSITIVE_NAME_WORDS.some((word) => words.includes(word)));
}

// scheme://user:password@host — the password is the part between the first ":" of the userinfo and the "@".
const URL_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^@\s/]+)@/gi;
// key=value DSNs (libpq, ADO.NET, JDBC query strings): password=..., pwd=...
const DSN_PASSWORD = /(?:^|[\s;?&])(?:password|passwd|pwd)\s*=\s*([^\s;&]+)/gi;

/** The passwords embedded in a value as URL userinfo or DSN `password=` pairs, in order of appearance. */
export function embeddedPasswords(value: string): string[] {
  const found: string[] = [];
  for (const pattern of [URL_PASSWORD, DSN_PASSWORD]) {
    for (const match of value.matchAll(pattern)) {
      if (match[1]) {
        found.push(match[1]);
      }
    }
  }
  return found;
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

  private publicNames: readonly string[] = [];

  /**
   * Names that are public anyway (the project's, the services', the images'): a secret that is part of one
   * (`airflow`) shows outside the Secret whatever is done, is reported as `weak-secret`, and is not chased in commands.
   */
  public setPublicNames(names: readonly string[]): void {
    this.publicNames = names.map((n) => n.toLowerCase());
  }

  /** The recorded secrets that `text` contains, sorted; those that are part of a public name are left out. */
  public valuesIn(text: string): string[] {
    return [...this.values]
      .filter((value) => text.includes(value) && !this.publicNames.some((name) => name.includes(value.toLowerCase())))
      .sort();
  }

  /** The recorded secrets, sorted (for tests that scan the output). */
  public list(): string[] {
    return [...this.values].sort();
  }
}
