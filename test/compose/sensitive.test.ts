import {
  DEFAULT_SENSITIVE_NAME_PATTERNS,
  PublicNames,
  REDACTED,
  Redactor,
  SecretValues,
  embeddedPasswords,
  hasEmbeddedPassword,
  isSensitiveName,
  redactError,
} from '../../lib/compose/sensitive';
import * as fc from 'fast-check';
import { ComposeError } from '../../lib/compose/errors';

describe('isSensitiveName', () => {
  test.each([
    'POSTGRES_PASSWORD',
    'MYSQL_ROOT_PASSWD',
    'SECRET_KEY_BASE',
    'GITHUB_TOKEN',
    'STRIPE_API_KEY',
    'OPENAI_APIKEY',
    'JWT_PRIVATE_KEY',
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'gpg_passphrase',
    'db_password',
    'MONGO_PASS',
    'smtp_pass',
    'DB_PWD',
    'REDISPASS',
    'DBPASS',
    'REDISMASTERPASS',
    'MYSQLPWD',
    'LDAP_BINDPASS',
    'DBROOT',
  ])('%s is sensitive', (name) => {
    expect(isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(true);
  });

  test.each([
    'LOG_LEVEL',
    'DATABASE_HOST',
    'PORT',
    'POSTGRES_USER',
    'POSTGRES_PASSWORD_FILE',
    'PWD',
    'PASS',
    'COMPASS_URL',
    'BYPASS_CACHE',
    'MONGO_PASS_FILE',
    'MAILCOW_PASS_SCHEME',
    'PWD_POLICY',
    'BYPASS',
    'OLDPWD',
    'COMPASS',
    'DBROOTDIR_PATH',
    'MAILPASS_SCHEME',
  ])('%s is not', (name) => {
    expect(isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(false);
  });

  test('the list is extendable', () => {
    expect(isSensitiveName('LICENSE_NUMBER', DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(false);
    expect(isSensitiveName('LICENSE_NUMBER', [...DEFAULT_SENSITIVE_NAME_PATTERNS, 'license'])).toBe(true);
  });

  test('a key named after its owner is secret: KEY as the last word of a longer name', () => {
    for (const name of ['SPAMHAUS_DQS_KEY', 'STRIPE_KEY', 'SSH_KEY', 'AIRFLOW__CORE__FERNET_KEY', 'LICENSE_KEY']) {
      expect([name, isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)]).toEqual([name, true]);
    }
    for (const name of ['KEY', 'KEYCLOAK_URL', 'MONKEY', 'KEY_PREFIX', 'SSH_KEY_FILE']) {
      expect([name, isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)]).toEqual([name, false]);
    }
  });
});

describe('embedded passwords', () => {
  test.each([
    ['postgresql://shop:pw-1@db:5432/shop', ['pw-1']],
    ['redis://:only-pass@cache:6379/0', ['only-pass']],
    ['mongodb://root:r00t@a:27017,b:27017/admin', ['r00t']],
    ['host=db user=app password=s3cret dbname=app', ['s3cret']],
    ['Server=sql;Database=app;User Id=sa;Password=Pa55w0rd;', ['Pa55w0rd']],
    ['jdbc:mysql://db:3306/app?user=root&password=hunter22', ['hunter22']],
  ])('%s', (value, passwords) => {
    expect(embeddedPasswords(value)).toEqual(passwords);
    expect(hasEmbeddedPassword(value)).toBe(true);
  });

  test.each(['postgresql://shop@db:5432/shop', 'redis://cache:6379/0', 'http://api:8000/v1', 'user:pass'])(
    '%s has none',
    (value) => {
      expect(hasEmbeddedPassword(value)).toBe(false);
    },
  );
});

describe('SecretValues', () => {
  test('finds recorded secrets (trimmed too) and ignores very short ones', () => {
    const values = new SecretValues();
    values.add('s3cret-value\n');
    values.add('no');
    expect(values.foundIn('url=x://u:s3cret-value@h')).toBe(true);
    expect(values.foundIn('no value here')).toBe(false);
    expect(values.list()).toEqual(['s3cret-value', 's3cret-value\n']);
  });
});

describe('PublicNames', () => {
  test('a value is public exactly when the names joined by NUL hold it', () => {
    const text = (min: number, max: number) =>
      fc.array(fc.constantFrom('a', 'b', 'c', '-', '\0'), { minLength: min, maxLength: max }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(text(0, 12), { maxLength: 5 }),
        text(0, 6),
        fc.nat(),
        fc.nat(),
        (names, other, from, length) => {
          // Half the values are parts of the names (anywhere, across NUL too), half random.
          const joined = names.join('\0');
          const value = from % 2 === 0 ? joined.slice(from % 13, (from % 13) + (length % 8)) : other;
          expect(new PublicNames(names).has(value)).toBe(joined.includes(value));
        },
      ),
      { numRuns: 1000, seed: 8 },
    );
    expect(new PublicNames(['postgres:16.4', 'shop']).has('gres:16')).toBe(true);
    expect(new PublicNames(['postgres:16.4', 'shop']).has('gres:17')).toBe(false);
  });
});

describe('Redactor', () => {
  test('writes every recorded secret as [redacted], longest first', () => {
    const redactor = new Redactor();
    redactor.add('hunter22');
    redactor.add('hunter22-and-more');
    expect(redactor.redact('a hunter22-and-more b hunter22 c')).toBe(`a ${REDACTED} b ${REDACTED} c`);
  });

  test('finds every secret, overlapping or nested, like a plain search for each would', () => {
    const redactor = new Redactor();
    ['abcd', 'bcdefg', 'xyzw', 'zzzzab', 'héllo-wörld'].forEach((v) => redactor.add(v));
    expect(redactor.redact('..abcdefg..xyzw..zzzzzabcd..héllo-wörld')).toBe(
      '..[redacted]..[redacted]..z[redacted]..[redacted]',
    );
    expect(redactor.redact('nothing here')).toBe('nothing here');
    expect(redactor.hides('aaxyzwbb')).toBe(true);
    expect(redactor.hides('xyz')).toBe(false);
  });

  test('redacts exactly what a search for each secret finds (overlaps merged), on random small alphabets', () => {
    const word = (min: number, max: number) =>
      fc.array(fc.constantFrom('a', 'b', 'é'), { minLength: min, maxLength: max }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(word(4, 7), { minLength: 1, maxLength: 5 }), word(0, 60), (secrets, text) => {
        const redactor = new Redactor();
        secrets.forEach((v) => redactor.add(v));
        expect(redactor.redact(text)).toBe(scanRedacted(text, secrets).expected);
      }),
      { numRuns: 300, seed: 6 },
    );
  });

  test('one automaton answers for every secret (foundIn) and for the hidden ones (redact), as searches for each do', () => {
    const word = (min: number, max: number) =>
      fc.array(fc.constantFrom('a', 'b', 'b', '𝔸'), { minLength: min, maxLength: max }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(word(4, 6), { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        word(0, 60),
        (secrets, public_, text) => {
          // Some secrets are parts of public names (weak), and so may be parts of other secrets, hidden or not.
          const names = secrets.filter((_, i) => public_[i]).map((s) => `x${s}y`);
          const redactor = new Redactor().keepNames(names);
          secrets.forEach((v) => redactor.add(v));
          const hidden = secrets.filter((s) => !names.some((n) => n.toLowerCase().includes(s.toLowerCase())));
          const { expected, covered } = scanRedacted(text, hidden);
          expect(redactor.redact(text)).toBe(expected);
          expect(redactor.hides(text)).toBe(covered.includes(true));
          expect(redactor.foundIn(text)).toBe(secrets.some((s) => text.includes(s)));
          expect(redactor.valuesIn(text)).toEqual([...new Set(hidden.filter((s) => text.includes(s)))].sort());
        },
      ),
      { numRuns: 500, seed: 7 },
    );
    // A weak secret at the end of a stretch that began a hidden one is left.
    const redactor = new Redactor().keepNames(['xaabby']);
    ['aaabbb', 'aabb'].forEach((v) => redactor.add(v));
    expect(redactor.redact('aaabb aaabbb')).toBe(`aaabb ${REDACTED}`);
    expect(redactor.foundIn('aaabb')).toBe(true);
  });

  test('a secret or a name recorded after a search counts in the next one', () => {
    const redactor = new Redactor();
    redactor.add('first-secret');
    expect(redactor.redact('first-secret second-secret')).toBe(`${REDACTED} second-secret`);
    redactor.add('second-secret');
    expect(redactor.redact('first-secret second-secret')).toBe(`${REDACTED} ${REDACTED}`);
    redactor.keepNames(['my-first-secret-app']);
    expect(redactor.redact('first-secret second-secret')).toBe(`first-secret ${REDACTED}`);
    expect(redactor.foundIn('first-secret')).toBe(true);
  });

  test('a long secret (a secret file) is found as the short ones are, overlaps merged', () => {
    const redactor = new Redactor();
    const file = `-----BEGIN KEY-----\n${'k'.repeat(2000)}\n-----END KEY-----\n`;
    redactor.add(file);
    redactor.add('END KEY-----\nafter');
    expect(redactor.redact(`key: ${file}after and ${file.trim()}`)).toBe(`key: ${REDACTED} and ${REDACTED}`);
    expect(redactor.foundIn(`x${file.trim()}y`)).toBe(true);
  });

  test('a weak secret, part of a public name, is left: it is public anyway', () => {
    const redactor = new Redactor().keepNames(['postgres:16.4', 'shop']);
    redactor.add('postgres');
    redactor.add('s3cret-value');
    expect(redactor.redact('image postgres:16.4 with s3cret-value')).toBe(`image postgres:16.4 with ${REDACTED}`);
    expect(redactor.hiddenValues()).toEqual(['s3cret-value']);
  });

  test('redactError rebuilds a ComposeError with the secret out of the problem, the value, allowed and hint', () => {
    const redactor = new Redactor();
    redactor.add('s3cret-value');
    const err = new ComposeError('bad port "s3cret-value:80"', {
      at: { file: 'compose.yaml', path: 'services.web.ports[0]', line: 3, column: 7 },
      value: { environment: { DB_PASSWORD: 's3cret-value' } },
      hint: 'not s3cret-value',
    });
    expect((redactError(err, redactor) as Error).message).toBe(
      'compose.yaml:3:7: services.web.ports[0]: bad port "[redacted]:80" ' +
        '(got {"environment":{"DB_PASSWORD":"[redacted]"}}). Fix: not [redacted].',
    );
  });
});

/**
 * What redaction should give, by a plain search for each secret: every character any occurrence covers, each run of
 * covered characters written as one `[redacted]`.
 */
function scanRedacted(text: string, secrets: readonly string[]): { expected: string; covered: boolean[] } {
  const covered = new Array<boolean>(text.length).fill(false);
  for (const secret of secrets) {
    for (let i = text.indexOf(secret); i >= 0; i = text.indexOf(secret, i + 1)) {
      covered.fill(true, i, i + secret.length);
    }
  }
  let expected = '';
  for (let i = 0; i < text.length; i++) {
    expected += covered[i] ? (i === 0 || !covered[i - 1] ? REDACTED : '') : text[i];
  }
  return { expected, covered };
}
