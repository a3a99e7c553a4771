import {
  ComposeLocation,
  ComposeModel,
  ComposeNetwork,
  ComposeService,
  ComposeVolume,
  Deploy,
  EnvVar,
  PortMapping,
} from '../../lib/compose/model';

/**
 * Hand-built compose models for tests that need a shape the loader would not produce (or would reject), without
 * writing YAML. Everything left out gets compose's defaults; lists are sorted as the loader sorts them.
 */

const FILE = 'compose.yaml';

export function at(path: string): ComposeLocation {
  return { file: FILE, path };
}

function byName<T extends { name: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A port mapping; `published` and `hostIp` as in `"127.0.0.1:8080:80"`. */
export function port(
  target: number,
  options: Partial<Omit<PortMapping, 'target'>> & { index?: number; service?: string } = {},
): PortMapping {
  const { index, service, ...rest } = options;
  return {
    target,
    protocol: 'tcp',
    mode: 'ingress',
    at: at(`services.${service ?? 'svc'}.ports[${index ?? 0}]`),
    ...rest,
  };
}

/** Environment variables from a map, sorted by name. */
export function env(values: Readonly<Record<string, string>>, service = 'svc'): EnvVar[] {
  return Object.keys(values)
    .sort()
    .map((name) => ({
      name,
      value: values[name],
      origin: 'environment' as const,
      at: at(`services.${service}.environment.${name}`),
    }));
}

const EMPTY_DEPLOY: Deploy = {
  limits: { devices: [] },
  reservations: { devices: [] },
  labels: {},
  at: at(''),
};

/** A service with compose's defaults for every key not given. */
export function service(name: string, fields: Partial<ComposeService> = {}): ComposeService {
  const serviceAt = at(`services.${name}`);
  return {
    name,
    image: 'example/app:1.0',
    environment: [],
    ports: [],
    expose: [],
    volumes: [],
    dependsOn: [],
    deploy: { ...EMPTY_DEPLOY, at: at(`services.${name}.deploy`) },
    capAdd: [],
    capDrop: [],
    privileged: false,
    readOnly: false,
    networks: [{ name: 'default', aliases: [], at: serviceAt }],
    devices: [],
    sysctls: {},
    ulimits: [],
    extraHosts: [],
    labels: {},
    secrets: [],
    configs: [],
    profiles: [],
    stdinOpen: false,
    tty: false,
    extensions: {},
    at: serviceAt,
    ...fields,
  };
}

/** A top-level named volume. */
export function volume(name: string, fields: Partial<ComposeVolume> = {}): ComposeVolume {
  return { name, external: false, driverOpts: {}, labels: {}, at: at(`volumes.${name}`), ...fields };
}

/** A top-level network. */
export function network(name: string, fields: Partial<ComposeNetwork> = {}): ComposeNetwork {
  return {
    name,
    internal: false,
    external: false,
    subnets: [],
    enableIpv6: false,
    labels: {},
    at: at(`networks.${name}`),
    ...fields,
  };
}

/** A whole model; the `default` network is added when a service uses it and it is not given. */
export function model(fields: Partial<ComposeModel> & { services: readonly ComposeService[] }): ComposeModel {
  const networks = [...(fields.networks ?? [])];
  const usesDefault = fields.services.some((s) => s.networks.some((n) => n.name === 'default'));
  if (usesDefault && !networks.some((n) => n.name === 'default')) {
    networks.push(network('default'));
  }
  return {
    name: 'test',
    files: [FILE],
    volumes: [],
    secrets: [],
    configs: [],
    extensions: {},
    at: at(''),
    ...fields,
    services: byName(fields.services),
    networks: byName(networks),
  };
}
