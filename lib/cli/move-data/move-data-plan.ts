import * as path from 'path';
import * as kplus from 'cdk8s-plus-27';
import { ComposeApp } from '../../app/compose-app';
import { ComposeError } from '../../compose/errors';
import { ComposeService } from '../../compose/model';
import { DatabaseEngine, EngineKind } from '../../stateful/engine';
import { compare } from '../../util/sort';

/**
 * What `move-data` moves: every claim of the app that replaces a compose source (a named volume or a bind directory),
 * with the docker volume or folder it is filled from and the workloads that mount it. Read from the app's own
 * manifests (the construct tree's rendering), never rebuilt.
 */

/** The annotation a claim carries when it replaces a compose source: `volume:<key>` or `bind:<./path>`. */
export const COMPOSE_SOURCE_ANNOTATION = 'cdk8s-compose.io/compose-source';

/** The compose source a claim replaces. */
export type ComposeSource =
  { readonly kind: 'volume'; readonly key: string } | { readonly kind: 'bind'; readonly path: string };

/** A workload that mounts a claim: scaled to zero while its claims are filled. */
export interface MountingWorkload {
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly name: string;
  readonly replicas: number;
  /** Its pods' selector, `k=v,k=v`. */
  readonly selector: string;
  /** The compose service it runs, and that service's engine when it is a known one. */
  readonly composeService?: string;
  readonly engine?: EngineKind;
  /**
   * Where the engine's data moved within its claim, as a folder of the claim: where the compose volume's files go
   * (mysql's `subPath`, postgres' `PGDATA` one folder down). Undefined when the layout is compose's.
   */
  readonly engineDataDir?: { readonly claim: string; readonly folder: string };
}

/** One claim to fill. */
export interface DataMove {
  readonly claim: string;
  readonly source: ComposeSource;
  /** For a named volume: the docker volume, `<project>_<key>` or the volume's `name:`. */
  readonly dockerVolume?: string;
  /** For a bind: the folder as compose names it (from the project folder, or absolute). */
  readonly bindPath?: string;
  /** The workloads that mount the claim, sorted by kind and name. */
  readonly users: readonly MountingWorkload[];
  /**
   * The folder of the claim the source's files go to: empty for its root; a folder where an engine keeps its data
   * one level down (`mysql`, `pgdata`).
   */
  readonly folder: string;
}

/** Everything `move-data` needs of the project. */
export interface DataMovePlan {
  readonly namespace: string;
  /** The compose project name (`docker compose -p`). */
  readonly project: string;
  /** The compose files (`docker compose -f`), relative to the project folder, where every command runs. */
  readonly composeFiles: readonly string[];
  /** Sorted by claim. */
  readonly moves: readonly DataMove[];
  /** Every workload that mounts one of the claims, once, sorted by kind and name. */
  readonly workloads: readonly MountingWorkload[];
}

/** The parts of a rendered manifest the plan reads: claims, and the Deployments and StatefulSets that mount them. */
export interface ManifestShape {
  readonly kind: string;
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec?: {
    readonly replicas?: number;
    readonly selector?: { readonly matchLabels?: Readonly<Record<string, string>> };
    readonly template?: { readonly spec?: PodSpecShape };
  };
}

interface PodSpecShape {
  readonly containers?: ReadonlyArray<{
    readonly volumeMounts?: ReadonlyArray<{
      readonly name: string;
      readonly mountPath: string;
      readonly subPath?: string;
    }>;
    readonly env?: ReadonlyArray<{ readonly name: string; readonly value?: string }>;
  }>;
  readonly volumes?: ReadonlyArray<{
    readonly name: string;
    readonly persistentVolumeClaim?: { readonly claimName: string };
  }>;
}

/** Reads an annotation's value; undefined when it is not one of the two shapes. */
export function parseComposeSource(text: string | undefined): ComposeSource | undefined {
  const match = /^(volume|bind):(.+)$/s.exec(text ?? '');
  if (!match) {
    return undefined;
  }
  return match[1] === 'volume' ? { kind: 'volume', key: match[2] } : { kind: 'bind', path: match[2] };
}

/**
 * The compose source a claim replaces: its `cdk8s-compose.io/compose-source` annotation when it has one; else, for the
 * claim of a top-level named volume, that volume, and for a stateful dependency's own data claim, the folder compose
 * binds at the engine's data path. The one place the source of a claim is decided.
 */
export function composeSourceOf(claim: ManifestShape, app: ComposeApp): ComposeSource | undefined {
  const annotated = claim?.metadata?.annotations?.[COMPOSE_SOURCE_ANNOTATION];
  if (annotated !== undefined) {
    const source = parseComposeSource(annotated);
    if (!source) {
      throw new ComposeError(`claim "${claim.metadata?.name}" has an unreadable ${COMPOSE_SOURCE_ANNOTATION}`, {
        value: annotated,
        allowed: '"volume:<key>" or "bind:<path>"',
      });
    }
    return source;
  }
  const name = claim?.metadata?.name;
  const volume = Object.entries(app.claims).find(
    ([, c]) => c instanceof kplus.PersistentVolumeClaim && c.name === name,
  );
  if (volume) {
    return { kind: 'volume', key: volume[0] };
  }
  // A stateful dependency's own data claim replaces the folder compose binds at the engine's data path.
  for (const service of app.services) {
    const dependency = service.statefulDependency;
    if (dependency?.dataClaim === undefined || dependency.dataClaim.name !== name) {
      continue;
    }
    const bind = app.model.services
      .find((s) => s.name === service.composeName)
      ?.volumes.find(
        (v) =>
          v.type === 'bind' && v.source !== undefined && v.target.replace(/\/+$/, '') === dependency!.engine.dataPath,
      );
    if (bind) {
      return { kind: 'bind', path: bind.source! };
    }
  }
  return undefined;
}

/** The claims of `manifests` that replace a compose source, with their sources and the workloads that mount them. */
export function planDataMoves(manifests: readonly ManifestShape[], app: ComposeApp): DataMovePlan {
  const model = app.model;
  const byWorkload = new Map<string, MountingWorkload>();
  const usersOf = new Map<string, MountingWorkload[]>();
  for (const doc of manifests.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet')) {
    const claims = (doc.spec?.template?.spec?.volumes ?? [])
      .map((v) => v.persistentVolumeClaim?.claimName)
      .filter((c): c is string => typeof c === 'string');
    if (claims.length === 0) {
      continue;
    }
    const workload = mountingWorkload(doc, app);
    byWorkload.set(`${workload.kind}/${workload.name}`, workload);
    for (const claim of claims) {
      usersOf.set(claim, [...(usersOf.get(claim) ?? []), workload]);
    }
  }
  const moves: DataMove[] = [];
  for (const claim of manifests.filter((d) => d.kind === 'PersistentVolumeClaim')) {
    const source = composeSourceOf(claim, app);
    if (!source) {
      continue;
    }
    const name = claim.metadata?.name ?? '';
    const volume = source.kind === 'volume' ? model.volumes.find((v) => v.name === source.key) : undefined;
    if (source.kind === 'volume' && !volume) {
      throw new ComposeError(
        `claim "${name}" replaces volume "${source.key}", which the compose project does not declare`,
        {
          hint: 'convert again from the same compose files',
        },
      );
    }
    const users = sortWorkloads(usersOf.get(name) ?? []);
    moves.push({
      claim: name,
      source,
      dockerVolume: volume ? (volume.externalName ?? `${model.name}_${volume.name}`) : undefined,
      bindPath: source.kind === 'bind' ? source.path : undefined,
      users,
      folder: users.find((u) => u.engineDataDir?.claim === name)?.engineDataDir?.folder ?? '',
    });
  }
  moves.sort((a, b) => compare(a.claim, b.claim));
  const used = new Set(moves.flatMap((m) => m.users.map((u) => `${u.kind}/${u.name}`)));
  return {
    namespace: app.namespace,
    project: model.name,
    composeFiles: model.files.map((f) => path.relative(path.dirname(model.files[0]), f) || path.basename(f)),
    moves,
    workloads: sortWorkloads([...byWorkload.entries()].filter(([key]) => used.has(key)).map(([, w]) => w)),
  };
}

/**
 * The compose data of the services that run in a VM, which move-data does not move (it fills claims; their data goes
 * into the VM): each VM's named volumes (on its data disk, under the same docker volume names) and folders bound
 * read-write (in the VM's project folder on the root disk).
 */
export function vmDataSources(
  app: ComposeApp,
): Array<{ readonly vm: string; readonly services: readonly string[]; readonly sources: readonly string[] }> {
  const byVm = new Map<string, { services: Set<string>; sources: Set<string> }>();
  for (const service of app.vmServices) {
    const compose = app.model.services.find((s) => s.name === service.composeName);
    const vm = service.vm.vm.name;
    const entry = byVm.get(vm) ?? { services: new Set<string>(), sources: new Set<string>() };
    byVm.set(vm, entry);
    for (const mount of compose?.volumes ?? []) {
      const volume =
        mount.type === 'volume' && mount.source !== undefined
          ? app.model.volumes.find((v) => v.name === mount.source)
          : undefined;
      if (volume) {
        entry.sources.add(`docker volume ${volume.externalName ?? `${app.model.name}_${volume.name}`}`);
      } else if (mount.type === 'bind' && !mount.readOnly && mount.source?.startsWith('.')) {
        entry.sources.add(`folder ${mount.source}`);
      } else {
        continue;
      }
      entry.services.add(service.composeName);
    }
  }
  return [...byVm.entries()]
    .filter(([, e]) => e.sources.size > 0)
    .sort(([a], [b]) => compare(a, b))
    .map(([vm, e]) => ({ vm, services: [...e.services].sort(compare), sources: [...e.sources].sort(compare) }));
}

/** The compose project's folder, where move-data's commands run: the first compose file's. */
export function projectFolder(cwd: string, files: readonly string[]): string {
  return path.dirname(path.resolve(cwd, files[0]));
}

function mountingWorkload(doc: ManifestShape, app: ComposeApp): MountingWorkload {
  const name = doc.metadata?.name ?? '';
  const service = app.services.find((s) => s.name === name || s.statefulDependency?.workload.name === name);
  const labels: Record<string, string> = doc.spec?.selector?.matchLabels ?? {};
  const engine = service?.statefulDependency?.engine;
  return {
    engineDataDir: engine
      ? engineDataDir(
          doc,
          engine,
          app.model.services.find((s) => s.name === service!.composeName),
        )
      : undefined,
    kind: doc.kind as MountingWorkload['kind'],
    name,
    replicas: doc.spec?.replicas ?? 1,
    selector: Object.entries(labels)
      .sort(([a], [b]) => compare(a, b))
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
    composeService: service?.composeName,
    engine: service?.statefulDependency?.engine.kind,
  };
}

function sortWorkloads(workloads: readonly MountingWorkload[]): MountingWorkload[] {
  return [...workloads].sort((a, b) => compare(`${a.kind}/${a.name}`, `${b.kind}/${b.name}`));
}

/**
 * Where an engine's data sits in its claim when the conversion moved it: the `subPath` the claim is mounted with at
 * the data path, then, for a variable such as `PGDATA` that the Kubernetes container sets below the data path and
 * compose did not set alike, that folder. Compose kept the data at the root of its volume.
 */
function engineDataDir(
  doc: ManifestShape,
  engine: DatabaseEngine,
  service: ComposeService | undefined,
): { claim: string; folder: string } | undefined {
  const spec = doc.spec?.template?.spec;
  for (const container of spec?.containers ?? []) {
    const mount = (container.volumeMounts ?? []).find((m) => m.mountPath === engine.dataPath);
    const claim = (spec?.volumes ?? []).find((v) => v.name === mount?.name)?.persistentVolumeClaim?.claimName;
    if (!mount || typeof claim !== 'string') {
      continue;
    }
    const parts: string[] = mount.subPath ? [mount.subPath] : [];
    for (const variable of Object.keys(engine.dataEnv).sort(compare)) {
      const here = (container.env ?? []).find((e) => e.name === variable)?.value;
      const there = service?.environment.find((e) => e.name === variable)?.value;
      if (typeof here === 'string' && here !== there && here.startsWith(`${engine.dataPath}/`)) {
        parts.push(here.slice(engine.dataPath.length + 1));
      }
    }
    return parts.length > 0 ? { claim, folder: parts.join('/') } : undefined;
  }
  return undefined;
}
