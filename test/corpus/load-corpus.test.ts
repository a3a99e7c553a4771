import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose, LoadResult } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { CORPUS_DIR as CORPUS } from '../support/shared';

/**
 * Loads every folder of the shared corpus in place (nothing is copied into the project) and records the outcome,
 * then checks the model against Debian's docker-compose 1.29 `config` for every file that tool can parse.
 */

const DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();
/** The same environment for the loader and docker-compose: nothing but PATH, so unset variables stay unset. */
const ENV = { PATH: '/usr/bin:/bin' };

interface Expected {
  /** Images supplied for the services that only have `build` (the corpus has no build contexts). */
  readonly images?: Readonly<Record<string, string>>;
  /** The outcome when they are not supplied, with the images the built services run. */
  readonly withoutImages?: string;
  /** Service count and warning codes with counts, or `error: <exact message>`. */
  readonly result: string;
}

/** The outcome without `images`: the services run the images `docker compose build` tags, reported once. */
const buildOnly = (result: string, built: string): string => `${result}; built: ${built}`;

const EXPECTED: Readonly<Record<string, Expected>> = {
  'airflow': { result: '8 services; warnings: invalid-image×6, unset-variable×1' },
  'aspnet-mssql': {
    images: { web: 'registry.example.com/aspnet-mssql/web:1.0' },
    withoutImages: buildOnly('2 services; warnings: build-image×1', 'web → aspnet-mssql-web'),
    result: '2 services; warnings: none',
  },
  'casaos-unifi-network-application': { result: '2 services; warnings: unpinned-image×1, unset-variable×3' },
  'compose-bridge-e2e': { result: '2 services; warnings: unpinned-image×2' },
  'elasticsearch-logstash-kibana': { result: '3 services; warnings: none' },
  'fastapi': {
    images: { api: 'registry.example.com/fastapi/api:1.0' },
    withoutImages: buildOnly('1 services; warnings: build-image×1', 'api → fastapi-api'),
    result: '1 services; warnings: none',
  },
  'gitea-postgres': { result: '2 services; warnings: unpinned-image×1' },
  'kompose-cronjob': { result: '1 services; warnings: none' },
  'kompose-envfile-interpolation': { result: '1 services; warnings: none' },
  'kompose-healthcheck': { result: '4 services; warnings: unpinned-image×4' },
  'kompose-host-port-protocol': { result: '1 services; warnings: unpinned-image×1' },
  'kompose-hpa': { result: '1 services; warnings: unpinned-image×1' },
  'kompose-secrets-long': { result: '1 services; warnings: unpinned-image×1' },
  'kompose-v2': { result: '2 services; warnings: unpinned-image×1, unsupported-key×1' },
  'mailcow': {
    result:
      '18 services; warnings: unpinned-image×1, unset-variable×8, unsupported-key×15, unsupported-volume-option×19',
  },
  'minecraft': { result: '1 services; warnings: unpinned-image×1' },
  'nextcloud-redis-mariadb': { result: '3 services; warnings: none' },
  'nginx-golang-mysql': {
    images: { backend: 'registry.example.com/nginx-golang-mysql/backend:1.0' },
    withoutImages: buildOnly(
      '3 services; warnings: build-image×1, unpinned-image×1',
      'backend → nginx-golang-mysql-backend',
    ),
    result: '3 services; warnings: unpinned-image×1',
  },
  'nginx-nodejs-redis': {
    images: {
      nginx: 'registry.example.com/nginx-nodejs-redis/nginx:1.0',
      web1: 'registry.example.com/nginx-nodejs-redis/web1:1.0',
      web2: 'registry.example.com/nginx-nodejs-redis/web2:1.0',
    },
    withoutImages: buildOnly(
      '4 services; warnings: build-image×1, unpinned-image×1',
      'nginx → nginx-nodejs-redis-nginx, web1 → nginx-nodejs-redis-web1, web2 → nginx-nodejs-redis-web2',
    ),
    result: '4 services; warnings: unpinned-image×1',
  },
  'open-webui-gpu': { result: '2 services; warnings: unpinned-image×2' },
  'paperless-ngx-postgres-tika': { result: '5 services; warnings: unpinned-image×2' },
  'pihole-cloudflared-DoH': { result: '2 services; warnings: unpinned-image×2, unsupported-key×1' },
  'plausible-ce': { result: '4 services; warnings: unpinned-image×1, unsupported-key×1' },
  'plex': { result: '1 services; warnings: unpinned-image×1' },
  'portainer': { result: '1 services; warnings: none' },
  'prometheus-grafana': { result: '2 services; warnings: unpinned-image×2' },
  'react-express-mongodb': {
    images: {
      backend: 'registry.example.com/react-express-mongodb/backend:1.0',
      frontend: 'registry.example.com/react-express-mongodb/frontend:1.0',
    },
    withoutImages: buildOnly(
      '3 services; warnings: build-image×1',
      'backend → react-express-mongodb-backend, frontend → react-express-mongodb-frontend',
    ),
    result: '3 services; warnings: none',
  },
  'react-java-mysql': {
    images: {
      backend: 'registry.example.com/react-java-mysql/backend:1.0',
      frontend: 'registry.example.com/react-java-mysql/frontend:1.0',
    },
    withoutImages: buildOnly(
      '3 services; warnings: build-image×1',
      'backend → react-java-mysql-backend, frontend → react-java-mysql-frontend',
    ),
    result: '3 services; warnings: none',
  },
  'wasmedge-kafka-mysql': { result: '3 services; warnings: unpinned-image×1, unsupported-key×1' },
  'wireguard': { result: '1 services; warnings: unpinned-image×1, unsupported-key×1' },
};

function load(dir: string, images?: Readonly<Record<string, string>>, profiles?: string[]): LoadResult {
  return loadCompose({ workingDir: path.join(CORPUS, dir), env: ENV, images, profiles });
}

function outcome(dir: string, images?: Readonly<Record<string, string>>): string {
  try {
    const { model, warnings } = load(dir, images);
    const counts = new Map<string, number>();
    for (const warning of warnings) {
      counts.set(warning.code, (counts.get(warning.code) ?? 0) + 1);
    }
    const list = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([code, n]) => `${code}×${n}`)
      .join(', ');
    return `${model.services.length} services; warnings: ${list || 'none'}`;
  } catch (err) {
    if (isComposeError(err)) {
      return `error: ${err.message}`;
    }
    throw err;
  }
}

describe('the corpus loads', () => {
  test('the table covers every corpus folder', () => {
    expect(DIRS).toEqual(Object.keys(EXPECTED).sort());
    expect(DIRS).toHaveLength(30);
  });

  test.each(DIRS)('%s', (dir) => {
    const expected = EXPECTED[dir];
    expect(outcome(dir, expected.images)).toBe(expected.result);
    if (expected.withoutImages !== undefined) {
      const built = load(dir)
        .model.services.filter((s) => s.build?.runsBuiltImage)
        .map((s) => `${s.name} → ${s.image}`);
      expect(`${outcome(dir)}; built: ${built.join(', ')}`).toBe(expected.withoutImages);
    }
  });

  test('warnings and messages never carry an absolute machine path', () => {
    for (const dir of DIRS) {
      const { model, warnings } = load(dir, EXPECTED[dir].images);
      const text = JSON.stringify({ model, warnings });
      expect(text).not.toContain(CORPUS);
      expect(text).not.toContain(process.cwd());
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Agreement with docker-compose 1.29

interface ComposeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** docker-compose `config` for every folder, run once for the module (one interpreter, see the script). */
const RUNS: Readonly<Record<string, ComposeRun>> = (() => {
  const result = spawnSync(
    'python3',
    [path.join(__dirname, 'docker-compose-config.py'), ...DIRS.map((d) => path.join(CORPUS, d))],
    { env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) {
    throw new Error(`docker-compose could not run (install it: scripts/install-tools.sh): ${result.stderr}`);
  }
  const byPath = JSON.parse(result.stdout) as Record<string, ComposeRun>;
  return Object.fromEntries(DIRS.map((d) => [d, byPath[path.join(CORPUS, d)]]));
})();

/** The files docker-compose 1.29 cannot parse, with the first line of its error (`<corpus>` for the path). */
const DOCKER_COMPOSE_FAILURES: Readonly<Record<string, string>> = {
  'aspnet-mssql':
    'build path <corpus>/aspnet-mssql/app/aspnetapp either does not exist, is not accessible, ' +
    'or is not a valid URL.',
  'casaos-unifi-network-application': "The Compose file './compose.yaml' is invalid because:",
  'mailcow': "The Compose file './compose.yaml' is invalid because:",
  'nginx-golang-mysql':
    'build path <corpus>/nginx-golang-mysql/backend either does not exist, is not accessible, ' +
    'or is not a valid URL.',
  'nginx-nodejs-redis':
    'build path <corpus>/nginx-nodejs-redis/web either does not exist, is not accessible, ' + 'or is not a valid URL.',
  'react-express-mongodb':
    'build path <corpus>/react-express-mongodb/frontend either does not exist, ' +
    'is not accessible, or is not a valid URL.',
  'react-java-mysql':
    'build path <corpus>/react-java-mysql/backend either does not exist, is not accessible, ' +
    'or is not a valid URL.',
  'wasmedge-kafka-mysql':
    'build path <corpus>/wasmedge-kafka-mysql/etl either does not exist, is not accessible, ' +
    'or is not a valid URL.',
};

function errorLine(run: ComposeRun): string {
  const line = run.stderr.split('\n').find((l) => l !== '' && !/^The \S+ variable is not set\./.test(l)) ?? '';
  return line.split(CORPUS).join('<corpus>');
}

type Plain = Record<string, unknown>;

function theirPorts(service: Plain): string[] {
  const ports = (service.ports ?? []) as unknown[];
  return [
    ...new Set(
      ports.map((port) => {
        if (typeof port === 'string') {
          const match = /^(?:(.*):)?(\d*):(\d+)(?:\/(\w+))?$/.exec(port);
          if (!match) {
            throw new Error(`unexpected docker-compose port ${port}`);
          }
          return `${match[1] ?? ''}|${match[2]}|${match[3]}/${match[4] ?? 'tcp'}`;
        }
        const p = port as Plain;
        return `${p.host_ip ?? ''}|${p.published ?? ''}|${p.target}/${p.protocol ?? 'tcp'}`;
      }),
    ),
  ].sort();
}

function ourPorts(model: ComposeModel, name: string): string[] {
  const service = model.services.find((s) => s.name === name)!;
  return [
    ...new Set(service.ports.map((p) => `${p.hostIp ?? ''}|${p.published ?? ''}|${p.target}/${p.protocol}`)),
  ].sort();
}

function theirVolumes(service: Plain): string[] {
  const volumes = (service.volumes ?? []) as unknown[];
  const out = volumes.map((volume) => {
    if (typeof volume === 'string') {
      const parts = volume.split(':');
      if (parts.length === 1) {
        return `volume||${parts[0]}|rw`;
      }
      const type = parts[0].startsWith('/') ? 'bind' : 'volume';
      return `${type}|${parts[0]}|${parts[1]}|${parts[2] === 'ro' ? 'ro' : 'rw'}`;
    }
    const v = volume as Plain;
    return `${v.type}|${v.source ?? ''}|${v.target}|${v.read_only ? 'ro' : 'rw'}`;
  });
  for (const target of (service.tmpfs ?? []) as string[]) {
    out.push(`tmpfs||${target.split(':')[0]}|rw`);
  }
  return out.sort();
}

function ourVolumes(model: ComposeModel, name: string, projectDir: string): string[] {
  const service = model.services.find((s) => s.name === name)!;
  return service.volumes
    .map((v) => {
      // docker-compose expands ~ with the home folder and makes relative binds absolute; the model keeps them as written.
      const source =
        v.type !== 'bind'
          ? (v.source ?? '')
          : v.source!.startsWith('~')
            ? os.homedir() + v.source!.slice(1)
            : path.resolve(projectDir, v.source!);
      return `${v.type}|${source}|${v.target}|${v.readOnly ? 'ro' : 'rw'}`;
    })
    .sort();
}

function theirDependencies(service: Plain): string[] {
  const deps = service.depends_on;
  if (Array.isArray(deps)) {
    return deps.map((d) => `${d}:service_started`).sort();
  }
  return Object.entries((deps ?? {}) as Record<string, Plain>)
    .map(([name, d]) => `${name}:${d.condition ?? 'service_started'}`)
    .sort();
}

function theirEnvironment(service: Plain): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((service.environment ?? {}) as Record<string, unknown>)) {
    if (value !== null && value !== undefined) {
      out[name] = String(value);
    }
  }
  return out;
}

describe('the model agrees with docker-compose 1.29 config', () => {
  const parsed = DIRS.filter((d) => RUNS[d].code === 0);

  test('docker-compose parses 22 of the 30 files; the rest are listed with its reason', () => {
    const failures = Object.fromEntries(DIRS.filter((d) => RUNS[d].code !== 0).map((d) => [d, errorLine(RUNS[d])]));
    expect(failures).toEqual(DOCKER_COMPOSE_FAILURES);
    expect(parsed).toHaveLength(22);
  });

  test.each(parsed)('%s', (dir) => {
    const theirs = (parse(RUNS[dir].stdout) as { services: Record<string, Plain> }).services;
    // docker-compose 1.29 `config` ignores profiles, so every profile is activated for the comparison.
    const { model } = load(dir, EXPECTED[dir].images, ['*']);
    const projectDir = path.join(CORPUS, dir);
    expect(model.services.map((s) => s.name)).toEqual(Object.keys(theirs).sort());
    for (const service of model.services) {
      const their = theirs[service.name];
      const where = `${dir}: ${service.name}`;
      if (their.image !== undefined) {
        expect([where, service.image]).toEqual([where, their.image]);
      }
      expect([where, ourPorts(model, service.name)]).toEqual([where, theirPorts(their)]);
      const env = Object.fromEntries(service.environment.map((e) => [e.name, e.value]));
      expect([where, env]).toEqual([where, theirEnvironment(their)]);
      expect([where, ourVolumes(model, service.name, projectDir)]).toEqual([where, theirVolumes(their)]);
      expect([where, service.dependsOn.map((d) => `${d.service}:${d.condition}`)]).toEqual([
        where,
        theirDependencies(their),
      ]);
    }
  });
});
