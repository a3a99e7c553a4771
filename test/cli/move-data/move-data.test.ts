import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { parse } from 'yaml';
import { ComposeApp } from '../../../lib/app/compose-app';
import { shellSplit } from '../../../lib/compose/shell-split';
import { main } from '../../../lib/cli/main';
import { COMPOSE_SOURCE_ANNOTATION, composeSourceOf, planDataMoves } from '../../../lib/cli/move-data/move-data-plan';
import { runMove } from '../../../lib/cli/move-data/move-data';
import { modelOf } from '../../app/app-fixture';
import { KUBECTL_USAGE_ERROR, runTool, startDiscoveryServer, writeKubeconfig } from '../../support/runbook-commands';
import { ROOT, removeTempDirs, tempDir } from '../run-cli';

/**
 * `move-data` for real: stand-ins for `docker` and `kubectl` on PATH move the bytes between two local folders (a
 * folder per docker volume, a folder per claim), so every command the move runs, pipes included, runs as written;
 * the trees are then compared by content, mode and owner. The printed kubectl commands go through kubectl's own parser.
 */

const IS_ROOT = process.getuid?.() === 0;
if (!IS_ROOT) {
  console.log('move-data: owners are not compared, the test does not run as root (only root can chown)');
}

const COMPOSE = `
name: photos
services:
  app:
    image: example/photos:1.0
    deploy: { replicas: 2 }
    volumes: [library:/data, "it's:/cache"]
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: example-pass-1 }
    volumes: [pgdata:/var/lib/postgresql/data]
  idle:
    image: example/idle:1.0
volumes:
  library: { name: "photo-library" }
  "it's": {}
  pgdata: {}
`;

/** The stand-ins: docker reads `$VOLUMES/<volume>`, kubectl's helper pods read and write `$CLAIMS/<claim>`. */
const DOCKER = `#!/bin/bash
echo "docker $*" >> "$MOVE_LOG"
case "$1" in
  volume) [ "$2" = inspect ] && [ -d "$VOLUMES/$3" ] && exit 0; echo "Error: No such volume: $3" >&2; exit 1 ;;
  compose)
    # exec -T SERVICE sh -c SCRIPT: the dump, which names the service and the script it ran.
    for ((i = 1; i <= $#; i++)); do
      if [ "\${!i}" = exec ]; then j=$((i + 2)); k=$((i + 5)); echo "dump of \${!j}: \${!k}"; fi
    done
    exit 0 ;;
  run)
    shift; [ "$1" = --rm ] && shift; [ "$1" = -v ] || exit 9
    volume="\${2%%:/compose-source:ro}"; shift 3
    [ -d "$VOLUMES/$volume" ] || mkdir -p "$VOLUMES/$volume"
    args=(); for a in "$@"; do args+=("\${a//\\/compose-source/$VOLUMES/$volume}"); done
    exec "\${args[@]}" ;;
esac
exit 9
`;
const KUBECTL = `#!/bin/bash
echo "kubectl $*" >> "$MOVE_LOG"
case "$1" in
  get) [ -d "$CLAIMS/$3" ] && exit 0; echo "Error from server (NotFound): persistentvolumeclaims \\"$3\\" not found" >&2; exit 1 ;;
  run)
    claim=$(printf '%s' "$*" | grep -o '"claimName":"[^"]*"' | cut -d'"' -f4)
    mkdir -p "$PODS"; printf '%s' "$claim" > "$PODS/$2"; exit 0 ;;
  exec)
    shift; [ "$1" = -i ] && shift; pod="$1"
    if [[ "$pod" == */* ]]; then cat > "$CLAIMS/restored-\${pod#*/}"; exit 0; fi
    claim=$(cat "$PODS/$pod")
    while [ "$1" != -- ]; do shift; done; shift
    args=(); for a in "$@"; do args+=("\${a//\\/claim/$CLAIMS/$claim}"); done
    "\${args[@]}"; code=$?
    [ -n "$DROP_AFTER_UNPACK" ] && [[ "$*" == *tar* ]] && rm -f "$CLAIMS/$claim/$DROP_AFTER_UNPACK"
    exit $code ;;
  wait) [ -n "$NO_PODS" ] && [ "$2" = --for=delete ] && { echo 'error: no matching resources found' >&2; exit 1; }; exit 0 ;;
  scale|delete|rollout) exit 0 ;;
esac
exit 9
`;

interface Sandbox {
  readonly root: string;
  readonly project: string;
  readonly volumes: string;
  readonly claims: string;
  readonly log: string;
  readonly env: Record<string, string>;
}

function sandbox(compose = COMPOSE): Sandbox {
  const root = tempDir('move-data');
  const bin = path.join(root, 'bin');
  const project = path.join(root, 'project');
  const volumes = path.join(root, 'volumes');
  const claims = path.join(root, 'claims');
  for (const dir of [bin, project, volumes, claims]) {
    fs.mkdirSync(dir, { recursive: true });
  }
  fs.writeFileSync(path.join(bin, 'docker'), DOCKER, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'kubectl'), KUBECTL, { mode: 0o755 });
  fs.writeFileSync(path.join(project, 'compose.yaml'), compose);
  const log = path.join(root, 'log');
  fs.writeFileSync(log, '');
  return {
    root,
    project,
    volumes,
    claims,
    log,
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      MOVE_LOG: log,
      VOLUMES: volumes,
      CLAIMS: claims,
      PODS: path.join(root, 'pods'),
    },
  };
}

/** A tree with what data folders hold: nested folders, modes, owners, a link, an empty file, bytes of every value. */
function fillTree(dir: string, seed: string): void {
  fs.mkdirSync(path.join(dir, 'albums', '2024 summer'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'albums', '2024 summer', "it's a photo.jpg"), Buffer.from([...Array(256).keys()]));
  fs.writeFileSync(path.join(dir, 'albums', 'index.json'), `{"seed":"${seed}"}\n`);
  fs.writeFileSync(path.join(dir, 'empty'), '');
  fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(300_000, seed));
  fs.chmodSync(path.join(dir, 'albums', 'index.json'), 0o640);
  fs.chmodSync(path.join(dir, 'albums', '2024 summer'), 0o750);
  fs.symlinkSync('albums/index.json', path.join(dir, 'latest'));
  fs.chmodSync(dir, 0o700);
  if (IS_ROOT) {
    fs.chownSync(path.join(dir, 'albums', 'index.json'), 1234, 5678);
    fs.lchownSync(path.join(dir, 'latest'), 999, 999);
    fs.chownSync(dir, 999, 999);
  }
}

/** Every entry of a tree: path, type, mode, owner (as root) and content or link target. */
function describeTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const full = path.join(dir, rel);
    const stat = fs.lstatSync(full);
    const owner = IS_ROOT ? ` ${stat.uid}:${stat.gid}` : '';
    const mode = (stat.mode & 0o7777).toString(8);
    if (stat.isSymbolicLink()) {
      out.push(`${rel || '.'} link${owner} -> ${fs.readlinkSync(full)}`);
    } else if (stat.isDirectory()) {
      out.push(`${rel || '.'} dir ${mode}${owner}`);
      fs.readdirSync(full)
        .sort()
        .forEach((name) => walk(path.join(rel, name)));
    } else {
      const hash = require('crypto').createHash('sha256').update(fs.readFileSync(full)).digest('hex').slice(0, 16);
      out.push(`${rel} file ${mode}${owner} ${stat.size} ${hash}`);
    }
  };
  walk('');
  return out;
}

function run(box: Sandbox, args: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const code = main(['move-data', ...args], {
    cwd: box.project,
    env: box.env,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

function logLines(box: Sandbox): string[] {
  return fs.readFileSync(box.log, 'utf-8').trim().split('\n');
}

afterAll(() => removeTempDirs());

describe('the plan: which claims replace which compose source', () => {
  const model = modelOf(COMPOSE);

  test('named volumes: <project>_<key> or the name: of the volume; engines one folder down', () => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model });
    const plan = planDataMoves(Testing.synth(chart), app);
    expect(plan.moves.map((m) => [m.claim, m.dockerVolume, m.folder, m.users.map((u) => u.name)])).toEqual([
      ['it-s', "photos_it's", '', ['app']],
      ['library', 'photo-library', '', ['app']],
      // postgres in Kubernetes keeps PGDATA one folder down the claim; compose kept it at the volume's root.
      ['pgdata', 'photos_pgdata', 'pgdata', ['db']],
    ]);
    expect(plan.workloads.map((w) => `${w.kind}/${w.name} ${w.replicas} ${w.selector} ${w.engine ?? ''}`)).toEqual([
      'Deployment/app 2 app=app ',
      'Deployment/db 1 app=db postgres',
    ]);
    expect(plan.composeFiles).toEqual(['compose.yaml']);
  });

  test("a database's folder bound at its data path: the dependency's own claim is filled from that folder", () => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', {
      model: modelOf(`
services:
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: example-pass-1 }
    volumes: [./postgres:/var/lib/postgresql/data/]
`),
    });
    const plan = planDataMoves(Testing.synth(chart), app);
    expect(plan.moves.map((m) => [m.claim, m.bindPath, m.dockerVolume, m.folder])).toEqual([
      ['postgres', './postgres', undefined, 'pgdata'],
    ]);
  });

  test('the annotation wins: a claim that says it replaces a bind folder is filled from that folder', () => {
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model });
    const docs = Testing.synth(chart);
    const claim = docs.find((d) => d.kind === 'PersistentVolumeClaim' && d.metadata.name === 'library')!;
    claim.metadata.annotations = { [COMPOSE_SOURCE_ANNOTATION]: 'bind:./library' };
    expect(composeSourceOf(claim, app)).toEqual({ kind: 'bind', path: './library' });
    const move = planDataMoves(docs, app).moves.find((m) => m.claim === 'library')!;
    expect([move.bindPath, move.dockerVolume]).toEqual(['./library', undefined]);
    claim.metadata.annotations = { [COMPOSE_SOURCE_ANNOTATION]: 'folder:x' };
    expect(() => planDataMoves(docs, app)).toThrow(
      `claim "library" has an unreadable ${COMPOSE_SOURCE_ANNOTATION} (got "folder:x"). Allowed: "volume:<key>" or "bind:<path>".`,
    );
  });
});

describe('the move, run against stand-ins for docker and kubectl', () => {
  test('every volume reaches its claim with its contents, modes and owners; the app is stopped, scaled down and up', () => {
    const box = sandbox();
    const sources = { "photos_it's": 'a', 'photo-library': 'b', 'photos_pgdata': 'c' };
    for (const [volume, seed] of Object.entries(sources)) {
      fillTree(path.join(box.volumes, volume), seed);
    }
    for (const claim of ['it-s', 'library', 'pgdata']) {
      fs.mkdirSync(path.join(box.claims, claim, 'lost+found'), { recursive: true });
    }
    const result = run(box, []);
    expect(result.stderr).toContain('moved 3 claims into namespace photos: it-s, library, pgdata');
    expect(result.code).toBe(0);
    expect(describeTree(path.join(box.claims, 'it-s')).filter((l) => !l.startsWith('lost+found'))).toEqual(
      describeTree(path.join(box.volumes, "photos_it's")),
    );
    expect(describeTree(path.join(box.claims, 'library')).filter((l) => !l.startsWith('lost+found'))).toEqual(
      describeTree(path.join(box.volumes, 'photo-library')),
    );
    expect(describeTree(path.join(box.claims, 'pgdata', 'pgdata'))).toEqual(
      describeTree(path.join(box.volumes, 'photos_pgdata')),
    );
    expect(result.stderr).toContain('pgdata: the source holds 4 files, 300269 bytes, the claim 4 files, 300269 bytes');
    // The order: compose stops before any copy, the workloads go to zero before, and come back after.
    const log = logLines(box);
    const at = (text: string) => log.findIndex((l) => l.includes(text));
    expect(at('docker compose -p photos -f compose.yaml stop')).toBeGreaterThan(at('get pvc pgdata'));
    expect(at('scale deployment/app --replicas=0')).toBeGreaterThan(at('compose -p photos -f compose.yaml stop'));
    expect(at('exec -i move-data-it-s')).toBeGreaterThan(at('scale deployment/db --replicas=0'));
    expect(at('scale deployment/app --replicas=2')).toBeGreaterThan(at('delete pod move-data-pgdata'));
    expect(log.filter((l) => l.includes('idle'))).toEqual([]);
  });

  test('a bind folder reaches its claim (the annotation names it), relative to the project folder, quoted', () => {
    const box = sandbox();
    // A folder name a shell would run, were it not quoted.
    const folder = "it's $(touch pwned) `touch pwned2` dir";
    fillTree(path.join(box.project, folder), 'd');
    fs.mkdirSync(path.join(box.claims, 'library'));
    const chart = new Chart(Testing.app(), 'test');
    const app = new ComposeApp(chart, 'app', { model: modelOf(COMPOSE) });
    const docs = Testing.synth(chart);
    docs.find((d) => d.metadata?.name === 'library' && d.kind === 'PersistentVolumeClaim')!.metadata.annotations = {
      [COMPOSE_SOURCE_ANNOTATION]: `bind:./${folder}`,
    };
    const plan = planDataMoves(docs, app);
    const one = { ...plan, moves: plan.moves.filter((m) => m.claim === 'library') };
    let stderr = '';
    const code = runMove(
      one,
      { overwrite: false, logical: false, timeoutSeconds: 60 },
      { cwd: box.project, env: box.env, stdout: () => undefined, stderr: (t) => (stderr += t) },
    );
    expect({ code, stderr: stderr.split('\n').filter((l) => l.startsWith('error')) }).toEqual({ code: 0, stderr: [] });
    expect(describeTree(path.join(box.claims, 'library'))).toEqual(describeTree(path.join(box.project, folder)));
    expect(fs.readdirSync(box.project).filter((f) => f.startsWith('pwned'))).toEqual([]);
    expect(stderr).toContain(`$ test -d './it'\\''s $(touch pwned) \`touch pwned2\` dir'\n`);
  });

  test('a claim that holds files stops the move before it copies; --overwrite empties it first', () => {
    const box = sandbox();
    for (const volume of ["photos_it's", 'photo-library', 'photos_pgdata']) {
      fillTree(path.join(box.volumes, volume), 'e');
    }
    for (const claim of ['it-s', 'library', 'pgdata']) {
      fs.mkdirSync(path.join(box.claims, claim), { recursive: true });
    }
    fs.writeFileSync(path.join(box.claims, 'library', 'stale.txt'), 'from a first start');
    // A second run finds the workloads at zero already: kubectl wait --for=delete then finds no pod, and exits 1.
    box.env.NO_PODS = '1';
    const refused = run(box, []);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'error: the claim library already holds files (./stale.txt): run again with --overwrite to empty it first, ' +
        'or fill it yourself. The compose app is stopped ("docker compose start" brings it back). ' +
        'deployment/app, deployment/db are scaled to zero in namespace photos',
    );
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(box.claims, 'library', 'albums'))).toBe(false);
    const overwritten = run(box, ['--overwrite']);
    expect(overwritten.code).toBe(0);
    expect(describeTree(path.join(box.claims, 'library'))).toEqual(
      describeTree(path.join(box.volumes, 'photo-library')),
    );
  });

  test('counts that differ fail the move, naming the claim and both counts', () => {
    const box = sandbox();
    for (const volume of ["photos_it's", 'photo-library', 'photos_pgdata']) {
      fillTree(path.join(box.volumes, volume), 'f');
    }
    for (const claim of ['it-s', 'library', 'pgdata']) {
      fs.mkdirSync(path.join(box.claims, claim), { recursive: true });
    }
    box.env.DROP_AFTER_UNPACK = 'empty';
    const result = run(box, []);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('it-s: the source holds 4 files, 300269 bytes, the claim 3 files, 300269 bytes\n');
    expect(result.stderr).toContain('error: the claim it-s does not hold what its source holds.');
    expect(logLines(box).filter((l) => l.includes('move-data-library'))).toEqual([]);
  });

  test('a missing docker volume stops the move before anything is stopped', () => {
    const box = sandbox();
    fillTree(path.join(box.volumes, 'photo-library'), 'g');
    const result = run(box, []);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("error: docker volume inspect 'photos_it'\\''s' failed (exit 1). Fix the cause");
    expect(logLines(box).filter((l) => / stop$|scale/.test(l))).toEqual([]);
  });

  test('a project whose claims replace no compose source has nothing to move', () => {
    const box = sandbox('services: { web: { image: nginx:1.27 } }\n');
    expect(run(box, [])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'no claim of namespace project replaces a compose volume or folder: nothing to move\n',
    });
  });

  test('the data of a service in the VM is not moved, and move-data says so instead of "nothing to move" alone', () => {
    const box = sandbox(
      'services:\n  ui:\n    image: portainer/portainer-ce:2.21.4\n' +
        '    volumes: ["/var/run/docker.sock:/var/run/docker.sock", "ui_data:/data", "./conf:/conf"]\n' +
        'volumes: { ui_data: {} }\n',
    );
    fs.mkdirSync(path.join(box.project, 'conf'));
    const result = run(box, ['--dry-run', '--target', 'auto', '--image-base-url', 'https://images.example.com/x']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'note: move-data fills claims only, not the VM "project-vm": the data of ui (docker volume project_ui_data, ' +
        "folder ./conf) is not moved. Copy it into the VM yourself, with the VM's app stopped: named volumes keep " +
        'their names on its data disk project-vm-datadisk, bound folders are in /opt/project-vm; RUNBOOK.md ("Log in, ' +
        'and read the app\'s logs") shows how to reach the VM with virtctl ssh\n' +
        'no claim of namespace project replaces a compose volume or folder: nothing to move\n',
    );
  });

  test('a broken compose file is an error without a stack trace', () => {
    const box = sandbox('services: { web: { image: nginx:1.27, volumes: [nope:/data] } }\n');
    const result = run(box, []);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: .*nope/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

test('--logical: the database is dumped from compose into the Kubernetes one, the other claims copied', () => {
  const box = sandbox();
  for (const volume of ["photos_it's", 'photo-library']) {
    fillTree(path.join(box.volumes, volume), 'h');
  }
  fs.mkdirSync(path.join(box.volumes, 'photos_pgdata'));
  for (const claim of ['it-s', 'library', 'pgdata']) {
    fs.mkdirSync(path.join(box.claims, claim));
  }
  const result = run(box, ['--logical']);
  expect(result.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([]);
  expect(result.code).toBe(0);
  expect(fs.readFileSync(path.join(box.claims, 'restored-db'), 'utf-8')).toBe(
    'dump of db: pg_dumpall -U "${POSTGRES_USER:-postgres}"\n',
  );
  expect(fs.readdirSync(path.join(box.claims, 'pgdata'))).toEqual([]);
  expect(describeTree(path.join(box.claims, 'library'))).toEqual(describeTree(path.join(box.volumes, 'photo-library')));
  const log = logLines(box);
  const at = (text: string) => log.findIndex((l) => l.endsWith(text));
  const order = [
    'compose -p photos -f compose.yaml stop',
    'scale deployment/db --replicas=0 -n photos',
    'delete pod move-data-library -n photos',
    'compose -p photos -f compose.yaml start db',
    'scale deployment/db --replicas=1 -n photos',
    'rollout status deployment/db -n photos --timeout=300s',
    'compose -p photos -f compose.yaml stop db',
    'scale deployment/app --replicas=2 -n photos',
  ].map(at);
  expect(order.every((n) => n >= 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);
});

describe('--dry-run', () => {
  test('prints every command, quoting what comes from the project; runs nothing', () => {
    const box = sandbox();
    const result = run(box, ['--dry-run', '--context', 'prod', '--timeout', '2m']);
    expect(result.code).toBe(0);
    expect(fs.readFileSync(box.log, 'utf-8')).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines).toContain("docker volume inspect 'photos_it'\\''s'");
    expect(lines).toContain('kubectl --context prod wait --for=delete pod -l app=db -n photos --timeout=120s');
    expect(lines).toContain("# Fill the claim it-s from the docker volume 'photos_it'\\''s'");
    // Every line splits into words as the shell reads them: nothing from the project breaks out of its word.
    for (const text of lines.filter((l) => l !== '' && !l.startsWith('#'))) {
      expect(shellSplit(text)).toBeDefined();
    }
    expect(result.stdout).toBe(run(box, ['--dry-run', '--context', 'prod', '--timeout', '2m']).stdout);
  });

  test('--logical: postgres by pg_dumpall piped into psql, credentials read inside the containers', () => {
    const box = sandbox();
    const result = run(box, ['--dry-run', '--logical']);
    expect(result.stdout).toContain(
      '# Fill the claim pgdata with pg_dumpall → psql\n' +
        'docker compose -p photos -f compose.yaml start db\n' +
        'kubectl scale deployment/db --replicas=1 -n photos\n' +
        'kubectl rollout status deployment/db -n photos --timeout=300s\n' +
        'docker compose -p photos -f compose.yaml exec -T db sh -c \'pg_dumpall -U "${POSTGRES_USER:-postgres}"\' | ' +
        'kubectl exec -i deployment/db -n photos -- sh -c \'psql -v ON_ERROR_STOP=0 -U "${POSTGRES_USER:-postgres}" -d postgres\'\n',
    );
    expect(result.stdout).not.toContain('example-pass-1');
    expect(result.stdout).not.toContain('move-data-pgdata');
  });

  const kubectl = (() => {
    try {
      return execFileSync('which', ['kubectl'], { encoding: 'utf-8' }).trim();
    } catch {
      return undefined;
    }
  })();

  (kubectl ? test : test.skip)(
    "every kubectl command, pipes' included, passes kubectl's own parser; the helper pods run with --dry-run=client",
    async () => {
      const box = sandbox();
      const printed = [run(box, ['--dry-run']).stdout, run(box, ['--dry-run', '--logical', '--overwrite']).stdout];
      const server = await startDiscoveryServer(path.join(ROOT, 'schemas'));
      const kubeconfig = path.join(box.root, 'kubeconfig');
      writeKubeconfig(kubeconfig, server.url);
      const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: box.root, KUBECONFIG: kubeconfig };
      const problems: string[] = [];
      const seen = new Set<string>();
      let pods = 0;
      try {
        for (const text of printed.flatMap((p) => p.split('\n')).filter((l) => l !== '' && !l.startsWith('#'))) {
          const words = shellSplit(text)!;
          const segments: string[][] = [[]];
          words.forEach((w) => (w === '|' ? segments.push([]) : segments[segments.length - 1].push(w)));
          for (const argv of segments.filter((s) => s[0] === 'kubectl')) {
            const key = argv.join('\u0000');
            if (seen.has(key)) {
              continue;
            }
            seen.add(key);
            if (argv[1] === 'run') {
              const dash = argv.indexOf('--');
              const dry = [...argv.slice(0, dash), '--dry-run=client', '-o', 'yaml', ...argv.slice(dash)];
              const ran = await runTool(dry, { cwd: box.root, env });
              if (ran.code !== 0) {
                problems.push(`${text}: exit ${ran.code}: ${ran.stderr.trim()}`);
                continue;
              }
              pods++;
              const pod = parse(ran.stdout);
              const container = pod.spec.containers[0];
              expect(container.image).toBe('busybox:1.36');
              expect(container.command).toEqual(['sleep', '86400']);
              expect(container.volumeMounts).toEqual([{ name: 'claim', mountPath: '/claim' }]);
              expect(container.resources.limits).toEqual({ cpu: '1', memory: '256Mi' });
              expect(pod.spec.volumes[0].persistentVolumeClaim.claimName).toBe(argv[2].replace(/^move-data-/, ''));
            } else {
              const ran = await runTool([...argv, '--request-timeout=5s'], { cwd: box.root, env, timeoutMs: 30_000 });
              if (KUBECTL_USAGE_ERROR.test(ran.stderr)) {
                problems.push(`${argv.join(' ')}: ${ran.stderr.trim().split('\n')[0]}`);
              }
            }
          }
        }
      } finally {
        await server.close();
      }
      expect(problems).toEqual([]);
      expect(pods).toBe(3);
      expect(seen.size).toBeGreaterThan(20);
    },
    300_000,
  );
});

describe('RUNBOOK.md, --help and docs/data.md say what the command does', () => {
  test('the runbook\'s "Move the data" holds the very commands the dry run prints, in order', () => {
    const box = sandbox();
    const dry = run(box, ['--dry-run'])
      .stdout.split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    const logical = run(box, ['--dry-run', '--logical'])
      .stdout.split('\n')
      .filter((l) => l !== '' && !l.startsWith('#'));
    const code = main(['convert', '-o', 'out', '-q'], {
      cwd: box.project,
      env: box.env,
      stdout: () => undefined,
      stderr: () => undefined,
    });
    expect(code).toBe(0);
    const runbook = fs.readFileSync(path.join(box.project, 'out', 'RUNBOOK.md'), 'utf-8');
    expect(runbook).toContain('5. [Move the data](#5-move-the-data)\n6. [Verify](#6-verify)');
    const section = runbook.split('## 5. Move the data\n')[1].split('\n## ')[0];
    const [files, alternatives] = section.split('Instead of copying');
    const shLines = (text: string) =>
      [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
        .flatMap((m) => m[1].split('\n').map((l) => l.trim()))
        .filter((l) => l);
    expect(shLines(files)).toEqual(dry);
    // The alternative is the logical route's step for the postgres claim, as --logical runs it.
    const alternative = shLines(alternatives);
    expect(alternative.length).toBeGreaterThan(3);
    expect(logical.join('\n')).toContain(alternative.join('\n'));
    expect(section).not.toContain('example-pass-1');
    // Two workloads scale to zero (app, db): their step says once what each wait does.
    expect(section.match(/returns once the pods are gone/g)).toHaveLength(1);
  });

  test('--help lists the options of move-data', () => {
    let help = '';
    expect(
      main(['move-data', '--help'], { cwd: ROOT, env: {}, stdout: (t) => (help += t), stderr: () => undefined }),
    ).toBe(0);
    for (const option of [
      '--dry-run',
      '--overwrite',
      '--logical',
      '--context NAME',
      '--timeout DURATION',
      '-f, --file FILE',
    ]) {
      expect(help).toContain(option);
    }
  });

  test('every command of docs/data.md\'s "Move the data" parses, and its dry runs run', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'data.md'), 'utf-8');
    const section = doc.split('## Move the data\n')[1].split('\n## ')[0];
    const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].trim().split('\n'));
    expect(commands.length).toBeGreaterThanOrEqual(4);
    const box = sandbox();
    for (const command of commands) {
      const words = shellSplit(command)!;
      expect(words[0]).toBe('cdk8s-compose');
      const parsed = require('../../../lib/cli/options/options').parseCommandLine(words.slice(1));
      expect(parsed.command).toBe('move-data');
      if (parsed.options.dryRun) {
        const result = run(box, words.slice(2));
        expect(result.code).toBe(0);
        expect(result.stdout).toContain('kubectl scale deployment/db --replicas=0 -n photos');
      }
    }
  });
});
