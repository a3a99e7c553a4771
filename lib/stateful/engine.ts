/** What a database or cache engine needs from Kubernetes: its port, data path, probe, credentials and dump. */

/** The engines `StatefulDependency` knows; the values are the names used in `x-cdk8s-compose.engine`. */
export enum EngineKind {
  POSTGRES = 'postgres',
  MYSQL = 'mysql',
  MARIADB = 'mariadb',
  MONGO = 'mongo',
  REDIS = 'redis',
  GENERIC = 'generic',
}

/** Credentials of a database: what the credentials Secret holds. */
export interface DatabaseCredentials {
  /**
   * @default - the engine's default user (`postgres`, `root`), none for redis
   */
  readonly username?: string;
  /**
   * @default - no password (the engine must then allow that, e.g. `POSTGRES_HOST_AUTH_METHOD=trust`)
   */
  readonly password?: string;
  /**
   * @default - the engine's default database
   */
  readonly database?: string;
}

/** One credential the engine's image reads from its environment. */
export interface CredentialVariable {
  /** The environment variable, e.g. `POSTGRES_PASSWORD`. */
  readonly name: string;
  /** Which credential it holds. */
  readonly key: keyof DatabaseCredentials;
}

/** One variable that configures a credential in the engine's image. */
export interface CredentialSetting {
  readonly name: string;
  /** The credential it reads from the Secret. */
  readonly key?: keyof DatabaseCredentials;
  /** A fixed value (e.g. `MYSQL_RANDOM_ROOT_PASSWORD=yes`). */
  readonly value?: string;
}

/** Options of `DatabaseEngine.generic`. */
export interface GenericEngineOptions {
  /** The engine's name, for messages and the backup file names, e.g. `cassandra`. */
  readonly name: string;
  /** The port clients use. */
  readonly port: number;
  /** Where the engine keeps its data; the data claim is mounted there. */
  readonly dataPath: string;
  /**
   * The image when none is given.
   * @default - an image must be given to `StatefulDependency`
   */
  readonly defaultImage?: string;
  /**
   * A readiness command run in the container.
   * @default - a tcpSocket readiness probe on the port
   */
  readonly readinessCommand?: string[];
  /**
   * A shell script that writes one backup to the file named by `$BACKUP_FILE`. It can read `$DB_HOST`, `$DB_PORT`
   * and the credentials as `$DB_USERNAME`, `$DB_PASSWORD`, `$DB_DATABASE`, `$DB_URI`.
   * @default - no backup CronJob (there is no generic dump command)
   */
  readonly backupScript?: string;
  /**
   * The URI scheme of the connection string.
   * @default - the engine name
   */
  readonly uriScheme?: string;
}

interface EngineDefinition {
  readonly kind: EngineKind;
  readonly name: string;
  readonly port: number;
  readonly dataPath: string;
  readonly defaultImage?: string;
  readonly dataSubPath?: string;
  readonly dataEnv?: Readonly<Record<string, string>>;
  readonly credentialVariables: readonly CredentialVariable[];
  readonly defaults: DatabaseCredentials;
  readonly readiness?: (port: number) => string[];
  readonly backupScript?: string;
  readonly backupExtension: string;
  readonly uri: (host: string, port: number, credentials: DatabaseCredentials) => string;
}

function userinfo(credentials: DatabaseCredentials): string {
  const user = credentials.username ? encodeURIComponent(credentials.username) : '';
  const password = credentials.password ? `:${encodeURIComponent(credentials.password)}` : '';
  return user || password ? `${user}${password}@` : '';
}

const sh = (script: string): string[] => ['sh', '-c', script];

const POSTGRES_DATA = '/var/lib/postgresql/data';

const DEFINITIONS: Record<Exclude<EngineKind, EngineKind.GENERIC>, EngineDefinition> = {
  [EngineKind.POSTGRES]: {
    kind: EngineKind.POSTGRES,
    name: 'postgres',
    port: 5432,
    dataPath: POSTGRES_DATA,
    defaultImage: 'postgres:16',
    // A fresh volume's root holds lost+found, and initdb refuses a non-empty directory: use a subdirectory.
    dataEnv: { PGDATA: `${POSTGRES_DATA}/pgdata` },
    credentialVariables: [
      { name: 'POSTGRES_USER', key: 'username' },
      { name: 'POSTGRES_PASSWORD', key: 'password' },
      { name: 'POSTGRES_DB', key: 'database' },
    ],
    defaults: { username: 'postgres' },
    // TCP, not the socket: during first-run initialisation the server listens on the socket only.
    readiness: (port) => sh(`pg_isready -h 127.0.0.1 -p ${port} -U "\${POSTGRES_USER:-postgres}"`),
    backupScript:
      'PGPASSWORD="${DB_PASSWORD:-}" pg_dump --host="$DB_HOST" --port="$DB_PORT" ' +
      '--username="$DB_USERNAME" --dbname="$DB_DATABASE" --format=custom --file="$BACKUP_FILE"',
    backupExtension: 'dump',
    uri: (host, port, c) =>
      `postgresql://${userinfo(c)}${host}:${port}/${encodeURIComponent(c.database ?? c.username ?? 'postgres')}`,
  },
  [EngineKind.MYSQL]: {
    kind: EngineKind.MYSQL,
    name: 'mysql',
    port: 3306,
    dataPath: '/var/lib/mysql',
    defaultImage: 'mysql:8.0',
    // mysqld --initialize refuses a data directory that holds lost+found.
    dataSubPath: 'mysql',
    credentialVariables: [
      { name: 'MYSQL_ROOT_PASSWORD', key: 'password' },
      { name: 'MYSQL_DATABASE', key: 'database' },
    ],
    defaults: { username: 'root' },
    readiness: (port) => ['mysqladmin', 'ping', '-h', '127.0.0.1', '-P', String(port), '--silent'],
    backupScript:
      'MYSQL_PWD="${DB_PASSWORD:-}" mysqldump --host="$DB_HOST" --port="$DB_PORT" --user="$DB_USERNAME" ' +
      '--single-transaction --routines --events --all-databases > "$BACKUP_FILE"',
    backupExtension: 'sql',
    uri: (host, port, c) => `mysql://${userinfo(c)}${host}:${port}/${encodeURIComponent(c.database ?? '')}`,
  },
  [EngineKind.MARIADB]: {
    kind: EngineKind.MARIADB,
    name: 'mariadb',
    port: 3306,
    dataPath: '/var/lib/mysql',
    defaultImage: 'mariadb:11',
    dataSubPath: 'mysql',
    credentialVariables: [
      { name: 'MARIADB_ROOT_PASSWORD', key: 'password' },
      { name: 'MYSQL_ROOT_PASSWORD', key: 'password' },
      { name: 'MARIADB_DATABASE', key: 'database' },
      { name: 'MYSQL_DATABASE', key: 'database' },
    ],
    defaults: { username: 'root' },
    // MariaDB 11 ships mariadb-admin only; older images have mysqladmin only.
    readiness: (port) =>
      sh(
        `if command -v mariadb-admin >/dev/null 2>&1; then exec mariadb-admin ping -h 127.0.0.1 -P ${port} --silent; ` +
          `else exec mysqladmin ping -h 127.0.0.1 -P ${port} --silent; fi`,
      ),
    backupScript:
      'dump=$(command -v mariadb-dump || command -v mysqldump); MYSQL_PWD="${DB_PASSWORD:-}" "$dump" ' +
      '--host="$DB_HOST" --port="$DB_PORT" --user="$DB_USERNAME" --single-transaction --routines --events ' +
      '--all-databases > "$BACKUP_FILE"',
    backupExtension: 'sql',
    uri: (host, port, c) => `mysql://${userinfo(c)}${host}:${port}/${encodeURIComponent(c.database ?? '')}`,
  },
  [EngineKind.MONGO]: {
    kind: EngineKind.MONGO,
    name: 'mongo',
    port: 27017,
    dataPath: '/data/db',
    defaultImage: 'mongo:7',
    credentialVariables: [
      { name: 'MONGO_INITDB_ROOT_USERNAME', key: 'username' },
      { name: 'MONGO_INITDB_ROOT_PASSWORD', key: 'password' },
      { name: 'MONGO_INITDB_DATABASE', key: 'database' },
    ],
    defaults: {},
    // mongo 6+ has mongosh only, mongo 4 the legacy shell only.
    readiness: (port) =>
      sh(
        `if command -v mongosh >/dev/null 2>&1; then shell=mongosh; else shell=mongo; fi; ` +
          `exec "$shell" --quiet --host 127.0.0.1 --port ${port} --eval 'db.adminCommand("ping").ok' `,
      ),
    backupScript: 'mongodump --uri="$DB_URI" --archive="$BACKUP_FILE" --gzip',
    backupExtension: 'archive.gz',
    uri: (host, port, c) =>
      `mongodb://${userinfo(c)}${host}:${port}/${encodeURIComponent(c.database ?? '')}` +
      (c.username ? '?authSource=admin' : ''),
  },
  [EngineKind.REDIS]: {
    kind: EngineKind.REDIS,
    name: 'redis',
    port: 6379,
    dataPath: '/data',
    defaultImage: 'redis:7',
    credentialVariables: [{ name: 'REDIS_PASSWORD', key: 'password' }],
    defaults: {},
    // NOAUTH means the server is up and loaded; LOADING (still reading its dump) means not ready yet.
    readiness: (port) => sh(`redis-cli -h 127.0.0.1 -p ${port} ping 2>&1 | grep -Eq 'PONG|NOAUTH'`),
    backupScript:
      'redis-cli -h "$DB_HOST" -p "$DB_PORT" ${DB_PASSWORD:+-a "$DB_PASSWORD" --no-auth-warning} --rdb "$BACKUP_FILE"',
    backupExtension: 'rdb',
    uri: (host, port, c) => `redis://${c.password ? `:${encodeURIComponent(c.password)}@` : ''}${host}:${port}/0`,
  },
};

// Official images (and images built on their entrypoints), by repository without registry, `library/` and tag.
const IMAGE_ENGINES: ReadonlyArray<[RegExp, Exclude<EngineKind, EngineKind.GENERIC>]> = [
  [/^(postgres|postgis\/postgis|pgvector\/pgvector|timescale\/timescaledb)$/, EngineKind.POSTGRES],
  [/^(mysql|mysql\/mysql-server)$/, EngineKind.MYSQL],
  [/^mariadb$/, EngineKind.MARIADB],
  [/^mongo$/, EngineKind.MONGO],
  [/^(redis|redis\/redis-stack-server)$/, EngineKind.REDIS],
];

/** The repository part of an image reference: no registry, no `library/`, no tag or digest. */
export function imageRepository(image: string): string {
  let rest = image.split('@')[0];
  const parts = rest.split('/');
  if (parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === 'localhost')) {
    parts.shift();
  }
  rest = parts.join('/');
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    rest = rest.slice(0, colon);
  }
  return rest.replace(/^library\//, '').toLowerCase();
}

/** A database or cache engine. Use the static members, `DatabaseEngine.generic(…)` or `DatabaseEngine.detect(image)`. */
export class DatabaseEngine {
  public static readonly POSTGRES = new DatabaseEngine(DEFINITIONS[EngineKind.POSTGRES]);
  public static readonly MYSQL = new DatabaseEngine(DEFINITIONS[EngineKind.MYSQL]);
  public static readonly MARIADB = new DatabaseEngine(DEFINITIONS[EngineKind.MARIADB]);
  public static readonly MONGO = new DatabaseEngine(DEFINITIONS[EngineKind.MONGO]);
  public static readonly REDIS = new DatabaseEngine(DEFINITIONS[EngineKind.REDIS]);

  /** An engine this library does not know: a port, a data path, and optionally a probe and a dump script. */
  public static generic(options: GenericEngineOptions): DatabaseEngine {
    const scheme = options.uriScheme ?? options.name;
    return new DatabaseEngine({
      kind: EngineKind.GENERIC,
      name: options.name,
      port: options.port,
      dataPath: options.dataPath,
      defaultImage: options.defaultImage,
      credentialVariables: [],
      defaults: {},
      readiness: options.readinessCommand ? () => [...options.readinessCommand!] : undefined,
      backupScript: options.backupScript,
      backupExtension: 'backup',
      uri: (host, port, c) => `${scheme}://${userinfo(c)}${host}:${port}`,
    });
  }

  /** The engine of an official image (`postgres:16`, `docker.io/library/redis:7-alpine`, `mariadb`), if any. */
  public static detect(image: string): DatabaseEngine | undefined {
    const repository = imageRepository(image);
    const found = IMAGE_ENGINES.find(([pattern]) => pattern.test(repository));
    return found ? DatabaseEngine.of(found[1]) : undefined;
  }

  /** The engine with this name (`postgres`, `mysql`, `mariadb`, `mongo`, `redis`), if known. */
  public static fromName(name: string): DatabaseEngine | undefined {
    return name in DEFINITIONS ? DatabaseEngine.of(name as Exclude<EngineKind, EngineKind.GENERIC>) : undefined;
  }

  private static of(kind: Exclude<EngineKind, EngineKind.GENERIC>): DatabaseEngine {
    switch (kind) {
      case EngineKind.POSTGRES:
        return DatabaseEngine.POSTGRES;
      case EngineKind.MYSQL:
        return DatabaseEngine.MYSQL;
      case EngineKind.MARIADB:
        return DatabaseEngine.MARIADB;
      case EngineKind.MONGO:
        return DatabaseEngine.MONGO;
      case EngineKind.REDIS:
        return DatabaseEngine.REDIS;
    }
  }

  public readonly kind: EngineKind;
  /** The engine's name, e.g. `postgres`. */
  public readonly name: string;
  /** The port clients use. */
  public readonly port: number;
  /** Where the engine keeps its data. */
  public readonly dataPath: string;
  /** The image used when none is given. */
  public readonly defaultImage?: string;
  /** A subdirectory of the claim to mount at the data path, for engines that refuse lost+found. */
  public readonly dataSubPath?: string;
  /** Environment the engine needs for its data path (postgres: `PGDATA` in a subdirectory). */
  public readonly dataEnv: Readonly<Record<string, string>>;
  /** The variables the image reads its credentials from, in order of preference. */
  public readonly credentialVariables: readonly CredentialVariable[];
  /** The file extension of a backup, e.g. `dump`. */
  public readonly backupExtension: string;

  private constructor(private readonly definition: EngineDefinition) {
    this.kind = definition.kind;
    this.name = definition.name;
    this.port = definition.port;
    this.dataPath = definition.dataPath;
    this.defaultImage = definition.defaultImage;
    this.dataSubPath = definition.dataSubPath;
    this.dataEnv = definition.dataEnv ?? {};
    this.credentialVariables = definition.credentialVariables;
    this.backupExtension = definition.backupExtension;
  }

  /** True for a cache (redis): an app runs it without a volume when it keeps nothing worth keeping in it. */
  public get isCache(): boolean {
    return this.kind === EngineKind.REDIS;
  }

  /** True when the engine can be dumped by a backup CronJob. */
  public get supportsBackup(): boolean {
    return this.definition.backupScript !== undefined;
  }

  /** The credentials with the engine's defaults filled in. */
  public withDefaults(credentials: DatabaseCredentials = {}): DatabaseCredentials {
    const merged: DatabaseCredentials = { ...this.definition.defaults, ...definedOnly(credentials) };
    if (this.kind === EngineKind.POSTGRES && merged.database === undefined) {
      // The postgres image names the database after the user when POSTGRES_DB is unset.
      return { ...merged, database: merged.username };
    }
    return merged;
  }

  /**
   * The credentials a compose service configures through its environment (`POSTGRES_PASSWORD`, …). `lookup` gives a
   * variable's value; callers resolve the images' `*_FILE` convention in it. redis reads `--requirepass` too.
   */
  public credentialsFrom(
    lookup: (variable: string) => string | undefined,
    command: readonly string[] = [],
  ): DatabaseCredentials {
    const found: { -readonly [K in keyof DatabaseCredentials]: string } = {};
    for (const variable of this.credentialVariables) {
      if (found[variable.key] === undefined) {
        found[variable.key] = lookup(variable.name);
      }
    }
    if (this.kind === EngineKind.MYSQL || this.kind === EngineKind.MARIADB) {
      // Without a root password the app user is the one that can connect.
      const prefix = this.kind === EngineKind.MARIADB && lookup('MARIADB_USER') !== undefined ? 'MARIADB' : 'MYSQL';
      const user = lookup(`${prefix}_USER`);
      if (found.password === undefined && user !== undefined) {
        found.username = user;
        found.password = lookup(`${prefix}_PASSWORD`);
      }
    }
    if (this.kind === EngineKind.REDIS && found.password === undefined) {
      const index = command.indexOf('--requirepass');
      if (index >= 0 && index + 1 < command.length) {
        found.password = command[index + 1];
      }
    }
    return definedOnly(found);
  }

  /**
   * The variables that configure these credentials in the engine's image, for a database started from scratch:
   * each reads a credential (`key`) from the Secret or holds a fixed `value`.
   */
  public credentialEnvironment(credentials: DatabaseCredentials): CredentialSetting[] {
    const settings: CredentialSetting[] = [];
    const add = (name: string, key: keyof DatabaseCredentials) => {
      if (credentials[key] !== undefined) {
        settings.push({ name, key });
      }
    };
    switch (this.kind) {
      case EngineKind.POSTGRES:
        add('POSTGRES_USER', 'username');
        add('POSTGRES_PASSWORD', 'password');
        add('POSTGRES_DB', 'database');
        break;
      case EngineKind.MYSQL:
      case EngineKind.MARIADB:
        if ((credentials.username ?? 'root') === 'root') {
          add('MYSQL_ROOT_PASSWORD', 'password');
        } else {
          add('MYSQL_USER', 'username');
          add('MYSQL_PASSWORD', 'password');
          settings.push({ name: 'MYSQL_RANDOM_ROOT_PASSWORD', value: 'yes' });
        }
        add('MYSQL_DATABASE', 'database');
        break;
      case EngineKind.MONGO:
        add('MONGO_INITDB_ROOT_USERNAME', 'username');
        add('MONGO_INITDB_ROOT_PASSWORD', 'password');
        add('MONGO_INITDB_DATABASE', 'database');
        break;
      case EngineKind.REDIS:
        // Read by the `--requirepass $(REDIS_PASSWORD)` argument StatefulDependency adds.
        add('REDIS_PASSWORD', 'password');
        break;
      case EngineKind.GENERIC:
        break;
    }
    return settings.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The readiness command run in the engine's container, if the engine has one. */
  public readinessCommand(port: number = this.port): string[] | undefined {
    return this.definition.readiness?.(port);
  }

  /** The dump script of the backup CronJob (see `GenericEngineOptions.backupScript` for its variables). */
  public backupScript(): string | undefined {
    return this.definition.backupScript;
  }

  /** The connection string with the credentials in it. Only ever stored in a Secret. */
  public connectionUri(host: string, port: number, credentials: DatabaseCredentials): string {
    return this.definition.uri(host, port, credentials);
  }
}

function definedOnly(credentials: DatabaseCredentials): DatabaseCredentials {
  return Object.fromEntries(Object.entries(credentials).filter(([, value]) => value !== undefined));
}
