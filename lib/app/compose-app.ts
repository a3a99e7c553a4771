import { oversizedObjects } from './object-size';
import { SAFE_PRINTER_CONTEXT, unprintableValues } from './printer-safety';
import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct, IConstruct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError, ComposeWarning } from '../compose/errors';
import { loadCompose } from '../compose/load';
import { ComposeModel } from '../compose/model';
import { Redactor } from '../compose/sensitive';
import { formatWarningGroup, groupWarnings } from '../compose/warning-groups';
import { NameRegistry } from '../base/naming';
import { ComposeNetworkPolicies } from '../base/network-policy';
import { ComposeVm } from '../vm/compose-vm';
import { createAliasServices, planAliases } from './hosts/alias-services';
import { AppMetadata } from './app-metadata';
import { createNamespace, resolveNamespace } from './app-namespace';
import { createNetworkPolicies } from './policy/app-network-policies';
import { collectSecretValues } from './app-secret-values';
import { AppSettings } from './app-settings';
import { AppVm } from './vm/app-vm';
import { AppWarnings } from './app-warnings';
import { ComposeAppProps, WARNING_METADATA } from './compose-app-props';
import { annotateSyncWaves } from './deploy-waves';
import { ExternalService, PlannedExternalService, planExternalServices } from './external-service';
import { HostRewriter } from './hosts/host-rewrite';
import { reportUnreachable } from './service/inferred-ports';
import { ingressCollisions, reportPlaceholderHosts } from './service/ingress-checks';
import {
  MigratedService,
  MigrationContext,
  ServicePlan,
  ServiceSettings,
  WorkloadKind,
} from './service/migrated-service';
import { NamespaceQuota } from './quota/quota';
import { Reachability } from './policy/reachability';
import { serviceHostRewriter } from './hosts/service-hosts';
import { ServicePlanner } from './service/service-planner';
import { SharedObjects } from './shared-objects';
import { VerifyReport, verifyManifests } from './verify/verify';
import { VmMigratedService } from './vm/vm-migrated-service';
import { compare } from '../util/sort';

export { COMPOSE_APP_DEFAULTS, SYSTEM_NAMESPACES, WARNING_METADATA } from './compose-app-props';
export type { ComposeAppProps, ComposeAppVmOptions } from './compose-app-props';

/**
 * A whole compose application as Kubernetes manifests, by the mapping table and rules 1–3 of the spec: a Namespace;
 * per service a workload (Deployment, a Job for one-shot services, a CronJob or StatefulSet by kompose label, or a
 * `StatefulDependency` for databases and caches), a ClusterIP Service, env ConfigMap and Secret, file mounts, claims,
 * external access and dependency waits; NetworkPolicies from the compose networks; a ResourceQuota. Services that
 * cannot run as containers (`target`, `vm`) run in one golden-image VM (`ComposeVm`) whose Services they are reached
 * by, with rule 2 applied both ways.
 *
 * The app wires its parts: `AppSettings` (the props resolved), `ServicePlanner` (names, kinds, routing),
 * `SharedObjects` (claims, Secrets, ConfigMaps), a `MigratedService` per container service, `AppVm` (the VM and its
 * services), the NetworkPolicies, the `NamespaceQuota` and `AppMetadata` (the `labels` and `annotations` props).
 *
 * Findings that do not stop the migration (ignored keys, rewrites, relaxed defaults) are in `warnings`, and as lines
 * in the construct metadata that `ComposeApp.warningsOf(app)` collects; nothing is printed. Extend the app through
 * the handles: `app.service('web').deployment`, `.service`, `.ingress`, …, and `app.vm`, `app.vmService('legacy')`
 * for the VM.
 */
export class ComposeApp extends Construct {
  /**
   * The warnings of every ComposeApp under `scope` (an App, a Chart), one line each as the CLI prints them:
   * identical findings of several services as one line naming them all. Print them after `app.synth()`.
   */
  public static warningsOf(scope: IConstruct): string[] {
    return scope.node
      .findAll()
      .flatMap((c) => c.node.metadata.filter((m) => m.type === WARNING_METADATA).map((m) => String(m.data)));
  }

  /**
   * `loadOptions` that read nothing from the machine, for tests and for builds that must give the same bytes
   * everywhere: no shell environment (`env: {}`) and no `.env` file (`envFiles: []`).
   *
   * Otherwise the loader reads the shell's environment (`process.env`) for `${VAR}` interpolation and for
   * `COMPOSE_PROJECT_NAME`, `COMPOSE_PROFILES` and `COMPOSE_FILE`, and the project's `.env` when there is one: a
   * variable set in one shell and not in another changes a value, or moves it between the env ConfigMap and Secret,
   * and a snapshot taken on one machine fails on the next. Give the variables the compose file needs in `env` here,
   * in the test, where the snapshot's reader sees them; one left out interpolates as compose interpolates an unset
   * variable (empty, or its `${VAR:-default}`).
   *
   * @param options the other loader options (`workingDir`, `projectName`, …), and the `env` / `envFiles` to pin
   * @example
   * new ComposeApp(chart, 'shop', {
   *   composeFile: 'compose.yaml',
   *   loadOptions: ComposeApp.hermeticLoadOptions({ workingDir: __dirname, env: { DB_PASSWORD: 'test-only' } }),
   * });
   */
  public static hermeticLoadOptions(
    options: ComposeAppProps['loadOptions'] = {},
  ): NonNullable<ComposeAppProps['loadOptions']> {
    return { ...options, env: { ...(options.env ?? {}) }, envFiles: [...(options.envFiles ?? [])] };
  }

  /** The compose model the app was made from, less the services replaced by managed endpoints (`externalServices`). */
  public readonly model: ComposeModel;
  /** The namespace of every object. */
  public readonly namespace: string;
  /** The Namespace object, unless `createNamespace` is false. */
  public readonly namespaceObject?: kplus.Namespace;
  /**
   * Every value the app classified as secret (the loader's and its own), for messages, runbooks and bundles that
   * must print none of them: `redactor.redact(text)`.
   */
  public readonly redactor = new Redactor();
  /** The loader's warnings and the app's own, in the order found. */
  public readonly warnings: ComposeWarning[];
  /** The NetworkPolicies, unless disabled. */
  public readonly networkPolicies?: ComposeNetworkPolicies;
  /** The ResourceQuota, unless disabled. */
  public readonly quota?: NamespaceQuota;
  /** Claims of the top-level named volumes, by compose volume name. */
  public readonly claims: Readonly<Record<string, kplus.IPersistentVolumeClaim>>;
  /** Secrets made from compose secrets, by compose secret name. */
  public readonly secrets: Readonly<Record<string, KubeSecret>>;
  /** ConfigMaps (or Secrets, when they hold a secret value) made from compose configs, by compose config name. */
  public readonly configs: Readonly<Record<string, kplus.ConfigMap | KubeSecret>>;
  /** The golden-image VM (bundle, VirtualMachine, Services) of the services routed to it, when any is. */
  public readonly vm?: ComposeVm;
  /** Who reaches whom by which name and port, as compose allows it (`reachability.edges()` for the graph). */
  public readonly reachability: Reachability;
  /**
   * The services replaced by managed endpoints (`services[name].external`), by compose name: each a Service of the
   * compose service's name that resolves to the endpoint.
   */
  public readonly externalServices: Readonly<Record<string, ExternalService>>;
  /** The Services of extra names (aliases, container names) that files and commands use, by Service name. */
  public readonly aliasServices: Readonly<Record<string, kplus.Service>>;
  /** Rule 2's rewriter: compose names, aliases, hostnames and container names → Service names. */
  public readonly hosts: HostRewriter;

  private readonly settings: AppSettings;
  private readonly findings: AppWarnings;
  private readonly names = new NameRegistry();
  private readonly plans: ReadonlyMap<string, ServicePlan>;
  private readonly shared: SharedObjects;
  private readonly migrated = new Map<string, MigratedService>();
  private readonly vmPart: AppVm;

  constructor(scope: Construct, id: string, props: ComposeAppProps = {}) {
    super(scope, id);
    this.settings = new AppSettings(props);
    this.findings = new AppWarnings(this.redactor);
    this.warnings = this.findings.list;
    const composeModel = this.loadModel(props);
    this.namespace = resolveNamespace(this.node.path, composeModel, props);
    this.settings.check(this.node.path, composeModel);
    const metadata = new AppMetadata(this.node.path, props);
    if (props.createNamespace ?? true) {
      this.namespaceObject = createNamespace(this, this.namespace);
    }

    // Reachability reads the whole project, so that the clients of an external service keep their references to it.
    this.reachability = Reachability.of(composeModel);
    const externals = planExternalServices(this.node.path, composeModel, this.settings.externalEndpoints(), {
      names: this.names,
      reachability: this.reachability,
      nameOf: (service) => this.settings.overrides(service).name,
      sensitivePatterns: this.settings.sensitiveNamePatterns,
    });
    this.model = externals.model;
    const planner = this.planServices(props);
    this.plans = planner.plans;
    const aliases = planAliases(this.reachability, planner.plans, this.names);
    this.hosts = this.hostRewriter(aliases, externals.services);
    const { model, namespace, settings } = this;
    collectSecretValues(this.redactor, { model, namespace, settings, warn: this.findings.warn });

    const context = this.context();
    this.shared = this.createSharedObjects(props);
    this.migrateServices(context);
    this.externalServices = this.createExternalServices(externals.services, props);
    this.vmPart = this.createVm(props, planner, context, metadata);
    this.vm = this.vmPart.composeVm;
    this.aliasServices = createAliasServices({
      aliases,
      services: this.migrated,
      namespace: this.namespace,
      warn: this.findings.warn,
    });
    this.reportFindings();
    this.claims = this.shared.claims;
    this.secrets = this.shared.secrets;
    this.configs = this.shared.configs;
    this.networkPolicies = this.createNetworkPolicies(props);
    if (props.quota !== false) {
      this.quota = new NamespaceQuota(this, 'Quota', {
        ...(props.quota === true ? {} : (props.quota ?? {})),
        namespace: this.namespace,
      });
    }
    this.addValidations(props.syncWaves ?? true);
    metadata.applyTo(this, this.redactor);
    // Annotations-style, as the AWS CDK's Annotations.addWarning records them: tools and tests read node.metadata.
    for (const group of groupWarnings(this.warnings)) {
      this.node.addMetadata(WARNING_METADATA, formatWarningGroup(group));
    }
  }

  /** The compose service migrated to a container workload, by compose name. */
  public service(composeName: string): MigratedService {
    const found = this.migrated.get(composeName);
    if (!found) {
      if (this.externalServices[composeName]) {
        throw new ComposeError(`${this.node.path}: service "${composeName}" is external, not in a container`, {
          hint: `use externalServices["${composeName}"]`,
        });
      }
      if (this.vmPart.services.has(composeName)) {
        throw new ComposeError(
          `${this.node.path}: service "${composeName}" runs in the VM "${this.vm!.vm.name}", not in a container`,
          {
            hint: `use vmService("${composeName}")`,
          },
        );
      }
      throw new ComposeError(`${this.node.path}: no compose service "${composeName}"`, {
        allowed: [...this.migrated.keys()].join(', ') || 'no services',
      });
    }
    return found;
  }

  /**
   * Checks what compose promises each service against this app's manifests (`verifyManifests`): every name and port
   * a service reaches another by, every pair on a shared network, the environment, the mounted files and volumes, the
   * waits for depends_on. Synthesizes the app's chart (`chart.toJson()`) to read them.
   */
  public verify(): VerifyReport {
    return verifyManifests(this, Chart.of(this).toJson());
  }

  /** Every service migrated to a container workload, sorted by compose name. */
  public get services(): MigratedService[] {
    return [...this.migrated.values()];
  }

  /** The compose service that runs in the VM, by compose name. */
  public vmService(composeName: string): VmMigratedService {
    const found = this.vmPart.services.get(composeName);
    if (!found) {
      throw new ComposeError(`${this.node.path}: service "${composeName}" does not run in the VM`, {
        allowed: [...this.vmPart.services.keys()].join(', ') || 'no service runs in the VM',
        hint: 'route it with services["<name>"].target: ServiceTarget.VM, vm.services, or target: ServiceTarget.AUTO',
      });
    }
    return found;
  }

  /** Every service that runs in the VM, sorted by compose name. */
  public get vmServices(): VmMigratedService[] {
    return [...this.vmPart.services.values()];
  }

  /**
   * Renders one planned service that runs as a container workload (services routed to the VM are made by the app's
   * `ComposeVm` instead). Override it to route a service elsewhere (another construct) or to adjust what a service
   * gets; call `super.migrateService` for the default.
   */
  protected migrateService(plan: ServicePlan, settings: ServiceSettings, context: MigrationContext): MigratedService {
    return new MigratedService(this, plan.service.name, { plan, settings, context });
  }

  /** The model given, or the compose files loaded (their warnings first). */
  private loadModel(props: ComposeAppProps): ComposeModel {
    if ((props.model === undefined) === (props.composeFile === undefined)) {
      throw new ComposeError(`${this.node.path}: give exactly one of model and composeFile`, {
        hint: 'pass a loaded model, or the compose file to load',
      });
    }
    if (props.model && props.registry !== undefined) {
      throw new ComposeError(`${this.node.path}: registry applies when the app loads composeFile`, {
        value: props.registry,
        hint: 'pass registry to loadCompose, which made the model',
      });
    }
    if (props.model) {
      return props.model;
    }
    const files = typeof props.composeFile === 'string' ? [props.composeFile] : [...props.composeFile!];
    const registry = props.registry ?? props.loadOptions?.registry;
    const loaded = loadCompose({ ...props.loadOptions, files, ...(registry !== undefined ? { registry } : {}) });
    this.findings.addAll(loaded.warnings, false);
    return loaded.model;
  }

  /** The container services; a sidecar joins its host's pod, so hosts come first; the map is then put in name order. */
  /** Each service's plan: its names, kind and target (container or VM). */
  private planServices(props: ComposeAppProps): ServicePlanner {
    const { model, namespace, names, settings, reachability } = this;
    return new ServicePlanner({
      path: this.node.path,
      model,
      props,
      settings,
      namespace,
      reachability,
      names,
      warn: this.findings.warn,
    });
  }

  /** Rewrites the hosts one service names to reach another into their Services' names. */
  private hostRewriter(
    aliases: ReturnType<typeof planAliases>,
    externals: readonly PlannedExternalService[],
  ): HostRewriter {
    return serviceHostRewriter({
      plans: this.plans,
      include: (plan) => plan.hasService,
      aliases,
      externals,
      warnings: this.findings,
      at: this.model.at,
    });
  }

  /** The Services of the services replaced by managed endpoints, by compose name. */
  private createExternalServices(
    planned: readonly PlannedExternalService[],
    props: ComposeAppProps,
  ): Readonly<Record<string, ExternalService>> {
    return Object.fromEntries(
      planned.map((plan) => [
        plan.service.name,
        new ExternalService(this, `External-${plan.service.name}`, {
          plan,
          namespace: this.namespace,
          networkPolicies: props.networkPolicies !== false,
          warn: this.findings.warn,
        }),
      ]),
    );
  }

  /** The claims, Secrets and ConfigMaps the services share. */
  private createSharedObjects(props: ComposeAppProps): SharedObjects {
    const { model, namespace, names, hosts, redactor } = this;
    const shared = new SharedObjects({
      scope: this,
      model,
      props,
      namespace,
      names,
      hosts,
      redactor,
      warnings: this.findings,
      podsOf: (plan) => {
        if (plan.kind === WorkloadKind.DAEMON_SET) {
          return Number.MAX_SAFE_INTEGER;
        }
        const settings = this.settings.settingsFor(plan);
        // An autoscaler without a maximum scales up to 3 (ServiceAutoscaler's default): more than one pod.
        return settings.autoscaling
          ? Math.max(settings.replicas, settings.autoscaling.maxReplicas ?? 3)
          : settings.replicas;
      },
    });
    shared.createAll(this.plans.values());
    return shared;
  }

  /** The VM that runs the services that cannot run as containers (it creates nothing when there are none). */
  private createVm(
    props: ComposeAppProps,
    planner: ServicePlanner,
    context: MigrationContext,
    template: AppMetadata,
  ): AppVm {
    const { model, namespace, plans, settings, names, redactor } = this;
    return new AppVm({
      scope: this,
      model,
      options: props.vm,
      namespace,
      plans,
      reasons: planner.vmReasons,
      settings,
      names,
      redactor,
      warnings: this.findings,
      context,
      template,
    });
  }

  private createNetworkPolicies(props: ComposeAppProps): ComposeNetworkPolicies | undefined {
    if (props.networkPolicies === false) {
      return undefined;
    }
    return createNetworkPolicies(this, {
      options: props.networkPolicies === true ? {} : (props.networkPolicies ?? {}),
      props,
      model: this.model,
      namespace: this.namespace,
      services: this.migrated,
      vm: this.vm,
      vmServices: this.vmServices,
      externalServices: Object.values(this.externalServices),
    });
  }

  private migrateServices(context: MigrationContext): void {
    const order = [...this.plans.values()]
      .filter((p) => p.kind !== WorkloadKind.VM)
      .sort((a, b) => Number(a.kind === WorkloadKind.SIDECAR) - Number(b.kind === WorkloadKind.SIDECAR));
    for (const plan of order) {
      this.migrated.set(plan.service.name, this.migrateService(plan, this.settings.settingsFor(plan), context));
    }
    const migrated = [...this.migrated.entries()].sort(([a], [b]) => compare(a, b));
    this.migrated.clear();
    migrated.forEach(([name, service]) => this.migrated.set(name, service));
  }

  /** Findings over every service: unreachable names, placeholder hosts, ignored volume labels, shared claims. */
  private reportFindings(): void {
    const warnings = this.findings;
    reportUnreachable(this.reachability, this.plans, (key, code, message, at) =>
      warnings.warnOnce(key, code, message, at),
    );
    if (this.settings.hasDefaultIngressDomain) {
      reportPlaceholderHosts([...this.migrated.values(), ...this.vmServices], this.model, warnings.warn);
    }
    this.shared.reportVolumeLabels();
    this.shared.shareClaims(this.migrated);
  }

  private addValidations(syncWaves: boolean): void {
    if (syncWaves) {
      // An object's wave depends on the finished tree (objects added after the constructor join one too), and cdk8s
      // validates the tree right before rendering it: the annotations are set then, before any object is rendered
      // (the quota, a child of the app, renders the workloads in its own validation, after this one).
      this.node.addValidation({
        validate: () => {
          annotateSyncWaves(this);
          return [];
        },
      });
    }
    this.node.addValidation({ validate: () => ingressCollisions([...this.migrated.values(), ...this.vmServices]) });
    // Before any object is printed: a ConfigMap of 500 MB would end in "Invalid string length" (issue 25, finding 11).
    this.node.addValidation({ validate: () => oversizedObjects(this) });
    // cdk8s's printer writes U+2028 raw (issue 25, finding 1): unless the program prints with the safe printer (the
    // CLI does), a compose value holding such a line break is refused.
    if (this.node.tryGetContext(SAFE_PRINTER_CONTEXT) !== true) {
      this.node.addValidation({ validate: () => unprintableValues(this.model) });
    }
  }

  /** What each service's parts need of the app: its plans, names, rewriter, waits, and the shared objects. */
  private context(): MigrationContext {
    return {
      namespace: this.namespace,
      plans: this.plans,
      hosts: this.hosts,
      secretValues: this.redactor,
      names: this.names,
      wait: this.settings.waitSettings(this.namespace),
      claimFor: (volume, user, at) => this.shared.claimFor(volume, user, at),
      bindClaimFor: (source) => this.shared.bindClaimFor(source),
      isExternalVolume: (volume) => this.model.volumes.some((v) => v.name === volume && v.external),
      secretSource: (name, user, at) => this.shared.secretSource(name, user, at),
      secretContent: (name) => this.shared.secretContent(name),
      configSource: (name, user, at) => this.shared.configSource(name, user, at),
      warn: this.findings.warn,
      migrated: (composeName) => this.migrated.get(composeName),
    };
  }
}
