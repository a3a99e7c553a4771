import { EngineKind } from '../../stateful/engine';
import { DataMove, DataMovePlan, MountingWorkload } from './move-data-plan';
import { shellQuote } from '../../util/shell-words';

/**
 * The commands that move a compose host's data into the app's claims, in order: what `cdk8s-compose move-data` runs
 * and what RUNBOOK.md's "Move the data" prints, from this one list. Each command is a shell line (bash, with
 * `pipefail`), run from the compose project's folder; every word that comes from the project is quoted.
 */

/** The image of the helper pods and of the containers that read a docker volume. */
export const MOVE_DATA_IMAGE = 'busybox:1.36';
/** Where the helper pod mounts the claim, and where the reading container mounts the docker volume. */
export const CLAIM_MOUNT = '/claim';
export const SOURCE_MOUNT = '/compose-source';

/**
 * Prints two lines for the folder `$1`: its regular files, and their bytes (a claim's `lost+found` left out). The
 * same script runs on both sides, in busybox and in GNU userlands alike.
 */
export const COUNT_SCRIPT =
  'cd "$1" && find . -path ./lost+found -prune -o -type f -print | wc -l && ' +
  'find . -path ./lost+found -prune -o -type f -exec cat {} + | wc -c';
/** Prints what the folder `$1` holds besides `lost+found`: nothing for an empty claim. */
const LIST_SCRIPT = '[ ! -d "$1" ] || { cd "$1" && find . -mindepth 1 -maxdepth 1 ! -name lost+found; }';
/** Empties the folder `$1`, `lost+found` kept. */
const CLEAR_SCRIPT = '[ ! -d "$1" ] || find "$1" -mindepth 1 -maxdepth 1 ! -name lost+found -exec rm -rf {} +';
/** Unpacks a tar stream into the folder `$1` (made first), owners by number and modes kept. */
const UNPACK_SCRIPT = 'mkdir -p "$1" && tar -C "$1" --numeric-owner -xpf -';

/** Options of the move. */
export interface MoveDataSettings {
  /** Empty claims that hold files first, instead of stopping. */
  readonly overwrite: boolean;
  /** For a claim a known engine keeps its data in: dump and restore instead of copying files. */
  readonly logical: boolean;
  readonly timeoutSeconds: number;
  /** `--context` of every kubectl command. */
  readonly context?: string;
}

/** One command of the move. */
export type MoveCommand =
  /** Must exit 0. */
  | { readonly kind: 'run'; readonly line: string }
  /**
   * Waits until pods are gone: exit 0, or kubectl's `no matching resources found` when there were none left to wait
   * for (kubectl exits 1 then: kubernetes/kubernetes#83242).
   */
  | { readonly kind: 'gone'; readonly line: string }
  /** Must exit 0 and print nothing (the claim is empty). */
  | { readonly kind: 'empty'; readonly line: string; readonly claim: string }
  /** Both must print the same two numbers: files and bytes. */
  | { readonly kind: 'compare'; readonly source: string; readonly target: string; readonly claim: string };

/** A step: what it does, and its commands. */
export interface MovePhase {
  readonly title: string;
  readonly commands: readonly MoveCommand[];
  /** For the step that fills one claim: the claim, and whether it copies files or dumps and restores. */
  readonly fills?: { readonly claim: string; readonly route: 'files' | 'logical' };
}

/** The command line of words, each quoted as the shell needs. */
export function line(...words: readonly string[]): string {
  return words.map(shellQuote).join(' ');
}

/** The helper pod of a claim. */
export function helperPod(claim: string): string {
  return `move-data-${claim}`.slice(0, 63).replace(/-+$/, '');
}

/** Every step of the move, in order. */
export function moveDataSteps(plan: DataMovePlan, settings: MoveDataSettings): MovePhase[] {
  const ns = plan.namespace;
  const kubectl = (...words: string[]) =>
    line('kubectl', ...(settings.context ? ['--context', settings.context] : []), ...words);
  const compose = (...words: string[]) =>
    line('docker', 'compose', '-p', plan.project, ...plan.composeFiles.flatMap((f) => ['-f', f]), ...words);
  const timeout = `--timeout=${settings.timeoutSeconds}s`;
  const logical = plan.moves.filter((m) => settings.logical && logicalUser(m) !== undefined);
  const files = plan.moves.filter((m) => !logical.includes(m));
  const phases: MovePhase[] = [];

  phases.push({
    title: 'Check that every source and every claim is there',
    commands: [
      ...plan.moves.map((m): MoveCommand => ({
        kind: 'run',
        line:
          m.dockerVolume !== undefined
            ? line('docker', 'volume', 'inspect', m.dockerVolume)
            : line('test', '-d', m.bindPath!),
      })),
      ...plan.moves.map((m): MoveCommand => ({ kind: 'run', line: kubectl('get', 'pvc', m.claim, '-n', ns) })),
    ],
  });
  phases.push({ title: 'Stop the compose app', commands: [{ kind: 'run', line: compose('stop') }] });
  phases.push({
    title: 'Scale the Kubernetes workloads that mount the claims to zero',
    commands: plan.workloads.flatMap((w): MoveCommand[] => [
      { kind: 'run', line: kubectl('scale', workloadRef(w), '--replicas=0', '-n', ns) },
      { kind: 'gone', line: kubectl('wait', '--for=delete', 'pod', '-l', w.selector, '-n', ns, timeout) },
    ]),
  });
  for (const move of files) {
    const pod = helperPod(move.claim);
    const into = move.folder ? `${CLAIM_MOUNT}/${move.folder}` : CLAIM_MOUNT;
    const read =
      move.dockerVolume !== undefined
        ? (...words: string[]) =>
            line('docker', 'run', '--rm', '-v', `${move.dockerVolume}:${SOURCE_MOUNT}:ro`, MOVE_DATA_IMAGE, ...words)
        : (...words: string[]) => line(...words);
    const from = move.dockerVolume !== undefined ? SOURCE_MOUNT : move.bindPath!;
    phases.push({
      title: `Fill the claim ${move.claim} from ${describeSource(move)}`,
      fills: { claim: move.claim, route: 'files' },
      commands: [
        { kind: 'run', line: helperRun(pod, move.claim, ns, kubectl) },
        { kind: 'run', line: kubectl('wait', '--for=condition=Ready', `pod/${pod}`, '-n', ns, timeout) },
        settings.overwrite
          ? { kind: 'run', line: kubectl('exec', pod, '-n', ns, '--', 'sh', '-c', CLEAR_SCRIPT, 'sh', into) }
          : {
              kind: 'empty',
              claim: move.claim,
              line: kubectl('exec', pod, '-n', ns, '--', 'sh', '-c', LIST_SCRIPT, 'sh', into),
            },
        {
          kind: 'run',
          line:
            `${read('tar', '-C', from, '--numeric-owner', '-cf', '-', '.')} | ` +
            kubectl('exec', '-i', pod, '-n', ns, '--', 'sh', '-c', UNPACK_SCRIPT, 'sh', into),
        },
        {
          kind: 'compare',
          claim: move.claim,
          source: read('sh', '-c', COUNT_SCRIPT, 'sh', from),
          target: kubectl('exec', pod, '-n', ns, '--', 'sh', '-c', COUNT_SCRIPT, 'sh', into),
        },
        { kind: 'run', line: kubectl('delete', 'pod', pod, '-n', ns) },
      ],
    });
  }
  for (const move of logical) {
    const user = logicalUser(move)!;
    const route = LOGICAL_ROUTES[user.engine!];
    phases.push({
      title: `Fill the claim ${move.claim} with ${route.what}`,
      fills: { claim: move.claim, route: 'logical' },
      commands: [
        { kind: 'run', line: compose('start', user.composeService!) },
        { kind: 'run', line: kubectl('scale', workloadRef(user), '--replicas=1', '-n', ns) },
        { kind: 'run', line: kubectl('rollout', 'status', workloadRef(user), '-n', ns, timeout) },
        {
          kind: 'run',
          line:
            `${compose('exec', '-T', user.composeService!, 'sh', '-c', route.dump)} | ` +
            kubectl('exec', '-i', workloadRef(user), '-n', ns, '--', 'sh', '-c', route.restore),
        },
        { kind: 'run', line: compose('stop', user.composeService!) },
      ],
    });
  }
  phases.push({
    title: 'Start the Kubernetes app',
    commands: plan.workloads.map((w): MoveCommand => ({
      kind: 'run',
      line: kubectl('scale', workloadRef(w), `--replicas=${w.replicas}`, '-n', ns),
    })),
  });
  return phases;
}

/** `the docker volume shop_data` or `the folder ./data`, names quoted as the shell would, on one line. */
export function describeSource(move: DataMove): string {
  const name = (text: string) => shellQuote(text).replace(/[\r\n]+/g, ' ');
  return move.dockerVolume !== undefined
    ? `the docker volume ${name(move.dockerVolume)}`
    : `the folder ${name(move.bindPath!)}`;
}

/**
 * The dump and the restore of each known engine, run in the compose container and in the Kubernetes one: the
 * credentials are read there from the engine's own variables, so that no secret is on the command line. Redis has
 * no dump stream: its RDB file, which redis writes when compose stops it, is its logical copy, and the file route
 * moves it.
 */
const LOGICAL_ROUTES: Readonly<Record<string, { what: string; dump: string; restore: string }>> = {
  [EngineKind.POSTGRES]: {
    what: 'pg_dumpall → psql',
    dump: 'pg_dumpall -U "${POSTGRES_USER:-postgres}"',
    restore: 'psql -v ON_ERROR_STOP=0 -U "${POSTGRES_USER:-postgres}" -d postgres',
  },
  [EngineKind.MYSQL]: {
    what: 'mysqldump → mysql',
    dump: 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysqldump -uroot --all-databases --single-transaction --routines --events',
    restore: 'MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql -uroot',
  },
  [EngineKind.MARIADB]: {
    what: 'mariadb-dump → mariadb',
    dump: 'MYSQL_PWD="${MARIADB_ROOT_PASSWORD:-$MYSQL_ROOT_PASSWORD}" mariadb-dump -uroot --all-databases --single-transaction --routines --events',
    restore: 'MYSQL_PWD="${MARIADB_ROOT_PASSWORD:-$MYSQL_ROOT_PASSWORD}" mariadb -uroot',
  },
  [EngineKind.MONGO]: {
    what: 'mongodump --archive → mongorestore',
    dump: 'mongodump --archive ${MONGO_INITDB_ROOT_USERNAME:+--username="$MONGO_INITDB_ROOT_USERNAME" --password="$MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase=admin}',
    restore:
      'mongorestore --archive --drop ${MONGO_INITDB_ROOT_USERNAME:+--username="$MONGO_INITDB_ROOT_USERNAME" --password="$MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase=admin}',
  },
};

/** The one workload of a claim that a known engine keeps its data in, which the logical route fills. */
export function logicalUser(move: DataMove): MountingWorkload | undefined {
  const user = move.users.length === 1 ? move.users[0] : undefined;
  return user?.engine !== undefined && user.composeService !== undefined && LOGICAL_ROUTES[user.engine]
    ? user
    : undefined;
}

function workloadRef(w: MountingWorkload): string {
  return `${w.kind.toLowerCase()}/${w.name}`;
}

/**
 * The helper pod: busybox as root (to keep the files' owners), the claim at CLAIM_MOUNT, requests and limits (a
 * quota that bounds limits refuses pods without). The overrides are a strategic merge, which keeps the image.
 */
function helperRun(pod: string, claim: string, ns: string, kubectl: (...words: string[]) => string): string {
  const overrides = JSON.stringify({
    spec: {
      containers: [
        {
          name: pod,
          volumeMounts: [{ name: 'claim', mountPath: CLAIM_MOUNT }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '256Mi' } },
          securityContext: { runAsUser: 0 },
        },
      ],
      volumes: [{ name: 'claim', persistentVolumeClaim: { claimName: claim } }],
    },
  });
  return kubectl(
    'run',
    pod,
    `--image=${MOVE_DATA_IMAGE}`,
    '--restart=Never',
    '-n',
    ns,
    '--override-type=strategic',
    `--overrides=${overrides}`,
    '--command',
    '--',
    'sleep',
    '86400',
  );
}
