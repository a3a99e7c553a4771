import { shellCommand, shellFlag, shellQuote } from '../../util/shell-words';
import { WorkloadKind } from '../../app/service/migrated-service';
import { EngineKind } from '../../stateful/engine';
import type { Rendered, RenderedObject } from '../rendered';
import { DEFAULT_WAIT_SECONDS, Markdown, podSpec } from './runbook-text';
import { compare } from '../../util/sort';

/** The backups of each stateful dependency that has a backup CronJob: run one, list, copy off, restore. */
export function renderBackups(md: Markdown, rendered: Rendered, objects: readonly RenderedObject[]): void {
  const app = rendered.project.composeApp;
  const ns = app.namespace;
  const backedUp = app.services
    .filter((s) => s.kind === WorkloadKind.STATEFUL && s.statefulDependency?.backup)
    .sort((a, b) => compare(a.name, b.name));
  if (backedUp.length === 0) {
    return;
  }
  md.heading(3, 'Backups');
  md.para(
    'Each database below is dumped every night by a CronJob into its own backup claim, which keeps the newest',
    "dumps. A shell pod mounts that claim with the CronJob's image, labels (the network policies let it reach the",
    'database) and credentials (`$DB_HOST`, `$DB_PORT`, `$DB_USERNAME`, `$DB_PASSWORD`, `$DB_URI`, from the Secret, never',
    'typed); from it you list the dumps, copy them off the cluster, and restore one. Replace `<BACKUP_FILE>` with a file',
    'name from the list. Delete the shell pod when done: the claim attaches to one node at a time, and the next backup',
    'waits for it.',
  );
  // The CronJobs by name, the first of a name as a search would find it, rather than a search per dependency.
  const cronJobs = new Map<string, RenderedObject>();
  for (const o of objects) {
    if (o.kind === 'CronJob' && !cronJobs.has(o.name)) {
      cronJobs.set(o.name, o);
    }
  }
  for (const service of backedUp) {
    const dependency = service.statefulDependency!;
    const cronJob = cronJobs.get(dependency.backup!.cronJob.name);
    if (!cronJob) {
      continue;
    }
    const shell = `${cronJob.name}-shell`.slice(0, 63).replace(/-+$/, '');
    const spec = podSpec(cronJob.manifest);
    const container = spec?.containers?.[0] ?? {};
    const labels = cronJob.manifest.spec?.jobTemplate?.spec?.template?.metadata?.labels ?? {};
    const engine = dependency.engine;
    md.heading(4, `${service.name} (${engine.name})`);
    const commands = [
      `kubectl get cronjob ${cronJob.name} -n ${ns}`,
      `kubectl create job ${cronJob.name}-now --from=cronjob/${cronJob.name} -n ${ns}`,
      `kubectl wait --for=condition=complete job/${cronJob.name}-now -n ${ns} --timeout=${DEFAULT_WAIT_SECONDS}s`,
      shellPod(shell, ns, container.image, labels, {
        containers: [
          {
            name: shell,
            command: ['sleep', '3600'],
            env: container.env,
            resources: container.resources,
            securityContext: container.securityContext,
            volumeMounts: container.volumeMounts,
          },
        ],
        volumes: spec?.volumes,
        automountServiceAccountToken: false,
      }),
      `kubectl wait --for=condition=ready pod/${shell} -n ${ns} --timeout=120s`,
      `kubectl exec ${shell} -n ${ns} -- ls -l /backup`,
      `kubectl cp ${ns}/${shell}:/backup/<BACKUP_FILE> ./<BACKUP_FILE>`,
    ];
    const restore = restoreCommand(engine.kind);
    if (restore) {
      commands.push(`kubectl exec ${shell} -n ${ns} -- sh -c ${shellQuote(restore)}`);
    }
    commands.push(`kubectl delete pod ${shell} -n ${ns}`);
    md.sh(commands);
    if (restore) {
      md.para(
        `The restore (${restoreWhat(engine.kind)}) runs in the shell pod against the live database. To restore a dump`,
        `kept elsewhere, copy it in first: \`kubectl cp ./<BACKUP_FILE> ${ns}/${shell}:/backup/<BACKUP_FILE>\`.`,
      );
    }
    if (engine.kind === EngineKind.REDIS) {
      renderRedisRestore(md, rendered, service.name, container, spec);
    }
  }
}

function restoreCommand(kind: EngineKind): string | undefined {
  switch (kind) {
    case EngineKind.POSTGRES:
      return (
        'PGPASSWORD="${DB_PASSWORD:-}" pg_restore --host="$DB_HOST" --port="$DB_PORT" --username="$DB_USERNAME" ' +
        '--dbname="$DB_DATABASE" --clean --if-exists /backup/<BACKUP_FILE>'
      );
    case EngineKind.MYSQL:
      return 'MYSQL_PWD="${DB_PASSWORD:-}" mysql --host="$DB_HOST" --port="$DB_PORT" --user="$DB_USERNAME" < /backup/<BACKUP_FILE>';
    case EngineKind.MARIADB:
      return (
        'client=$(command -v mariadb || command -v mysql); MYSQL_PWD="${DB_PASSWORD:-}" "$client" --host="$DB_HOST" ' +
        '--port="$DB_PORT" --user="$DB_USERNAME" < /backup/<BACKUP_FILE>'
      );
    case EngineKind.MONGO:
      return 'mongorestore --uri="$DB_URI" --archive=/backup/<BACKUP_FILE> --gzip --drop';
    default:
      return undefined;
  }
}

function restoreWhat(kind: EngineKind): string {
  switch (kind) {
    case EngineKind.POSTGRES:
      return '`pg_restore --clean` of a custom-format dump';
    case EngineKind.MONGO:
      return '`mongorestore --drop` of a gzipped archive';
    default:
      return 'the SQL dump fed to the client, `mysql < dump.sql`';
  }
}

/** A redis dump is an RDB file the server loads at start: stop it, put the file in its data claim, start it. */
function renderRedisRestore(md: Markdown, rendered: Rendered, name: string, container: any, backupSpec: any): void {
  const ns = rendered.project.composeApp.namespace;
  const workload = rendered.waves
    .flatMap((w) => w.objects)
    .find((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.name === name);
  if (!workload) {
    return;
  }
  const spec = podSpec(workload.manifest);
  const main = (spec?.containers ?? []).find((c: any) => c.name !== undefined) ?? {};
  const dataMount = (main.volumeMounts ?? []).find((m: any) => m.name === 'data');
  const template = (workload.manifest.spec?.volumeClaimTemplates ?? []).find((t: any) => t.metadata?.name === 'data');
  const claim = template
    ? `data-${name}-0`
    : (spec?.volumes ?? []).find((v: any) => v.name === 'data')?.persistentVolumeClaim?.claimName;
  if (!dataMount || !claim) {
    return;
  }
  const restore = `${name}-restore`.slice(0, 63).replace(/-+$/, '');
  const ref = `${workload.kind.toLowerCase()}/${name}`;
  md.para(
    'redis loads its dump at start: scale it to 0, copy the dump into its data claim as `dump.rdb`, scale it back.',
    'If the server runs with `appendonly yes`, it loads the append-only file instead: move `appendonlydir` away in the',
    'same step.',
  );
  md.sh([
    `kubectl scale ${ref} --replicas=0 -n ${ns}`,
    `kubectl wait --for=delete pod -l app=${name} -n ${ns} --timeout=120s`,
    shellPod(
      restore,
      ns,
      container.image,
      {},
      {
        containers: [
          {
            name: restore,
            command: ['sh', '-c', 'cp /backup/<BACKUP_FILE> /data/dump.rdb'],
            resources: container.resources,
            securityContext: container.securityContext,
            volumeMounts: [
              ...(container.volumeMounts ?? []),
              { name: 'data', mountPath: '/data', subPath: dataMount.subPath },
            ],
          },
        ],
        volumes: [...(backupSpec?.volumes ?? []), { name: 'data', persistentVolumeClaim: { claimName: claim } }],
        automountServiceAccountToken: false,
      },
    ),
    `kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/${restore} -n ${ns} --timeout=120s`,
    `kubectl delete pod ${restore} -n ${ns}`,
    `kubectl scale ${ref} --replicas=1 -n ${ns}`,
  ]);
}

/** A `kubectl run` of a pod whose spec comes from an override (strategic merge: the generated container keeps its image). */
function shellPod(
  name: string,
  namespace: string,
  image: string,
  labels: Readonly<Record<string, string>>,
  spec: any,
): string {
  const sorted = Object.entries(labels).sort(([a], [b]) => compare(a, b));
  return shellCommand(
    'kubectl',
    'run',
    name,
    shellFlag('--image', image),
    '--restart=Never',
    '-n',
    namespace,
    ...(sorted.length > 0 ? [shellFlag('--labels', sorted.map(([k, v]) => `${k}=${v}`).join(','))] : []),
    '--override-type=strategic',
    shellFlag('--overrides', JSON.stringify({ spec })),
  );
}
