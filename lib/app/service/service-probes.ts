import { Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeError } from '../../compose/errors';
import { Healthcheck } from '../../compose/model';
import { KomposeProbeCheck, KomposeProbeLabels } from '../kompose/kompose-labels';
import {
  ContainerProbes,
  healthcheckCommand,
  httpProbes,
  probeSeconds,
  probesFromHealthcheck,
  tcpReadiness,
} from './probes';
import { ServicePartProps, WorkloadKind } from './service-plan';

/** The probes of a service's container, and whether the readiness probe is turned off by a label. */
export interface ServiceProbes extends ContainerProbes {
  readonly readinessOff: boolean;
}

/**
 * The probes: HTTP probes for a service declared HTTP, else the compose healthcheck's, else a tcpSocket readiness
 * probe; then the `kompose.service.healthcheck.*` labels replace (or turn off) the probe they name.
 */
export function serviceProbes(part: ServicePartProps, healthcheck: Healthcheck | undefined): ServiceProbes {
  const { plan, settings, context } = part;
  const readinessLabels = settings.readinessLabels;
  const livenessLabels = settings.livenessLabels;
  if (plan.kind === WorkloadKind.JOB || plan.kind === WorkloadKind.CRON_JOB) {
    for (const labels of [readinessLabels, livenessLabels].filter((l): l is KomposeProbeLabels => l !== undefined)) {
      context.warn(
        'unsupported-label',
        `ignored the ${labels.prefix}.* labels: a ${plan.kind}'s pods run to completion ` + 'and are not probed',
        labels.at,
      );
    }
    return { readinessOff: false };
  }
  let base: ContainerProbes;
  if (settings.http) {
    if (healthcheck?.test) {
      context.warn(
        'healthcheck-replaced',
        'the healthcheck is replaced by the HTTP probes of a service declared HTTP',
        healthcheck.at,
      );
    }
    base = httpProbes(settings.http);
    reportDefaultedPaths(part, settings.http.defaultedPaths ?? [], {
      livenessPath: livenessLabels !== undefined,
      readinessPath: readinessLabels !== undefined,
    });
  } else if (healthcheck?.test) {
    base = probesFromHealthcheck(healthcheck);
  } else {
    if (healthcheck && !(readinessLabels?.check && livenessLabels?.check)) {
      context.warn(
        'healthcheck-inherited',
        "the healthcheck sets only timings, so it uses the image's HEALTHCHECK, which " +
          'Kubernetes does not run; a tcpSocket readiness probe is used where there is a port',
        healthcheck.at,
      );
    }
    const tcp = plan.ports.find((p) => p.protocol === kplus.Protocol.TCP && !p.inferred);
    base = plan.kind === WorkloadKind.STATEFUL || !tcp ? {} : tcpReadiness(tcp.port);
  }
  const fromLabels = (labels: KomposeProbeLabels | undefined, probe: kplus.Probe | undefined, which: string) =>
    labels === undefined ? probe : labels.disabled ? undefined : labelProbe(part, healthcheck, labels, which);
  return {
    readiness: fromLabels(readinessLabels, base.readiness, 'readiness'),
    liveness: fromLabels(livenessLabels, base.liveness, 'liveness'),
    startup: base.startup,
    readinessOff: readinessLabels?.disabled ?? false,
  };
}

/**
 * A probe from `kompose.service.healthcheck.<which>.*`: the labels' check, else the compose healthcheck's test;
 * each timing from the labels, else from the compose healthcheck, else Kubernetes' default.
 */
function labelProbe(
  { plan, settings }: ServicePartProps,
  healthcheck: Healthcheck | undefined,
  labels: KomposeProbeLabels,
  which: string,
): kplus.Probe {
  const check: KomposeProbeCheck | undefined =
    labels.check ?? (healthcheck?.test ? { kind: 'exec', command: healthcheckCommand(healthcheck.test) } : undefined);
  if (!check) {
    throw new ComposeError(`the ${which} labels set timings but no check, and the compose healthcheck has no test`, {
      at: labels.at,
      allowed: `${labels.prefix}.test, .http_get_path or .tcp_port`,
      hint: 'add one of them, or a healthcheck test',
    });
  }
  const seconds = (label: number | undefined, compose: number | undefined) =>
    label !== undefined
      ? Duration.seconds(label)
      : compose !== undefined
        ? Duration.seconds(probeSeconds(compose))
        : undefined;
  const options = {
    periodSeconds: seconds(labels.periodSeconds, healthcheck?.intervalSeconds),
    timeoutSeconds: seconds(labels.timeoutSeconds, healthcheck?.timeoutSeconds),
    failureThreshold: labels.failureThreshold ?? healthcheck?.retries,
    initialDelaySeconds:
      labels.initialDelaySeconds !== undefined ? Duration.seconds(labels.initialDelaySeconds) : undefined,
  };
  switch (check.kind) {
    case 'exec':
      return kplus.Probe.fromCommand([...check.command], options);
    case 'tcp':
      return kplus.Probe.fromTcpSocket({ ...options, port: check.port });
    case 'http': {
      const port = check.port ?? settings.http?.port ?? plan.ports.find((p) => p.protocol === kplus.Protocol.TCP)?.port;
      if (port === undefined) {
        throw new ComposeError(`the ${which} probe's HTTP check has no port, and the service has no TCP port`, {
          at: labels.at,
          hint: `add ${labels.prefix}.http_get_port`,
        });
      }
      return kplus.Probe.fromHttpGet(check.path, { ...options, port });
    }
  }
}

/**
 * A service declared HTTP without its probe paths gets the spec's `/health` and `/ready`, which its app may not
 * serve: a liveness probe on a missing path restarts the pod forever, a readiness probe keeps it out of its Service.
 * Said once per service, naming the prop and the key that set the real paths (a probe a label replaces is not said).
 */
function reportDefaultedPaths(
  { plan, settings, context }: ServicePartProps,
  defaulted: readonly ('livenessPath' | 'readinessPath')[],
  replacedByLabel: Readonly<Record<'livenessPath' | 'readinessPath', boolean>>,
): void {
  const invented = defaulted.filter((key) => !replacedByLabel[key]);
  if (invented.length === 0 || !settings.http) {
    return;
  }
  const name = plan.service.name;
  const probes = invented.map((key) =>
    key === 'livenessPath'
      ? `a liveness probe GET ${settings.http!.livenessPath} (a pod that answers it with an error is restarted)`
      : `a readiness probe GET ${settings.http!.readinessPath} (a pod that does not answer it gets no traffic)`,
  );
  context.warn(
    'invented-probe',
    `service "${name}" is declared HTTP, so it gets ${probes.join(' and ')} on port ${settings.http.port}, ` +
      'paths that compose never named: set the real ones with ' +
      invented.map((key) => `services["${name}"].http.${key}`).join(' and ') +
      ` (or x-cdk8s-compose.http.${invented.join('/')})`,
    plan.service.at,
  );
}
