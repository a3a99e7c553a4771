import { ApiObject, Chart, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError, ComposeWarning } from '../compose/errors';
import { LoadComposeOptions, loadCompose } from '../compose/load';
import {
  ComposeConfig, ComposeLocation, ComposeModel, ComposeSecret, ComposeService, ComposeVolume, Protocol,
} from '../compose/model';
import { DatabaseBackupOptions } from '../stateful/database-backup';
import { DatabaseEngine } from '../stateful/engine';
import { WorkloadController } from '../stateful/stateful-dependency';
import { ServiceAutoscaler } from './autoscaler';
import { WaitKind, WaitSettings } from './dependency-wait';
import { HostRewriter } from './host-rewrite';
import {
  MigratedService, MigrationContext, MountedFileSource, PortAccess, ResolvedResources, ServicePlan, ServiceSettings,
  WorkloadKind, WorkloadPort, resolveResources, toProtocol,
} from './migrated-service';
import { NameRegistry, isDnsLabel, isServiceName, portName, toDnsLabel, toServiceName } from './naming';
import {
  ComposeNetworkPolicies, ComposeNetworkPoliciesProps, PortExposure, PolicyWorkload,
} from './network-policy';
import { cpuToMillicores, sizeToBytes } from './quantities';
import { NamespaceQuota, NamespaceQuotaProps } from './quota';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, SecretValues, embeddedPasswords, hasEmbeddedPassword, isSensitiveName } from './sensitive';
import {
  Exposure, HttpOptions, KomposeLabel, ResourceDefaults, ServiceExtension, ServiceOverrides, VolumeOverrides,
  komposeServiceType, readServiceExtension, sizeLabel,
} from './settings';
import { STORAGE_QUANTITY_FORMAT, claimSize, storageBytes } from './storage-size';

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
  /** Image of the API waits: needs `sh` and `kubectl`. */
  kubectlImage: 'bitnami/kubectl:1.27',
} as const;

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
   * The namespace every object lives in.
   * @default - the compose project name as a DNS-1123 label
   */
  readonly namespace?: string;
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
   * Image of the waits that read the API (Jobs, portless services).
   * @default 'bitnami/kubectl:1.27'
   */
  readonly kubectlImage?: string;
  /**
   * Controller of the stateful dependencies.
   * @default WorkloadController.DEPLOYMENT
   */
  readonly controller?: WorkloadController;
  /**
   * Backups of the stateful dependencies, or `false`.
   * @default - daily at 03:00, keeping 7
   */
  readonly backup?: DatabaseBackupOptions | false;
  /**
   * NetworkPolicies from the compose networks, with options, or `false` for none.
   * @default - default deny, DNS, per-network allows, ingress from the `ingress-nginx` namespace
   */
  readonly networkPolicies?: Omit<ComposeNetworkPoliciesProps, 'namespace' | 'networks' | 'workloads'> | false;
  /**
   * The ResourceQuota, with options, or `false` for none.
   * @default - computed from the app at its peak plus 20% headroom
   */
  readonly quota?: Omit<NamespaceQuotaProps, 'namespace'> | false;
}

/**
 * A whole compose application as Kubernetes manifests, by the mapping table and rules 1–3 of the spec: a Namespace;
 * per service a workload (Deployment, a Job for one-shot services, or a `StatefulDependency` for databases and
 * caches), a ClusterIP Service, env ConfigMap and Secret, file mounts, claims, external access and dependency waits;
 * NetworkPolicies from the compose networks; a ResourceQuota.
 *
 * Findings that do not stop the migration (ignored keys, rewrites, relaxed defaults) are in `warnings`; nothing is
 * printed. Extend the app through the handles: `app.service('web').deployment`, `.service`, `.ingress`, ….
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

  private readonly props: ComposeAppProps;
  private readonly migrated = new Map<string, MigratedService>();
  private readonly plans = new Map<string, ServicePlan>();
  private readonly names = new NameRegistry();
  private readonly secretValues = new SecretValues();
  private readonly claimMap = new Map<string, kplus.IPersistentVolumeClaim>();
  private readonly claimUsers = new Map<string, Set<string>>();
  private readonly secretMap = new Map<string, MountedFileSource | undefined>();
  private readonly configMap = new Map<string, MountedFileSource | undefined>();
  private readonly secretObjects: Record<string, KubeSecret> = {};
  private readonly configObjects: Record<string, kplus.ConfigMap | KubeSecret> = {};
  private readonly warned = new Set<string>();
  private readonly hosts: HostRewriter;

  constructor(scope: Construct, id: string, props: ComposeAppProps = {}) {
    super(scope, id);
    this.props = props;
    if ((props.model === undefined) === (props.composeFile === undefined)) {
      throw new ComposeError(`${this.node.path}: give exactly one of model and composeFile`, {
        hint: 'pass a loaded model, or the compose file to load',
      });
    }
    if (props.model) {
      this.model = props.model;
    } else {
      const files = typeof props.composeFile === 'string' ? [props.composeFile] : [...props.composeFile!];
      const loaded = loadCompose({ ...props.loadOptions, files });
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

    this.planServices();
    this.hosts = this.hostRewriter();
    this.collectSecretValues();

    const context = this.context(this.hosts);
    this.createSharedObjects();
    for (const plan of this.plans.values()) {
      const service = this.migrateService(plan, this.settingsFor(plan), context);
      this.migrated.set(plan.service.name, service);
    }
    this.reportSharedClaims();
    this.claims = Object.fromEntries(this.claimMap);
    this.secrets = this.secretObjects;
    this.configs = this.configObjects;

    if (props.networkPolicies !== false) {
      this.networkPolicies = this.renderNetworkPolicies(props.networkPolicies ?? {});
    }
    if (props.quota !== false) {
      this.quota = new NamespaceQuota(this, 'Quota', { ...(props.quota ?? {}), namespace: this.namespace });
    }
    this.node.addValidation({ validate: () => this.ingressCollisions() });
  }

  /** The migrated compose service, by compose name. */
  public service(composeName: string): MigratedService {
    const found = this.migrated.get(composeName);
    if (!found) {
      throw new ComposeError(`${this.node.path}: no compose service "${composeName}"`, {
        allowed: [...this.migrated.keys()].join(', ') || 'no services',
      });
    }
    return found;
  }

  /** Every migrated service, sorted by compose name. */
  public get services(): MigratedService[] {
    return [...this.migrated.values()];
  }

  /**
   * Renders one planned service. Override it to route a service elsewhere (another construct, a VM) or to adjust
   * what a service gets; call `super.migrateService` for the default.
   */
  protected migrateService(plan: ServicePlan, settings: ServiceSettings, context: MigrationContext): MigratedService {
    return new MigratedService(this, plan.service.name, { plan, settings, context });
  }

  private warn(code: string, message: string, at: ComposeLocation): void {
    this.warnings.push({ code, message, at });
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

  /** Names, kinds, engines and ports of every service, before any object exists. */
  private planServices(): void {
    const jobs = new Set<string>();
    for (const service of this.model.services) {
      for (const dependency of service.dependsOn) {
        if (dependency.condition === 'service_completed_successfully') {
          jobs.add(dependency.service);
        }
      }
    }
    for (const service of this.model.services) {
      const overrides = this.overrides(service);
      const extension = readServiceExtension(service);
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
      const engineChoice = overrides.engine ?? extension.engine;
      let engine = engineChoice === false ? undefined : engineChoice ?? DatabaseEngine.detect(overrides.image ?? service.image);
      let kind = WorkloadKind.DEPLOYMENT;
      if (jobs.has(service.name)) {
        kind = WorkloadKind.JOB;
        engine = undefined;
      } else if (engine) {
        kind = WorkloadKind.STATEFUL;
      }
      const ports = workloadPorts(service);
      if (engine && !ports.some((p) => p.protocol === kplus.Protocol.TCP)) {
        // Compose services reach a database on its port without declaring it; its Service needs it.
        ports.push({ port: engine.port, protocol: kplus.Protocol.TCP, name: portName('tcp', engine.port) });
      }
      this.plans.set(service.name, {
        service,
        name,
        kind,
        engine,
        ports,
        hasService: kind !== WorkloadKind.JOB && ports.length > 0,
        controller: kind === WorkloadKind.STATEFUL ? overrides.controller ?? this.props.controller ?? WorkloadController.DEPLOYMENT : undefined,
      });
      if (kind === WorkloadKind.JOB && service.ports.length + service.expose.length > 0) {
        this.warn('job-ports', `service "${service.name}" runs as a Job (others wait for it to complete), so its ports get no Service`, service.at);
      }
    }
  }

  /** Rule 2: compose names, aliases, hostnames and container names → Service names. */
  private hostRewriter(): HostRewriter {
    const targets = new Map<string, Set<string>>();
    const add = (from: string | undefined, to: string) => {
      if (from) {
        const key = from.toLowerCase();
        targets.set(key, new Set([...(targets.get(key) ?? []), to]));
      }
    };
    for (const plan of this.plans.values()) {
      if (!plan.hasService) {
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
        this.warn('ambiguous-host', `the name "${from}" belongs to several services (${[...to].sort().join(', ')}), so it is not rewritten`, this.model.at);
      }
    }
    return new HostRewriter(hosts);
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
    this.reportWeakSecrets(patterns);
  }

  /**
   * A password such as `postgres` or `airflow` is also part of an image, service or project name, so it shows in
   * the output however well the Secret keeps it. Each one is reported, without the value.
   */
  private reportWeakSecrets(patterns: readonly string[]): void {
    const names = [this.model.name, this.namespace, ...this.model.services.flatMap((s) => [s.name, s.image])]
      .map((n) => n.toLowerCase());
    for (const service of this.model.services) {
      const extra = this.overrides(service).sensitiveEnv ?? [];
      for (const variable of service.environment) {
        const value = variable.value.trim().toLowerCase();
        const sensitive = isSensitiveName(variable.name, patterns) || extra.includes(variable.name);
        if (sensitive && value !== '' && names.some((name) => name.includes(value))) {
          this.warn('weak-secret', `the value of ${variable.name} is also part of an image, service or project name, so it `
            + 'appears outside the Secret anyway; set a real secret', variable.at);
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
    };
  }

  private settingsFor(plan: ServicePlan): ServiceSettings {
    const service = plan.service;
    const overrides = this.overrides(service);
    const extension = readServiceExtension(service);
    const props = this.props;
    const type = komposeServiceType(service);
    const exposeLabel = service.labels[KomposeLabel.SERVICE_EXPOSE];
    let labelHost: string | undefined;
    let labelPath: string | undefined;
    if (exposeLabel !== undefined && exposeLabel.toLowerCase() !== 'true') {
      const first = exposeLabel.split(',')[0].trim();
      const slash = first.indexOf('/');
      labelHost = slash < 0 ? first : first.slice(0, slash);
      labelPath = slash < 0 ? undefined : first.slice(slash);
    }
    const ingressHost = overrides.ingressHost ?? extension.ingressHost ?? labelHost
      ?? `${plan.name}.${props.ingressDomain ?? COMPOSE_APP_DEFAULTS.ingressDomain}`;
    if (!/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(ingressHost)) {
      throw new ComposeError(`service "${service.name}": invalid Ingress host`, {
        at: service.at,
        value: ingressHost,
        allowed: 'a lower case DNS name such as "shop.example.com", optionally starting with "*."',
      });
    }
    const ingressPath = overrides.ingressPath ?? extension.ingressPath ?? labelPath ?? '/';
    if (!ingressPath.startsWith('/')) {
      throw new ComposeError(`service "${service.name}": invalid Ingress path`, {
        at: service.at, value: ingressPath, allowed: 'a path starting with "/"',
      });
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
      expose: overrides.expose ?? extension.expose ?? (exposeLabel !== undefined ? Exposure.INGRESS : undefined),
      komposeServiceType: type,
      ingressHost,
      ingressPath,
      ingressClassName: service.labels[KomposeLabel.INGRESS_CLASS] ?? props.ingressClassName ?? COMPOSE_APP_DEFAULTS.ingressClassName,
      ingressAnnotations: props.ingressAnnotations ?? COMPOSE_APP_DEFAULTS.ingressAnnotations,
      ingressTlsSecret: service.labels[KomposeLabel.TLS_SECRET],
      httpPorts: props.httpPorts ?? COMPOSE_APP_DEFAULTS.httpPorts,
      resources: resolveResources(service, overrides.resources, resourceDefaults),
      sensitiveNamePatterns: props.sensitiveNamePatterns ?? DEFAULT_SENSITIVE_NAME_PATTERNS,
      sensitiveEnv: overrides.sensitiveEnv ?? [],
      allowPrivilegeEscalation: overrides.allowPrivilegeEscalation,
      controller: plan.controller ?? WorkloadController.DEPLOYMENT,
      storageClassName: props.storageClassName,
      stateStorageBytes: storageBytes(overrides.storageSize ?? props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize),
      backup: overrides.backup ?? props.backup ?? {},
      autoscaling,
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
    const plans = [...this.plans.values()];
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
      return sizeLabel(label, { ...volume.at, path: `${volume.at.path}.labels.${KomposeLabel.VOLUME_SIZE}` });
    }
    const serviceLabel = user.service.labels[KomposeLabel.VOLUME_SIZE];
    if (serviceLabel !== undefined) {
      return sizeLabel(serviceLabel, { ...user.service.at, path: `${user.service.at.path}.labels.${KomposeLabel.VOLUME_SIZE}` });
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
        if (service && service.replicas > 1) {
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
      const objectName = toDnsLabel(secret.source.kind === 'external' ? secret.source.externalName : secret.name);
      const why = secret.source.kind === 'external' ? 'is external' : `reads "${secret.source.path}", outside the project, which was not read`;
      this.warn('external-secret', `secret "${secret.name}" ${why}: create the Secret "${objectName}" with the key "${key}" in `
        + `namespace "${this.namespace}" before deploying`, secret.at);
      source = { kind: 'Secret', name: objectName, key };
    } else {
      const objectName = this.names.claim('Secret', toDnsLabel(secret.name) || 'secret', { owner: `secret "${secret.name}"`, at: secret.at });
      const content = secret.source.content;
      this.secretObjects[secret.name] = new KubeSecret(this, `Secret-${secret.name}`, {
        metadata: { name: objectName, namespace: this.namespace },
        type: 'Opaque',
        data: { [key]: content.binary ? content.text : Buffer.from(content.text, 'utf8').toString('base64') },
      });
      source = { kind: 'Secret', name: objectName, key };
    }
    this.warnLabels(secret, 'secret');
    this.secretMap.set(name, source);
    return source;
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
      const objectName = toDnsLabel(config.source.kind === 'external' ? config.source.externalName : config.name);
      const why = config.source.kind === 'external' ? 'is external' : `reads "${config.source.path}", outside the project, which was not read`;
      this.warn('external-config', `config "${config.name}" ${why}: create the ConfigMap "${objectName}" with the key "${key}" in `
        + `namespace "${this.namespace}" before deploying`, config.at);
      source = { kind: 'ConfigMap', name: objectName, key };
    } else {
      const content = config.source.content;
      const holdsSecret = !content.binary && this.secretValues.foundIn(content.text);
      const kind = holdsSecret ? 'Secret' : 'ConfigMap';
      const objectName = this.names.claim(kind, toDnsLabel(config.name) || 'config', { owner: `config "${config.name}"`, at: config.at });
      if (holdsSecret) {
        this.warn('file-holds-secret', `config "${config.name}" contains a secret value, so it is kept in the Secret "${objectName}"`, config.at);
        this.configObjects[config.name] = new KubeSecret(this, `Config-${config.name}`, {
          metadata: { name: objectName, namespace: this.namespace },
          type: 'Opaque',
          data: { [key]: Buffer.from(content.text, 'utf8').toString('base64') },
        });
      } else {
        this.configObjects[config.name] = new kplus.ConfigMap(this, `Config-${config.name}`, {
          metadata: { name: objectName, namespace: this.namespace },
          data: content.binary ? undefined : { [key]: content.text },
          binaryData: content.binary ? { [key]: content.text } : undefined,
        });
      }
      if (!content.binary) {
        // References are reported once per config, not per service that mounts it.
        for (const reference of this.hosts.references(content.text)) {
          this.warn('file-host-reference', `config "${config.name}" refers to "${reference.from}", which is the Service `
            + `"${reference.to}" in Kubernetes; edit the file`, config.at);
        }
      }
      source = { kind, name: objectName, key };
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
    for (const service of this.migrated.values()) {
      const networks = service.networks.filter((n) => declared.has(n));
      const labels = ComposeNetworkPolicies.networkLabels(networks);
      for (const [key, value] of Object.entries(labels)) {
        service.workload.podMetadata.addLabel(key, value);
      }
      const exposed = service.publishedPorts
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
    return new ComposeNetworkPolicies(this, 'NetworkPolicies', {
      ...options,
      namespace: this.namespace,
      networks: this.model.networks.map((n) => ({ name: n.name, internal: n.internal, at: n.at })),
      workloads,
    });
  }

  private ingressCollisions(): string[] {
    const seen = new Map<string, MigratedService>();
    const errors: string[] = [];
    for (const service of this.migrated.values()) {
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
