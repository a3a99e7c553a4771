import { DatabaseEngine, EngineKind, imageRepository } from '../../lib/stateful/engine';

describe('detect', () => {
  test.each([
    ['postgres:16', EngineKind.POSTGRES],
    ['docker.io/library/postgres:16-alpine', EngineKind.POSTGRES],
    ['postgis/postgis:16-3.4', EngineKind.POSTGRES],
    ['mysql:8.0', EngineKind.MYSQL],
    ['mariadb:11@sha256:0123', EngineKind.MARIADB],
    ['mongo:7', EngineKind.MONGO],
    ['registry.example.com:5000/redis:7', EngineKind.REDIS],
    ['redis', EngineKind.REDIS],
  ])('%s is %s', (image, kind) => {
    expect(DatabaseEngine.detect(image)?.kind).toBe(kind);
  });

  test.each(['bitnami/postgresql:16', 'example/postgres-exporter:1', 'nginx:1.27', 'redisinsight/redisinsight'])(
    '%s is not an engine',
    (image) => {
      expect(DatabaseEngine.detect(image)).toBeUndefined();
    },
  );

  test('imageRepository strips registry, library/ and tag', () => {
    expect(imageRepository('localhost:5000/library/Postgres:16')).toBe('postgres');
  });

  test('fromName knows the engine names of the x- key', () => {
    expect(DatabaseEngine.fromName('mongo')).toBe(DatabaseEngine.MONGO);
    expect(DatabaseEngine.fromName('oracle')).toBeUndefined();
  });
});

describe('credentials', () => {
  const env = (values: Record<string, string>) => (name: string) => values[name];

  test('postgres reads its variables and names the database after the user', () => {
    expect(DatabaseEngine.POSTGRES.credentialsFrom(env({ POSTGRES_USER: 'shop', POSTGRES_PASSWORD: 'pw' }))).toEqual({
      username: 'shop',
      password: 'pw',
    });
    expect(DatabaseEngine.POSTGRES.withDefaults({ username: 'shop' })).toEqual({ username: 'shop', database: 'shop' });
    expect(DatabaseEngine.POSTGRES.withDefaults()).toEqual({ username: 'postgres', database: 'postgres' });
  });

  test('mysql prefers root, else the app user', () => {
    expect(
      DatabaseEngine.MYSQL.credentialsFrom(env({ MYSQL_ROOT_PASSWORD: 'r', MYSQL_USER: 'app', MYSQL_PASSWORD: 'a' })),
    ).toEqual({ password: 'r' });
    expect(
      DatabaseEngine.MYSQL.credentialsFrom(env({ MYSQL_USER: 'app', MYSQL_PASSWORD: 'a', MYSQL_DATABASE: 'db' })),
    ).toEqual({ username: 'app', password: 'a', database: 'db' });
    expect(DatabaseEngine.MARIADB.credentialsFrom(env({ MARIADB_ROOT_PASSWORD: 'm' }))).toEqual({ password: 'm' });
  });

  test('redis reads --requirepass from its command', () => {
    expect(DatabaseEngine.REDIS.credentialsFrom(env({}), ['redis-server', '--requirepass', 'rp'])).toEqual({
      password: 'rp',
    });
  });

  test('the variables that configure a fresh database', () => {
    expect(DatabaseEngine.MYSQL.credentialEnvironment({ username: 'app', password: 'a', database: 'db' })).toEqual([
      { name: 'MYSQL_DATABASE', key: 'database' },
      { name: 'MYSQL_PASSWORD', key: 'password' },
      { name: 'MYSQL_RANDOM_ROOT_PASSWORD', value: 'yes' },
      { name: 'MYSQL_USER', key: 'username' },
    ]);
    expect(DatabaseEngine.MONGO.credentialEnvironment({ username: 'root', password: 'p' })).toEqual([
      { name: 'MONGO_INITDB_ROOT_PASSWORD', key: 'password' },
      { name: 'MONGO_INITDB_ROOT_USERNAME', key: 'username' },
    ]);
  });
});

describe('connection strings', () => {
  test.each([
    [
      DatabaseEngine.POSTGRES,
      { username: 'u', password: 'p@ss', database: 'app' },
      'postgresql://u:p%40ss@db:5432/app',
    ],
    [DatabaseEngine.MYSQL, { username: 'root', password: 'pw', database: 'app' }, 'mysql://root:pw@db:3306/app'],
    [DatabaseEngine.MONGO, { username: 'root', password: 'pw' }, 'mongodb://root:pw@db:27017/?authSource=admin'],
    [DatabaseEngine.REDIS, { password: 'pw' }, 'redis://:pw@db:6379/0'],
    [DatabaseEngine.REDIS, {}, 'redis://db:6379/0'],
  ])('%#', (engine, credentials, uri) => {
    expect(engine.connectionUri('db', engine.port, credentials)).toBe(uri);
  });
});

describe('engine checks and dumps', () => {
  test.each([
    [DatabaseEngine.POSTGRES, 'pg_isready', 'pg_dump'],
    [DatabaseEngine.MYSQL, 'mysqladmin', 'mysqldump'],
    [DatabaseEngine.MARIADB, 'mariadb-admin', 'mariadb-dump'],
    [DatabaseEngine.MONGO, 'mongosh', 'mongodump'],
    [DatabaseEngine.REDIS, 'redis-cli', 'redis-cli'],
  ])("%#: readiness and dump use the engine's own tools", (engine, probe, dump) => {
    expect(engine.readinessCommand()!.join(' ')).toContain(probe);
    expect(engine.backupScript()).toContain(dump);
    expect(engine.supportsBackup).toBe(true);
  });

  test('a generic engine has a probe and a backup only when given', () => {
    const plain = DatabaseEngine.generic({ name: 'kv', port: 7000, dataPath: '/data' });
    expect(plain.readinessCommand()).toBeUndefined();
    expect(plain.supportsBackup).toBe(false);
    const full = DatabaseEngine.generic({
      name: 'kv',
      port: 7000,
      dataPath: '/data',
      readinessCommand: ['kv', 'ping'],
      backupScript: 'kv dump > "$BACKUP_FILE"',
    });
    expect(full.readinessCommand()).toEqual(['kv', 'ping']);
    expect(full.connectionUri('kv', 7000, {})).toBe('kv://kv:7000');
  });
});
