import {
  DEFAULT_SENSITIVE_NAME_PATTERNS, REDACTED, Redactor, SecretValues, embeddedPasswords, hasEmbeddedPassword, isSensitiveName, redactError,
} from '../../lib/app/sensitive';
import { ComposeError } from '../../lib/compose/errors';

describe('isSensitiveName', () => {
  test.each([
    'POSTGRES_PASSWORD', 'MYSQL_ROOT_PASSWD', 'SECRET_KEY_BASE', 'GITHUB_TOKEN', 'STRIPE_API_KEY', 'OPENAI_APIKEY',
    'JWT_PRIVATE_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'GOOGLE_APPLICATION_CREDENTIALS', 'gpg_passphrase',
    'db_password', 'MONGO_PASS', 'smtp_pass', 'DB_PWD',
  ])('%s is sensitive', (name) => {
    expect(isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(true);
  });

  test.each(['LOG_LEVEL', 'DATABASE_HOST', 'PORT', 'POSTGRES_USER', 'POSTGRES_PASSWORD_FILE', 'PWD', 'PASS', 'COMPASS_URL', 'BYPASS_CACHE', 'MONGO_PASS_FILE'])('%s is not', (name) => {
    expect(isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(false);
  });

  test('the list is extendable', () => {
    expect(isSensitiveName('LICENSE_KEY', DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(false);
    expect(isSensitiveName('LICENSE_KEY', [...DEFAULT_SENSITIVE_NAME_PATTERNS, 'license'])).toBe(true);
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

  test.each(['postgresql://shop@db:5432/shop', 'redis://cache:6379/0', 'http://api:8000/v1', 'user:pass'])('%s has none', (value) => {
    expect(hasEmbeddedPassword(value)).toBe(false);
  });
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

describe('Redactor', () => {
  test('writes every recorded secret as [redacted], longest first', () => {
    const redactor = new Redactor();
    redactor.add('hunter22');
    redactor.add('hunter22-and-more');
    expect(redactor.redact('a hunter22-and-more b hunter22 c')).toBe(`a ${REDACTED} b ${REDACTED} c`);
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
    expect((redactError(err, redactor) as Error).message).toBe('compose.yaml:3:7: services.web.ports[0]: bad port "[redacted]:80" '
      + '(got {"environment":{"DB_PASSWORD":"[redacted]"}}). Fix: not [redacted].');
  });
});
