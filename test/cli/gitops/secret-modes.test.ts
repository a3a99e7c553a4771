import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Manifest } from '../../support/problems';
import { validateManifests } from '../../support/validate';
import { parseYamlDocs } from '../../support/yaml-docs';
import { BIN, CliRun, ROOT, expectBuilt, inParallel, listFiles, removeTempDirs, runCli, tempDir } from '../run-cli';

/**
 * `--secrets inline|separate|external` (lib/cli/gitops/secret-modes.ts), end to end with the built CLI on a project whose
 * secrets are canaries: a password from .env, a compose secrets file, and a password inside a DSN. In the separate and
 * external modes no file of the output holds one (but the Git-ignored secrets/ of separate), and the deploy path still
 * makes every Secret the pods read.
 */

const CANARIES = {
  env: 'CanaryDbPw-7f3a91c2',
  file: 'CanarySigningKey-e0c4d8',
  dsn: 'CanaryDsnPw-91aa3b',
};
const COMPOSE = `name: canary
services:
  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: \${DB_PASSWORD}
    volumes:
      - dbdata:/var/lib/postgresql/data
  cache:
    image: redis:7
  api:
    image: example/api:1.0
    environment:
      DATABASE_URL: postgres://app:\${DB_PASSWORD}@db:5432/app
      CACHE_URL: redis://:${CANARIES.dsn}@cache:6379/0
      LOG_LEVEL: info
    secrets:
      - signing_key
    ports:
      - "8080:8080"
    depends_on:
      - db
      - cache
secrets:
  signing_key:
    file: ./signing.key
volumes:
  dbdata: {}
`;

function project(): string {
  const dir = path.join(tempDir('secrets'), 'canary');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'compose.yaml'), COMPOSE);
  fs.writeFileSync(path.join(dir, '.env'), `DB_PASSWORD=${CANARIES.env}\n`);
  fs.writeFileSync(path.join(dir, 'signing.key'), `${CANARIES.file}\n`);
  return dir;
}

/** Each canary as written, and base64-encoded as a Secret's data holds it (whole, and the file with its newline). */
const FORMS = Object.values(CANARIES).flatMap((c) => [
  c,
  Buffer.from(c).toString('base64'),
  Buffer.from(`${c}\n`).toString('base64'),
]);

function filesHolding(root: string, files: readonly string[]): string[] {
  return files.filter((f) => {
    const text = fs.readFileSync(path.join(root, f)).toString('latin1');
    return FORMS.some((form) => text.includes(form));
  });
}

interface Converted {
  readonly run: CliRun;
  readonly out: string;
}

const STORE = ['--secret-store', 'vault-backend'];
const runs: Record<string, Converted> = {};

beforeAll(async () => {
  expectBuilt();
  await inParallel(
    [
      ['inline', []],
      ['separate', ['--secrets', 'separate']],
      ['external', ['--secrets', 'external', ...STORE]],
    ] as const,
    2,
    async ([name, args]) => {
      const cwd = project();
      runs[name] = { run: await runCli(['convert', ...args, '-o', 'k8s'], { cwd }), out: path.join(cwd, 'k8s') };
    },
  );
}, 120_000);

afterAll(removeTempDirs);

function docs(out: string, filter: (file: string) => boolean = (f) => /^\d+-[a-z]+\/[^/]+\.yaml$/.test(f)): Manifest[] {
  return listFiles(out)
    .filter(filter)
    .flatMap((f) => parseYamlDocs(fs.readFileSync(path.join(out, f), 'utf8'), f));
}

/** The Secrets the pods read, by name, with the keys they read. */
function referencedSecrets(objects: readonly Manifest[]): Map<string, Set<string>> {
  const refs = new Map<string, Set<string>>();
  const add = (name: string, key?: string) => {
    const keys = refs.get(name) ?? new Set<string>();
    if (key !== undefined) {
      keys.add(key);
    }
    refs.set(name, keys);
  };
  const visit = (value: any): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
    } else if (value && typeof value === 'object') {
      if (value.secretKeyRef) {
        add(value.secretKeyRef.name, value.secretKeyRef.key);
      }
      if (value.secret?.secretName) {
        add(value.secret.secretName);
        (value.secret.items ?? []).forEach((i: any) => add(value.secret.secretName, i.key));
      }
      if (value.secretRef?.name) {
        add(value.secretRef.name);
      }
      Object.values(value).forEach(visit);
    }
  };
  objects.filter((o) => o.kind !== 'Secret').forEach((o) => visit(o.spec));
  return refs;
}

test('every run exits 0', () => {
  for (const { run } of Object.values(runs)) {
    expect({ code: run.code, errors: run.stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({
      code: 0,
      errors: [],
    });
  }
});

test('inline warns that the Secrets in the output hold values, and names the modes that keep them out; the others do not', () => {
  const warning = (run: CliRun) =>
    run.stderr.split('\n').filter((l) => l.includes('hold values from the compose project'));
  expect(warning(runs.inline.run)).toEqual([
    'warning: k8s: the Secrets db-env, db-credentials, signing-key, api-env hold values from the compose project: ' +
      'committed to Git as they are, anyone who reads the repository reads them; --secrets separate keeps them out of ' +
      'Git (in secrets/, applied first), --secrets external out of the output (ExternalSecrets read them from your store)',
  ]);
  expect(warning(runs.separate.run)).toEqual([]);
  expect(warning(runs.external.run)).toEqual([]);
});

test('inline (the default): the canaries are in the Secrets of the wave folders, as today', () => {
  const { out } = runs.inline;
  expect(filesHolding(out, listFiles(out))).toEqual([
    '1-stateful/db-credentials-secret.yaml',
    '1-stateful/db-env-secret.yaml',
    '2-app/api-env-secret.yaml',
    '2-app/signing-key-secret.yaml',
  ]);
  expect(fs.existsSync(path.join(out, 'secrets'))).toBe(false);
});

describe('separate', () => {
  const out = () => runs.separate.out;

  test('no file outside secrets/ holds a canary; the Secrets are there, with a .gitignore that keeps them out of Git', () => {
    const files = listFiles(out());
    expect(
      filesHolding(
        out(),
        files.filter((f) => !f.startsWith('secrets/')),
      ),
    ).toEqual([]);
    expect(files.filter((f) => f.startsWith('secrets/'))).toEqual([
      'secrets/.gitignore',
      ...docs(runs.inline.out)
        .filter((d) => d.kind === 'Secret')
        .map((d) => `secrets/${d.metadata.name}-secret.yaml`)
        .sort(),
    ]);
    // Git itself: in a repository, only the .gitignore of secrets/ is a file to add.
    expect(spawnSync('git', ['init', '-q'], { cwd: out() }).status).toBe(0);
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: out(),
      encoding: 'utf8',
    });
    const untracked = status.stdout.split('\n').filter((l) => l.includes('secrets/'));
    expect(untracked).toEqual(['?? secrets/.gitignore']);
  });

  test('the Secrets are the inline ones, byte for byte; the other objects are the same; no kustomization lists secrets/', () => {
    const inlineSecrets = listFiles(runs.inline.out).filter((f) => f.endsWith('-secret.yaml'));
    for (const file of inlineSecrets) {
      expect(fs.readFileSync(path.join(out(), 'secrets', path.basename(file)), 'utf8')).toBe(
        fs.readFileSync(path.join(runs.inline.out, file), 'utf8'),
      );
    }
    expect(docs(out())).toEqual(docs(runs.inline.out).filter((d) => d.kind !== 'Secret'));
    const kustomizations = listFiles(out()).filter((f) => /(^|\/)(Kustomization|kustomization\.yaml)$/.test(f));
    for (const file of kustomizations) {
      expect(fs.readFileSync(path.join(out(), file), 'utf8')).not.toMatch(/secret\.yaml|secrets\//);
    }
  });

  test('every Secret a pod reads is in secrets/, with the keys it reads', () => {
    const secrets = new Map(
      docs(out(), (f) => f.startsWith('secrets/') && f.endsWith('.yaml')).map((d) => [d.metadata.name, d]),
    );
    const refs = referencedSecrets(docs(out()));
    expect(refs.size).toBeGreaterThan(0);
    for (const [name, keys] of refs) {
      expect(secrets.has(name)).toBe(true);
      for (const key of keys) {
        expect(Object.keys(secrets.get(name)!.data)).toContain(key);
      }
    }
  });

  test('the runbook applies secrets/ right after the namespace', () => {
    const runbook = fs.readFileSync(path.join(out(), 'RUNBOOK.md'), 'utf8');
    const commands = runbook.split('\n').filter((l) => l.trim().startsWith('kubectl apply'));
    expect(commands.slice(0, 3).map((l) => l.trim())).toEqual([
      'kubectl apply -f 0-namespace/canary-namespace.yaml',
      'kubectl apply -f secrets/',
      'kubectl apply -f 0-namespace/',
    ]);
    // The Secrets of secrets/ are made by that apply: the runbook does not ask for them again as external objects.
    expect(runbook).not.toContain('Create what the app uses but does not define');
    expect(runbook).not.toContain('kubectl create secret generic');
  });

  test('deploy --secrets separate applies secrets/ right after the namespace, before any wave', async () => {
    const cwd = project();
    const run = await runCli(['deploy', '--secrets', 'separate', '--dry-run', '-o', 'k8s'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(0, 3)).toEqual([
      'kubectl apply -f k8s/0-namespace/canary-namespace.yaml',
      'kubectl apply -f k8s/secrets/',
      'kubectl apply -f k8s/0-namespace/',
    ]);
    expect(
      filesHolding(
        path.join(cwd, 'k8s'),
        listFiles(path.join(cwd, 'k8s')).filter((f) => !f.startsWith('secrets/')),
      ),
    ).toEqual([]);
  });
});

describe('external', () => {
  const out = () => runs.external.out;

  test('no file of the output holds a canary', () => {
    expect(filesHolding(out(), listFiles(out()))).toEqual([]);
  });

  test("an ExternalSecret in each Secret's place makes it again: same name, keys, type and labels, from the store given", () => {
    const inline = docs(runs.inline.out).filter((d) => d.kind === 'Secret');
    const external = docs(out()).filter((d) => d.kind === 'ExternalSecret');
    expect(external.map((e) => e.metadata.name).sort()).toEqual(inline.map((s) => s.metadata.name).sort());
    for (const secret of inline) {
      const es = external.find((e) => e.metadata.name === secret.metadata.name)!;
      expect(es.spec.secretStoreRef).toEqual({ kind: 'SecretStore', name: 'vault-backend' });
      expect(es.spec.target.name).toBe(secret.metadata.name);
      expect(es.spec.target.template.type).toBe(secret.type);
      expect(es.spec.target.template.metadata?.labels).toEqual(secret.metadata.labels);
      expect(es.spec.data.map((d: any) => d.secretKey)).toEqual(Object.keys(secret.data).sort());
      for (const d of es.spec.data) {
        expect(d.remoteRef.key).toBe(`canary-${secret.metadata.name}-${d.secretKey}`.replace(/[^A-Za-z0-9-]/g, '-'));
      }
    }
    expect(docs(out()).filter((d) => d.kind !== 'ExternalSecret')).toEqual(
      docs(runs.inline.out).filter((d) => d.kind !== 'Secret'),
    );
    expect(validateManifests(external)).toEqual([]);
  });

  test('every Secret a pod reads is the target of an ExternalSecret that fills the keys it reads', () => {
    const external = new Map(
      docs(out())
        .filter((d) => d.kind === 'ExternalSecret')
        .map((d) => [d.spec.target.name, d]),
    );
    for (const [name, keys] of referencedSecrets(docs(out()))) {
      expect(external.has(name)).toBe(true);
      for (const key of keys) {
        expect(external.get(name)!.spec.data.map((d: any) => d.secretKey)).toContain(key);
      }
    }
  });

  test('secrets/push-secrets.sh puts every value under its remote key from a separate output, and prints none', () => {
    const store = tempDir('store');
    const script = path.join(out(), 'secrets', 'push-secrets.sh');
    const run = spawnSync('sh', [script, path.join(runs.separate.out, 'secrets')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, STORE: store, PUSH: 'cat > "$STORE/$1"' },
    });
    expect({
      status: run.status,
      stderr: run.stderr.split('\n').filter((l) => !l.startsWith('push-secrets: canary-')),
    }).toEqual({
      status: 0,
      stderr: [''],
    });
    expect(FORMS.some((f) => run.stdout.includes(f) || run.stderr.includes(f))).toBe(false);
    const inline = new Map(
      docs(runs.inline.out)
        .filter((d) => d.kind === 'Secret')
        .map((d) => [d.metadata.name, d]),
    );
    const external = docs(out()).filter((d) => d.kind === 'ExternalSecret');
    const pushed = external.flatMap((e) => e.spec.data.map((d: any) => d.remoteRef.key)).sort();
    expect(fs.readdirSync(store).sort()).toEqual(pushed);
    for (const e of external) {
      for (const d of e.spec.data) {
        const stored = fs.readFileSync(path.join(store, d.remoteRef.key));
        const expected = Buffer.from(inline.get(e.spec.target.name)!.data[d.secretKey], 'base64');
        expect(d.remoteRef.decodingStrategy === 'Base64' ? Buffer.from(stored.toString(), 'base64') : stored).toEqual(
          expected,
        );
      }
    }
    expect(fs.readFileSync(path.join(store, 'canary-signing-key-signing-key'), 'utf8')).toBe(`${CANARIES.file}\n`);
  });

  test('the runbook says where the values go', () => {
    const runbook = fs.readFileSync(path.join(out(), 'RUNBOOK.md'), 'utf8');
    expect(runbook).toContain('The ExternalSecrets make the Secrets from the SecretStore `vault-backend`');
    expect(runbook).toContain('kubectl get externalsecrets -n canary');
    // The store is filled first: before anything is applied.
    expect(runbook.indexOf('The ExternalSecrets make')).toBeLessThan(runbook.indexOf('kubectl apply -f'));
    // The ExternalSecrets make the Secrets: the runbook does not ask for them as external objects.
    expect(runbook).not.toContain('kubectl create secret generic');
  });
});

describe('usage', () => {
  test.each([
    [['--secrets', 'vault'], 'error: --secrets "vault" is not allowed. Allowed: inline, separate, external'],
    [
      ['--secrets', 'external'],
      'error: --secrets external needs --secret-store NAME: the SecretStore (or, with --secret-store-kind ' +
        'ClusterSecretStore, the ClusterSecretStore) of the External Secrets Operator that holds the values',
    ],
    [['--secret-store', 'x'], 'error: --secret-store is for --secrets external'],
    [
      ['--secrets', 'external', '--secret-store', 'Vault_Backend'],
      'error: --secret-store "Vault_Backend" is not an object name. Allowed: a DNS subdomain (lower case letters, digits, "-" and ".")',
    ],
    [
      ['--secrets', 'external', '--secret-store', 'v', '--secret-store-kind', 'Store'],
      'error: --secret-store-kind "Store" is not allowed. Allowed: SecretStore, ClusterSecretStore',
    ],
    [
      ['--secrets', 'separate', '--stdout'],
      'error: --secrets separate writes files beside the manifests: leave out --stdout and give -o DIR',
    ],
    [
      ['--secrets', 'separate', '-o', 'all.yaml'],
      'error: --secrets separate needs the folder output (one file per resource), whose secrets/ is applied after the ' +
        'namespace: leave out -o FILE.yaml and --single-file',
    ],
  ])('%j: %s', async (args, error) => {
    const run = await runCli(['convert', ...args], { cwd: ROOT });
    expect({ code: run.code, error: run.stderr.split('\n')[0] }).toEqual({ code: 2, error });
  });
});

test('docs/secrets.md: the example runs as written, fills the stand-in store with every value, and prints none', () => {
  const text = fs.readFileSync(path.join(ROOT, 'docs', 'secrets.md'), 'utf8');
  const [block] = [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd().split('\n'));
  const cwd = project();
  let printed = '';
  for (const line of block) {
    const run = spawnSync('sh', ['-c', line.replace(/^npx cdk8s-compose /, `'${process.execPath}' '${BIN}' `)], {
      cwd,
      encoding: 'utf8',
    });
    expect({ line, status: run.status }).toEqual({ line, status: 0 });
    printed += run.stdout + run.stderr;
  }
  expect(FORMS.some((f) => printed.includes(f))).toBe(false);
  const remote = docs(path.join(cwd, 'k8s'))
    .filter((d) => d.kind === 'ExternalSecret')
    .flatMap((e) => e.spec.data.map((d: any) => d.remoteRef.key))
    .sort();
  expect(fs.readdirSync(path.join(cwd, 'store')).sort()).toEqual(remote);
  expect(fs.readFileSync(path.join(cwd, 'store', 'canary-api-env-CACHE-URL'), 'utf8')).toBe(
    `redis://:${CANARIES.dsn}@cache:6379/0`,
  );
  expect(filesHolding(path.join(cwd, 'k8s'), listFiles(path.join(cwd, 'k8s')))).toEqual([]);
});
