import { ApiObject, Chart, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct, IConstruct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError, ComposeWarning } from '../compose/errors';
import { LoadComposeOptions, loadCompose } from '../compose/load';
import { formatWarningGroup, groupWarnings } from '../compose/warning-groups';
import {
  ComposeConfig, ComposeLocation, ComposeModel, ComposeSecret, ComposeService, ComposeVolume, EnvVar, FileSource, Protocol,
} from '../compose/model';
import { DatabaseBackupOptions } from '../stateful/database-backup';
import { DatabaseEngine } from '../stateful/engine';
import { WorkloadController } from '../stateful/stateful-dependency';
import { ComposeVm, ComposeVmProps } from '../vm/compose-vm';
import { PlannedAlias, createAliasServices, planAliases } from './alias-services';
import { ServiceAutoscaler } from './autoscaler';
import { annotateSyncWaves } from './deploy-waves';
import { WaitKind, WaitSettings } from './dependency-wait';
import { HostRewriter } from './host-rewrite';
import {
  HONOURED_KOMPOSE_VOLUME_LABELS, KomposeControllerType, KomposeServiceLabels, labelAt, readKomposeLabels,
} from './kompose-labels';
import {
  IngressRuleSettings, MigratedService, MigrationContext, MountedFileSource, PortAccess, ResolvedResources, ServicePlan,
  ServiceSettings, WorkloadKind, WorkloadPort, resolveResources, toProtocol,
} from './migrated-service';
import { NameRegistry, isDnsLabel, isLabelKey, isLabelValue, isServiceName, joinDnsLabel, portName, toDnsLabel, toServiceName } from '../base/naming';
import {
  ComposeNetworkPolicies, ComposeNetworkPoliciesProps, PortExposure, PolicyWorkload,
} from '../base/network-policy';
import { cpuFromMillicores, cpuToMillicores, sizeToBytes } from '../base/quantities';
import { checkPlainFields } from './plain-fields';
import { NamespaceQuota, NamespaceQuotaProps } from './quota';
import { reportUnreachable, withInferredPorts } from './inferred-ports';
import { Reachability } from './reachability';
import { planSidecars } from './sidecars';
import { VerifyReport, verifyManifests } from './verify';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, Redactor, embeddedPasswords, hasEmbeddedPassword, isSensitiveName } from '../compose/sensitive';
import {
  Exposure, HttpOptions, KomposeLabel, ResourceDefaults, ServiceExtension, ServiceOverrides, ServiceTarget, VolumeOverrides,
  readServiceExtension, sizeLabel,
} from './settings';
import { STORAGE_QUANTITY_FORMAT, claimSize, storageBytes } from '../base/sizes';
import { VmMigratedService } from './vm-migrated-service';
import { secretHandle } from '../base/secret-handle';
import { isIngressHost } from '../util/dns';
import { compare } from '../util/sort';
import { vmRoutingReasons } from './vm-routing';

/** The `node.metadata` type of a ComposeApp's warnings (one entry per line, see `ComposeApp.warningsOf`). */
export const WARNING_METADATA = 'cdk8s-compose:warning';

/** The documented defaults of `ComposeAppProps`, in one place. */
export const COMPOSE_APP_DEFAULTS = {
  /** Requests and limits of containers whose compose service sets none. */
  resources: {
    cpuRequest: kplus.Cpu.millis(100),
    cpuLimit: kplus.Cpu.units(1),
    memoryRequest: Size.mebibytes(128),
    memoryLimit: Size.mebibytes(512),
  },
  /** Size of a claim with no size given. */
  storageSize: Size.gibibytes(1),
  /** Ingress hosts are `<service>.<ingressDomain>`. */
  ingressDomain: 'example.com',
  /** The ingress controller's class. */
  ingressClassName: 'nginx',
  /** The ingress controller's namespace, which the NetworkPolicies let in to the Ingress ports. */
  ingressControllerNamespace: 'ingress-nginx',
  /** The controller's rewrite-target annotation. With the default path `/` it rewrites nothing. */
  ingressAnnotations: { 'nginx.ingress.kubernetes.io/rewrite-target': '/' } as Readonly<Record<string, string>>,
  /** Container ports that are HTTP when nothing declares it. */
  httpPorts: [80, 8080] as readonly number[],
  /** initialDelaySeconds and periodSeconds of the HTTP probes. */
  httpProbeInitialDelay: Duration.seconds(10),
  httpProbePeriod: Duration.seconds(10),
  /** How long a dependent waits for a dependency. */
  waitTimeout: Duration.seconds(300),
  /** Image of the TCP waits: needs `sh` and a `nc` with `-z`. */
  waitImage: 'busybox:1.36',
  /**
   * Image of the API waits: kubectl as the entrypoint, no shell needed. The official image starts at 1.28, within
   * kubectl's one-minor-version skew of the 1.27 API this library targets (Bitnami withdrew its versioned tags).
   */
  kubectlImage: 'registry.k8s.io/kubectl:v1.28.15',
} as const;

/** Namespaces the cluster uses itself: an app goes there only with `allowSystemNamespace`, and is never torn down with them. */
export const SYSTEM_NAMESPACES: readonly string[] = ['default', 'kube-node-lease', 'kube-public', 'kube-system'];

/** Props of `ComposeApp`: the compose project (a model or files) and the overrides of how it is migrated. */
export interface ComposeAppProps {
  /**
   * A loaded compose model. Give this or `composeFile`.
   * @default - loaded from `composeFile`
   */
  readonly model?: ComposeModel;
  /**
   * Compose file(s) to load, relative to `loadOptions.workingDir`; several merge in compose's override order.
   * @default - `model` is used
   */
  readonly composeFile?: string | readonly string[];
  /**
   * Options of the loader for `composeFile` (working folder, env files, profiles, images, …).
   * @default - the loader's defaults
   */
  readonly loadOptions?: Omit<LoadComposeOptions, 'files'>;
  /**
   * The registry, `HOST[/PATH]`, that the images of services built from source are pushed to: it goes before
   * `<project>-<service>` (and before an `image:` that names no registry host) when the app loads `composeFile`.
   * With `model`, give it to `loadCompose` instead.
   * @default - `loadOptions.registry`, else the references stay as `docker compose build` tags them
   */
  readonly registry?: string;
  /**
   * The namespace every object lives in.
   * @default - the compose project name as a DNS-1123 label
   */
  readonly namespace?: string;
  /**
   * Accept a namespace the cluster itself uses (`kube-system`, `kube-public`, `kube-node-lease`, `default`). An app
   * there gets a default-deny NetworkPolicy and a ResourceQuota that also bind the cluster's own workloads, so it is
   * refused unless this is set.
   * @default false
   */
  readonly allowSystemNamespace?: boolean;
  /**
   * Render the Namespace object (with the label `name`).
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * Overrides per compose service name.
   * @default - none
   */
  readonly services?: Readonly<Record<string, ServiceOverrides>>;
  /**
   * Overrides per top-level compose volume name.
   * @default - none
   */
  readonly volumes?: Readonly<Record<string, VolumeOverrides>>;
  /**
   * Requests and limits for containers whose compose service sets none.
   * @default - requests 100m cpu and 128Mi memory, limits 1 cpu and 512Mi memory
   */
  readonly defaultResources?: ResourceDefaults;
  /**
   * Size of a claim that compose gives no size for.
   * @default Size.gibibytes(1)
   */
  readonly storageSize?: Size;
  /**
   * storageClassName of the claims.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Ingress hosts default to `<service name>.<ingressDomain>`.
   * @default 'example.com'
   */
  readonly ingressDomain?: string;
  /**
   * `ingressClassName` of the Ingresses.
   * @default 'nginx'
   */
  readonly ingressClassName?: string;
  /**
   * The namespace the ingress controller runs in: the NetworkPolicies let traffic to the Ingress ports in from it.
   * @default 'ingress-nginx'
   */
  readonly ingressControllerNamespace?: string;
  /**
   * Labels of the ingress controller's pods, to narrow that allow rule to them within its namespace.
   * @default - every pod in the ingress controller's namespace
   */
  readonly ingressControllerPodLabels?: Readonly<Record<string, string>>;
  /**
   * Annotations of the Ingresses.
   * @default { 'nginx.ingress.kubernetes.io/rewrite-target': '/' }
   */
  readonly ingressAnnotations?: Readonly<Record<string, string>>;
  /**
   * Container ports that count as HTTP for the exposure rule when nothing declares a service HTTP.
   * @default [80, 8080]
   */
  readonly httpPorts?: readonly number[];
  /**
   * initialDelaySeconds and periodSeconds of the HTTP probes of services declared HTTP.
   * @default - 10 s each
   */
  readonly httpProbes?: Pick<HttpOptions, 'initialDelay' | 'period'>;
  /**
   * Name fragments that make an environment variable sensitive (rule 3).
   * @default DEFAULT_SENSITIVE_NAME_PATTERNS
   */
  readonly sensitiveNamePatterns?: readonly string[];
  /**
   * How long a dependent waits for each dependency before its pod fails (and restarts).
   * @default Duration.seconds(300)
   */
  readonly waitTimeout?: Duration;
  /**
   * Image of the TCP dependency waits.
   * @default 'busybox:1.36'
   */
  readonly waitImage?: string;
  /**
   * Image of the waits that read the API (Jobs, portless services): its entrypoint must be `kubectl`.
   * @default 'registry.k8s.io/kubectl:v1.28.15'
   */
  readonly kubectlImage?: string;
  /**
   * Controller of the stateful dependencies.
   * @default WorkloadController.DEPLOYMENT
   */
  readonly controller?: WorkloadController;
  /**
   * Backups of the stateful dependencies: `true` (or the backup's options) for every one, `false` for none.
   * @default - a daily backup at 03:00 keeping 7, for the stateful dependencies whose data compose keeps in a named
   * volume or a bind mount at the engine's data path (or a folder above it); none for the others (a cache without a
   * volume)
   */
  readonly backup?: DatabaseBackupOptions | boolean;
  /**
   * NetworkPolicies from the compose networks (`true`, or their options), or `false` for none.
   * @default true: default deny, DNS, per-network allows, and ingress from `ingressControllerNamespace`
   */
  readonly networkPolicies?: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'> | boolean;
  /**
   * The ResourceQuota (`true`, or its options such as `hard` amounts), or `false` for none.
   * @default true: computed from the app at its peak plus 20% headroom
   */
  readonly quota?: Omit<NamespaceQuotaProps, 'namespace'> | boolean;
  /**
   * Where services run unless their overrides or `x-cdk8s-compose.target` say otherwise: `ServiceTarget.AUTO` sends
   * the services `assessService` flags to the VM (each reported as `vm-target` with the reasons), `ServiceTarget.VM`
   * sends every service.
   * @default ServiceTarget.CONTAINER
   */
  readonly target?: ServiceTarget;
  /**
   * The golden-image VM that runs the services routed to it (by `target`, the per-service `target`, or
   * `vm.services`): one VirtualMachine booted from an image whose compose project runs them, with a Service per
   * service. Required once a service goes to the VM.
   * @default - no VM
   */
  readonly vm?: ComposeAppVmOptions;
  /**
   * Annotate every object with `argocd.argoproj.io/sync-wave`: its deploy wave's position (0 the Namespace, its quota
   * and policies; 1 the stateful dependencies and what they use; 2 the rest; 3 the VM), as `planWaves` splits the app.
   * Argo CD then applies the waves in order and waits for each to be healthy before the next; other tools ignore it.
   * @default true
   */
  readonly syncWaves?: boolean;
}

/** The app's golden-image VM: `ComposeVm`'s options, less what the app decides. */
export interface ComposeAppVmOptions extends Omit<ComposeVmProps, 'model' | 'services' | 'serviceNames' | 'serviceType' | 'namespace'> {
  /**
   * Services to run in the VM, by compose name, on top of those routed by `target`.
   * @default - none
   */
  readonly services?: readonly string[];
  /**
   * The VM's name (also its bundle's folder `golden-image/<name>/` and image `<name>.qcow2`).
   * @default `<namespace>-vm`
   */
  readonly name?: string;
}

/**
 * A whole compose application as Kubernetes manifests, by the mapping table and rules 1–3 of the spec: a Namespace;
 * per service a workload (Deployment, a Job for one-shot services, a CronJob or StatefulSet by kompose label, or a
 * `StatefulDependency` for databases and caches), a ClusterIP Service, env ConfigMap and Secret, file mounts, claims,
 * external access and dependency waits; NetworkPolicies from the compose networks; a ResourceQuota. Services that
 * cannot run as containers (`target`, `vm`) run in one golden-image VM (`ComposeVm`) whose Services they are reached
 * by, with rule 2 applied both ways.
 *
 * Findings that do not stop the migration (ignored keys, rewrites, relaxed defaults) are in `warnings`, and as lines
 * in the construct metadata that `ComposeApp.warningsOf(app)` collects; nothing is printed. Extend the app through the handles: `app.service('web').deployment`, `.service`, `.ingress`, …, and
 * `app.vm`, `app.vmService('legacy')` for the VM.
 */
export class ComposeApp extends Construct {
  /** The compose model the app was made from. */
  public readonly model: ComposeModel;
  /** The namespace of every object. */
  public readonly namespace: string;
  /** The Namespace object, unless `createNamespace` is false. */
  public readonly namespaceObject?: kplus.Namespace;
  /** The loader's warnings and the app's own, in the order found. */
  public readonly warnings: ComposeWarning[] = [];
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
  /** The Services of extra names (aliases, container names) that files and commands use, by Service name. */
  public readonly aliasServices: Readonly<Record<string, kplus.Service>>;

  private readonly props: ComposeAppProps;
  private readonly migrated = new Map<string, MigratedService>();
  private readonly plans = new Map<string, ServicePlan>();
  private readonly names = new NameRegistry();
  /**
   * Every value the app classified as secret (the loader's and its own), for messages, runbooks and bundles that
   * must print none of them: `redactor.redact(text)`.
   */
  public readonly redactor = new Redactor();
  private readonly secretValues = this.redactor;
  private readonly claimMap = new Map<string, kplus.IPersistentVolumeClaim>();
  private readonly claimUsers = new Map<string, Set<string>>();
  private readonly secretMap = new Map<string, MountedFileSource | undefined>();
  private readonly configMap = new Map<string, MountedFileSource | undefined>();
  private readonly secretObjects: Record<string, KubeSecret> = {};
  private readonly configObjects: Record<string, kplus.ConfigMap | KubeSecret> = {};
  private readonly warned = new Set<string>();
  /** Rule 2's rewriter: compose names, aliases, hostnames and container names → Service names. */
  public readonly hosts: HostRewriter;
  private readonly vmMigrated = new Map<string, VmMigratedService>();
  /** Why each service routed to the VM goes there. */
  private readonly vmReasons = new Map<string, string[]>();

  constructor(scope: Construct, id: string, props: ComposeAppProps = {}) {
    super(scope, id);
    this.props = props;
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
      this.model = props.model;
    } else {
      const files = typeof props.composeFile === 'string' ? [props.composeFile] : [...props.composeFile!];
      const registry = props.registry ?? props.loadOptions?.registry;
      const loaded = loadCompose({ ...props.loadOptions, files, ...(registry !== undefined ? { registry } : {}) });
      this.model = loaded.model;
      this.warnings.push(...loaded.warnings);
    }
    this.namespace = props.namespace ?? toDnsLabel(this.model.name);
    if (!isDnsLabel(this.namespace)) {
      throw new ComposeError(`${this.node.path}: invalid namespace`, {
        value: this.namespace,
        allowed: 'a DNS-1123 label: lower case letters, digits and "-", 1-63 characters',
        hint: 'set the namespace prop',
      });
    }
    if (SYSTEM_NAMESPACES.includes(this.namespace) && !props.allowSystemNamespace) {
      throw new ComposeError(`${this.node.path}: the namespace "${this.namespace}" belongs to the cluster`, {
        allowed: `a namespace of the app's own, not ${SYSTEM_NAMESPACES.join(', ')}`,
        hint: 'choose another namespace (CLI: --namespace NAME, or a different project name), or allow it with '
          + 'allowSystemNamespace: true (CLI: --allow-system-namespace): its default-deny NetworkPolicy and quota then '
          + 'bind the cluster\'s own workloads',
      });
    }
    this.checkOverrides();

    if (props.createNamespace ?? true) {
      this.namespaceObject = new kplus.Namespace(this, 'Namespace', {
        metadata: { name: this.namespace, labels: { name: this.namespace } },
      });
      if (Chart.of(this).namespace !== undefined) {
        // A Namespace is cluster-scoped; the chart's namespace must not reach it.
        ApiObject.of(this.namespaceObject).addJsonPatch(JsonPatch.remove('/metadata/namespace'));
      }
    }

    this.reachability = Reachability.of(this.model);
    this.planServices();
    const aliases = planAliases(this.reachability, this.plans, this.names);
    this.hosts = this.hostRewriter((plan) => plan.hasService, aliases);
    this.collectSecretValues();

    const context = this.context(this.hosts);
    this.createSharedObjects();
    // A sidecar joins its host's pod, so hosts come first; the map is then put back in name order.
    const order = [...this.plans.values()].filter((p) => p.kind !== WorkloadKind.VM)
      .sort((a, b) => Number(a.kind === WorkloadKind.SIDECAR) - Number(b.kind === WorkloadKind.SIDECAR));
    for (const plan of order) {
      this.migrated.set(plan.service.name, this.migrateService(plan, this.settingsFor(plan), context));
    }
    const migrated = [...this.migrated.entries()].sort(([a], [b]) => compare(a, b));
    this.migrated.clear();
    migrated.forEach(([name, service]) => this.migrated.set(name, service));
    this.vm = this.migrateToVm(context);
    this.aliasServices = createAliasServices({
      aliases, services: this.migrated, namespace: this.namespace, warn: (code, message, at) => this.warn(code, message, at),
    });
    reportUnreachable(this.reachability, this.plans, (key, code, message, at) => this.warnOnce(key, code, message, at));
    this.reportPlaceholderHosts();
    this.reportVolumeLabels();
    this.reportSharedClaims();
    this.claims = Object.fromEntries(this.claimMap);
    this.secrets = this.secretObjects;
    this.configs = this.configObjects;

    if (props.networkPolicies !== false) {
      this.networkPolicies = this.renderNetworkPolicies(props.networkPolicies === true ? {} : props.networkPolicies ?? {});
    }
    if (props.quota !== false) {
      this.quota = new NamespaceQuota(this, 'Quota', { ...(props.quota === true ? {} : props.quota ?? {}), namespace: this.namespace });
    }
    if (props.syncWaves ?? true) {
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
    this.node.addValidation({ validate: () => this.ingressCollisions() });
    // Annotations-style, as the AWS CDK's Annotations.addWarning records them: tools and tests read node.metadata.
    for (const group of groupWarnings(this.warnings)) {
      this.node.addMetadata(WARNING_METADATA, formatWarningGroup(group));
    }
  }

  /**
   * The warnings of every ComposeApp under `scope` (an App, a Chart), one line each as the CLI prints them:
   * identical findings of several services as one line naming them all. Print them after `app.synth()`.
   */
  public static warningsOf(scope: IConstruct): string[] {
    return scope.node.findAll().flatMap((c) => c.node.metadata.filter((m) => m.type === WARNING_METADATA).map((m) => String(m.data)));
  }

  /** The compose service migrated to a container workload, by compose name. */
  public service(composeName: string): MigratedService {
    const found = this.migrated.get(composeName);
    if (!found) {
      if (this.vmMigrated.has(composeName)) {
        throw new ComposeError(`${this.node.path}: service "${composeName}" runs in the VM "${this.vm!.vm.name}", not in a container`, {
          hint: `use vmService("${composeName}")`,
        });
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
    const found = this.vmMigrated.get(composeName);
    if (!found) {
      throw new ComposeError(`${this.node.path}: service "${composeName}" does not run in the VM`, {
        allowed: [...this.vmMigrated.keys()].join(', ') || 'no service runs in the VM',
        hint: 'route it with services["<name>"].target: ServiceTarget.VM, vm.services, or target: ServiceTarget.AUTO',
      });
    }
    return found;
  }

  /** Every service that runs in the VM, sorted by compose name. */
  public get vmServices(): VmMigratedService[] {
    return [...this.vmMigrated.values()];
  }

  /**
   * Renders one planned service that runs as a container workload (services routed to the VM are made by the app's
   * `ComposeVm` instead). Override it to route a service elsewhere (another construct) or to adjust what a service
   * gets; call `super.migrateService` for the default.
   */
  protected migrateService(plan: ServicePlan, settings: ServiceSettings, context: MigrationContext): MigratedService {
    return new MigratedService(this, plan.service.name, { plan, settings, context });
  }

  private warn(code: string, message: string, at: ComposeLocation): void {
    // Findings quote values: none of them may carry a secret (the redactor knows them from the constructor's start).
    this.warnings.push({ code, message: this.redactor.redact(message), at });
  }

  /** Warns once per key, for findings that several services would repeat. */
  private warnOnce(key: string, code: string, message: string, at: ComposeLocation): void {
    if (!this.warned.has(key)) {
      this.warned.add(key);
      this.warn(code, message, at);
    }
  }

  private checkOverrides(): void {
    const names = this.model.services.map((s) => s.name);
    for (const name of Object.keys(this.props.services ?? {}).sort()) {
      if (!names.includes(name)) {
        throw new ComposeError(`${this.node.path}: services["${name}"] overrides a service that is not in the compose file`, {
          allowed: names.join(', ') || 'no services',
          hint: 'use the compose service name as written in the file',
        });
      }
    }
    for (const name of [...(this.props.vm?.services ?? [])].sort()) {
      if (!names.includes(name)) {
        throw new ComposeError(`${this.node.path}: vm.services names "${name}", which is not in the compose file`, {
          allowed: names.join(', ') || 'no services',
          hint: 'use the compose service name as written in the file',
        });
      }
    }
    const volumes = this.model.volumes.map((v) => v.name);
    for (const [name, override] of Object.entries(this.props.volumes ?? {}).sort()) {
      if (!volumes.includes(name)) {
        throw new ComposeError(`${this.node.path}: volumes["${name}"] overrides a volume that is not in the compose file`, {
          allowed: volumes.join(', ') || 'no volumes',
        });
      }
      if (override.size !== undefined) {
        checkSize(override.size, `${this.node.path}: volumes["${name}"].size`);
      }
    }
    if (this.props.storageSize !== undefined) {
      checkSize(this.props.storageSize, `${this.node.path}: storageSize`);
    }
    const ingressNamespace = this.props.ingressControllerNamespace;
    if (ingressNamespace !== undefined && !isDnsLabel(ingressNamespace)) {
      throw new ComposeError(`${this.node.path}: ingressControllerNamespace is not a namespace name`, {
        value: ingressNamespace,
        allowed: 'a DNS-1123 label: lower case letters, digits and "-", 1-63 characters',
      });
    }
    for (const [key, value] of Object.entries(this.props.ingressControllerPodLabels ?? {})) {
      if (!isLabelKey(key) || !isLabelValue(value)) {
        throw new ComposeError(`${this.node.path}: ingressControllerPodLabels has a label Kubernetes does not accept`, {
          value: `${key}=${value}`,
          allowed: 'a label key (an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".") and a value of at most 63 of them',
        });
      }
    }
    for (const [name, override] of Object.entries(this.props.services ?? {})) {
      if (override.replicas !== undefined && !(Number.isInteger(override.replicas) && override.replicas >= 0)) {
        throw new ComposeError(`${this.node.path}: services["${name}"].replicas is not a whole number of 0 or more`, {
          value: override.replicas,
        });
      }
      if (override.storageSize !== undefined) {
        checkSize(override.storageSize, `${this.node.path}: services["${name}"].storageSize`);
      }
    }
  }

  private overrides(service: ComposeService): ServiceOverrides {
    return this.props.services?.[service.name] ?? {};
  }

  /** Names, targets, kinds, engines and ports of every service, before any object exists. */
  private planServices(): void {
    const jobs = new Set<string>();
    for (const service of this.model.services) {
      for (const dependency of service.dependsOn) {
        if (dependency.condition === 'service_completed_successfully') {
          jobs.add(dependency.service);
        }
      }
    }
    const vmName = this.vmName();
    for (const service of this.model.services) {
      const overrides = this.overrides(service);
      const extension = readServiceExtension(service);
      const labels = readKomposeLabels(service);
      const name = overrides.name ?? toServiceName(service.name);
      if (!isServiceName(name)) {
        throw new ComposeError(`service "${service.name}" has no usable Kubernetes name`, {
          at: service.at,
          value: name,
          allowed: 'a DNS-1035 label: lower case letters, digits and "-", 1-63 characters, starting with a letter',
          hint: `set services["${service.name}"].name`,
        });
      }
      this.names.claim('Service', name, {
        owner: `service "${service.name}"`,
        at: service.at,
        hint: `rename one of them, or set services["${service.name}"].name in the ComposeApp props`,
      });
      const reasons = this.vmRouting(service, overrides);
      if (reasons.length > 0) {
        this.vmReasons.set(service.name, reasons);
        this.warn('vm-target', `service "${service.name}" runs in the VM "${vmName}": ${reasons.join('; ')}`, service.at);
        const ports = vmPorts(service);
        this.plans.set(service.name, {
          service, name, kind: WorkloadKind.VM, ports, hasService: ports.length > 0, labels, vm: vmName,
        });
        continue;
      }
      const engineChoice = overrides.engine ?? extension.engine;
      let engine = engineChoice === false ? undefined : engineChoice ?? DatabaseEngine.detect(overrides.image ?? service.image);
      let kind = WorkloadKind.DEPLOYMENT;
      if (jobs.has(service.name)) {
        if (labels.cronJob) {
          throw new ComposeError(`service "${service.name}" is awaited with service_completed_successfully, so it runs once as a `
            + `Job, and ${KomposeLabel.CRON_SCHEDULE} would run it on a schedule`, {
            at: labelAt(service, KomposeLabel.CRON_SCHEDULE),
            hint: 'remove the schedule label, or the dependents\' service_completed_successfully condition',
          });
        }
        kind = WorkloadKind.JOB;
        engine = undefined;
      } else if (labels.cronJob) {
        // A scheduled service that uses a database image (a pg_dump job) is a CronJob, not a database.
        kind = WorkloadKind.CRON_JOB;
        engine = undefined;
      } else if (engine && engineChoice === undefined && (overrides.replicas ?? service.deploy.replicas ?? 1) > 1) {
        // The image suggests a database, but compose asks for several replicas: compose wins.
        this.warn('engine-default', `image "${service.image}" looks like ${engine.name}, but the service asks for `
          + `${overrides.replicas ?? service.deploy.replicas} replicas, so it runs as a Deployment with them (a stateful `
          + 'dependency has one pod); set x-cdk8s-compose.engine to run it as one', service.at);
        engine = undefined;
      } else if (engine) {
        kind = WorkloadKind.STATEFUL;
        if (engineChoice === undefined) {
          const backup = (overrides.backup ?? this.props.backup) === false ? '' : ' and a backup CronJob';
          this.warn('engine-default', `image "${service.image}" runs as a ${engine.name} stateful dependency: one pod, its `
            + `data on a claim, a credentials Secret, the engine's readiness check${backup}; the service's own command, `
            + 'ports, environment and volumes are kept (x-cdk8s-compose.engine: none runs it as a plain Deployment)', service.at);
        }
      }
      const ports = withInferredPorts(this.reachability, service, workloadPorts(service), kind, engine, (code, message, at) => this.warn(code, message, at));
      if (kind === WorkloadKind.DEPLOYMENT && labels.controller === KomposeControllerType.STATEFUL_SET && ports.length > 0) {
        kind = WorkloadKind.STATEFUL_SET;
      } else if (kind === WorkloadKind.DEPLOYMENT && (labels.controller === KomposeControllerType.DAEMON_SET
        || (labels.controller === undefined && service.deploy.mode === 'global'))) {
        kind = WorkloadKind.DAEMON_SET;
      }
      if (engine && !ports.some((p) => p.protocol === kplus.Protocol.TCP)) {
        // Compose services reach a database on its port without declaring it; its Service needs it.
        ports.push({ port: engine.port, protocol: kplus.Protocol.TCP, name: portName('tcp', engine.port) });
      }
      const runsToCompletion = kind === WorkloadKind.JOB || kind === WorkloadKind.CRON_JOB;
      this.plans.set(service.name, {
        service,
        name,
        kind,
        engine,
        ports,
        hasService: !runsToCompletion && ports.length > 0,
        controller: kind === WorkloadKind.STATEFUL ? this.statefulController(overrides, labels) : undefined,
        labels,
      });
      if (runsToCompletion && service.ports.length + service.expose.length > 0) {
        this.warn('job-ports', kind === WorkloadKind.JOB
          ? `service "${service.name}" runs as a Job (others wait for it to complete), so its ports get no Service`
          : `service "${service.name}" runs as a CronJob (on its ${KomposeLabel.CRON_SCHEDULE}), so its ports get no Service`, service.at);
      }
    }
    planSidecars(this.plans);
    const routed = [...this.vmReasons.keys()];
    if (routed.length > 0 && !this.props.vm) {
      throw new ComposeError(`${this.node.path}: ${routed.map((n) => `"${n}"`).join(', ')} run${routed.length === 1 ? 's' : ''} in a VM, `
        + 'which needs the vm prop', {
        allowed: 'vm: { imageBaseUrl: "<the folder URL where the golden image is published>" }',
        hint: 'pass vm.imageBaseUrl, or run the services as containers (target: ServiceTarget.CONTAINER)',
      });
    }
    if (routed.length === 0 && this.props.vm) {
      this.warn('vm-unused', `no service runs in the VM, so the vm prop makes nothing (route services with target or vm.services)`, this.model.at);
    }
  }

  /** The controller of a stateful dependency: the prop, else `kompose.controller.type`, else the app's. */
  private statefulController(overrides: ServiceOverrides, labels: KomposeServiceLabels): WorkloadController {
    const label = labels.controller === KomposeControllerType.STATEFUL_SET ? WorkloadController.STATEFUL_SET
      : labels.controller === KomposeControllerType.DEPLOYMENT ? WorkloadController.DEPLOYMENT : undefined;
    return overrides.controller ?? label ?? this.props.controller ?? WorkloadController.DEPLOYMENT;
  }

  /** Why a service runs in the VM, one line each; empty when it runs as a container. */
  private vmRouting(service: ComposeService, overrides: ServiceOverrides): string[] {
    const listed = (this.props.vm?.services ?? []).includes(service.name);
    if (listed && overrides.target !== undefined && overrides.target !== ServiceTarget.VM) {
      throw new ComposeError(`${this.node.path}: vm.services lists "${service.name}", and services["${service.name}"].target is "${overrides.target}"`, {
        hint: 'remove one of them',
      });
    }
    return vmRoutingReasons(service, { override: overrides.target, listed, target: this.props.target });
  }

  /** The VM's name: the prop, else `<namespace>-vm`. */
  private vmName(): string {
    return this.props.vm?.name ?? joinDnsLabel(this.namespace, 'vm');
  }

  /**
   * Rule 2: compose names, aliases, hostnames and container names → Service names, for the services `include`
   * selects (the VM's compose project reaches its own services by their compose names).
   */
  private hostRewriter(include: (plan: ServicePlan) => boolean, aliases: readonly PlannedAlias[] = []): HostRewriter {

    const targets = new Map<string, Set<string>>();
    const add = (from: string | undefined, to: string) => {
      if (from) {
        const key = from.toLowerCase();
        targets.set(key, new Set([...(targets.get(key) ?? []), to]));
      }
    };
    for (const plan of this.plans.values()) {
      if (!include(plan)) {
        continue;
      }
      add(plan.service.name, plan.name);
      add(plan.service.hostname, plan.name);
      add(plan.service.containerName, plan.name);
      for (const network of plan.service.networks) {
        for (const alias of network.aliases) {
          add(alias, plan.name);
        }
      }
    }
    const hosts = new Map<string, string>();
    for (const [from, to] of [...targets.entries()].sort()) {
      if (to.size === 1) {
        hosts.set(from, [...to][0]);
      } else {
        this.warnOnce(`ambiguous-host:${from}`, 'ambiguous-host', `the name "${from}" belongs to several services `
          + `(${[...to].sort().join(', ')}), so it is not rewritten`, this.model.at);
      }
    }
    return new HostRewriter(hosts, new Set(aliases.map((a) => a.name)));
  }

  /** Every secret string of the app, so that no other value or file may carry one outside a Secret. */
  private collectSecretValues(): void {
    const patterns = this.props.sensitiveNamePatterns ?? DEFAULT_SENSITIVE_NAME_PATTERNS;
    for (const service of this.model.services) {
      const extra = this.overrides(service).sensitiveEnv ?? [];
      for (const variable of service.environment) {
        if (isSensitiveName(variable.name, patterns) || extra.includes(variable.name) || hasEmbeddedPassword(variable.value)) {
          this.secretValues.add(variable.value);
          embeddedPasswords(variable.value).forEach((p) => this.secretValues.add(p));
        }
      }
    }
    for (const secret of this.model.secrets) {
      if ('content' in secret.source && !secret.source.content.binary) {
        this.secretValues.add(secret.source.content.text);
      }
    }
    (this.model.secretValues ?? []).forEach((value) => this.secretValues.add(value));
    // Public names: a secret that is part of one is public anyway (weak-secret), and is neither redacted nor refused.
    this.redactor.keepNames([this.model.name, this.namespace, this.props.ingressDomain ?? COMPOSE_APP_DEFAULTS.ingressDomain,
      ...this.model.services.flatMap((s) => [s.name, s.image])]);
    for (const service of this.model.services) {
      checkPlainFields(service, this.overrides(service).ingressHost ?? readServiceExtension(service).ingressHost, this.redactor);
    }
    this.reportWeakSecrets(patterns);
  }

  /**
   * A password such as `postgres` or `airflow` is also part of an image, service or project name, so it shows in
   * the output however well the Secret keeps it. Each one is reported, without the value.
   */
  private reportWeakSecrets(patterns: readonly string[]): void {
    // One search per value in all the names joined by NUL, not one per name (quadratic in services): a value
    // without NUL is found in the joined text exactly when it is part of one of the names.
    const names = [this.model.name, this.namespace, ...this.model.services.flatMap((s) => [s.name, s.image])]
      .map((n) => n.toLowerCase());
    const joined = names.join('\0');
    const inAName = (value: string) => (value.includes('\0') ? names.some((name) => name.includes(value)) : joined.includes(value));
    for (const service of this.model.services) {
      const extra = this.overrides(service).sensitiveEnv ?? [];
      for (const variable of service.environment) {
        const value = variable.value.trim().toLowerCase();
        const sensitive = isSensitiveName(variable.name, patterns) || extra.includes(variable.name);
        if (sensitive && value === '') {
          const engine = DatabaseEngine.detect(service.image);
          this.warn('empty-secret', `${variable.name} is empty, so its Secret key holds 0 bytes`
            + (engine && /PASS/i.test(variable.name) ? `; the ${engine.name} image refuses to start with it empty` : '')
            + '; set a value (an unset variable gives an empty string)', variable.at);
        }
        if (sensitive && value !== '' && inAName(value)) {
          this.warn('weak-secret', `the value of ${variable.name} is also part of an image, service or project name, so it `
            + 'appears outside the Secret anyway; set a real secret', variable.at);
        }
      }
    }
  }

  /**
   * The services routed to the VM: one `ComposeVm` (bundle, VirtualMachine, a Service per service) in the app's
   * namespace, from the compose model with rule 2 applied inside the VM (hosts of container services → their
   * Service names), its unit waiting for the container services they depend on, and a `VmMigratedService` each.
   */
  private migrateToVm(context: MigrationContext): ComposeVm | undefined {
    const plans = [...this.plans.values()].filter((p) => p.kind === WorkloadKind.VM);
    if (plans.length === 0) {
      return undefined;
    }
    const options = this.props.vm!;
    const inVm = new Set(plans.map((p) => p.service.name));
    const vmHosts = this.hostRewriter((plan) => plan.hasService && plan.kind !== WorkloadKind.VM);
    const model: ComposeModel = {
      ...this.model,
      services: this.model.services.map((s) => (inVm.has(s.name) ? this.rewriteForVm(s, vmHosts) : s)),
    };
    const settings = new Map(plans.map((p) => [p.service.name, this.settingsFor(p)]));
    const name = this.vmName();
    this.names.claim('VirtualMachine', name, { owner: 'the VM', at: this.model.at, hint: 'set vm.name' });
    this.names.claim('DataVolume', joinDnsLabel(name, 'rootdisk'), { owner: 'the VM\'s root disk', at: this.model.at, hint: 'set vm.name' });
    const composeVm = new ComposeVm(this, 'Vm', {
      ...options,
      name,
      namespace: this.namespace,
      model,
      services: [...inVm].sort(),
      serviceNames: Object.fromEntries(plans.map((p) => [p.service.name, p.name])),
      resources: options.resources ?? vmResources([...settings.values()]),
      cpu: options.cpu ?? { cores: vmCores([...settings.values()]) },
      bundle: {
        ...options.bundle,
        isSensitive: options.bundle?.isSensitive ?? ((env, service) => this.isSensitiveEnv(env, service)),
        waitFor: { ...this.vmWaits(plans, inVm), ...options.bundle?.waitFor },
      },
    });
    if (composeVm.vm.userDataSecret) {
      this.names.claim('Secret', composeVm.vm.userDataSecret.name, { owner: 'the VM\'s cloud-init user data', at: this.model.at, hint: 'set vm.name' });
    }
    this.warnings.push(...composeVm.warnings.map((w) => ({ ...w, message: this.redactor.redact(w.message) })));
    for (const plan of plans) {
      this.vmMigrated.set(plan.service.name, new VmMigratedService(this, plan.service.name, {
        plan,
        settings: settings.get(plan.service.name)!,
        context,
        composeVm,
        reasons: this.vmReasons.get(plan.service.name)!,
      }));
    }
    return composeVm;
  }

  /**
   * Ingress hosts left at their default, `<service>.example.com`: example.com is reserved for documentation, so no
   * client ever reaches it. Each is reported, to be set with `ingressHost` (`--ingress-host`).
   */
  private reportPlaceholderHosts(): void {
    if (this.props.ingressDomain !== undefined) {
      return;
    }
    for (const service of [...this.migrated.values(), ...this.vmMigrated.values()]) {
      for (const host of [...new Set(service.ingressRules.map((r) => r.host))]) {
        if (host === `${service.name}.${COMPOSE_APP_DEFAULTS.ingressDomain}`) {
          const source = this.model.services.find((s) => s.name === service.composeName);
          this.warn('placeholder-host', `the Ingress of service "${service.composeName}" has the placeholder host "${host}"; set the `
            + `real one (--ingress-host ${service.composeName}=HOST, the ingressHost prop or kompose.service.expose)`, source?.at ?? this.model.at);
        }
      }
    }
  }

  /** Rule 2 inside the VM: env values name container services by their Service names; file references are reported. */
  private rewriteForVm(service: ComposeService, hosts: HostRewriter): ComposeService {
    const environment = service.environment.map((variable) => {
      const rewritten = hosts.rewrite(variable.value);
      for (const rewrite of rewritten.rewrites) {
        this.warn('host-rewrite', `host "${rewrite.from}" in ${variable.name} rewritten to the Service name "${rewrite.to}" (the `
          + 'service runs in the VM and reaches it through its Service)', variable.at);
      }
      return { ...variable, value: rewritten.value };
    });
    const files: Array<[string, string, ComposeLocation]> = [];
    for (const mount of service.volumes) {
      if (mount.bind?.content && !mount.bind.content.binary) {
        files.push([`the bound file "${mount.source}"`, mount.bind.content.text, mount.at]);
      }
    }
    for (const ref of service.configs) {
      const config = this.model.configs.find((c) => c.name === ref.source);
      if (config && 'content' in config.source && !config.source.content.binary) {
        files.push([`config "${config.name}"`, config.source.content.text, config.at]);
      }
    }
    for (const [what, text, at] of files) {
      for (const reference of hosts.references(text)) {
        this.warnOnce(`vm-file:${what}:${reference.from}`, 'file-host-reference', `${what} refers to "${reference.from}", which runs `
          + `outside the VM as the Service "${reference.to}"; edit the file`, at);
      }
    }
    return { ...service, environment };
  }

  /**
   * Dependencies of the VM's services on container services: compose cannot order across the VM's edge, so the VM's
   * unit waits until each one's Service accepts TCP connections before it starts the app.
   */
  private vmWaits(plans: readonly ServicePlan[], inVm: ReadonlySet<string>): Record<string, { host: string; port: number; timeoutSeconds: number }> {
    const waits: Record<string, { host: string; port: number; timeoutSeconds: number }> = {};
    const timeoutSeconds = (this.props.waitTimeout ?? COMPOSE_APP_DEFAULTS.waitTimeout).toSeconds();
    for (const plan of plans) {
      for (const dependency of plan.service.dependsOn) {
        const target = this.plans.get(dependency.service);
        if (!target || inVm.has(dependency.service)) {
          continue;
        }
        const tcp = target.ports.find((p) => p.protocol === kplus.Protocol.TCP);
        if (target.hasService && tcp) {
          waits[dependency.service] = { host: target.name, port: tcp.port, timeoutSeconds };
        } else {
          this.warn('vm-dependency', `"${dependency.service}" has no TCP Service the VM can wait on, so the VM starts without `
            + 'waiting for it', dependency.at);
        }
      }
    }
    return waits;
  }

  /** Rule 3 for the VM's `.env`: the same test the containers' env Secrets use. */
  private isSensitiveEnv(variable: EnvVar, service: ComposeService): boolean {
    const patterns = this.props.sensitiveNamePatterns ?? DEFAULT_SENSITIVE_NAME_PATTERNS;
    return isSensitiveName(variable.name, patterns)
      || (this.overrides(service).sensitiveEnv ?? []).includes(variable.name)
      || hasEmbeddedPassword(variable.value)
      || this.secretValues.foundIn(variable.value);
  }

  /** Every `kompose.*` label of a top-level volume that the claims do not read, reported once. */
  private reportVolumeLabels(): void {
    for (const volume of this.model.volumes) {
      for (const label of Object.keys(volume.labels).sort()) {
        if (label.startsWith('kompose.') && !HONOURED_KOMPOSE_VOLUME_LABELS.includes(label)) {
          this.warn('unsupported-label', `ignored label "${label}": this kompose label is not honoured`, labelAt(volume, label));
        }
      }
    }
  }

  private context(hosts: HostRewriter): MigrationContext {
    const wait: WaitSettings = {
      namespace: this.namespace,
      timeoutSeconds: (this.props.waitTimeout ?? COMPOSE_APP_DEFAULTS.waitTimeout).toSeconds(),
      tcpImage: this.props.waitImage ?? COMPOSE_APP_DEFAULTS.waitImage,
      kubectlImage: this.props.kubectlImage ?? COMPOSE_APP_DEFAULTS.kubectlImage,
    };
    return {
      namespace: this.namespace,
      plans: this.plans,
      hosts,
      secretValues: this.secretValues,
      names: this.names,
      wait,
      claimFor: (volume, user, at) => this.claimFor(volume, user, at),
      secretSource: (name, user, at) => this.secretSource(name, user, at),
      secretContent: (name) => {
        const secret = this.model.secrets.find((s) => s.name === name);
        return secret && 'content' in secret.source && !secret.source.content.binary ? secret.source.content.text.trim() : undefined;
      },
      configSource: (name, user, at) => this.configSource(name, user, at),
      warn: (code, message, at) => this.warn(code, message, at),
      migrated: (composeName) => this.migrated.get(composeName),
    };
  }

  private settingsFor(plan: ServicePlan): ServiceSettings {
    const service = plan.service;
    const overrides = this.overrides(service);
    const extension = readServiceExtension(service);
    const props = this.props;
    const labels = plan.labels;
    const defaultHost = `${plan.name}.${props.ingressDomain ?? COMPOSE_APP_DEFAULTS.ingressDomain}`;
    const givenHost = overrides.ingressHost ?? extension.ingressHost;
    const givenPath = overrides.ingressPath ?? extension.ingressPath;
    // The prop or the x- key names one host; kompose.service.expose may name several, each with its own path.
    const ingressRules: IngressRuleSettings[] = givenHost !== undefined || labels.expose === undefined
      ? [{ host: givenHost ?? defaultHost, path: givenPath ?? '/' }]
      : labels.expose.map((entry) => ({ host: entry.host ?? defaultHost, path: givenPath ?? entry.path ?? '/' }));
    for (const rule of ingressRules) {
      if (!isIngressHost(rule.host)) {
        throw new ComposeError(`service "${service.name}": invalid Ingress host`, {
          at: service.at,
          value: rule.host,
          allowed: 'a lower case DNS name such as "shop.example.com", optionally starting with "*."',
        });
      }
      if (!rule.path.startsWith('/')) {
        throw new ComposeError(`service "${service.name}": invalid Ingress path`, {
          at: service.at, value: rule.path, allowed: 'a path starting with "/"',
        });
      }
    }
    const defaults = props.defaultResources ?? {};
    const d = COMPOSE_APP_DEFAULTS.resources;
    const resourceDefaults: Required<ResolvedResources> = {
      cpuRequestMillis: cpuToMillicores(defaults.cpuRequest ?? d.cpuRequest),
      cpuLimitMillis: cpuToMillicores(defaults.cpuLimit ?? d.cpuLimit),
      memoryRequestBytes: sizeToBytes(defaults.memoryRequest ?? d.memoryRequest),
      memoryLimitBytes: sizeToBytes(defaults.memoryLimit ?? d.memoryLimit),
    };
    const autoscaling = overrides.autoscaling === false ? undefined
      : overrides.autoscaling ?? ServiceAutoscaler.parseKomposeLabels(service.labels, service.at);
    return {
      replicas: overrides.replicas ?? service.deploy.replicas ?? 1,
      image: overrides.image ?? service.image,
      http: this.httpSettings(plan, overrides.http ?? extension.http),
      expose: overrides.expose ?? extension.expose ?? (labels.expose !== undefined ? Exposure.INGRESS : undefined),
      komposeServiceType: labels.serviceType,
      nodePort: labels.nodePort,
      externalTrafficPolicy: labels.externalTrafficPolicy,
      serviceAccountName: labels.serviceAccountName,
      initContainer: labels.initContainer,
      ingressRules: dedupe(ingressRules, (r) => `${r.host}${r.path}`),
      ingressClassName: labels.ingressClassName ?? props.ingressClassName ?? COMPOSE_APP_DEFAULTS.ingressClassName,
      ingressAnnotations: props.ingressAnnotations ?? COMPOSE_APP_DEFAULTS.ingressAnnotations,
      ingressTlsSecret: labels.tlsSecret,
      httpPorts: props.httpPorts ?? COMPOSE_APP_DEFAULTS.httpPorts,
      resources: resolveResources(service, overrides.resources, resourceDefaults),
      sensitiveNamePatterns: props.sensitiveNamePatterns ?? DEFAULT_SENSITIVE_NAME_PATTERNS,
      sensitiveEnv: overrides.sensitiveEnv ?? [],
      allowPrivilegeEscalation: overrides.allowPrivilegeEscalation,
      controller: plan.controller ?? WorkloadController.DEPLOYMENT,
      storageClassName: props.storageClassName,
      stateStorageBytes: storageBytes(overrides.storageSize ?? props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize),
      backup: overrides.backup ?? props.backup,
      autoscaling,
      readinessLabels: labels.readiness,
      livenessLabels: labels.liveness,
      cronJob: labels.cronJob,
      restartPolicy: service.restart === 'no' || service.restart === undefined ? kplus.RestartPolicy.NEVER : kplus.RestartPolicy.ON_FAILURE,
      imagePullPolicy: labels.imagePullPolicy,
      imagePullSecret: labels.imagePullSecret,
      fsGroup: labels.fsGroup,
    };
  }

  private httpSettings(plan: ServicePlan, http: ServiceExtension['http'] | HttpOptions | boolean | undefined): ServiceSettings['http'] {
    if (http === undefined || http === false) {
      return undefined;
    }
    const options: HttpOptions = http === true ? {} : http;
    const service = plan.service;
    const tcp = plan.ports.filter((p) => p.protocol === kplus.Protocol.TCP).map((p) => p.port);
    const publishedTcp = service.ports.filter((p) => p.protocol === 'tcp').map((p) => p.target);
    const port = options.port ?? publishedTcp[0] ?? tcp[0];
    if (port === undefined || !tcp.includes(port)) {
      throw new ComposeError(`service "${service.name}" is declared HTTP on port ${port ?? '(none)'}, which it does not listen on`, {
        at: service.at,
        value: port,
        allowed: tcp.length > 0 ? `one of its TCP ports: ${tcp.join(', ')}` : 'a TCP port from ports or expose; the service has none',
        hint: 'add the port to ports or expose, or give http.port',
      });
    }
    const probes = this.props.httpProbes ?? {};
    const full = http === true ? {} : http as HttpOptions;
    return {
      port,
      livenessPath: options.livenessPath ?? '/health',
      readinessPath: options.readinessPath ?? '/ready',
      initialDelaySeconds: (full.initialDelay ?? probes.initialDelay ?? COMPOSE_APP_DEFAULTS.httpProbeInitialDelay).toSeconds(),
      periodSeconds: (full.period ?? probes.period ?? COMPOSE_APP_DEFAULTS.httpProbePeriod).toSeconds(),
    };
  }

  /**
   * Claims, Secrets and ConfigMaps that several services may share are made before the services, in name order,
   * so the output groups them instead of placing each after its first user.
   */
  private createSharedObjects(): void {
    // What only the VM's services use lives in the VM's compose project, not in Kubernetes.
    const plans = [...this.plans.values()].filter((p) => p.kind !== WorkloadKind.VM);
    for (const volume of this.model.volumes) {
      const user = plans.find((p) => p.service.volumes.some((m) => m.type === 'volume' && m.source === volume.name));
      if (user) {
        this.claimFor(volume.name, user, volume.at, false);
      }
    }
    for (const secret of this.model.secrets) {
      const user = plans.find((p) => p.service.secrets.some((r) => r.source === secret.name));
      if (user) {
        this.secretSource(secret.name, user, secret.at);
      }
    }
    for (const config of this.model.configs) {
      const user = plans.find((p) => p.service.configs.some((r) => r.source === config.name));
      if (user) {
        this.configSource(config.name, user, config.at);
      }
    }
  }

  /** The claim of a named volume: created on first use, referenced when external. */
  private claimFor(volumeName: string, user: ServicePlan, at: ComposeLocation, mounted = true): kplus.IPersistentVolumeClaim {
    const volume = this.model.volumes.find((v) => v.name === volumeName);
    if (!volume) {
      throw new ComposeError(`volume "${volumeName}" is not declared in the top-level volumes`, {
        at, hint: `declare it under volumes:`,
      });
    }
    if (mounted) {
      this.claimUsers.set(volumeName, new Set([...(this.claimUsers.get(volumeName) ?? []), user.service.name]));
    }
    const existing = this.claimMap.get(volumeName);
    if (existing) {
      return existing;
    }
    let claim: kplus.IPersistentVolumeClaim;
    if (volume.external) {
      const name = volume.externalName ?? volume.name;
      this.warn('external-volume', `volume "${volume.name}" is external: the claim "${name}" must exist in namespace `
        + `"${this.namespace}" before deploying`, volume.at);
      claim = kplus.PersistentVolumeClaim.fromClaimName(this, `Volume-${volume.name}`, name);
    } else {
      const name = this.names.claim('PersistentVolumeClaim', toDnsLabel(volume.name) || 'volume', { owner: `volume "${volume.name}"`, at: volume.at });
      if (volume.driver !== undefined && volume.driver !== 'local') {
        this.warn('unsupported-key', `ignored volume driver "${volume.driver}": the claim uses a storage class`, volume.at);
      }
      if (Object.keys(volume.driverOpts).length > 0) {
        this.warn('unsupported-key', 'ignored driver_opts: the claim uses a storage class', volume.at);
      }
      const bytes = this.volumeBytes(volume, user);
      const { size, rounded } = claimSize(bytes);
      if (rounded) {
        this.warn('volume-size-rounded', `volume "${volume.name}" asks for ${bytes} bytes; the claim asks for ${size.toGibibytes()}Gi `
          + '(claims are sized in whole GiB)', volume.at);
      }
      claim = new kplus.PersistentVolumeClaim(this, `Volume-${volume.name}`, {
        metadata: { name, namespace: this.namespace },
        accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
        storage: size,
        storageClassName: this.props.volumes?.[volume.name]?.storageClassName
          ?? volume.labels[KomposeLabel.VOLUME_STORAGE_CLASS]
          ?? user.service.labels[KomposeLabel.VOLUME_STORAGE_CLASS]
          ?? this.props.storageClassName,
      });
    }
    this.claimMap.set(volumeName, claim);
    return claim;
  }

  /** Size of a named volume: the prop, the volume's label, the first user's label, or the default. */
  private volumeBytes(volume: ComposeVolume, user: ServicePlan): number {
    const override = this.props.volumes?.[volume.name]?.size;
    if (override) {
      return storageBytes(override);
    }
    const label = volume.labels[KomposeLabel.VOLUME_SIZE];
    if (label !== undefined) {
      return sizeLabel(label, labelAt(volume, KomposeLabel.VOLUME_SIZE));
    }
    const serviceLabel = user.service.labels[KomposeLabel.VOLUME_SIZE];
    if (serviceLabel !== undefined) {
      return sizeLabel(serviceLabel, labelAt(user.service, KomposeLabel.VOLUME_SIZE));
    }
    return storageBytes(this.props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize);
  }

  private reportSharedClaims(): void {
    for (const [volume, users] of [...this.claimUsers.entries()].sort()) {
      const at = this.model.volumes.find((v) => v.name === volume)!.at;
      if (users.size > 1) {
        this.warn('shared-volume', `volume "${volume}" is mounted by services ${[...users].sort().join(', ')}: its ReadWriteOnce `
          + 'claim attaches to one node at a time, so their pods must land on the same node (or use a ReadWriteMany storage class)', at);
      }
      for (const user of users) {
        const service = this.migrated.get(user);
        if (service?.kind === WorkloadKind.DAEMON_SET) {
          this.warn('shared-volume', `volume "${volume}" is mounted by service "${user}", a DaemonSet with a pod on every node: a `
            + 'ReadWriteOnce claim attaches to one node at a time, so the pods on other nodes stay Pending (use a ReadWriteMany '
            + 'storage class, or run it as a Deployment)', at);
        } else if (service && service.replicas > 1) {
          this.warn('shared-volume', `volume "${volume}" is mounted by ${service.replicas} replicas of service "${user}": a `
            + 'ReadWriteOnce claim attaches to one node at a time', at);
        }
      }
    }
  }

  private secretSource(name: string, _user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined {
    if (this.secretMap.has(name)) {
      return this.secretMap.get(name);
    }
    const secret = this.model.secrets.find((s) => s.name === name);
    let source: MountedFileSource | undefined;
    if (!secret) {
      throw new ComposeError(`secret "${name}" is not declared in the top-level secrets`, { at, hint: 'declare it under secrets:' });
    }
    const key = fileKey(secret.name);
    if (secret.source.kind === 'external' || secret.source.kind === 'outside') {
      source = this.referencedFileSource('secret', secret.name, secret.source, key, secret.at);
    } else {
      const objectName = this.names.claim('Secret', toDnsLabel(secret.name) || 'secret', { owner: `secret "${secret.name}"`, at: secret.at });
      const content = secret.source.content;
      this.secretObjects[secret.name] = new KubeSecret(this, `Secret-${secret.name}`, {
        metadata: { name: objectName, namespace: this.namespace },
        type: 'Opaque',
        data: { [key]: content.binary ? content.text : Buffer.from(content.text, 'utf8').toString('base64') },
      });
      source = { kind: 'Secret', secret: secretHandle(this, `SecretRef-${secret.name}`, this.secretObjects[secret.name]), key };
    }
    this.warnLabels(secret, 'secret');
    this.secretMap.set(name, source);
    return source;
  }

  /**
   * A secret or config the app does not create, referenced by name with a warning: an external one, or a file outside
   * the project that was not read.
   */
  private referencedFileSource(
    what: 'secret' | 'config', name: string, source: Extract<FileSource, { kind: 'external' | 'outside' }>, key: string,
    at: ComposeLocation,
  ): MountedFileSource {
    const kind = what === 'secret' ? 'Secret' : 'ConfigMap';
    const objectName = toDnsLabel(source.kind === 'external' ? source.externalName : name);
    const why = source.kind === 'external' ? 'is external' : `reads "${source.path}", outside the project, which was not read`;
    this.warn(`external-${what}`, `${what} "${name}" ${why}: create the ${kind} "${objectName}" with the key "${key}" in `
      + `namespace "${this.namespace}" before deploying`, at);
    // A reference by name: the object is outside the app.
    const id = `${what === 'secret' ? 'Secret' : 'Config'}Ref-${name}`;
    return what === 'secret'
      ? { kind: 'Secret', secret: kplus.Secret.fromSecretName(this, id, objectName), key }
      : { kind: 'ConfigMap', configMap: kplus.ConfigMap.fromConfigMapName(this, id, objectName), key };
  }

  private configSource(name: string, _user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined {
    if (this.configMap.has(name)) {
      return this.configMap.get(name);
    }
    const config = this.model.configs.find((c) => c.name === name);
    if (!config) {
      throw new ComposeError(`config "${name}" is not declared in the top-level configs`, { at, hint: 'declare it under configs:' });
    }
    const key = fileKey(config.name);
    let source: MountedFileSource | undefined;
    if (config.source.kind === 'external' || config.source.kind === 'outside') {
      source = this.referencedFileSource('config', config.name, config.source, key, config.at);
    } else {
      const content = config.source.content;
      const holdsSecret = !content.binary && this.secretValues.foundIn(content.text);
      const kind = holdsSecret ? 'Secret' : 'ConfigMap';
      const objectName = this.names.claim(kind, toDnsLabel(config.name) || 'config', { owner: `config "${config.name}"`, at: config.at });
      if (holdsSecret) {
        this.warn('file-holds-secret', `config "${config.name}" contains a secret value, so it is kept in the Secret "${objectName}"`, config.at);
        const object = new KubeSecret(this, `Config-${config.name}`, {
          metadata: { name: objectName, namespace: this.namespace },
          type: 'Opaque',
          data: { [key]: Buffer.from(content.text, 'utf8').toString('base64') },
        });
        this.configObjects[config.name] = object;
        source = { kind: 'Secret', secret: secretHandle(this, `ConfigRef-${config.name}`, object), key };
      } else {
        const object = new kplus.ConfigMap(this, `Config-${config.name}`, {
          metadata: { name: objectName, namespace: this.namespace },
          data: content.binary ? undefined : { [key]: content.text },
          binaryData: content.binary ? { [key]: content.text } : undefined,
        });
        this.configObjects[config.name] = object;
        source = { kind: 'ConfigMap', configMap: object, key };
      }
      if (!content.binary) {
        // References are reported once per config, not per service that mounts it.
        for (const reference of this.hosts.references(content.text)) {
          this.warn('file-host-reference', `config "${config.name}" refers to "${reference.from}", which is the Service `
            + `"${reference.to}" in Kubernetes; edit the file`, config.at);
        }
      }
    }
    this.warnLabels(config, 'config');
    this.configMap.set(name, source);
    return source;
  }

  private warnLabels(item: ComposeSecret | ComposeConfig, what: string): void {
    if (Object.keys(item.labels).length > 0) {
      this.warnOnce(`${what}:${item.name}:labels`, 'unsupported-key', `ignored the labels of ${what} "${item.name}"`, item.at);
    }
  }

  private renderNetworkPolicies(options: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'>): ComposeNetworkPolicies {
    const declared = new Set(this.model.networks.map((n) => n.name));
    const workloads: PolicyWorkload[] = [];
    const sidecars = [...this.migrated.values()].filter((s) => s.kind === WorkloadKind.SIDECAR);
    for (const service of this.migrated.values()) {
      if (service.kind === WorkloadKind.SIDECAR) {
        continue;
      }
      const networks = service.networks.filter((n) => declared.has(n));
      const labels = ComposeNetworkPolicies.networkLabels(networks);
      for (const [key, value] of Object.entries(labels)) {
        service.workload.podMetadata.addLabel(key, value);
      }
      const exposed = [service, ...sidecars.filter((s) => s.workload === service.workload)].flatMap((s) => s.publishedPorts)
        .filter((p) => p.access === PortAccess.INGRESS || p.access === PortAccess.LOAD_BALANCER || p.access === PortAccess.NODE_PORT)
        .map((p) => ({
          port: p.mapping.target,
          protocol: p.mapping.protocol,
          via: p.access === PortAccess.INGRESS ? PortExposure.INGRESS : PortExposure.LOAD_BALANCER,
        }));
      workloads.push({
        name: service.name,
        podLabels: { app: service.name },
        networks,
        ports: service.ports.map((p) => ({ port: p.port, protocol: p.protocol.toLowerCase() as Protocol })),
        exposedPorts: dedupe(exposed, (p) => `${p.port}/${p.protocol}/${p.via}`),
        extraEgress: service.waits.some((w) => w.kind !== WaitKind.TCP) ? [ComposeNetworkPolicies.kubernetesApiEgress()] : [],
        at: service.at,
      });
      const backup = service.statefulDependency?.backup;
      if (backup) {
        for (const [key, value] of Object.entries(labels)) {
          backup.cronJob.podMetadata.addLabel(key, value);
        }
        workloads.push({ name: backup.cronJob.name, podLabels: backup.podLabels, networks, at: service.at });
      }
    }
    if (this.vm) {
      workloads.push(this.vm.policyWorkload(this.vmServices.flatMap((s) => s.exposedPorts)));
      workloads.push(this.vm.importerPolicyWorkload());
    }
    return new ComposeNetworkPolicies(this, 'NetworkPolicies', {
      ...options,
      ingressControllerNamespaceLabels: options.ingressControllerNamespaceLabels ?? {
        'kubernetes.io/metadata.name': this.props.ingressControllerNamespace ?? COMPOSE_APP_DEFAULTS.ingressControllerNamespace,
      },
      ingressControllerPodLabels: options.ingressControllerPodLabels ?? this.props.ingressControllerPodLabels,
      namespace: this.namespace,
      networks: this.model.networks.map((n) => ({ name: n.name, internal: n.internal, at: n.at })),
      workloads,
    });
  }

  private ingressCollisions(): string[] {
    const seen = new Map<string, MigratedService | VmMigratedService>();
    const errors: string[] = [];
    for (const service of [...this.migrated.values(), ...this.vmMigrated.values()]) {
      for (const rule of service.ingressRules) {
        const key = `${rule.host}${rule.path}`;
        const other = seen.get(key);
        if (other) {
          errors.push(new ComposeError(`services "${other.composeName}" and "${service.composeName}" both route `
            + `${rule.host}${rule.path} through an Ingress`, {
            at: rule.at,
            allowed: 'one service per Ingress host and path',
            hint: `give one of them another ingressHost or ingressPath in services["${service.composeName}"]`,
          }).message);
        }
        seen.set(key, service);
      }
    }
    return errors;
  }
}

/** Container ports of a service from `ports` and `expose`, one per port and protocol, sorted. */
function workloadPorts(service: ComposeService): WorkloadPort[] {
  const byKey = new Map<string, WorkloadPort>();
  for (const item of [...service.ports, ...service.expose]) {
    const key = `${item.target}/${item.protocol}`;
    if (!byKey.has(key)) {
      byKey.set(key, { port: item.target, protocol: toProtocol(item.protocol), name: portName(item.protocol, item.target) });
    }
  }
  return [...byKey.values()].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0));
}

/**
 * The ports a service in the VM can be reached on, by the VM's compose project's rule: every port and `expose`, less
 * ports bound to one host address (they stay on it); with `network_mode: host` every port.
 */
function vmPorts(service: ComposeService): WorkloadPort[] {
  const reachable = service.networkMode === 'host' ? service.ports
    : service.ports.filter((p) => p.hostIp === undefined || p.hostIp === '0.0.0.0' || p.hostIp === '::');
  return workloadPorts({ ...service, ports: reachable });
}

const GIB = 1024 ** 3;

/** vCPUs of the VM: its services' cpu limits, rounded up, at least 2. */
function vmCores(settings: readonly ServiceSettings[]): number {
  return Math.max(2, Math.ceil(settings.reduce((sum, s) => sum + s.resources.cpuLimitMillis, 0) / 1000));
}

/**
 * Requests and limits of the VM, both set because the namespace's ResourceQuota admits only pods with limits:
 * memory is the services' memory limits plus 1 GiB for the guest OS and Docker (at least 2 GiB), requested and
 * limited alike (the guest sees the request); cpu requests the services' requests and is limited to the vCPUs.
 */
function vmResources(settings: readonly ServiceSettings[]): ComposeVmProps['resources'] {
  const memory = Size.gibibytes(Math.max(2, Math.ceil(settings.reduce((sum, s) => sum + s.resources.memoryLimitBytes, 0) / GIB) + 1));
  const cpuRequest = Math.max(100, settings.reduce((sum, s) => sum + s.resources.cpuRequestMillis, 0));
  return {
    requests: { memory, cpu: cpuFromMillicores(cpuRequest) },
    limits: { memory, cpu: kplus.Cpu.units(vmCores(settings)) },
  };
}

/** A ConfigMap or Secret key for a compose secret or config name. */
function fileKey(name: string): string {
  return /^[-._a-zA-Z0-9]+$/.test(name) ? name : name.replace(/[^-._a-zA-Z0-9]/g, '_');
}

function checkSize(size: Size, what: string): void {
  if (!(storageBytes(size) > 0)) {
    throw new ComposeError(`${what} is not a positive size`, { value: `${storageBytes(size)} bytes`, allowed: STORAGE_QUANTITY_FORMAT });
  }
}

function dedupe<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) {
      return false;
    }
    seen.add(k);
    return true;
  });
}
