import { ComposeModel, ComposeService, FileReference, Healthcheck, ResourceAmounts } from '../compose/model';
import { sortedRecord } from '../util/sort';

// The compose-file shapes of the model's parts, as the VM's compose file writes them.

/** The top-level `networks` of the services' networks, leaving out a plain `default`. */
export function renderNetworks(
  model: ComposeModel,
  services: readonly ComposeService[],
): Record<string, unknown> | undefined {
  const used = new Set(services.flatMap((s) => s.networks.map((n) => n.name)));
  const networks = model.networks.filter((n) => used.has(n.name) && !(n.name === 'default' && isPlainNetwork(n)));
  if (networks.length === 0) {
    return undefined;
  }
  return Object.fromEntries(
    networks.map((n) => [
      n.name,
      compact({
        driver: n.driver,
        internal: n.internal || undefined,
        external: n.external || undefined,
        enable_ipv6: n.enableIpv6 || undefined,
        ipam: n.subnets.length > 0 ? { config: n.subnets.map((subnet) => ({ subnet })) } : undefined,
        labels: nonEmpty(n.labels),
      }),
    ]),
  );
}

/** The top-level `volumes` of the named volumes the services mount. */
export function renderVolumes(
  model: ComposeModel,
  services: readonly ComposeService[],
): Record<string, unknown> | undefined {
  const used = new Set(
    services.flatMap((s) => s.volumes.filter((v) => v.type === 'volume' && v.source).map((v) => v.source!)),
  );
  const volumes = model.volumes.filter((v) => used.has(v.name));
  if (volumes.length === 0) {
    return undefined;
  }
  return Object.fromEntries(
    volumes.map((v) => [
      v.name,
      compact({
        external: v.external || undefined,
        name: v.externalName,
        driver: v.driver,
        driver_opts: nonEmpty(v.driverOpts),
        labels: nonEmpty(v.labels),
      }),
    ]),
  );
}

export function renderFileReference(ref: FileReference): Record<string, unknown> {
  return compact({
    source: ref.source,
    target: ref.target,
    uid: ref.uid,
    gid: ref.gid,
    mode: ref.mode,
  });
}

export function renderHealthcheck(hc: Healthcheck): Record<string, unknown> {
  if (hc.disabled) {
    return { disable: true };
  }
  return compact({
    test: hc.test
      ? hc.test.kind === 'exec'
        ? ['CMD', ...hc.test.command]
        : ['CMD-SHELL', hc.test.command.join(' ')]
      : undefined,
    interval: hc.intervalSeconds !== undefined ? duration(hc.intervalSeconds) : undefined,
    timeout: hc.timeoutSeconds !== undefined ? duration(hc.timeoutSeconds) : undefined,
    retries: hc.retries,
    start_period: hc.startPeriodSeconds !== undefined ? duration(hc.startPeriodSeconds) : undefined,
    start_interval: hc.startIntervalSeconds !== undefined ? duration(hc.startIntervalSeconds) : undefined,
  });
}

export function renderDeploy(service: ComposeService): Record<string, unknown> | undefined {
  const d = service.deploy;
  const resources = compact({ limits: renderAmounts(d.limits), reservations: renderAmounts(d.reservations) });
  const restart = d.restartPolicy
    ? compact({
        condition: d.restartPolicy.condition,
        delay: d.restartPolicy.delaySeconds !== undefined ? duration(d.restartPolicy.delaySeconds) : undefined,
        max_attempts: d.restartPolicy.maxAttempts,
        window: d.restartPolicy.windowSeconds !== undefined ? duration(d.restartPolicy.windowSeconds) : undefined,
      })
    : undefined;
  const out = compact({
    mode: d.mode,
    replicas: d.replicas,
    resources: Object.keys(resources).length > 0 ? resources : undefined,
    restart_policy: restart,
    labels: nonEmpty(d.labels),
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

function renderAmounts(amounts: ResourceAmounts): Record<string, unknown> | undefined {
  const out = compact({
    cpus: amounts.cpus !== undefined ? String(amounts.cpus) : undefined,
    memory: amounts.memoryBytes !== undefined ? bytes(amounts.memoryBytes) : undefined,
    pids: amounts.pids,
    devices:
      amounts.devices.length > 0
        ? amounts.devices.map((dev) =>
            compact({
              capabilities: [...dev.capabilities],
              driver: dev.driver,
              count: dev.count,
              device_ids: dev.deviceIds.length > 0 ? [...dev.deviceIds] : undefined,
              options: nonEmpty(dev.options),
            }),
          )
        : undefined,
  });
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Compose byte units: the largest binary unit that divides exactly. */
function bytes(value: number): string {
  for (const [unit, size] of [
    ['g', 1024 ** 3],
    ['m', 1024 ** 2],
    ['k', 1024],
  ] as const) {
    if (value % size === 0) {
      return `${value / size}${unit}`;
    }
  }
  return `${value}b`;
}

/** Compose durations: whole seconds as `30s`, fractions as milliseconds. */
export function duration(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function isPlainNetwork(n: ComposeModel['networks'][number]): boolean {
  return (
    !n.internal &&
    !n.external &&
    !n.driver &&
    n.subnets.length === 0 &&
    !n.enableIpv6 &&
    Object.keys(n.labels).length === 0
  );
}

export function isPlainAttachment(n: ComposeService['networks'][number]): boolean {
  return n.aliases.length === 0 && !n.ipv4Address && !n.ipv6Address;
}

export function compact(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}

export function nonEmpty(record: Readonly<Record<string, string>>): Record<string, string> | undefined {
  return Object.keys(record).length > 0 ? sortedRecord(record) : undefined;
}
