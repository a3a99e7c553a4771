import * as fs from 'fs';
import * as path from 'path';
import {
  CLEAN_ENV,
  CliRun,
  ROOT,
  copyFolder,
  expectBuilt,
  inParallel,
  listFiles,
  removeTempDirs,
  runCli,
  tempDir,
} from './run-cli';

/**
 * `cdk8s-compose deploy` with a recording kubectl on PATH: the order of the waves, the waits between them, a pod
 * that appears late, a dependency that never gets ready, and the dry run.
 */

const FAKE_KUBECTL = `#!/bin/sh
# Records its arguments; FAKE_NOT_READY names an app whose wait times out, FAKE_LATE one whose pods appear late.
echo "$*" >> "$KUBECTL_LOG"
case "$*" in
  *wait*"app=$FAKE_NOT_READY "*)
    echo "error: timed out waiting for the condition on pods/$FAKE_NOT_READY-6c9d7f-x2x4q" >&2
    exit 1 ;;
  *wait*"app=$FAKE_LATE "*)
    if [ ! -e "$KUBECTL_LOG.late" ]; then
      : > "$KUBECTL_LOG.late"
      echo "error: no matching resources found" >&2
      exit 1
    fi ;;
esac
case "$*" in
  *wait*) echo "pod/ready condition met" ;;
  *) echo "applied" ;;
esac
`;

const fakeBin = tempDir('kubectl');
fs.writeFileSync(path.join(fakeBin, 'kubectl'), FAKE_KUBECTL, { mode: 0o755 });

interface Deploy {
  readonly cwd: string;
  readonly log: string;
  readonly run: CliRun;
}

const deploys: Record<string, Deploy> = {};

async function deploy(
  name: string,
  args: string[],
  fake: Record<string, string> = {},
  withKubectl = true,
): Promise<void> {
  const cwd = copyFolder(path.join(ROOT, 'examples', 'reference'), tempDir('deploy'), 'shop');
  const log = path.join(path.dirname(cwd), 'kubectl.log');
  const env = {
    ...CLEAN_ENV,
    PATH: withKubectl ? `${fakeBin}:${CLEAN_ENV.PATH}` : '/nonexistent',
    KUBECTL_LOG: log,
    FAKE_NOT_READY: '-',
    FAKE_LATE: '-',
    ...fake,
  };
  deploys[name] = { cwd, log, run: await runCli(['deploy', ...args], { cwd, env }) };
}

/** The recorded kubectl calls, with the temporary manifest folder shown as `<dir>`. */
function calls(name: string): string[] {
  const { log } = deploys[name];
  if (!fs.existsSync(log)) {
    return [];
  }
  return fs
    .readFileSync(log, 'utf-8')
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/\/\S*\/cdk8s-compose-[A-Za-z0-9]+\/manifests\//g, '<dir>/'));
}

beforeAll(async () => {
  expectBuilt();
  await inParallel(
    [
      () => deploy('ok', ['--context', 'prod', '--timeout', '30s'], { FAKE_LATE: 'redis' }),
      () => deploy('timeout', ['--timeout', '30s'], { FAKE_NOT_READY: 'shop-db' }),
      () => deploy('dryRun', ['--dry-run', '--context', 'prod', '--timeout', '2m', '-o', 'k8s']),
      () => deploy('noKubectl', [], {}, false),
      () => deploy('quiet', ['--quiet', '--timeout', '30s'], { FAKE_LATE: 'redis' }),
      () => deploy('quietTimeout', ['-q', '--timeout', '30s'], { FAKE_NOT_READY: 'shop-db' }),
    ],
    2,
    (task) => task(),
  );
}, 120_000);

afterAll(removeTempDirs);

test('applies the waves in order and waits for the stateful dependencies in between; a late pod is awaited again', () => {
  const { run } = deploys.ok;
  expect(run.code).toBe(0);
  expect(calls('ok')).toEqual([
    '--context prod apply -f <dir>/0-namespace/shop-namespace.yaml',
    '--context prod apply -f <dir>/0-namespace/',
    '--context prod apply -f <dir>/1-stateful/',
    '--context prod wait --for=condition=ready pod -l app=redis -n shop --timeout=30s',
    expect.stringMatching(/^--context prod wait --for=condition=ready pod -l app=redis -n shop --timeout=2\ds$/),
    '--context prod wait --for=condition=ready pod -l app=shop-db -n shop --timeout=30s',
    '--context prod apply -f <dir>/2-app/',
  ]);
  expect(run.stderr.trimEnd().split('\n').slice(-1)).toEqual(['deployed 3 waves into namespace shop']);
  expect(run.stdout).toContain('pod/ready condition met');
});

test('a wait that times out stops the deploy, names the dependency and applies no later wave', () => {
  const { run } = deploys.timeout;
  expect(run.code).toBe(3);
  expect(calls('timeout')).toEqual([
    'apply -f <dir>/0-namespace/shop-namespace.yaml',
    'apply -f <dir>/0-namespace/',
    'apply -f <dir>/1-stateful/',
    'wait --for=condition=ready pod -l app=redis -n shop --timeout=30s',
    'wait --for=condition=ready pod -l app=shop-db -n shop --timeout=30s',
  ]);
  expect(run.stderr).toContain('error: timed out waiting for the condition on pods/shop-db-6c9d7f-x2x4q\n');
  expect(run.stderr.trimEnd().split('\n').slice(-1)).toEqual([
    'error: shop-db (postgres, compose service shop_db) was not ready within 30s; not applied: 2-app/. ' +
      'Look at: kubectl describe pod -l app=shop-db -n shop',
  ]);
});

test('--dry-run prints the kubectl commands and runs none; -o keeps the manifests and the runbook', () => {
  const { run, cwd } = deploys.dryRun;
  expect(run.code).toBe(0);
  expect(calls('dryRun')).toEqual([]);
  expect(run.stdout).toBe(
    [
      'kubectl --context prod apply -f k8s/0-namespace/shop-namespace.yaml',
      'kubectl --context prod apply -f k8s/0-namespace/',
      'kubectl --context prod apply -f k8s/1-stateful/',
      'kubectl --context prod wait --for=condition=ready pod -l app=redis -n shop --timeout=120s',
      'kubectl --context prod wait --for=condition=ready pod -l app=shop-db -n shop --timeout=120s',
      'kubectl --context prod apply -f k8s/2-app/',
      '',
    ].join('\n'),
  );
  const kept = listFiles(path.join(cwd, 'k8s'));
  expect(kept).toContain('RUNBOOK.md');
  expect(kept).toContain('1-stateful/shop-db-deployment.yaml');
});

test('without kubectl on PATH it says so', () => {
  const { run } = deploys.noKubectl;
  expect(run.code).toBe(3);
  expect(run.stderr.trimEnd().split('\n').slice(-1)).toEqual([
    'error: cannot run kubectl: spawnSync kubectl ENOENT. Fix: install kubectl and put it on PATH.',
  ]);
});

test("--quiet prints only the summary, or the error with kubectl's own message", () => {
  const { run } = deploys.quiet;
  expect(run.code).toBe(0);
  expect(run.stdout).toBe('');
  expect(run.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(/^\d+ warnings \(/),
    'deployed 3 waves into namespace shop',
  ]);
  const failed = deploys.quietTimeout.run;
  expect(failed.code).toBe(3);
  expect(failed.stderr.trimEnd().split('\n').slice(1)).toEqual([
    'error: timed out waiting for the condition on pods/shop-db-6c9d7f-x2x4q',
    'error: shop-db (postgres, compose service shop_db) was not ready within 30s; not applied: 2-app/. ' +
      'Look at: kubectl describe pod -l app=shop-db -n shop',
  ]);
});
