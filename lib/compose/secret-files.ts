import { FileContent } from './model';
import { SecretMatcher } from './secret-matcher';
import { MIN_SCANNED_SECRET_LENGTH } from './sensitive';

/**
 * Which files are secret by nature, the one rule for every file the loader reads (a bound file, a file of a bound
 * folder, a compose config): its content or its name says it holds a key or a password, so it goes into a Secret and
 * never into a ConfigMap, whatever values the project declared secret.
 *
 * By content: a PEM private key (any `-----BEGIN … PRIVATE KEY-----`, OpenSSH's included), a PGP private key block,
 * a PuTTY key, a PKCS#12 store (its DER header), an htpasswd file (every line `user:<hash>`).
 * By name (the last part of the path, any case): `id_rsa`, `id_dsa`, `id_ecdsa`, `id_ed25519` (and their `-sk`
 * forms), `.p12`, `.pfx`, `.jks`, `.keystore`, `.key`, `htpasswd`, and any name holding `secret` or `password`.
 *
 * @returns why the file is secret, in words for a message (`a PEM private key`), or undefined
 */
export function secretFileKind(written: string, bytes: Buffer): string | undefined {
  return byContent(bytes) ?? byName(baseName(written));
}

/** The name rules of {@link secretFileKind}, for a file known by its name only. */
export function secretFileName(written: string): string | undefined {
  return byName(baseName(written));
}

function baseName(written: string): string {
  const parts = written.split(/[\\/]/).filter((p) => p !== '');
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

const SSH_KEY_NAMES = new Set(['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk']);

function byName(name: string): string | undefined {
  if (SSH_KEY_NAMES.has(name)) {
    return 'an SSH private key (by its name)';
  }
  if (name === '.htpasswd' || name === 'htpasswd' || name.endsWith('.htpasswd')) {
    return 'an htpasswd file (by its name)';
  }
  const extension = /\.(p12|pfx|jks|keystore|key)$/.exec(name)?.[1];
  if (extension !== undefined) {
    return extension === 'key' ? 'a key file (named *.key)' : `a key store (named *.${extension})`;
  }
  if (name.includes('secret')) {
    return 'a secret file (named *secret*)';
  }
  if (name.includes('password')) {
    return 'a password file (named *password*)';
  }
  return undefined;
}

/** A PEM private key of any kind: RSA, EC, DSA, ENCRYPTED, OPENSSH, plain PKCS#8. */
const PEM_PRIVATE_KEY = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----/;
/** One htpasswd line: a user, then a hash of the kinds Apache and nginx read (MD5-apr1, bcrypt, SHA-1, crypt). */
const HTPASSWD_LINE = /^[^:\s#]+:(?:\$apr1\$|\$2[abxy]?\$|\{SHA\}|\{SSHA\}|\$[156]\$)\S+$/;

function byContent(bytes: Buffer): string | undefined {
  if (isPkcs12(bytes)) {
    return 'a PKCS#12 key store';
  }
  // The markers are ASCII: latin1 reads every byte as one character, so a binary file is searched too.
  const text = bytes.toString('latin1');
  const pem = PEM_PRIVATE_KEY.exec(text);
  if (pem) {
    return pem[1] === 'OPENSSH ' ? 'an OpenSSH private key' : 'a PEM private key';
  }
  if (text.includes('-----BEGIN PGP PRIVATE KEY BLOCK-----')) {
    return 'a PGP private key';
  }
  if (text.startsWith('PuTTY-User-Key-File-')) {
    return 'a PuTTY private key';
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.startsWith('#'));
  if (lines.length > 0 && lines.every((line) => HTPASSWD_LINE.test(line))) {
    return 'an htpasswd file';
  }
  return undefined;
}

/**
 * A PKCS#12 store (RFC 7292): a DER (or BER) SEQUENCE whose first element is the INTEGER 3 and whose second is a
 * SEQUENCE, the header every `.p12` and `.pfx` starts with.
 */
function isPkcs12(bytes: Buffer): boolean {
  if (bytes.length < 8 || bytes[0] !== 0x30) {
    return false;
  }
  const length = bytes[1];
  // Short form (< 0x80), indefinite (0x80), or long form with 1 to 4 length bytes.
  const skip = length < 0x80 ? 0 : length === 0x80 ? 0 : length - 0x80;
  if (skip > 4) {
    return false;
  }
  const at = 2 + skip;
  return bytes[at] === 0x02 && bytes[at + 1] === 0x01 && bytes[at + 2] === 0x03 && bytes[at + 3] === 0x30;
}

/**
 * Searches file contents for known secret values: as they are (in a text file, or in a binary file's bytes read as
 * UTF-8 and as Latin-1) and in base64 at each of the three alignments a value can take inside a longer base64 text
 * (a Kubernetes Secret manifest, a `data:` URL, a binary file's own base64 in the model). Built once per set of values.
 */
export class SecretFileScanner {
  private readonly matcher: SecretMatcher;
  private readonly empty: boolean;

  constructor(values: readonly string[]) {
    const searched = new Set<string>();
    for (const value of values) {
      if (value.length < MIN_SCANNED_SECRET_LENGTH) {
        continue;
      }
      searched.add(value);
      for (const encoded of base64Forms(value)) {
        searched.add(encoded);
      }
    }
    this.empty = searched.size === 0;
    this.matcher = new SecretMatcher([...searched].sort(), new Set());
  }

  /** True when the content holds a known secret value, raw or in base64. */
  public holds(content: FileContent): boolean {
    if (this.empty) {
      return false;
    }
    // A binary file's base64 in the model is not searched: short values would match it by chance.
    const texts = content.binary ? decodedForms(Buffer.from(content.text, 'base64')) : [content.text];
    return texts.some((text) => this.matcher.spans(text, true, false).length > 0);
  }
}

function decodedForms(bytes: Buffer): string[] {
  return [bytes.toString('utf8'), bytes.toString('latin1')];
}

/**
 * The base64 text a value becomes inside a longer base64 text, at each alignment: the value after 0, 1 or 2 other
 * bytes, keeping only the characters that depend on the value's bytes alone. Forms shorter than the scanned minimum
 * are left out (they would match unrelated text).
 */
export function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const form = encoded.slice(first, end);
    if (form.length >= Math.max(MIN_SCANNED_SECRET_LENGTH, 6)) {
      forms.push(form);
    }
  }
  return forms;
}

/** One scanner per set of values (an app asks for many files against the same secrets). */
const scanners = new WeakMap<object, { size: number; scanner: SecretFileScanner }>();

/**
 * Why a file must be kept in a Secret: secret by nature ({@link secretFileKind}), or holding one of the app's secret
 * values (raw or base64). Undefined when it may go into a ConfigMap.
 */
export function secretFileReason(content: FileContent, secrets: { list(): string[] }): string | undefined {
  if (content.secret !== undefined) {
    return `is ${content.secret}`;
  }
  const values = secrets.list();
  let cached = scanners.get(secrets);
  if (cached === undefined || cached.size !== values.length) {
    cached = { size: values.length, scanner: new SecretFileScanner(values) };
    scanners.set(secrets, cached);
  }
  return cached.scanner.holds(content) ? 'contains a secret value' : undefined;
}
