import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import { stringify } from 'yaml';
import { base64Forms } from '../../lib/compose/secret-files';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, hasEmbeddedPassword, isSensitiveName } from '../../lib/compose/sensitive';

/**
 * Generators of compose apps for the property tests: random VALID apps (every construct the converter maps: ports,
 * env with secrets, volumes, depends_on, healthchecks, networks, secrets and configs), each with the secret values
 * that must stay inside Secrets.
 */

/** The secret file's value, which must stay in a Secret like the env secrets. */
export const FILE_SECRET = 'file-secret-Qm9vZ2llV29vZ2ll';

/**
 * Files that carry secrets, in the folder the `bind-keys` mount binds (issue 25 finding 4, issue 27): key and password
 * files by content and by name, and files that hold the secret file's value in binary and in base64. What must stay
 * in Secrets: {@link KEY_FILE_SECRETS} always, {@link FILE_SECRET_FORMS} when the app declares the secret file.
 */
const KEY_FILES: Readonly<Record<string, string | Buffer>> = {
  'keys/server.key':
    '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ\n-----END PRIVATE KEY-----\n',
  'keys/.htpasswd': 'admin:$apr1$ZjTqBB3f$IF9gdYAGlMrs2fuINjHsz.\n',
  'keys/id_ed25519':
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n-----END OPENSSH PRIVATE KEY-----\n',
  'keys/blob.bin': Buffer.concat([Buffer.from([0, 0xff, 0x10]), Buffer.from(FILE_SECRET), Buffer.from([0, 1])]),
  'keys/token.b64': `token: ${Buffer.from(FILE_SECRET).toString('base64')}\n`,
  'keys/readme.txt': 'public\n',
};
export const KEY_FILE_SECRETS = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ',
  '$apr1$ZjTqBB3f$IF9gdYAGlMrs2fuINjHsz.',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB',
];
/** The secret file's value in base64, as the binary file's base64 and the base64 file hold it. */
export const FILE_SECRET_FORMS = [base64Forms(FILE_SECRET)[0]];

/** The files every generated app may name, written once into its project folder. */
export const PROJECT_FILES: Readonly<Record<string, string | Buffer>> = {
  'conf/app.conf': 'listen 8080\nworkers 2\n',
  'conf/nginx.conf': 'server { listen 80; }\n',
  'secrets/token.txt': `${FILE_SECRET}\n`,
  'data/.keep': '',
  ...KEY_FILES,
};

/** Writes {@link PROJECT_FILES} into `dir`. */
export function writeProjectFiles(dir: string): void {
  for (const [name, text] of Object.entries(PROJECT_FILES)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

/** A generated app: the compose document, the shell environment it interpolates from, and its secret values. */
export interface GeneratedApp {
  readonly compose: Record<string, any>;
  readonly env: Record<string, string>;
  readonly secrets: readonly string[];
}

/** The YAML text of a generated app (`$` in values escaped as `$$` where it was meant literally, by construction). */
export function composeText(app: GeneratedApp): string {
  return stringify(app.compose, { lineWidth: 0 });
}

/** The Kubernetes-facing form of a compose name, as far as uniqueness goes: names equal here would collide. */
function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Service names; `x-…` keys are compose extensions, not services. */
const serviceName = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[a-z][a-z0-9]{0,9}$/) },
  {
    weight: 1,
    arbitrary: fc.stringMatching(/^[a-z][a-z0-9]{0,4}[_.-][a-z0-9]{1,5}$/).filter((n) => !n.startsWith('x-')),
  },
  // Names that are also names the converter gives its own objects, and compose names that are not DNS labels.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'web',
      'db',
      'dns',
      'default-deny',
      'default-allow-dns',
      'default',
      'quota',
      'namespace',
      'ingress',
      'kubernetes',
      'wait',
      'openWebUI',
      'plausible_db',
      'web.v2',
      'x',
    ),
  },
);

const image = fc.constantFrom(
  'nginx:1.27.2',
  'postgres:16.4',
  'redis:7.4.1-alpine',
  'ghcr.io/example/app:1.0.3',
  `registry.example.com:5000/team/api@sha256:${'ab'.repeat(32)}`,
  'busybox',
  'alpine:latest',
);

const duration = fc.oneof(
  fc.constantFrom('1s', '10s', '1m30s', '500ms', '2h', '90s', '1m'),
  fc.tuple(fc.integer({ min: 1, max: 600 }), fc.constantFrom('s', 'ms', 'm')).map(([n, u]) => `${n}${u}`),
);

/** Text that is literal in compose: `$` doubled, no password-bearing URL, nothing that reads as a secret. */
const plainValue = fc
  .oneof(
    fc.string({ maxLength: 24 }),
    fc.constantFrom('', 'info', 'true', '8080', '0', 'redis://cache:6379/0', 'a b c', 'x=y', 'ünïcödé', 'line1\nline2'),
  )
  .filter((v) => !hasEmbeddedPassword(v))
  .map((v) => v.replace(/\$/g, '$$$$'));

const plainEnvName = fc
  .stringMatching(/^[A-Z][A-Z0-9_]{0,11}$/)
  .filter((n) => !isSensitiveName(n, DEFAULT_SENSITIVE_NAME_PATTERNS) && !n.endsWith('_FILE'));

const secretEnvName = fc.constantFrom(
  'DB_PASSWORD',
  'API_KEY',
  'SESSION_SECRET',
  'GITHUB_TOKEN',
  'SMTP_PASSWD',
  'JWT_SIGNING_KEY',
);

/** A secret value: long and random enough not to occur by chance in names or other values. */
const secretValue = fc.stringMatching(/^[A-Za-z0-9]{14,22}$/).map((v) => `s3${v}`);

interface EnvPlan {
  readonly plain: [string, string][];
  readonly secret: [string, string, 'literal' | 'interpolated' | 'dsn'][];
  readonly listForm: boolean;
}

const envPlan: fc.Arbitrary<EnvPlan> = fc.record({
  plain: fc.uniqueArray(fc.tuple(plainEnvName, plainValue), { maxLength: 4, selector: ([n]) => n }),
  secret: fc.uniqueArray(
    fc.tuple(
      secretEnvName,
      secretValue,
      fc.constantFrom('literal', 'interpolated', 'dsn') as fc.Arbitrary<'literal' | 'interpolated' | 'dsn'>,
    ),
    { maxLength: 2, selector: ([n]) => n },
  ),
  listForm: fc.boolean(),
});

interface PortPlan {
  readonly target: number;
  readonly published?: number;
  readonly protocol?: string;
  readonly hostIp?: string;
  readonly long: boolean;
}

const portPlan: fc.Arbitrary<PortPlan> = fc.record({
  target: fc.integer({ min: 1, max: 65535 }),
  published: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
  protocol: fc.constantFrom('tcp', 'udp', undefined),
  hostIp: fc.constantFrom(undefined, undefined, '127.0.0.1', '0.0.0.0'),
  long: fc.boolean(),
});

const healthcheck = fc.oneof(
  fc.record(
    {
      test: fc.oneof(
        fc.constant(['CMD', 'curl', '-f', 'http://localhost/']),
        fc.constant(['CMD-SHELL', 'pg_isready -U app || exit 1']),
        fc.constant('wget -q --spider http://127.0.0.1/healthz'),
        fc.constant(['CMD', 'redis-cli', 'ping']),
      ),
      interval: fc.option(duration, { nil: undefined }),
      timeout: fc.option(duration, { nil: undefined }),
      retries: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
      start_period: fc.option(duration, { nil: undefined }),
    },
    { requiredKeys: ['test'] },
  ),
  fc.constant({ disable: true }),
);

const resources = fc.record({
  cpus: fc.constantFrom('0.1', '0.25', '0.5', '1', '2', 1.5),
  memoryMi: fc.integer({ min: 16, max: 4096 }),
  reservationShare: fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { nil: undefined }),
});

interface ServicePlan {
  readonly name: string;
  readonly image: string;
  readonly ports: PortPlan[];
  readonly expose: number[];
  readonly env: EnvPlan;
  readonly mounts: ('named' | 'tmpfs' | 'bind-file' | 'bind-dir' | 'bind-keys' | 'anonymous')[];
  readonly readOnlyMounts: boolean;
  readonly healthcheck?: any;
  readonly resources?: { cpus: string | number; memoryMi: number; reservationShare?: number };
  readonly restart?: string;
  readonly command?: string[];
  readonly labels: Record<string, string>;
  readonly networkPicks: number[];
  readonly dependsPicks: number[];
  readonly condition: string;
  readonly dependsMapForm: boolean;
  readonly useFileSecret: boolean;
  readonly useEnvSecret: boolean;
  readonly useConfig: boolean;
  readonly replicas?: number;
}

const servicePlan = (name: string): fc.Arbitrary<ServicePlan> =>
  fc.record(
    {
      name: fc.constant(name),
      image,
      // A host port is published once per service (the loader refuses a second mapping, as the engine would).
      ports: fc.uniqueArray(portPlan, { maxLength: 3, selector: (p) => p.published ?? `${p.target}/${p.protocol}` }),
      expose: fc.uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 2 }),
      env: envPlan,
      mounts: fc.uniqueArray(
        fc.constantFrom('named', 'tmpfs', 'bind-file', 'bind-dir', 'bind-keys', 'anonymous') as fc.Arbitrary<
          ServicePlan['mounts'][number]
        >,
        { maxLength: 3 },
      ),
      readOnlyMounts: fc.boolean(),
      healthcheck: fc.option(healthcheck, { nil: undefined }),
      resources: fc.option(resources, { nil: undefined }),
      restart: fc.constantFrom(undefined, 'always', 'unless-stopped', 'on-failure', 'no'),
      command: fc.option(
        fc.array(fc.constantFrom('serve', '--port', '8080', '-v', 'run worker'), { minLength: 1, maxLength: 3 }),
        { nil: undefined },
      ),
      labels: fc.dictionary(
        fc.stringMatching(/^[a-z][a-z0-9.]{0,10}$/),
        fc.string({ maxLength: 10 }).map((v) => v.replace(/\$/g, '$$$$')),
        { maxKeys: 2 },
      ),
      networkPicks: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 2 }),
      dependsPicks: fc.uniqueArray(fc.nat(), { maxLength: 2 }),
      condition: fc.constantFrom('service_started', 'service_healthy', 'service_completed_successfully'),
      dependsMapForm: fc.boolean(),
      useFileSecret: fc.boolean(),
      useEnvSecret: fc.boolean(),
      useConfig: fc.boolean(),
      replicas: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    },
    {
      requiredKeys: [
        'name',
        'image',
        'ports',
        'expose',
        'env',
        'mounts',
        'readOnlyMounts',
        'labels',
        'networkPicks',
        'dependsPicks',
        'condition',
        'dependsMapForm',
        'useFileSecret',
        'useEnvSecret',
        'useConfig',
      ],
    },
  );

const appPlan = fc
  .record({
    project: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}[a-z0-9]$/),
    names: fc.uniqueArray(serviceName, { minLength: 1, maxLength: 4, selector: nameKey }),
    internal: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
    networkListForm: fc.boolean(),
  })
  .chain((plan) => fc.tuple(fc.constant(plan), fc.tuple(...plan.names.map(servicePlan))));

function portEntry(p: PortPlan): unknown {
  if (p.long) {
    return {
      target: p.target,
      ...(p.published !== undefined ? { published: String(p.published) } : {}),
      ...(p.protocol ? { protocol: p.protocol } : {}),
      ...(p.hostIp ? { host_ip: p.hostIp } : {}),
    };
  }
  let text = String(p.target);
  if (p.published !== undefined) {
    text = `${p.hostIp ? `${p.hostIp}:` : ''}${p.published}:${text}`;
  }
  return p.protocol ? `${text}/${p.protocol}` : text;
}

/** Random valid compose apps with their secret values. */
export const validApp: fc.Arbitrary<GeneratedApp> = appPlan.map(([plan, services]) => {
  const env: Record<string, string> = {};
  const secrets = new Set<string>();
  const compose: Record<string, any> = { name: plan.project, services: {} };
  const volumes: Record<string, any> = {};
  const networks: Record<string, any> = {};
  let usesFileSecret = false;
  let usesEnvSecret = false;
  let usesConfig = false;
  let usesKeys = false;
  services.forEach((s, index) => {
    const service: Record<string, any> = { image: s.image };
    if (s.ports.length > 0) {
      service.ports = s.ports.map(portEntry);
    }
    if (s.expose.length > 0) {
      service.expose = s.expose.map(String);
    }
    const envEntries: [string, string][] = [...s.env.plain];
    for (const [name, value, form] of s.env.secret) {
      secrets.add(value);
      if (form === 'literal') {
        envEntries.push([name, value]);
      } else if (form === 'interpolated') {
        const variable = `${name}_${index}`;
        env[variable] = value;
        envEntries.push([name, `\${${variable}}`]);
      } else {
        envEntries.push([`${name.replace(/_.*/, '')}_URL`, `postgresql://app:${value}@${services[0].name}:5432/app`]);
      }
    }
    if (envEntries.length > 0) {
      service.environment = s.env.listForm ? envEntries.map(([n, v]) => `${n}=${v}`) : Object.fromEntries(envEntries);
    }
    const mounts: unknown[] = [];
    const tmpfs: string[] = [];
    s.mounts.forEach((kind, i) => {
      const ro = s.readOnlyMounts ? ':ro' : '';
      switch (kind) {
        case 'named':
          volumes[`data${i}`] = {};
          mounts.push(`data${i}:/var/lib/data${i}${ro}`);
          break;
        case 'tmpfs':
          tmpfs.push(`/tmp/t${i}`);
          break;
        case 'bind-file':
          mounts.push(`./conf/app.conf:/etc/app/app${i}.conf${ro}`);
          break;
        case 'bind-dir':
          mounts.push({ type: 'bind', source: './data', target: `/srv/data${i}`, read_only: s.readOnlyMounts });
          break;
        case 'bind-keys':
          usesKeys = true;
          mounts.push(`./keys:/etc/keys${i}${ro}`);
          break;
        case 'anonymous':
          mounts.push(`/cache${i}`);
          break;
      }
    });
    if (mounts.length > 0) {
      service.volumes = mounts;
    }
    if (tmpfs.length > 0) {
      service.tmpfs = tmpfs;
    }
    if (s.healthcheck) {
      service.healthcheck = s.healthcheck;
    }
    if (s.resources) {
      const { cpus, memoryMi, reservationShare } = s.resources;
      service.deploy = { resources: { limits: { cpus: String(cpus), memory: `${memoryMi}M` } } };
      if (reservationShare !== undefined) {
        service.deploy.resources.reservations = {
          cpus: (Number(cpus) * reservationShare).toFixed(3),
          memory: `${Math.max(1, Math.floor(memoryMi * reservationShare))}M`,
        };
      }
    }
    if (s.replicas !== undefined) {
      service.deploy = { ...(service.deploy ?? {}), replicas: s.replicas };
    }
    if (s.restart) {
      service.restart = s.restart;
    }
    if (s.command) {
      service.command = s.command;
    }
    if (Object.keys(s.labels).length > 0) {
      service.labels = s.labels;
    }
    const nets = s.networkPicks.map((n) => `net${n}`);
    for (const net of nets) {
      networks[net] = plan.internal[Number(net.slice(3))] ? { internal: true } : {};
    }
    if (nets.length > 0) {
      service.networks = plan.networkListForm
        ? nets
        : Object.fromEntries(nets.map((n) => [n, { aliases: [`${n}-${index}`] }]));
    }
    // Dependencies only on services before this one: no cycles.
    const deps = index === 0 ? [] : [...new Set(s.dependsPicks.map((p) => services[p % index].name))].sort();
    if (deps.length > 0) {
      service.depends_on = s.dependsMapForm
        ? Object.fromEntries(deps.map((d) => [d, { condition: s.condition }]))
        : deps;
    }
    const fileRefs: string[] = [];
    if (s.useFileSecret) {
      usesFileSecret = true;
      fileRefs.push('token');
    }
    if (s.useEnvSecret) {
      usesEnvSecret = true;
      fileRefs.push('envtoken');
    }
    if (fileRefs.length > 0) {
      service.secrets = fileRefs;
    }
    if (s.useConfig) {
      usesConfig = true;
      service.configs = [{ source: 'appconf', target: '/etc/app/app.conf' }, 'inline'];
    }
    compose.services[s.name] = service;
  });
  if (Object.keys(volumes).length > 0) {
    compose.volumes = volumes;
  }
  if (Object.keys(networks).length > 0) {
    compose.networks = networks;
  }
  if (usesFileSecret || usesEnvSecret) {
    compose.secrets = {};
    if (usesFileSecret) {
      compose.secrets.token = { file: './secrets/token.txt' };
      secrets.add(FILE_SECRET);
      if (usesKeys) {
        FILE_SECRET_FORMS.forEach((form) => secrets.add(form));
      }
    }
    if (usesEnvSecret) {
      env.ENV_TOKEN = 'env-secret-R2FuZGFsZldpemFyZA';
      compose.secrets.envtoken = { environment: 'ENV_TOKEN' };
      secrets.add(env.ENV_TOKEN);
    }
  }
  if (usesKeys) {
    KEY_FILE_SECRETS.forEach((value) => secrets.add(value));
  }
  if (usesConfig) {
    compose.configs = { appconf: { file: './conf/app.conf' }, inline: { content: 'mode = "plain"\n' } };
  }
  return { compose, env, secrets: [...secrets] };
});
