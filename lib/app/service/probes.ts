import { Duration } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Healthcheck } from '../../compose/model';

/** Compose's healthcheck defaults (docker's): interval 30 s, timeout 30 s, 3 retries, start interval 5 s. */
export const COMPOSE_HEALTHCHECK_DEFAULTS = {
  intervalSeconds: 30,
  timeoutSeconds: 30,
  retries: 3,
  startIntervalSeconds: 5,
} as const;

/** Whole seconds for a probe field: Kubernetes wants integers of at least 1; compose allows `1.5s`. */
export function probeSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

/** The probes of one container. */
export interface ContainerProbes {
  readonly readiness?: kplus.Probe;
  readonly liveness?: kplus.Probe;
  readonly startup?: kplus.Probe;
}

/** The argv of a compose healthcheck test: `CMD` as is, `CMD-SHELL` through `sh -c` as compose runs it. */
export function healthcheckCommand(test: NonNullable<Healthcheck['test']>): string[] {
  return test.kind === 'exec' ? [...test.command] : ['sh', '-c', test.command.join(' ')];
}

/**
 * Readiness and liveness from a compose healthcheck, with its timings: interval → periodSeconds, timeout →
 * timeoutSeconds, retries → failureThreshold. A start_period becomes a startupProbe running the same check every
 * start_interval for as long as the start period lasts (compose ignores failures during it; Kubernetes holds the
 * other probes back until the startup probe succeeds).
 */
export function probesFromHealthcheck(healthcheck: Healthcheck): ContainerProbes {
  const command = healthcheckCommand(healthcheck.test!);
  const period = probeSeconds(healthcheck.intervalSeconds ?? COMPOSE_HEALTHCHECK_DEFAULTS.intervalSeconds);
  const timeout = probeSeconds(healthcheck.timeoutSeconds ?? COMPOSE_HEALTHCHECK_DEFAULTS.timeoutSeconds);
  const retries = Math.max(1, healthcheck.retries ?? COMPOSE_HEALTHCHECK_DEFAULTS.retries);
  const check = (): kplus.Probe =>
    kplus.Probe.fromCommand(command, {
      periodSeconds: Duration.seconds(period),
      timeoutSeconds: Duration.seconds(timeout),
      failureThreshold: retries,
    });
  let startup: kplus.Probe | undefined;
  if ((healthcheck.startPeriodSeconds ?? 0) > 0) {
    const startPeriod = probeSeconds(
      healthcheck.startIntervalSeconds ?? COMPOSE_HEALTHCHECK_DEFAULTS.startIntervalSeconds,
    );
    startup = kplus.Probe.fromCommand(command, {
      periodSeconds: Duration.seconds(startPeriod),
      timeoutSeconds: Duration.seconds(timeout),
      failureThreshold: Math.max(1, Math.ceil(healthcheck.startPeriodSeconds! / startPeriod)),
    });
  }
  return { readiness: check(), liveness: check(), startup };
}

/** The HTTP probes of a service declared HTTP. */
export interface HttpProbeSettings {
  readonly port: number;
  readonly livenessPath: string;
  readonly readinessPath: string;
  /** The paths nobody gave, which the spec's defaults (`/health`, `/ready`) filled in. @default - none */
  readonly defaultedPaths?: readonly ('livenessPath' | 'readinessPath')[];
  readonly initialDelaySeconds: number;
  readonly periodSeconds: number;
}

/** The spec's HTTP probes: liveness `GET /health`, readiness `GET /ready`, on the service's HTTP port. */
export function httpProbes(settings: HttpProbeSettings): ContainerProbes {
  const options = {
    port: settings.port,
    initialDelaySeconds: Duration.seconds(settings.initialDelaySeconds),
    periodSeconds: Duration.seconds(settings.periodSeconds),
  };
  return {
    liveness: kplus.Probe.fromHttpGet(settings.livenessPath, options),
    readiness: kplus.Probe.fromHttpGet(settings.readinessPath, options),
  };
}

/** A tcpSocket readiness probe: the pod is ready when the port accepts connections. */
export function tcpReadiness(port: number): ContainerProbes {
  return { readiness: kplus.Probe.fromTcpSocket({ port, periodSeconds: Duration.seconds(10) }) };
}
