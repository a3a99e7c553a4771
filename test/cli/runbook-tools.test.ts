import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { admits } from '../../lib/cli/policy-admission';
import {
  KUBECTL_USAGE_ERROR,
  RunbookCommand,
  ToolRun,
  runTool,
  runbookCommands,
  startDiscoveryServer,
  writeKubeconfig,
} from '../support/runbook-commands';
import { main } from '../../lib/cli/main';
import { mermaidCliDir, renderDiagrams } from '../support/mermaid';
import { CORPUS, ROOT, copyFolder, inParallel, manifestFiles, removeTempDirs, tempDir } from './run-cli';

/**
 * The runbooks the corpus produces, checked with the real tools. Every diagram renders with mermaid-cli's mermaid in
 * Debian's chromium, offline (all of them in one page, so that the browser and mermaid start once: test/support/mermaid.ts),
 * and mmdc itself renders the reference app's runbook as written. Every command line (and the reference app's, with
 * its VM), checked against the real tools. kubectl: the commands that work offline run with `--dry-run=client -o yaml` against a local server that
 * answers API discovery only (`kubectl run` with its overrides, `create secret|configmap`, `apply -f` of the written
 * files and of the heredocs), and must succeed; the `config` commands run against a scratch kubeconfig; every other
 * command runs against that server too and must get as far as asking it (kubectl's own parser accepted its flags,
 * arguments and resource types). virtctl: each command must match KubeVirt v0.59.0's command table
 * (test/fixtures/virtctl/v0.59.0.json, with its source).
 */

const kubectl = (() => {
  try {
    return execFileSync('which', ['kubectl'], { encoding: 'utf-8' }).trim();
  } catch {
    return undefined;
  }
})();
if (!kubectl) {
  console.log('runbook-tools: kubectl commands not run, kubectl is not installed');
}

const which = (tool: string) => {
  try {
    return execFileSync('which', [tool], { encoding: 'utf-8' }).trim();
  } catch {
    return undefined;
  }
};
const mermaidCli = mermaidCliDir();
const mmdc = mermaidCli ? which('mmdc') : undefined;
if (!mmdc) {
  console.log(
    'runbook-tools: diagrams not rendered, mermaid-cli or chromium is missing (scripts/install-tools.sh installs them)',
  );
}
const PUPPETEER_CONFIG = path.join(ROOT, 'scripts/puppeteer-config.json');

const VIRTCTL = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/virtctl/v0.59.0.json'), 'utf-8'));
const IMAGES: Readonly<Record<string, readonly string[]>> = {
  'aspnet-mssql': ['web'],
  'fastapi': ['api'],
  'nginx-golang-mysql': ['backend'],
  'nginx-nodejs-redis': ['nginx', 'web1', 'web2'],
  'react-express-mongodb': ['backend', 'frontend'],
  'react-java-mysql': ['backend', 'frontend'],
};

/** A converted project: where its output is and the runbook's commands. */
interface Output {
  readonly name: string;
  readonly dir: string;
  readonly commands: readonly RunbookCommand[];
  readonly policies: readonly any[];
  readonly runbook: string;
  /** The warning counts by code, from convert's summary line. */
  readonly warnings: Readonly<Record<string, number>>;
}

const work = tempDir('runbook-tools');
const outputs: Output[] = [];

/** The argv with every `<PLACEHOLDER>` replaced by a value kubectl accepts (a file of that name exists in the output folder). */
function filled(argv: readonly string[]): string[] {
  return argv.map((a) => a.replace(/<[A-Z0-9_]+>/g, 'placeholder'));
}

/** The virtctl problems of one command against the v0.59.0 table, or none. */
function virtctlProblems(argv: readonly string[]): string[] {
  const [, name, ...rest] = argv;
  const command = VIRTCTL.commands[name];
  if (!command) {
    return [`virtctl has no command "${name}" in v0.59.0`];
  }
  const problems: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word.startsWith('--')) {
      const flag = word.slice(2).split('=')[0];
      if (!command.flags.includes(flag) && !VIRTCTL.globalFlags.long.includes(flag)) {
        problems.push(`virtctl ${name} has no flag --${flag}`);
      }
    } else if (/^-[a-z]$/.test(word)) {
      const flag = word.slice(1);
      if (!(command.short ?? {})[flag] && !VIRTCTL.globalFlags.short[flag]) {
        problems.push(`virtctl ${name} has no flag -${flag}`);
      }
      i++;
    } else {
      positional.push(word);
    }
  }
  if (typeof command.args === 'number' && positional.length !== command.args) {
    problems.push(`virtctl ${name} takes ${command.args} argument(s), got ${positional.length}`);
  }
  if (command.subcommands && !command.subcommands.includes(positional[0])) {
    problems.push(`virtctl ${name} has no subcommand "${positional[0]}" (${command.subcommands.join(', ')})`);
  }
  return problems;
}

/** How a kubectl command is checked. */
function offline(argv: readonly string[]): 'dry-run' | 'config' | 'flags' {
  const [, verb, second, third] = argv;
  if (verb === 'config') {
    return 'config';
  }
  if (
    verb === 'run' ||
    (verb === 'create' && (second === 'configmap' || (second === 'secret' && third === 'generic')))
  ) {
    return 'dry-run';
  }
  const file = argv[argv.indexOf('-f') + 1];
  if (verb === 'apply' && argv.includes('-f') && !/^https?:/.test(file)) {
    return 'dry-run';
  }
  return 'flags';
}

describe('runbooks', () => {
  let server: Awaited<ReturnType<typeof startDiscoveryServer>>;
  const env = () => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: work,
    KUBECONFIG: path.join(work, 'kubeconfig'),
  });

  beforeAll(async () => {
    server = await startDiscoveryServer(path.join(ROOT, 'schemas'));
    writeKubeconfig(path.join(work, 'kubeconfig'), server.url);
    const dirs = fs
      .readdirSync(CORPUS)
      .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
      .sort();
    const jobs: Array<{ name: string; from: string; args: string[] }> = dirs.map((dir) => ({
      name: dir,
      from: path.join(CORPUS, dir),
      args: [
        'convert',
        '-o',
        'k8s',
        ...(IMAGES[dir] ?? []).flatMap((s) => ['--image', `${s}=registry.example.com/${dir}/${s}:1.0`]),
        // The corpus's only mysql keeps no data in a volume, so it gets a backup (and its restore) only when asked.
        ...(dir === 'kompose-healthcheck' ? ['--backup', 'on'] : []),
      ],
    }));
    const reference = [
      '--namespace',
      'shop',
      '--ingress-host',
      'web=shop.example.com',
      '--target',
      'auto',
      '--image-base-url',
      'https://images.example.com/shop',
    ];
    jobs.push({
      name: 'reference-vm',
      from: path.join(ROOT, 'examples/reference'),
      args: ['convert', '-o', 'k8s', ...reference],
    });
    jobs.push({
      name: 'reference-one-file',
      from: path.join(ROOT, 'examples/reference'),
      args: ['convert', '-o', 'k8s/all.yaml', ...reference],
    });
    jobs.push({
      name: 'reference-default',
      from: path.join(ROOT, 'examples/reference'),
      args: ['convert', '-o', 'k8s', '--namespace', 'default', '--allow-system-namespace'],
    });
    // In this process (the CLI's own main()): the CLI suites already run the built command on every folder.
    for (const job of jobs) {
      const project = copyFolder(job.from, work, job.name);
      const stderr: string[] = [];
      const code = main(job.args, {
        cwd: project,
        env: { PATH: process.env.PATH },
        stdout: () => undefined,
        stderr: (t) => stderr.push(t),
      });
      const run = { code, stderr: stderr.join('') };
      if (run.code !== 0) {
        throw new Error(`${job.name}: convert failed: ${run.stderr}`);
      }
      const dir = path.join(project, 'k8s');
      fs.writeFileSync(path.join(dir, 'placeholder'), 'placeholder\n');
      const docs = fs.existsSync(path.join(dir, 'all.yaml')) ? [] : manifestFiles(dir).flatMap((f) => f.docs);
      const runbook = fs.readFileSync(path.join(dir, 'RUNBOOK.md'), 'utf-8');
      const summary = run.stderr.split('\n').find((l) => /^\d+ warnings? \(/.test(l)) ?? '';
      const warnings = Object.fromEntries([...summary.matchAll(/([a-z-]+) ×(\d+)/g)].map((m) => [m[1], Number(m[2])]));
      outputs.push({
        name: job.name,
        dir,
        commands: runbookCommands(runbook),
        policies: docs.filter((d) => d.kind === 'NetworkPolicy'),
        runbook,
        warnings,
      });
    }
    outputs.sort((a, b) => (a.name < b.name ? -1 : 1));
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  (mermaidCli ? test : test.skip)(
    'every diagram renders with mermaid, and a syntax error fails; mermaid-cli renders a runbook as written',
    async () => {
      const diagrams = outputs.map((o) => ({
        name: o.name,
        text: o.runbook.split('```mermaid\n')[1]?.split('\n```')[0],
      }));
      expect(diagrams.filter((d) => d.text === undefined)).toEqual([]);
      const broken = 'flowchart LR\n  a -->|"x| b[[';
      // mmdc on one runbook, beside the renders of all of them in one page.
      const reference = outputs.find((o) => o.name === 'reference-vm')!;
      const [renders, cli] = await Promise.all([
        renderDiagrams(mermaidCli!, PUPPETEER_CONFIG, [...diagrams.map((d) => d.text!), broken]),
        runTool([mmdc!, '-p', PUPPETEER_CONFIG, '-q', '-i', 'RUNBOOK.md', '-o', path.join(work, 'runbook-out.md')], {
          cwd: reference.dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work },
          timeoutMs: 120_000,
        }),
      ]);
      const bad = renders.pop()!;
      expect(
        renders
          .map((r, i) => ({ name: diagrams[i].name, error: r.error, svg: /^<svg[\s\S]*<\/svg>$/.test(r.svg ?? '') }))
          .filter((r) => r.error !== undefined || !r.svg),
      ).toEqual([]);
      expect(renders.filter((r) => /Syntax error/.test(r.svg!))).toEqual([]);
      // The check fails on a syntax error.
      expect(bad.error).toMatch(/Parse error/);
      expect({
        code: cli.code,
        error: cli.stderr
          .split('\n')
          .filter((l) => /error/i.test(l))
          .slice(0, 3),
      }).toEqual({ code: 0, error: [] });
      expect(fs.readdirSync(work).filter((f) => /^runbook-out-\d+\.svg$/.test(f))).toEqual(['runbook-out-1.svg']);
    },
    240_000,
  );

  test('every virtctl command is one of KubeVirt v0.59.0', () => {
    const virtctl = outputs.flatMap((o) => o.commands.filter((c) => c.argv[0] === 'virtctl').map((c) => ({ o, c })));
    expect(virtctl.length).toBeGreaterThan(5);
    const problems = virtctl.flatMap(({ o, c }) =>
      virtctlProblems(c.argv).map((p) => `${o.name}:${c.lineNumber}: ${p}: ${c.line}`),
    );
    expect(problems).toEqual([]);
    // The table is the test's own: commands that do not exist in v0.59.0 are refused.
    expect(virtctlProblems(['virtctl', 'snapshot', 'create', 'vm'])).toEqual([
      'virtctl has no command "snapshot" in v0.59.0',
    ]);
    expect(virtctlProblems(['virtctl', 'vmexport', 'download', 'x', '--vm=x', '--output=y'])).toEqual([]);
    expect(virtctlProblems(['virtctl', 'start', 'x', '--bogus'])).toEqual(['virtctl start has no flag --bogus']);
  });

  test('"Before you deploy" lists every unresolved item of the conversion, one line each, under its fix', () => {
    const listed = [
      'empty-secret',
      'unset-variable',
      'missing-env-file',
      'directory-bind',
      'host-path',
      'large-bind-file',
      'special-bind-file',
      'vm-bind-outside',
      'vm-bind-unread',
      'vm-bind-directory',
      'vm-config-outside',
      'placeholder-host',
      'shared-volume',
      'shared-volume-rwx',
      'move-data',
      'external-secret',
      'external-config',
      'external-volume',
      'external-service-account',
      'vm-external-secret',
      'vm-external-config',
      'invalid-image',
    ];
    let items = 0;
    for (const o of outputs) {
      const section = o.runbook.split('## 1. Before you deploy\n')[1].split('\n## ')[0];
      const lines = section.split('\n').filter((l) => l.startsWith('- '));
      const expected = listed.reduce((n, code) => n + (o.warnings[code] ?? 0), 0);
      const extra = lines.filter((l) => !/^- [^:]+:\d+:\d+: /.test(l)).length;
      expect({ name: o.name, lines: lines.length - extra }).toEqual({ name: o.name, lines: expected });
      items += expected;
    }
    // Read-write bound folders are claims now, not unresolved items: what is left is still many.
    expect(items).toBeGreaterThan(60);
    const mailcow = outputs.find((o) => o.name === 'mailcow')!.runbook;
    // REDISPASS and DBPASS (a password word glued to its owner) count among them, in every service that reads them.
    expect(mailcow).toContain('**Empty secrets** (25). Fix: set the variable');
    expect(mailcow).toMatch(
      /- compose\.yaml:\d+:\d+: services\.mysql-mailcow\.environment\[1\]: MYSQL_ROOT_PASSWORD is empty, so its Secret key holds 0 bytes; the mariadb image refuses to start with it empty/,
    );
    expect(mailcow).toContain('has the placeholder host "nginx-mailcow.example.com"');
    expect(mailcow).toContain('**Volumes shared by several pods** (16).');
    expect(mailcow.indexOf('## 1. Before you deploy')).toBeLessThan(mailcow.indexOf('## 2. Topology'));
  });

  test('day 2: re-apply deletes the Jobs first, rollback, re-run, backups with a restore per engine, secrets, port-forwards', () => {
    const reference = outputs.find((o) => o.name === 'reference-vm')!;
    const lines = reference.commands.map((c) => c.line);
    const deleteJob = lines.indexOf('kubectl delete job migrate -n shop --ignore-not-found');
    expect(deleteJob).toBeGreaterThan(0);
    expect(lines.indexOf('kubectl apply -f 2-app/', deleteJob)).toBeGreaterThan(deleteJob);
    expect(lines).toEqual(
      expect.arrayContaining([
        'kubectl rollout undo deployment/api -n shop',
        'kubectl delete job migrate -n shop',
        'kubectl wait --for=condition=complete job/migrate -n shop --timeout=300s',
        'kubectl exec shop-db-backup-shell -n shop -- ls -l /backup',
        'kubectl cp shop/shop-db-backup-shell:/backup/<BACKUP_FILE> ./<BACKUP_FILE>',
        "kubectl get secret api-env -n shop -o jsonpath='{.data.DATABASE_URL}' | base64 -d",
        'kubectl port-forward service/api 9102 -n shop',
        // The database's credential sits in several keys: each is patched, with the new value read, never typed in the line.
        'read -rs NEW_VALUE',
        'kubectl patch secret shop-db-credentials -n shop --type=merge -p "{\\"stringData\\":{\\"password\\":\\"$NEW_VALUE\\"}}"',
        'kubectl patch secret worker-env -n shop --type=merge -p "{\\"stringData\\":{\\"DATABASE_URL\\":\\"$NEW_DATABASE_URL\\"}}"',
        'kubectl rollout restart deployment/worker -n shop',
      ]),
    );
    expect(reference.runbook).toMatch(/pg_restore --host="\$DB_HOST" .* --clean --if-exists \/backup\/<BACKUP_FILE>/);
    // Every engine the converter backs up has its restore.
    const all = outputs.map((o) => o.runbook).join('\n');
    expect(all).toMatch(/MYSQL_PWD="\$\{DB_PASSWORD:-\}" "\$client" --host="\$DB_HOST"/);
    expect(all).toMatch(/mongorestore --uri="\$DB_URI" --archive=\/backup\/<BACKUP_FILE> --gzip --drop/);
    expect(all).toMatch(/cp \/backup\/<BACKUP_FILE> \/data\/dump\.rdb/);
    expect(all).toMatch(/MYSQL_PWD="\$\{DB_PASSWORD:-\}" mysql --host/);
  });

  test('the outline: a numbered heading for each entry of the contents, in order, and the Files table after the first', () => {
    for (const o of outputs) {
      const contents = [...o.runbook.matchAll(/^(\d+)\. \[([^\]]+)\]\(#[^)]+\)$/gm)].map((m) => `${m[1]}. ${m[2]}`);
      const headings = [...o.runbook.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      expect(contents.length).toBeGreaterThan(5);
      expect({ name: o.name, headings }).toEqual({
        name: o.name,
        headings: [contents[0], 'Files', ...contents.slice(1)],
      });
    }
  });

  test('the tear-down says to copy the backups off first, and deletes no namespace the cluster uses', () => {
    for (const o of outputs) {
      const teardown = o.runbook.split(/## \d+\. Tear down\n/)[1]?.trimStart();
      expect(teardown).toBeDefined();
      if (/Backups\n/.test(o.runbook)) {
        expect({ name: o.name, copyFirst: teardown.startsWith('**Copy the backups off first**') }).toEqual({
          name: o.name,
          copyFirst: true,
        });
      }
      expect(
        o.commands.filter((c) =>
          /^kubectl delete (namespace|ns) (default|kube-system|kube-public|kube-node-lease|kubevirt|cdi)\b/.test(
            c.line,
          ),
        ),
      ).toEqual([]);
    }
    const shared = outputs.find((o) => o.name === 'reference-default')!;
    expect(shared.commands.map((c) => c.line)).toEqual(
      expect.arrayContaining(['kubectl delete -f 2-app/', 'kubectl delete -f 1-stateful/']),
    );
  });

  (kubectl ? test : test.skip)(
    'every kubectl command parses, and those that can run offline do, with --dry-run=client',
    async () => {
      const kubectlCommands = outputs.flatMap((o) =>
        o.commands.filter((c) => c.argv[0] === 'kubectl').map((c) => ({ o, c })),
      );
      // One check per shape (verb, flags, the overrides' structure, argument count): the names change nothing for the
      // parser. Every `apply -f` of a written path runs, so each output's files go through kubectl: those of the plain
      // `kubectl apply -f PATH` lines of an output in one kubectl run with a `-f` for each path, which reads and
      // maps every file as separate runs would (the shape of the line is checked once like any other).
      const seen = new Set<string>();
      const written = new Map<Output, RunbookCommand[]>();
      const checks = kubectlCommands.filter(({ o, c }) => {
        const local =
          c.argv[1] === 'apply' && !c.argv.includes('-') && !/^https?:/.test(c.argv[c.argv.indexOf('-f') + 1]);
        if (local && c.argv.length === 4 && c.argv[2] === '-f') {
          written.set(o, [...(written.get(o) ?? []), c]);
        }
        const shape = c.argv
          .map((a) =>
            a.startsWith('--overrides=')
              ? skeleton(JSON.parse(a.slice('--overrides='.length)))
              : a.startsWith('-')
                ? a.split('=')[0]
                : '_',
          )
          .join(' ');
        return (local && c.argv.length !== 4) || (!seen.has(shape) && seen.add(shape) !== undefined);
      });
      const problems: string[] = [];
      let dryRuns = 0;
      let runPods = 0;
      // The context commands build on each other: in order, on a scratch kubeconfig (they are the same in every runbook).
      for (const o of outputs.filter((x) => x.name === 'reference-vm')) {
        const scratch = path.join(work, `kubeconfig-${o.name}`);
        fs.copyFileSync(path.join(work, 'kubeconfig'), scratch);
        for (const c of o.commands.filter((x) => x.argv[0] === 'kubectl' && offline(x.argv) === 'config')) {
          const run = await runTool(filled(c.argv), { cwd: o.dir, env: { ...env(), KUBECONFIG: scratch } });
          if (run.code !== 0) {
            problems.push(`${o.name}:${c.lineNumber}: ${c.line}: exit ${run.code}: ${run.stderr.trim()}`);
          }
        }
      }
      await inParallel(
        checks.filter(({ c }) => offline(c.argv) !== 'config'),
        4,
        async ({ o, c }) => {
          const mode = offline(c.argv);
          const where = `${o.name}:${c.lineNumber}: ${c.line}`;
          let argv = filled(c.argv);
          let run: ToolRun;
          if (mode === 'dry-run') {
            argv = argv.filter((a) => a !== '--rm' && a !== '-it');
            const dash = argv.indexOf('--');
            const extra = ['--dry-run=client', '-o', 'yaml', ...(argv[1] === 'apply' ? ['--validate=false'] : [])];
            argv = dash < 0 ? [...argv, ...extra] : [...argv.slice(0, dash), ...extra, ...argv.slice(dash)];
            run = await runTool(argv, { cwd: o.dir, env: env(), stdin: c.stdin });
            dryRuns++;
            if (run.code === 0 && argv[1] === 'run') {
              runPods++;
              const pod = parse(run.stdout);
              const container = pod.spec.containers[0];
              // The strategic merge keeps the image; the quota needs requests and limits.
              if (!container.image || !container.resources?.limits?.cpu || !container.resources?.requests?.memory) {
                problems.push(
                  `${where}: the pod lost its image or lacks requests and limits: ${JSON.stringify(container)}`,
                );
              }
            }
          } else {
            argv = argv
              .map((a) => (/^--timeout=\d+s$/.test(a) ? '--timeout=1s' : a))
              .map((a, i) => (argv[i - 1] === '-f' && /^https?:/.test(a) ? 'not-downloaded.yaml' : a));
            run = await runTool([...argv, '--request-timeout=5s'], { cwd: o.dir, env: env(), timeoutMs: 30_000 });
            if (KUBECTL_USAGE_ERROR.test(run.stderr)) {
              problems.push(`${where}: ${run.stderr.trim().split('\n')[0]}`);
            }
            return;
          }
          if (run.code !== 0) {
            problems.push(`${where}: exit ${run.code}: ${run.stderr.trim().split('\n').slice(0, 2).join(' ')}`);
          }
        },
      );
      // Every output's written paths in one kubectl run (as absolute paths: the same files its folder-relative lines
      // name), which reads and maps each file as a run per output would; when it fails, a run per output names the lines.
      const applies = [...written].map(([o, commands]) => ({
        o,
        commands,
        paths: [...new Set(commands.map((c) => c.argv[3]))],
      }));
      const applyArgv = (paths: readonly string[]) => [
        'kubectl',
        'apply',
        ...paths.flatMap((p) => ['-f', p]),
        '--dry-run=client',
        '-o',
        'yaml',
        '--validate=false',
      ];
      const all = await runTool(applyArgv(applies.flatMap(({ o, paths }) => paths.map((p) => path.join(o.dir, p)))), {
        cwd: work,
        env: env(),
        timeoutMs: 120_000,
      });
      dryRuns += applies.reduce((n, a) => n + a.commands.length, 0);
      if (all.code !== 0) {
        const before = problems.length;
        await inParallel(applies, 4, async ({ o, commands, paths }) => {
          const run = await runTool(applyArgv(paths), { cwd: o.dir, env: env() });
          if (run.code !== 0) {
            problems.push(
              `${o.name}:${commands.map((c) => c.lineNumber).join(',')}: kubectl apply ${paths.map((p) => `-f ${p}`).join(' ')}: ` +
                `exit ${run.code}: ${run.stderr.trim().split('\n').slice(0, 2).join(' ')}`,
            );
          }
        });
        if (problems.length === before) {
          problems.push(`kubectl apply of every output's files: exit ${all.code}: ${all.stderr.trim().split('\n')[0]}`);
        }
      }
      expect(problems).toEqual([]);
      expect(dryRuns).toBeGreaterThan(60);
      expect(runPods).toBeGreaterThan(3);
    },
    300_000,
  );

  test('every connectivity test pod carries labels the generated policies let reach its Service', () => {
    let checked = 0;
    const problems: string[] = [];
    for (const o of outputs.filter((x) => x.policies.length > 0)) {
      const docs = manifestFiles(o.dir).flatMap((f) => f.docs);
      for (const c of o.commands.filter((x) => x.argv[0] === 'kubectl' && x.argv[1] === 'run')) {
        if (!c.argv.includes('--override-type=strategic')) {
          problems.push(`${o.name}:${c.lineNumber}: no --override-type=strategic: ${c.line}`);
        }
        const target = c.line.match(/ -- nc -z -w 3 (\S+) (\d+)$/);
        if (!target) {
          continue;
        }
        const labelArg = c.argv.find((a) => a.startsWith('--labels='));
        const labels = Object.fromEntries(
          (labelArg?.slice('--labels='.length).split(',') ?? []).map((kv) => kv.split('=')),
        );
        const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === target[1])!;
        const port = service.spec.ports.find((p: any) => p.port === Number(target[2]));
        const pods = docs
          .map((d) => d.spec?.template?.metadata?.labels)
          .find((l) => l && Object.entries(service.spec.selector).every(([k, v]) => l[k] === v));
        checked++;
        if (
          pods &&
          !admits(o.policies, labels, pods, { port: Number(port.targetPort ?? port.port), protocol: 'TCP' })
        ) {
          problems.push(
            `${o.name}:${c.lineNumber}: the policies do not let the test pod reach ${target[1]}:${target[2]}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  (kubectl ? test : test.skip)('the offline check catches a broken command', async () => {
    const o = outputs[0];
    const bad = await runTool(
      ['kubectl', 'run', 'x', '--image=busybox', '--overide-type=strategic', '--dry-run=client', '-o', 'yaml'],
      { cwd: o.dir, env: env() },
    );
    expect(bad.stderr).toMatch(KUBECTL_USAGE_ERROR);
    const merge = await runTool(
      [
        'kubectl',
        'run',
        'x',
        '--image=busybox',
        '--restart=Never',
        '--dry-run=client',
        '-o',
        'yaml',
        '--overrides={"spec":{"containers":[{"name":"x","resources":{"limits":{"cpu":"1"}}}]}}',
      ],
      { cwd: o.dir, env: env() },
    );
    // The default (JSON merge) override replaces the container list: the image is gone, as the issue found.
    expect(parse(merge.stdout).spec.containers[0].image).toBeUndefined();
  });
});

/** The keys of a JSON value, without its values: the structure of an `--overrides`. */
function skeleton(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(skeleton).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k}:${skeleton((value as any)[k])}`)
      .join(',')}}`;
  }
  return '_';
}
