import { Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../compose/errors';
import { ComposeModel, ComposeService } from '../compose/model';
import { DEFAULT_SENSITIVE_NAME_PATTERNS } from '../compose/sensitive';
import { WorkloadController } from '../stateful/stateful-dependency';
import { isDnsLabel, isLabelKey, isLabelValue, joinDnsLabel } from '../base/naming';
import { cpuToMillicores, sizeToBytes } from '../base/quantities';
import { STORAGE_QUANTITY_FORMAT, storageBytes } from '../base/sizes';
import { isIngressHost } from '../util/dns';
import { overridableVolumes } from './storage/claim-sources';
import { COMPOSE_APP_DEFAULTS, ComposeAppProps, SharedVolumes } from './compose-app-props';
import { WaitSettings } from './service/dependency-wait';
import { KomposeControllerType, KomposeServiceLabels } from './kompose/kompose-labels';
import {
  IngressRuleSettings,
  ResolvedResources,
  ServicePlan,
  ServiceSettings,
  resolveResources,
} from './service/migrated-service';
import { ServiceAutoscaler } from './service/autoscaler';
import { Exposure, HttpOptions, ServiceExtension, ServiceOverrides, readServiceExtension } from './settings';
import type { ExternalEndpoint } from './external-service';

/**
 * The app's props resolved against their defaults (`COMPOSE_APP_DEFAULTS`), once: the overrides of each service,
 * each service's settings, the waits', the VM's name. `check` refuses props wrong on their face.
 */
export class AppSettings {
  constructor(private readonly props: ComposeAppProps) {}

  /** The name fragments that make an environment variable sensitive. */
  public get sensitiveNamePatterns(): readonly string[] {
    return this.props.sensitiveNamePatterns ?? DEFAULT_SENSITIVE_NAME_PATTERNS;
  }

  /** The Ingress hosts' domain. */
  public get ingressDomain(): string {
    return this.props.ingressDomain ?? COMPOSE_APP_DEFAULTS.ingressDomain;
  }

  /** True when the Ingress hosts' domain is the placeholder default. */
  public get hasDefaultIngressDomain(): boolean {
    return this.props.ingressDomain === undefined;
  }

  /** The overrides of a compose service (`services[name]`), empty when none. */
  public overrides(service: ComposeService): ServiceOverrides {
    return this.props.services?.[service.name] ?? {};
  }

  /** The managed endpoints of the services replaced by them, by compose name. */
  public externalEndpoints(): Record<string, ExternalEndpoint> {
    return Object.fromEntries(
      Object.entries(this.props.services ?? {})
        .filter(([, o]) => o.external !== undefined)
        .map(([name, o]) => [name, o.external!]),
    );
  }

  /** The VM's name: the prop, else `<namespace>-vm`. */
  public vmName(namespace: string): string {
    return this.props.vm?.name ?? joinDnsLabel(namespace, 'vm');
  }

  /** How dependents wait for their dependencies in `namespace`. */
  public waitSettings(namespace: string): WaitSettings {
    return {
      namespace,
      timeoutSeconds: this.waitTimeoutSeconds,
      tcpImage: this.props.waitImage ?? COMPOSE_APP_DEFAULTS.waitImage,
      kubectlImage: this.props.kubectlImage ?? COMPOSE_APP_DEFAULTS.kubectlImage,
    };
  }

  /** How long a dependent waits for each dependency, in seconds. */
  public get waitTimeoutSeconds(): number {
    return (this.props.waitTimeout ?? COMPOSE_APP_DEFAULTS.waitTimeout).toSeconds();
  }

  /** The controller of a stateful dependency: the prop, else `kompose.controller.type`, else the app's. */
  public statefulController(overrides: ServiceOverrides, labels: KomposeServiceLabels): WorkloadController {
    const label =
      labels.controller === KomposeControllerType.STATEFUL_SET
        ? WorkloadController.STATEFUL_SET
        : labels.controller === KomposeControllerType.DEPLOYMENT
          ? WorkloadController.DEPLOYMENT
          : undefined;
    return overrides.controller ?? label ?? this.props.controller ?? WorkloadController.DEPLOYMENT;
  }

  /** Refuses overrides of services and volumes the model lacks, and sizes, namespaces and labels wrong on their face. */
  public check(path: string, model: ComposeModel): void {
    const props = this.props;
    const names = model.services.map((s) => s.name);
    for (const name of Object.keys(props.services ?? {}).sort()) {
      if (!names.includes(name)) {
        throw new ComposeError(`${path}: services["${name}"] overrides a service that is not in the compose file`, {
          allowed: names.join(', ') || 'no services',
          hint: 'use the compose service name as written in the file',
        });
      }
    }
    for (const name of [...(props.vm?.services ?? [])].sort()) {
      if (!names.includes(name)) {
        throw new ComposeError(`${path}: vm.services names "${name}", which is not in the compose file`, {
          allowed: names.join(', ') || 'no services',
          hint: 'use the compose service name as written in the file',
        });
      }
    }
    const overridable = overridableVolumes(model);
    for (const [name, override] of Object.entries(props.volumes ?? {}).sort()) {
      if (!overridable.accepts(name)) {
        throw new ComposeError(
          `${path}: volumes["${name}"] overrides a volume or bound folder that is not in the compose file`,
          {
            allowed: overridable.allowed.join(', ') || 'no volumes',
            hint: 'name a top-level volume, or a folder a service binds read-write as written (./data)',
          },
        );
      }
      if (override.size !== undefined) {
        checkSize(override.size, `${path}: volumes["${name}"].size`);
      }
    }
    if (props.storageSize !== undefined) {
      checkSize(props.storageSize, `${path}: storageSize`);
    }
    if (
      props.sharedVolumes !== undefined &&
      !Object.values(SharedVolumes).includes(props.sharedVolumes as SharedVolumes)
    ) {
      throw new ComposeError(`${path}: sharedVolumes is not a way to share claims`, {
        value: props.sharedVolumes,
        allowed: Object.values(SharedVolumes).join(', '),
      });
    }
    const ingressNamespace = props.ingressControllerNamespace;
    if (ingressNamespace !== undefined && !isDnsLabel(ingressNamespace)) {
      throw new ComposeError(`${path}: ingressControllerNamespace is not a namespace name`, {
        value: ingressNamespace,
        allowed: 'a DNS-1123 label: lower case letters, digits and "-", 1-63 characters',
      });
    }
    checkLabels(`${path}: ingressControllerPodLabels`, props.ingressControllerPodLabels);
    for (const [name, override] of Object.entries(props.services ?? {})) {
      if (override.replicas !== undefined && !(Number.isInteger(override.replicas) && override.replicas >= 0)) {
        throw new ComposeError(`${path}: services["${name}"].replicas is not a whole number of 0 or more`, {
          value: override.replicas,
        });
      }
      if (override.storageSize !== undefined) {
        checkSize(override.storageSize, `${path}: services["${name}"].storageSize`);
      }
    }
  }

  /** Everything a service's workload needs to know beyond its plan: the props, overrides and labels resolved. */
  public settingsFor(plan: ServicePlan): ServiceSettings {
    const service = plan.service;
    const overrides = this.overrides(service);
    const extension = readServiceExtension(service);
    const props = this.props;
    const labels = plan.labels;
    // Checked in this order, so that the first problem of a service is the one reported.
    const ingressRules = this.ingressRules(plan, overrides, extension);
    const resourceDefaults = this.resourceDefaults();
    const autoscaling =
      overrides.autoscaling === false
        ? undefined
        : (overrides.autoscaling ?? ServiceAutoscaler.parseKomposeLabels(service.labels, service.at));
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
      ingressRules,
      ingressHostGivenBy:
        overrides.ingressHost !== undefined
          ? `services["${service.name}"].ingressHost (--ingress-host ${service.name}=HOST)`
          : extension.ingressHost !== undefined
            ? `x-cdk8s-compose.ingressHost`
            : undefined,
      ingressClassName: labels.ingressClassName ?? props.ingressClassName ?? COMPOSE_APP_DEFAULTS.ingressClassName,
      ingressAnnotations: props.ingressAnnotations ?? COMPOSE_APP_DEFAULTS.ingressAnnotations,
      ingressTlsSecret: labels.tlsSecret,
      httpPorts: props.httpPorts ?? COMPOSE_APP_DEFAULTS.httpPorts,
      resources: resolveResources(service, overrides.resources, resourceDefaults),
      sensitiveNamePatterns: this.sensitiveNamePatterns,
      sensitiveEnv: overrides.sensitiveEnv ?? [],
      existingSecret: overrides.existingSecret,
      existingCredentialsSecret: overrides.existingCredentialsSecret,
      allowPrivilegeEscalation: overrides.allowPrivilegeEscalation,
      controller: plan.controller ?? WorkloadController.DEPLOYMENT,
      storageClassName: props.storageClassName,
      stateStorageBytes: storageBytes(overrides.storageSize ?? props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize),
      // A backup asked for (the service's, else the app's `true` or options) needs the data on a claim to back up.
      stateStorageAsked:
        overrides.storageSize !== undefined ||
        ((overrides.backup ?? props.backup) !== undefined && (overrides.backup ?? props.backup) !== false),
      backup: overrides.backup ?? props.backup,
      autoscaling,
      readinessLabels: labels.readiness,
      livenessLabels: labels.liveness,
      cronJob: labels.cronJob,
      restartPolicy:
        service.restart === 'no' || service.restart === undefined
          ? kplus.RestartPolicy.NEVER
          : kplus.RestartPolicy.ON_FAILURE,
      imagePullPolicy: labels.imagePullPolicy,
      imagePullSecret: labels.imagePullSecret,
      fsGroup: labels.fsGroup,
      copyUp: overrides.copyUp ?? props.copyUp ?? true,
    };
  }

  /** The Ingress rules of a service: the prop or the x- key name one host; kompose.service.expose may name several. */
  private ingressRules(
    plan: ServicePlan,
    overrides: ServiceOverrides,
    extension: ServiceExtension,
  ): IngressRuleSettings[] {
    const service = plan.service;
    const labels = plan.labels;
    const defaultHost = `${plan.name}.${this.ingressDomain}`;
    const givenHost = overrides.ingressHost ?? extension.ingressHost;
    const givenPath = overrides.ingressPath ?? extension.ingressPath;
    const rules: IngressRuleSettings[] =
      givenHost !== undefined || labels.expose === undefined
        ? [{ host: givenHost ?? defaultHost, path: givenPath ?? '/' }]
        : labels.expose.map((entry) => ({ host: entry.host ?? defaultHost, path: givenPath ?? entry.path ?? '/' }));
    for (const rule of rules) {
      if (!isIngressHost(rule.host)) {
        throw new ComposeError(`service "${service.name}": invalid Ingress host`, {
          at: service.at,
          value: rule.host,
          allowed: 'a lower case DNS name such as "shop.example.com", optionally starting with "*."',
        });
      }
      if (!rule.path.startsWith('/')) {
        throw new ComposeError(`service "${service.name}": invalid Ingress path`, {
          at: service.at,
          value: rule.path,
          allowed: 'a path starting with "/"',
        });
      }
    }
    return dedupe(rules, (r) => `${r.host}${r.path}`);
  }

  /** The defaults: requests always; a limit only with `defaultLimits` or where `defaultResources` gives it. */
  private resourceDefaults(): ResolvedResources {
    const defaults = this.props.defaultResources ?? {};
    const d = COMPOSE_APP_DEFAULTS.resources;
    const limited = this.props.defaultLimits ?? false;
    const cpuLimit = defaults.cpuLimit ?? (limited ? d.cpuLimit : undefined);
    const memoryLimit = defaults.memoryLimit ?? (limited ? d.memoryLimit : undefined);
    return {
      cpuRequestMillis: cpuToMillicores(defaults.cpuRequest ?? d.cpuRequest),
      cpuLimitMillis: cpuLimit === undefined ? undefined : cpuToMillicores(cpuLimit),
      memoryRequestBytes: sizeToBytes(defaults.memoryRequest ?? d.memoryRequest),
      memoryLimitBytes: memoryLimit === undefined ? undefined : sizeToBytes(memoryLimit),
    };
  }

  private httpSettings(
    plan: ServicePlan,
    http: ServiceExtension['http'] | HttpOptions | boolean | undefined,
  ): ServiceSettings['http'] {
    if (http === undefined || http === false) {
      return undefined;
    }
    const options: HttpOptions = http === true ? {} : http;
    const service = plan.service;
    const tcp = plan.ports.filter((p) => p.protocol === kplus.Protocol.TCP).map((p) => p.port);
    const publishedTcp = service.ports.filter((p) => p.protocol === 'tcp').map((p) => p.target);
    const port = options.port ?? publishedTcp[0] ?? tcp[0];
    if (port === undefined || !tcp.includes(port)) {
      throw new ComposeError(
        `service "${service.name}" is declared HTTP on port ${port ?? '(none)'}, which it does not listen on`,
        {
          at: service.at,
          value: port,
          allowed:
            tcp.length > 0
              ? `one of its TCP ports: ${tcp.join(', ')}`
              : 'a TCP port from ports or expose; the service has none',
          hint: 'add the port to ports or expose, or give http.port',
        },
      );
    }
    const probes = this.props.httpProbes ?? {};
    const full = http === true ? {} : (http as HttpOptions);
    return {
      port,
      livenessPath: options.livenessPath ?? '/health',
      readinessPath: options.readinessPath ?? '/ready',
      defaultedPaths: (['livenessPath', 'readinessPath'] as const).filter((key) => options[key] === undefined),
      initialDelaySeconds: (
        full.initialDelay ??
        probes.initialDelay ??
        COMPOSE_APP_DEFAULTS.httpProbeInitialDelay
      ).toSeconds(),
      periodSeconds: (full.period ?? probes.period ?? COMPOSE_APP_DEFAULTS.httpProbePeriod).toSeconds(),
    };
  }
}

/** Refuses a label map that Kubernetes would not accept; `what` names it. */
export function checkLabels(what: string, labels: Readonly<Record<string, string>> | undefined): void {
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (!isLabelKey(key) || !isLabelValue(value)) {
      throw new ComposeError(`${what} has a label Kubernetes does not accept`, {
        value: `${key}=${value}`,
        allowed:
          'a label key (an optional DNS prefix and "/", then 1-63 letters, digits, "-", "_" or ".") and a value of at most 63 of them',
      });
    }
  }
}

function checkSize(size: Size, what: string): void {
  if (!(storageBytes(size) > 0)) {
    throw new ComposeError(`${what} is not a positive size`, {
      value: `${storageBytes(size)} bytes`,
      allowed: STORAGE_QUANTITY_FORMAT,
    });
  }
}

/** The items with distinct keys, the first of each kept, in order. */
export function dedupe<T>(items: T[], key: (item: T) => string): T[] {
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
