import {
  DEFAULT_SENSITIVE_NAME_PATTERNS, SecretValues, embeddedPasswords, hasEmbeddedPassword, isSensitiveName,
} from '../../lib/app/sensitive';

describe('isSensitiveName', () => {
  test.each([
    'POSTGRES_PASSWORD', 'MYSQL_ROOT_PASSWD', 'SECRET_KEY_BASE', 'GITHUB_TOKEN', 'STRIPE_API_KEY', 'OPENAI_APIKEY',
    'JWT_PRIVATE_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'GOOGLE_APPLICATION_CREDENTIALS', 'gpg_passphrase',
    'db_password', 'MONGO_PASS', 'smtp_pass', 'DB_PWD',
  ])('%s is sensitive', (name) => {
    expect(isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)).toBe(true);
  });

  test.each(['LOG_LEVEL', 'DATABASE_HOST', 'PORT', 'POSTGRES_USER', 'POSTGRES_PASSWORD_FILE', 'PWD', 'PASS', 'COMPASS_URL', 'BYPASS_CACHE', 'MONGO_PASS_FILE', 'MAILCOW_PASS_SCHEME', 'PWD_POLICY'])('%s is not', (name) => {
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
