import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';

/** Options of {@link generateApp}. */
export interface GenerateOptions {
  /** Services in the app, stateful dependencies included (at least 3). */
  readonly services: number;
  /**
   * Seed of the pseudo-random choices: the same seed and size always give the same files.
   * @default 1
   */
  readonly seed?: number;
}

/** A generated compose project: file contents by path relative to the project folder. */
export interface GeneratedApp {
  readonly files: Readonly<Record<string, string>>;
  /** How many services of each role the app has, e.g. `{ web: 3, api: 3, worker: 1, job: 1, postgres: 1, redis: 1 }`. */
  readonly roles: Readonly<Record<string, number>>;
}

/** The compose file's name in a generated project. */
export const COMPOSE_FILE = 'compose.yaml';

type Role = 'web' | 'api' | 'worker' | 'job';
type Engine = 'postgres' | 'redis' | 'mariadb';

const ENGINES: readonly Engine[] = ['postgres', 'redis', 'mariadb'];
const IMAGES: Record<Engine, string> = {
  postgres: 'postgres:16.4',
  redis: 'redis:7.4.1-alpine',
  mariadb: 'mariadb:11.4',
};

/**
 * A compose app of `services` services with the mix of an ordinary product: web front ends with published ports and
 * an HTTP healthcheck, APIs reached through `expose`, workers with named volumes, one-shot jobs, and one stateful
 * dependency (postgres, redis, mariadb in turn) per 25 services, at least a postgres and a redis. Environments mix
 * plain values with secrets (interpolated from `.env`, or file secrets under `secrets/`); `depends_on` waits for
 * healthy databases and started services generated before; services sit on a `frontend` and a `backend` network.
 */
export function generateApp(options: GenerateOptions): GeneratedApp {
  const count = options.services;
  if (!(Number.isInteger(count) && count >= 3)) {
    throw new Error(`services must be a whole number, 3 or more; got ${count}`);
  }
  const random = mulberry32(options.seed ?? 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const token = () => Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  const pad = (n: number) => String(n).padStart(String(count).length, '0');

  const dotenv: string[] = [];
  const files: Record<string, string> = {};
  const services: Record<string, unknown> = {};
  const volumes: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  const roles: Record<string, number> = {};

  const stateful = Math.max(2, Math.round(count / 25));
  const databases: { name: string; engine: Engine; password: string }[] = [];
  for (let i = 0; i < stateful; i++) {
    const engine = ENGINES[i % ENGINES.length];
    const name = `${engine}-${pad(i + 1)}`;
    const password = `${name.replace(/-/g, '_').toUpperCase()}_PASSWORD`;
    databases.push({ name, engine, password });
    roles[engine] = (roles[engine] ?? 0) + 1;
    if (engine !== 'redis') {
      dotenv.push(`${password}=${token()}`);
    }
    volumes[`${name}-data`] = {};
    services[name] = databaseService(name, engine, password);
  }
  const dependenciesOf = (engine: Engine) => databases.filter((d) => d.engine === engine);

  const appNames: string[] = [];
  let pendingJob: string | undefined;
  const appCount = count - stateful;
  for (let i = 0; i < appCount; i++) {
    let role: Role =
      i < 4
        ? (['web', 'api', 'worker', 'job'] as const)[i]
        : pick(['web', 'web', 'api', 'api', 'api', 'worker', 'worker', 'job']);
    if (role === 'job' && i === appCount - 1) {
      role = 'worker'; // a job needs a later service that waits for it
    }
    const name = `${role}-${pad(i + 1)}`;
    roles[role] = (roles[role] ?? 0) + 1;
    const sql = pick(databases.filter((d) => d.engine !== 'redis'));
    const cache = pick(dependenciesOf('redis'));
    const secretVariable = `${name.replace(/-/g, '_').toUpperCase()}_API_KEY`;
    dotenv.push(`${secretVariable}=${token()}`);

    const service: Record<string, unknown> = {
      image: `registry.example.com/shop/${role}:1.${i % 10}.${i % 7}`,
      environment: {
        LOG_LEVEL: pick(['debug', 'info', 'warn']),
        SERVICE_NAME: name,
        DATABASE_URL: `${sql.engine === 'postgres' ? 'postgresql' : 'mysql'}://app:\${${sql.password}}@${sql.name}:${sql.engine === 'postgres' ? 5432 : 3306}/app`,
        REDIS_URL: `redis://${cache.name}:6379/0`,
        API_KEY: `\${${secretVariable}}`,
      },
      depends_on: {
        [sql.name]: { condition: 'service_healthy' },
        [cache.name]: { condition: 'service_started' },
        // Earlier app services only, so dependencies never form a cycle.
        ...(appNames.length > 0 && random() < 0.5 ? { [pick(appNames)]: { condition: 'service_started' } } : {}),
        // A one-shot job (a migration) runs to completion before the next service starts: that makes it a Job.
        ...(pendingJob !== undefined ? { [pendingJob]: { condition: 'service_completed_successfully' } } : {}),
      },
      deploy: {
        resources: {
          limits: { cpus: pick(['0.25', '0.5', '1']), memory: pick(['128M', '256M', '512M']) },
          reservations: { cpus: '0.1', memory: '64M' },
        },
      },
      networks: ['backend'],
    };
    if (role === 'web') {
      Object.assign(service, {
        ports: [`${20000 + i}:8080`],
        healthcheck: {
          test: ['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:8080/healthz'],
          interval: '10s',
          timeout: '3s',
          retries: 3,
        },
        networks: ['frontend', 'backend'],
      });
    } else if (role === 'api') {
      const secretName = `${name}-signing-key`;
      files[`secrets/${secretName}.txt`] = `${token()}\n`;
      secrets[secretName] = { file: `./secrets/${secretName}.txt` };
      Object.assign(service, {
        expose: ['8000'],
        secrets: [secretName],
        healthcheck: {
          test: ['CMD-SHELL', 'curl -fsS http://127.0.0.1:8000/ready || exit 1'],
          interval: '15s',
          timeout: '5s',
          retries: 5,
          start_period: '20s',
        },
      });
      (service.deploy as Record<string, unknown>).replicas = 1 + Math.floor(random() * 3);
    } else if (role === 'worker') {
      volumes[`${name}-spool`] = {};
      Object.assign(service, {
        command: ['worker', '--queue', name, '--concurrency', String(1 + Math.floor(random() * 8))],
        volumes: [`${name}-spool:/var/spool/worker`],
        healthcheck: { test: ['CMD-SHELL', 'test -f /tmp/heartbeat'], interval: '30s', timeout: '5s', retries: 3 },
        stop_grace_period: '30s',
      });
    } else {
      Object.assign(service, { command: ['migrate', '--to', 'latest'], restart: 'no' });
    }
    services[name] = service;
    appNames.push(name);
    pendingJob = role === 'job' ? name : undefined;
  }

  files['.env'] = `${dotenv.join('\n')}\n`;
  const header = `# Generated by bench/generate.ts: ${count} services.\n`;
  // 1.1: quotes what YAML 1.1 readers would misread (`yes`, `20000:8080`)
  const yaml = (document: unknown) => stringify(document, { lineWidth: 0, version: '1.1' });
  const names = Object.keys(services);
  if (names.length <= SERVICES_PER_FILE) {
    files[COMPOSE_FILE] = `${header}${yaml({
      name: `bench-${count}`,
      services,
      networks: { frontend: {}, backend: {} },
      volumes,
      secrets,
    })}`;
    return { files, roles };
  }
  // A large app is split into included files, each under the loader's 2 MiB limit for one compose file: each part
  // declares the networks and the volumes and secrets its services use (the same declaration included twice is one).
  const parts: string[] = [];
  for (let start = 0; start < names.length; start += SERVICES_PER_FILE) {
    const part = `services-${String(parts.length + 1).padStart(2, '0')}.yaml`;
    parts.push(part);
    const own = Object.fromEntries(names.slice(start, start + SERVICES_PER_FILE).map((n) => [n, services[n]]));
    const used = (declared: Record<string, unknown>, key: 'volumes' | 'secrets') => {
      const refs = Object.values(own).flatMap((service) =>
        (((service as Record<string, unknown>)[key] as unknown[] | undefined) ?? []).map((ref) =>
          typeof ref === 'string' ? ref.split(':')[0] : String((ref as { source: string }).source),
        ),
      );
      return Object.fromEntries(refs.filter((ref) => ref in declared).map((ref) => [ref, declared[ref]]));
    };
    files[part] = `${header}${yaml({
      services: own,
      networks: { frontend: {}, backend: {} },
      volumes: used(volumes, 'volumes'),
      secrets: used(secrets, 'secrets'),
    })}`;
  }
  files[COMPOSE_FILE] = `${header}${yaml({ name: `bench-${count}`, include: parts, services: {} })}`;
  return { files, roles };
}

/** Services per compose file: apps larger than this are split into included files. */
export const SERVICES_PER_FILE = 1_000;

/** Writes a generated app into `dir` (created when missing). */
export function writeApp(dir: string, app: GeneratedApp): void {
  for (const [file, content] of Object.entries(app.files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
}

function databaseService(name: string, engine: Engine, password: string): Record<string, unknown> {
  const common = { image: IMAGES[engine], networks: ['backend'] };
  switch (engine) {
    case 'postgres':
      return {
        ...common,
        environment: { POSTGRES_USER: 'app', POSTGRES_DB: 'app', POSTGRES_PASSWORD: `\${${password}}` },
        volumes: [`${name}-data:/var/lib/postgresql/data`],
        healthcheck: { test: ['CMD-SHELL', 'pg_isready -U app -d app'], interval: '5s', timeout: '3s', retries: 10 },
      };
    case 'redis':
      return {
        ...common,
        command: ['redis-server', '--appendonly', 'yes'],
        volumes: [`${name}-data:/data`],
        healthcheck: { test: ['CMD', 'redis-cli', 'ping'], interval: '5s', timeout: '3s', retries: 10 },
      };
    case 'mariadb':
      return {
        ...common,
        environment: {
          MARIADB_USER: 'app',
          MARIADB_DATABASE: 'app',
          MARIADB_PASSWORD: `\${${password}}`,
          MARIADB_ROOT_PASSWORD: `\${${password}}`,
        },
        volumes: [`${name}-data:/var/lib/mysql`],
        healthcheck: { test: ['CMD', 'healthcheck.sh', '--connect'], interval: '5s', timeout: '3s', retries: 10 },
      };
  }
}

/** A small seeded PRNG (mulberry32): deterministic across machines and Node versions, unlike Math.random. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
