import * as fs from 'fs';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { ComposeApp } from '../../lib/app/compose-app';
import { ComposeError, isComposeError } from '../../lib/compose/errors';
import { loadCompose, LoadComposeOptions } from '../../lib/compose/load';
import { MAX_INCLUDES } from '../../lib/compose/project-files';
import { MAX_SERVICES } from '../../lib/compose/normalize';
import { checkNotSystemFolder } from '../../lib/cli/output/output-stage';
import { runBounded } from '../support/bounded';
import { CLEAN_ENV, CliRun, expectBuilt, listFiles, removeTempDirs, runCli, tempDir } from '../cli/run-cli';

/**
 * Hostile input, round 2 (issue 25, findings 3-7 and 12-15, and issue 27's "secret files are Secrets"): the output
 * read back into the next run, secrets in binary and key files, include diamonds, link DAGs in bound folders,
 * platform namespaces, invalid keys, hard links and system output folders. Each test is written from the issue's
 * description of the finding.
 */

beforeAll(expectBuilt);
afterAll(removeTempDirs);

/** A planted secret: no ConfigMap may hold it, raw or in base64. */
const PLANTED = 'planted-7d3a91c4e2';

function project(files: Record<string, string | Buffer>): string {
  const dir = path.join(fs.realpathSync(tempDir('hostile-in-2')), 'project');
  fs.mkdirSync(dir);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

function load(dir: string, options: Partial<LoadComposeOptions> = {}) {
  return loadCompose({ workingDir: dir, env: {}, ...options });
}

/** The synthesized objects of a project, by kind. */
function synth(dir: string, options: Partial<LoadComposeOptions> = {}): any[] {
  const { model } = load(dir, options);
  const chart = new Chart(new App({ outdir: tempDir('synth') }), 'c');
  new ComposeApp(chart, 'app', { model });
  return Testing.synth(chart);
}

function refused(fn: () => unknown, timeoutMs = 10_000): ComposeError {
  const outcome = runBounded(fn, timeoutMs);
  if (outcome.kind === 'timeout') {
    throw new Error(`no result within ${timeoutMs} ms`);
  }
  if (outcome.kind === 'value') {
    throw new Error('expected a ComposeError, got a result');
  }
  if (!isComposeError(outcome.error)) {
    throw outcome.error;
  }
  return outcome.error;
}

function lastLine(run: CliRun): string {
  return run.stderr.trimEnd().split('\n').slice(-1)[0];
}

/** Every ConfigMap's data and binaryData, decoded, as one text. */
function configMapText(objects: any[]): string {
  return objects
    .filter((o) => o.kind === 'ConfigMap')
    .map((o) =>
      [
        ...Object.values<string>(o.data ?? {}),
        ...Object.values<string>(o.binaryData ?? {}).map((b) => Buffer.from(b, 'base64').toString('latin1')),
      ].join('\n'),
    )
    .join('\n');
}

/** The keys of the Secret `name`. */
function secretKeys(objects: any[], name: string): string[] {
  return Object.keys(objects.find((o) => o.kind === 'Secret' && o.metadata.name === name)?.data ?? {}).sort();
}

describe("finding 3: a bound project folder never takes in the output's own Secrets", () => {
  const COMPOSE =
    'services:\n  app:\n    image: nginx:1.27.2\n    volumes: [".:/app:ro"]\n    environment:\n' +
    '      DB_PASSWORD: ${DB_PASSWORD}\n';

  test.each([
    ['-o', 'out'],
    ['-o', '.'],
  ])('converting twice with %s %s puts no Secret of the first run into a ConfigMap', async (...args) => {
    const dir = project({ 'compose.yaml': COMPOSE, '.env': `DB_PASSWORD=${PLANTED}\n`, 'index.html': 'hi\n' });
    const runs: CliRun[] = [];
    for (let run = 1; run <= 2; run++) {
      runs.push(await runCli(['convert', ...args], { cwd: dir }));
      expect(runs[run - 1].code).toBe(0);
    }
    const out = path.join(dir, args[1]);
    const manifests = listFiles(out).filter((f) => /^\d-.*\.yaml$/.test(f));
    const files = manifests.filter((f) => /app-files-(configmap|secret)\.yaml$/.test(f));
    expect(files.length).toBeGreaterThan(0);
    const encoded = Buffer.from(PLANTED).toString('base64');
    for (const file of files) {
      const text = fs.readFileSync(path.join(out, file), 'utf-8');
      // No file of the first run's output is mounted: not its manifests, kustomizations or runbook.
      expect(text).not.toMatch(/RUNBOOK|kustomization|-secret\.yaml|-deployment\.yaml|\d-app/);
      if (file.endsWith('-configmap.yaml')) {
        expect(text).not.toContain(PLANTED);
        expect(text).not.toContain(encoded.slice(0, 16));
        expect(text).toContain('index.html');
      }
    }
    expect(runs[1].stderr).toContain('bind-skips-output');
  });

  test('the walk skips staging folders, ledgers and files with the header even without the output folder', () => {
    const dir = project({
      'compose.yaml': 'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./site:/site:ro"]\n',
      'site/index.html': 'hi\n',
      'site/.cdk8s-compose-123-abc.dir/x-secret.yaml': 'kind: Secret\n',
      'site/bundle/.cdk8s-compose-files': 'ledger\n',
      'site/bundle/vm.json': '{}\n',
      'site/old-secret.yaml': '# Generated by cdk8s-compose. Do not edit.\nkind: Secret\n',
    });
    const { model, warnings } = load(dir);
    const bind = model.services[0].volumes[0].bind!;
    expect(bind.files!.map((f) => f.path)).toEqual(['index.html']);
    expect(warnings.map((w) => w.code)).toContain('bind-skips-output');
  });

  test('an include, a config or a bound file in the output folder is refused', () => {
    const dir = project({
      'compose.yaml': 'include: [out/compose.yaml]\nservices: {}\n',
      'out/compose.yaml': 'services: {}\n',
    });
    expect(refused(() => load(dir, { outputDir: 'out' })).problem).toBe(
      'include "out/compose.yaml" is in the output folder, and was not read: a conversion never reads its output',
    );
    const config = project({
      'compose.yaml': 'services: {}\nconfigs:\n  c: {file: ./out/1-app/db-secret.yaml}\n',
      'out/1-app/db-secret.yaml': 'kind: Secret\n',
    });
    expect(refused(() => load(config, { outputDir: 'out' })).problem).toBe(
      'config file "./out/1-app/db-secret.yaml" is in the output folder, and was not read: a conversion never reads its output',
    );
    expect(() => load(config)).not.toThrow();
    const bound = project({
      'compose.yaml':
        'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./k8s/2-app/db-secret.yaml:/x.yaml:ro"]\n',
      'k8s/2-app/db-secret.yaml': '# Generated by cdk8s-compose. Do not edit.\nkind: Secret\n',
    });
    // Without the output folder, the header alone marks the file as the tool's.
    expect(refused(() => load(bound)).problem).toBe(
      'the bound path "./k8s/2-app/db-secret.yaml" is a file cdk8s-compose generated, and was not read: a conversion never reads its output',
    );
  });
});

describe('finding 4 and issue 27: files that carry secrets are kept in Secrets', () => {
  test('a binary file in a bound folder that holds the .env password goes into the Secret, not binaryData', () => {
    const blob = Buffer.concat([Buffer.from([0, 0xff, 0x10]), Buffer.from(PLANTED), Buffer.from([0, 1])]);
    const dir = project({
      'compose.yaml':
        'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./data:/data:ro"]\n' +
        '    environment: {API_PASSWORD: "${API_PASSWORD}"}\n',
      '.env': `API_PASSWORD=${PLANTED}\n`,
      'data/blob.bin': blob,
      'data/readme.txt': 'plain\n',
    });
    const objects = synth(dir);
    expect(configMapText(objects)).not.toContain(PLANTED);
    expect(secretKeys(objects, 'app-files')).toEqual(['blob.bin']);
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'app-files');
    expect(Buffer.from(secret.data['blob.bin'], 'base64').equals(blob)).toBe(true);
  });

  test('a text file holding the password in base64 goes into the Secret', () => {
    const dir = project({
      'compose.yaml':
        'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./conf:/conf:ro"]\n' +
        '    environment: {API_PASSWORD: "${API_PASSWORD}"}\n',
      '.env': `API_PASSWORD=${PLANTED}\n`,
      'conf/auth.yaml': `token: x${Buffer.from(`user:${PLANTED}`).toString('base64')}\n`,
    });
    expect(secretKeys(synth(dir), 'app-files')).toEqual(['auth.yaml']);
  });

  test('id_rsa, .htpasswd and ./certs/server.key go under a Secret, and the warning says why', () => {
    const dir = project({
      'compose.yaml':
        'services:\n  web:\n    image: nginx:1.27.2\n    volumes:\n      - ./certs:/etc/nginx/certs:ro\n' +
        '      - ./conf/.htpasswd:/etc/nginx/.htpasswd:ro\n      - ./ssh/id_rsa:/root/.ssh/id_rsa:ro\n' +
        '      - ./conf/nginx.conf:/etc/nginx/nginx.conf:ro\n',
      'certs/server.key': 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n',
      'certs/server.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      'conf/.htpasswd': 'admin:$apr1$ZjTqBB3f$IF9gdYAGlMrs2fuINjHsz.\n',
      'conf/nginx.conf': 'events {}\n',
      'ssh/id_rsa':
        '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n',
    });
    const { model } = load(dir);
    const chart = new Chart(new App({ outdir: tempDir('synth') }), 'c');
    const app = new ComposeApp(chart, 'app', { model });
    const objects = Testing.synth(chart);
    expect(secretKeys(objects, 'web-files')).toEqual(['.htpasswd', 'id_rsa', 'server.key']);
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'web-files');
    expect(Object.keys(configMap.data).sort()).toEqual(['nginx.conf', 'server.crt']);
    expect(configMapText(objects)).not.toMatch(/PRIVATE KEY|\$apr1\$|MIIEvQIBADANBgkqhkiG9w0BAQEFAASC/);
    const messages = app.warnings.filter((w) => w.code === 'file-holds-secret').map((w) => w.message);
    expect(messages).toContain(
      'the bound file "./certs/server.key" is a key file (named *.key), so it is mounted from the Secret "web-files" instead of a ConfigMap',
    );
    expect(messages).toContain(
      'the bound file "./ssh/id_rsa" is an OpenSSH private key, so it is mounted from the Secret "web-files" instead of a ConfigMap',
    );
  });

  test('a compose config that is an htpasswd file is kept in a Secret', () => {
    const dir = project({
      'compose.yaml':
        'services:\n  web:\n    image: nginx:1.27.2\n    configs: [{source: auth, target: /etc/nginx/auth}]\n' +
        'configs:\n  auth: {file: ./auth.txt}\n',
      'auth.txt': 'admin:$apr1$ZjTqBB3f$IF9gdYAGlMrs2fuINjHsz.\n',
    });
    const objects = synth(dir);
    expect(objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.name === 'auth')).toEqual([]);
    expect(secretKeys(objects, 'auth')).toEqual(['auth']);
  });
});

describe('finding 5: include diamonds take linear time, and the number of includes is capped', () => {
  test('eleven files, each including the next four times, load fast', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i <= 10; i++) {
      const next = `f${i + 1}.yaml`;
      files[`f${i}.yaml`] =
        i < 10 ? `include:\n${`  - ${next}\n`.repeat(4)}services:\n  s${i}: {image: nginx:1.27.2}\n` : 'services: {}\n';
    }
    const dir = project({ ...files, 'compose.yaml': 'include: [f0.yaml]\nservices: {}\n' });
    const outcome = runBounded(() => load(dir), 5_000);
    expect(outcome.kind).toBe('value');
    if (outcome.kind === 'value') {
      expect(outcome.value.model.services.map((s) => s.name)).toHaveLength(10);
    }
  });

  test(`more than ${MAX_INCLUDES} includes are refused`, () => {
    const files: Record<string, string> = {};
    const names = Array.from({ length: MAX_INCLUDES + 1 }, (_, i) => `part${i}.yaml`);
    names.forEach((name) => (files[name] = 'services: {}\n'));
    const dir = project({
      ...files,
      'compose.yaml': `include:\n${names.map((n) => `  - ${n}\n`).join('')}services: {}\n`,
    });
    expect(refused(() => load(dir)).problem).toBe(
      `the project includes more than ${MAX_INCLUDES} files (counting each include)`,
    );
  });
});

describe('finding 6: a DAG of folder links in a bound folder is walked in bounded time', () => {
  test('depth 7, ten links per level and no file: done within seconds, each real folder read once', () => {
    const dir = project({
      'compose.yaml': 'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./tree:/tree:ro"]\n',
    });
    fs.mkdirSync(path.join(dir, 'tree', 'l7'), { recursive: true });
    for (let level = 6; level >= 0; level--) {
      fs.mkdirSync(path.join(dir, 'tree', `l${level}`), { recursive: true });
      for (let k = 0; k < 10; k++) {
        fs.symlinkSync(`../l${level + 1}`, path.join(dir, 'tree', `l${level}`, `k${k}`));
      }
    }
    // 10^7 paths through the links, 8 real folders.
    const outcome = runBounded(() => load(dir), 5_000);
    expect(outcome.kind).toBe('value');
  });

  test('a DAG whose folders hold files is mounted through every path, up to the file limit', () => {
    const dir = project({
      'compose.yaml': 'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./tree:/tree:ro"]\n',
      'tree/shared/a.txt': 'a\n',
    });
    fs.symlinkSync('shared', path.join(dir, 'tree', 'link'));
    const bind = load(dir).model.services[0].volumes[0].bind!;
    expect(bind.files!.map((f) => f.path)).toEqual(['link/a.txt', 'shared/a.txt']);
  });
});

describe('finding 7: namespaces that belong to the platform', () => {
  const COMPOSE = 'services:\n  web:\n    image: nginx:1.27.2\n    ports: ["8080:80"]\n';

  test.each([
    'ingress-nginx',
    'argocd',
    'flux-system',
    'cert-manager',
    'kubevirt',
    'cdi',
    'external-secrets',
    'monitoring',
  ])('--namespace %s is refused without --allow-system-namespace', async (ns) => {
    const dir = project({ 'compose.yaml': COMPOSE });
    const run = await runCli(['convert', '-o', 'out', '--namespace', ns], { cwd: dir });
    expect(run.code).toBe(1);
    expect(lastLine(run)).toMatch(
      new RegExp(
        `^error: cdk8s-compose/App: the namespace "${ns}" belongs to the platform: .*--allow-system-namespace`,
      ),
    );
  });

  test('a project folder named ingress-nginx is refused; the ingress controller namespace of the app is too', () => {
    const dir = path.join(tempDir('hostile-in-2'), 'ingress-nginx');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'compose.yaml'), COMPOSE);
    const { model } = load(dir);
    expect(() => new ComposeApp(new Chart(new App(), 'a'), 'app', { model })).toThrow(
      `the namespace "ingress-nginx" belongs to the platform: the ingress controller's namespace (ingressControllerNamespace)`,
    );
    expect(
      () =>
        new ComposeApp(new Chart(new App(), 'b'), 'app', {
          model,
          namespace: 'traefik',
          ingressControllerNamespace: 'traefik',
        }),
    ).toThrow('the namespace "traefik" belongs to the platform');
    expect(() => new ComposeApp(new Chart(new App(), 'c'), 'app', { model, allowSystemNamespace: true })).not.toThrow();
  });

  test('with --allow-system-namespace the runbook never proposes deleting a platform namespace', async () => {
    const dir = project({ 'compose.yaml': COMPOSE });
    const run = await runCli(['convert', '-o', 'out', '--namespace', 'ingress-nginx', '--allow-system-namespace'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    const runbook = fs.readFileSync(path.join(dir, 'out', 'RUNBOOK.md'), 'utf-8');
    expect(runbook).not.toMatch(/kubectl delete (namespace|ns) ingress-nginx/);
    expect(runbook).toContain('never delete it');
  });
});

describe('finding 12: keys the API server refuses', () => {
  test('a file named ..data in a bound folder is refused with its path', () => {
    const dir = project({
      'compose.yaml': 'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./conf:/conf:ro"]\n',
      'conf/..data': 'x\n',
    });
    const error = refused(() => load(dir));
    expect(error.problem).toBe(
      'bound file "./conf/..data" cannot be a ConfigMap or Secret key: "..data" starts with ".." (or is "."), which the kubelet keeps for its own links',
    );
  });

  test('a nested path whose key passes 253 characters is refused with its path', () => {
    const nested = `${'d'.repeat(100)}/${'e'.repeat(100)}/${'f'.repeat(199)}`;
    const dir = project({
      'compose.yaml': 'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./conf:/conf:ro"]\n',
      [`conf/${nested}`]: 'x\n',
    });
    const error = refused(() => load(dir));
    expect(error.problem).toMatch(
      /^bound file "\.\/conf\/d{100}\/e{100}\/f{199}" cannot be a ConfigMap or Secret key: it is 401 characters long$/,
    );
  });

  test('a config named ..data is refused', () => {
    const dir = project({ 'compose.yaml': 'services: {}\nconfigs:\n  "..data": {content: x}\n' });
    expect(refused(() => load(dir)).problem).toMatch(/^config "\.\.data" cannot be a ConfigMap or Secret key/);
  });
});

describe('finding 13: hard links in a bound folder', () => {
  test('a file with a second hard link (to a file outside the project) is refused with its path', () => {
    const dir = project({
      'compose.yaml':
        'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./conf:/conf:ro", "./one.txt:/one.txt:ro"]\n',
      'conf/ok.txt': 'ok\n',
      'one.txt': 'one\n',
    });
    const outside = path.join(path.dirname(dir), 'shadow');
    fs.writeFileSync(outside, 'root:x:0:0\n');
    fs.linkSync(outside, path.join(dir, 'conf', 'passwd'));
    const error = refused(() => load(dir));
    expect(error.problem).toBe(
      'bound file "./conf/passwd" has 2 hard links and was not read: another name of the same file can be outside the project, where no path check reaches',
    );
    fs.rmSync(path.join(dir, 'conf', 'passwd'));
    fs.linkSync(outside, path.join(dir, 'two.txt'));
    fs.writeFileSync(
      path.join(dir, 'compose.yaml'),
      'services:\n  app:\n    image: nginx:1.27.2\n    volumes: ["./two.txt:/two.txt:ro"]\n',
    );
    expect(refused(() => load(dir)).problem).toMatch(/^bound file "\.\/two\.txt" has 2 hard links/);
  });
});

describe('finding 14: the number of services is capped', () => {
  test(`${MAX_SERVICES + 1} one-line services are refused with the count and the limit`, () => {
    const services = Array.from({ length: MAX_SERVICES + 1 }, (_, i) => `  s${i}: {image: "nginx:1.27.2"}\n`).join('');
    const dir = project({ 'compose.yaml': `services:\n${services}` });
    const error = refused(() => load(dir), 30_000);
    expect(error.problem).toBe(`the project has ${MAX_SERVICES + 1} services, more than ${MAX_SERVICES}`);
    expect(error.path).toBe('services');
  });
});

describe('finding 15: system folders are never the output folder', () => {
  const COMPOSE = 'services:\n  web:\n    image: nginx:1.27.2\n';

  // Checked on the function the writer calls first, not through the CLI: a broken check must not write into /etc.
  test.each([
    '/',
    '/etc',
    '/usr',
    '/var',
    '/bin',
    '/home',
    '/root',
    '/etc/k8s',
    '/proc/self',
    '/dev/shm',
    '/dev/x/k8s',
  ])('-o %s is refused', (out) => {
    expect(() => checkNotSystemFolder(out, out)).toThrow(
      new RegExp(
        `^the output ${out.replace(/\//g, '\\/')} is (a system folder|inside a system folder|the home folder)`,
      ),
    );
  });

  test('a folder of its own below /var, /usr/src, /tmp or the tmpfs /dev/shm is not', () => {
    for (const out of [
      '/var/tmp/app/k8s',
      '/usr/src/app/k8s',
      '/dev/shm/bench/out',
      path.join(tempDir('hostile-in-2'), 'k8s'),
    ]) {
      expect(() => checkNotSystemFolder(out, out)).not.toThrow();
    }
  });

  test('a link to / is refused by its real path', () => {
    const link = path.join(tempDir('hostile-in-2'), 'root-link');
    fs.symlinkSync('/', link);
    expect(() => checkNotSystemFolder(link, 'root-link')).toThrow('the output root-link is a system folder (/)');
  });

  test('the home folder itself is refused, a folder in it is not', async () => {
    const dir = project({ 'compose.yaml': COMPOSE });
    const home = path.join(path.dirname(dir), 'home');
    fs.mkdirSync(home);
    const refusedRun = await runCli(['convert', '-o', home], { cwd: dir, env: { ...CLEAN_ENV, HOME: home } });
    expect(refusedRun.code).toBe(1);
    expect(lastLine(refusedRun)).toContain('is the home folder');
    const run = await runCli(['convert', '-o', path.join(home, 'k8s')], {
      cwd: dir,
      env: { ...CLEAN_ENV, HOME: home },
    });
    expect(run.code).toBe(0);
  });
});
