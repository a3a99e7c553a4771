import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import type { ComposeModel } from '../compose/model';
import { MigratedService, WorkloadKind } from './service/migrated-service';

/**
 * What the waves are planned from: the members of `ComposeApp` they read. Declared here, not imported, so that
 * compose-app.ts (which annotates its own waves) and this module do not import each other.
 */
export interface WaveSource extends IConstruct {
  readonly model: ComposeModel;
  readonly namespaceObject?: IConstruct;
  readonly quota?: IConstruct;
  readonly networkPolicies?: IConstruct;
  readonly vm?: IConstruct & { readonly vm: { readonly name: string } };
  readonly services: readonly MigratedService[];
  readonly vmServices: readonly (IConstruct & { readonly composeName: string })[];
  readonly claims: Readonly<Record<string, IConstruct>>;
  readonly secrets: Readonly<Record<string, IConstruct>>;
  readonly configs: Readonly<Record<string, IConstruct>>;
}

/** The deploy waves, in apply order. The values name the wave folders (`0-namespace`, `1-stateful`, `2-app`, `3-vm`). */
export enum WaveKind {
  /** The Namespace, then its ResourceQuota and NetworkPolicies, before any pod exists. */
  NAMESPACE = 'namespace',
  /** The stateful dependencies, everything they need and every service they depend on. */
  STATEFUL = 'stateful',
  /** The rest of the app. */
  APP = 'app',
  /**
   * The golden-image VM and the Services of the services in it, after the containers it waits for: it needs KubeVirt
   * and the published image, and its unit waits for the container services its services depend on.
   */
  VM = 'vm',
  /**
   * The container services that wait for a service in the VM (their `depends_on` reaches one, directly or through
   * other containers), with what only they use: after the VM, so that nothing waits on an object of a later wave.
   */
  AFTER_VM = 'after-vm',
}

const WAVE_ORDER: readonly WaveKind[] = [
  WaveKind.NAMESPACE,
  WaveKind.STATEFUL,
  WaveKind.APP,
  WaveKind.VM,
  WaveKind.AFTER_VM,
];

/**
 * The services that wait for a service in the VM: those whose `depends_on` names one, and, transitively, those whose
 * `depends_on` names such a service. Services in the VM are not listed.
 */
export function vmDependents(model: ComposeModel, inVm: ReadonlySet<string>): Set<string> {
  const dependents = new Set<string>();
  let changed = inVm.size > 0;
  while (changed) {
    changed = false;
    for (const service of model.services) {
      if (
        !inVm.has(service.name) &&
        !dependents.has(service.name) &&
        service.dependsOn.some((d) => inVm.has(d.service) || dependents.has(d.service))
      ) {
        dependents.add(service.name);
        changed = true;
      }
    }
  }
  return dependents;
}

/** The annotation by which Argo CD applies objects in waves, waiting for each wave to be healthy before the next. */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

/** What the deploy waits for after a wave, before the next one. */
export interface WaveWait {
  /**
   * `ready`: `kubectl wait --for=condition=ready pod -l app=<name>`; `complete`: the Job's `condition=complete`;
   * `vm-ready`: the VirtualMachine's `condition=Ready`.
   */
  readonly condition: 'ready' | 'complete' | 'vm-ready';
  /** The compose service (for a VM: the services it runs, comma-separated). */
  readonly composeName: string;
  /** The Kubernetes name: the workload, its Service and its pods' `app` label, or the VirtualMachine. */
  readonly name: string;
  /** What it is, for messages: `postgres`, `redis`, `Deployment`, `Job`. */
  readonly what: string;
}

/** One deploy wave: a folder of manifests applied with one `kubectl apply -f`. */
export interface Wave {
  readonly kind: WaveKind;
  /** The wave's fixed position: 0 namespace, 1 stateful, 2 app, 3 vm; its objects' `argocd.argoproj.io/sync-wave`. */
  readonly syncWave: number;
  /** The folder: the wave's fixed position and its kind, e.g. `1-stateful` (`2-app` also when there is no stateful wave). */
  readonly folder: string;
  /** The objects of the wave, in the order the app created them. */
  readonly objects: readonly ApiObject[];
  /** What must be ready before the next wave. */
  readonly waits: readonly WaveWait[];
  /** The compose services whose workloads are in the wave, sorted. */
  readonly services: readonly string[];
}

/**
 * Splits an app's objects into deploy waves (rule 1 of the spec: stateful dependencies are deployed and awaited
 * before the app). The stateful wave holds every stateful dependency, every service one of them depends on, and the
 * claims, Secrets and ConfigMaps they use; the app wave holds the rest. Empty waves are left out; the folders keep
 * their numbers, so that `kubectl apply -f 2-app/` names the same wave for every app.
 */
export function planWaves(app: WaveSource): Wave[] {
  const late = vmDependents(app.model, new Set(app.vmServices.map((s) => s.composeName)));
  const early = statefulClosure(app, late);
  const serviceWave = (name: string) =>
    late.has(name) ? WaveKind.AFTER_VM : early.has(name) ? WaveKind.STATEFUL : WaveKind.APP;
  // Each object takes the wave of the first scope assigned that holds it, in this order; one walk over the tree.
  const scopes = new Map<IConstruct, { order: number; kind: WaveKind }>();
  const assign = (scope: IConstruct | undefined, kind: WaveKind) => {
    if (scope && !scopes.has(scope)) {
      scopes.set(scope, { order: scopes.size, kind });
    }
  };
  assign(app.namespaceObject, WaveKind.NAMESPACE);
  assign(app.quota, WaveKind.NAMESPACE);
  assign(app.networkPolicies, WaveKind.NAMESPACE);
  assign(app.vm, WaveKind.VM);
  app.vmServices.forEach((service) => assign(service, WaveKind.VM));
  for (const service of app.services) {
    assign(service, serviceWave(service.composeName));
  }
  // A shared object comes with its first user, so that it exists before any of them.
  const containers = new Set(app.services.map((s) => s.composeName));
  const sharedUsers = sharedObjectUsers(app);
  for (const [scope, users] of sharedUsers) {
    const waves: WaveKind[] = users.filter((u) => containers.has(u)).map(serviceWave);
    assign(scope, WAVE_ORDER.find((kind) => waves.includes(kind)) ?? WaveKind.APP);
  }
  const objects = app.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject);
  const byObject = new Map<ApiObject, WaveKind>();
  for (const object of objects) {
    let first: { order: number; kind: WaveKind } | undefined;
    for (let scope: IConstruct | undefined = object; scope !== undefined; scope = scope.node.scope) {
      const assigned = scopes.get(scope);
      if (assigned !== undefined && (first === undefined || assigned.order < first.order)) {
        first = assigned;
      }
    }
    byObject.set(object, first?.kind ?? WaveKind.APP);
  }

  const waves: Wave[] = [];
  WAVE_ORDER.forEach((kind, position) => {
    const members = objects.filter((o) => byObject.get(o) === kind);
    if (members.length === 0) {
      return;
    }
    if (kind === WaveKind.VM) {
      const vm = app.vm!;
      const services = app.vmServices.map((s) => s.composeName);
      waves.push({
        kind,
        syncWave: position,
        folder: `${position}-${kind}`,
        objects: members,
        waits: [{ condition: 'vm-ready', composeName: services.join(', '), name: vm.vm.name, what: 'VirtualMachine' }],
        services,
      });
      return;
    }
    const services = app.services.filter((s) => kind !== WaveKind.NAMESPACE && serviceWave(s.composeName) === kind);
    waves.push({
      kind,
      syncWave: position,
      folder: `${position}-${kind}`,
      objects: members,
      waits: kind === WaveKind.STATEFUL ? services.filter((s) => s.replicas > 0).map(waitFor) : [],
      services: services.map((s) => s.composeName),
    });
  });
  return waves;
}

/**
 * Annotates every object of the app with `argocd.argoproj.io/sync-wave` set to its wave's position, so that Argo CD
 * applies the waves in the order `cdk8s-compose deploy` does and waits for each to be healthy before the next.
 */
export function annotateSyncWaves(app: WaveSource): void {
  for (const wave of planWaves(app)) {
    wave.objects.forEach((object) => object.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, String(wave.syncWave)));
  }
}

/** The stateful dependencies and, transitively, every service they depend on, but for those that wait for the VM. */
function statefulClosure(app: WaveSource, late: ReadonlySet<string>): Set<string> {
  const byName = new Map(app.model.services.map((s) => [s.name, s]));
  const found = new Set<string>();
  const visit = (name: string) => {
    if (found.has(name) || !byName.has(name) || late.has(name)) {
      return;
    }
    found.add(name);
    byName.get(name)!.dependsOn.forEach((d) => visit(d.service));
  };
  app.services.filter((s) => s.kind === WorkloadKind.STATEFUL).forEach((s) => visit(s.composeName));
  return found;
}

/** The app-level claims, Secrets and ConfigMaps with the compose services that use them. */
function sharedObjectUsers(app: WaveSource): [IConstruct, string[]][] {
  // Each service's references indexed once, in service order: a scan of every service per claim, Secret and
  // ConfigMap was quadratic in the app's size.
  const byVolume = new Map<string, string[]>();
  const bySecret = new Map<string, string[]>();
  const byConfig = new Map<string, string[]>();
  const note = (index: Map<string, string[]>, sources: readonly string[], service: string) => {
    for (const source of new Set(sources)) {
      const users = index.get(source);
      if (users) {
        users.push(service);
      } else {
        index.set(source, [service]);
      }
    }
  };
  for (const s of app.model.services) {
    note(
      byVolume,
      s.volumes.filter((m) => m.type === 'volume' && m.source !== undefined).map((m) => m.source!),
      s.name,
    );
    note(
      bySecret,
      s.secrets.map((r) => r.source),
      s.name,
    );
    note(
      byConfig,
      s.configs.map((r) => r.source),
      s.name,
    );
  }
  const result: [IConstruct, string[]][] = [];
  for (const [volume, claim] of Object.entries(app.claims)) {
    result.push([claim, byVolume.get(volume) ?? []]);
  }
  for (const [secret, object] of Object.entries(app.secrets)) {
    result.push([object, bySecret.get(secret) ?? []]);
  }
  for (const [config, object] of Object.entries(app.configs)) {
    result.push([object, byConfig.get(config) ?? []]);
  }
  return result;
}

function waitFor(service: MigratedService): WaveWait {
  if (service.kind === WorkloadKind.JOB) {
    return { condition: 'complete', composeName: service.composeName, name: service.name, what: 'Job' };
  }
  const engine = service.statefulDependency?.engine.name;
  return { condition: 'ready', composeName: service.composeName, name: service.name, what: engine ?? service.kind };
}
