/**
 * Which compose keys the model carries, in one place.
 *
 * Every key of the compose specification is listed (from the compose-spec JSON Schema,
 * `definitions.service`, `definitions.deployment` and friends, as pinned in `schemas/compose`; hard-coded here
 * because the library does not read the schemas at run time, and a test holds this table to the schema).
 *
 * - `MODELLED`: the loader reads the key into `ComposeModel`; the constructs may rely on it.
 * - any other value: the key is valid compose but the conversion does not use it; the loader returns one
 *   `unsupported-key` warning per key and service, with this text saying what is ignored.
 * - a key that is not listed and does not start with `x-` is not compose at all: the loader throws a
 *   `ComposeError` with a "did you mean" hint, as `docker compose` refuses such files.
 */
export const MODELLED = 'modelled';

export type KeyTable = Readonly<Record<string, string>>;

export const TOP_LEVEL_KEYS: KeyTable = {
  version: 'the version key is obsolete; the file is read by the current compose specification',
  name: MODELLED,
  include: MODELLED, // resolved by the loader (include.ts)
  services: MODELLED,
  networks: MODELLED,
  volumes: MODELLED,
  secrets: MODELLED,
  configs: MODELLED,
  models: 'AI models run by Docker Model Runner are not converted',
};

const LOCAL_ONLY = 'a Docker-engine setting with no Kubernetes equivalent';

export const SERVICE_KEYS: KeyTable = {
  annotations: 'container annotations are not converted (use labels)',
  attach: 'log attachment is a `docker compose up` setting',
  blkio_config: `block IO weights and limits are ${LOCAL_ONLY}`,
  build: MODELLED,
  cap_add: MODELLED,
  cap_drop: MODELLED,
  cgroup: `the cgroup namespace mode is ${LOCAL_ONLY}`,
  cgroup_parent: `the parent cgroup is ${LOCAL_ONLY}`,
  command: MODELLED,
  configs: MODELLED,
  container_name: MODELLED,
  cpu_count: 'cpu_count is not converted; use deploy.resources.limits.cpus or cpus',
  cpu_percent: 'cpu_percent is not converted; use deploy.resources.limits.cpus or cpus',
  cpu_period: 'CFS period tuning is not converted; use deploy.resources.limits.cpus or cpus',
  cpu_quota: 'CFS quota tuning is not converted; use deploy.resources.limits.cpus or cpus',
  cpu_rt_period: `real-time scheduling is ${LOCAL_ONLY}`,
  cpu_rt_runtime: `real-time scheduling is ${LOCAL_ONLY}`,
  cpu_shares: 'relative cpu shares are not converted; use deploy.resources.reservations.cpus',
  cpus: MODELLED,
  cpuset: `pinning to host cpus is ${LOCAL_ONLY}`,
  credential_spec: 'Windows credential specs are not converted',
  depends_on: MODELLED,
  deploy: MODELLED,
  develop: 'the development watch configuration is a local workflow',
  device_cgroup_rules: `device cgroup rules are ${LOCAL_ONLY}`,
  devices: MODELLED,
  dns: 'custom DNS servers are not converted; the cluster DNS is used',
  dns_opt: 'DNS resolver options are not converted; the cluster DNS is used',
  dns_search: 'DNS search domains are not converted; the cluster DNS is used',
  domainname: 'the container domain name is not converted',
  entrypoint: MODELLED,
  env_file: MODELLED,
  environment: MODELLED,
  expose: MODELLED,
  extends: MODELLED, // resolved by the loader (merge.ts)
  external_links: 'links to containers outside the project are not converted',
  extra_hosts: MODELLED,
  gpus: MODELLED,
  group_add: 'supplementary groups are not converted',
  healthcheck: MODELLED,
  hostname: MODELLED,
  image: MODELLED,
  init: 'the init process is not converted',
  ipc: `the IPC namespace mode is ${LOCAL_ONLY}`,
  isolation: 'Windows isolation is not converted',
  label_file: MODELLED,
  labels: MODELLED,
  links: MODELLED,
  logging: "the logging driver is not converted; container logs go to the cluster's log pipeline",
  mac_address: 'fixed MAC addresses are not converted',
  mem_limit: MODELLED,
  mem_reservation: MODELLED,
  mem_swappiness: `swap tuning is ${LOCAL_ONLY}`,
  memswap_limit: `swap limits are ${LOCAL_ONLY}`,
  models: 'AI models run by Docker Model Runner are not converted',
  network_mode: MODELLED,
  networks: MODELLED,
  oom_kill_disable: `the OOM killer setting is ${LOCAL_ONLY}`,
  oom_score_adj: `the OOM score is ${LOCAL_ONLY}`,
  pid: `the PID namespace mode is ${LOCAL_ONLY}`,
  pids_limit: MODELLED,
  platform: MODELLED,
  ports: MODELLED,
  post_start: MODELLED,
  pre_start: MODELLED,
  pre_stop: MODELLED,
  privileged: MODELLED,
  profiles: MODELLED,
  provider: MODELLED, // a provider service is left out and reported: see normalize.ts
  pull_policy: 'the pull policy is not converted',
  pull_refresh_after: 'the pull policy is not converted',
  read_only: MODELLED,
  restart: MODELLED,
  runtime: 'the container runtime is not converted',
  scale: MODELLED,
  secrets: MODELLED,
  security_opt: 'security options (seccomp, AppArmor, SELinux labels) are not converted',
  shm_size: 'the /dev/shm size is not converted',
  stdin_open: MODELLED,
  stop_grace_period: MODELLED,
  stop_signal: 'the stop signal is not converted; Kubernetes sends SIGTERM',
  storage_opt: `storage driver options are ${LOCAL_ONLY}`,
  sysctls: MODELLED,
  tmpfs: MODELLED,
  tty: MODELLED,
  ulimits: MODELLED,
  use_api_socket: 'access to the Docker API socket is not converted',
  user: MODELLED,
  userns_mode: `the user namespace mode is ${LOCAL_ONLY}`,
  uts: `the UTS namespace mode is ${LOCAL_ONLY}`,
  volumes: MODELLED,
  volumes_from: "mounting another container's volumes is not converted; mount the volumes by name",
  working_dir: MODELLED,
};

const BUILD_ONLY = 'the build context is never read; only the image is used';

export const BUILD_KEYS: KeyTable = {
  context: MODELLED,
  dockerfile: MODELLED,
  target: MODELLED,
  args: MODELLED,
  additional_contexts: BUILD_ONLY,
  cache_from: BUILD_ONLY,
  cache_to: BUILD_ONLY,
  dockerfile_inline: BUILD_ONLY,
  entitlements: BUILD_ONLY,
  extra_hosts: BUILD_ONLY,
  isolation: BUILD_ONLY,
  labels: BUILD_ONLY,
  network: BUILD_ONLY,
  no_cache: BUILD_ONLY,
  no_cache_filter: BUILD_ONLY,
  platforms: MODELLED,
  privileged: BUILD_ONLY,
  provenance: BUILD_ONLY,
  pull: BUILD_ONLY,
  sbom: BUILD_ONLY,
  secrets: BUILD_ONLY,
  shm_size: BUILD_ONLY,
  ssh: BUILD_ONLY,
  tags: BUILD_ONLY,
  ulimits: BUILD_ONLY,
};

export const HEALTHCHECK_KEYS: KeyTable = {
  test: MODELLED,
  interval: MODELLED,
  timeout: MODELLED,
  retries: MODELLED,
  start_period: MODELLED,
  start_interval: MODELLED,
  disable: MODELLED,
};

const SWARM_ONLY = 'a Swarm setting with no use in the conversion';

export const DEPLOY_KEYS: KeyTable = {
  mode: MODELLED,
  replicas: MODELLED,
  labels: MODELLED,
  resources: MODELLED,
  restart_policy: MODELLED,
  endpoint_mode: SWARM_ONLY,
  placement: 'placement constraints and preferences are not converted (use node selectors on the workload)',
  rollback_config: SWARM_ONLY,
  update_config: "the rolling update configuration is not converted; the Deployment's default strategy is used",
};

export const RESOURCES_KEYS: KeyTable = {
  limits: MODELLED,
  reservations: MODELLED,
};

export const LIMITS_KEYS: KeyTable = {
  cpus: MODELLED,
  memory: MODELLED,
  pids: MODELLED,
};

export const RESERVATIONS_KEYS: KeyTable = {
  cpus: MODELLED,
  memory: MODELLED,
  devices: MODELLED,
  generic_resources: 'Swarm generic resources are not converted; use devices',
};

export const DEVICE_REQUEST_KEYS: KeyTable = {
  capabilities: MODELLED,
  count: MODELLED,
  device_ids: MODELLED,
  driver: MODELLED,
  options: MODELLED,
};

export const RESTART_POLICY_KEYS: KeyTable = {
  condition: MODELLED,
  delay: MODELLED,
  max_attempts: MODELLED,
  window: MODELLED,
};

export const PORT_KEYS: KeyTable = {
  target: MODELLED,
  published: MODELLED,
  protocol: MODELLED,
  host_ip: MODELLED,
  mode: MODELLED,
  name: MODELLED,
  app_protocol: MODELLED,
};

export const SERVICE_VOLUME_KEYS: KeyTable = {
  type: MODELLED,
  source: MODELLED,
  target: MODELLED,
  read_only: MODELLED,
  volume: MODELLED,
  tmpfs: MODELLED,
  bind: 'bind mount options (propagation, create_host_path, recursive, selinux) are not converted',
  consistency: 'mount consistency is a Docker Desktop setting',
  image: 'image mounts are not converted',
};

export const SERVICE_VOLUME_VOLUME_KEYS: KeyTable = {
  subpath: MODELLED,
  nocopy: MODELLED,
  labels: 'labels on an implicitly created volume are not converted',
};

export const SERVICE_VOLUME_TMPFS_KEYS: KeyTable = {
  size: MODELLED,
  mode: 'the tmpfs file mode is not converted',
};

export const SERVICE_NETWORK_KEYS: KeyTable = {
  aliases: MODELLED,
  ipv4_address: MODELLED,
  ipv6_address: MODELLED,
  interface_name: 'the interface name is not converted',
  link_local_ips: 'link-local addresses are not converted',
  mac_address: 'fixed MAC addresses are not converted',
  driver_opts: 'network driver options are not converted',
  priority: 'network priority is not converted',
  gw_priority: 'gateway priority is not converted',
};

export const DEPENDS_ON_KEYS: KeyTable = {
  condition: MODELLED,
  required: MODELLED,
  restart: MODELLED,
};

export const FILE_REFERENCE_KEYS: KeyTable = {
  source: MODELLED,
  target: MODELLED,
  uid: MODELLED,
  gid: MODELLED,
  mode: MODELLED,
};

export const ENV_FILE_KEYS: KeyTable = {
  path: MODELLED,
  required: MODELLED,
  format: MODELLED, // only the default compose format is accepted: see normalize.ts
};

export const VOLUME_KEYS: KeyTable = {
  name: MODELLED,
  external: MODELLED,
  driver: MODELLED,
  driver_opts: MODELLED,
  labels: MODELLED,
};

export const NETWORK_KEYS: KeyTable = {
  name: MODELLED,
  driver: MODELLED,
  external: MODELLED,
  internal: MODELLED,
  ipam: MODELLED,
  enable_ipv6: MODELLED,
  labels: MODELLED,
  attachable: SWARM_ONLY,
  driver_opts: 'network driver options are not converted',
  enable_ipv4: 'IPv4 is always on in a cluster',
};

export const IPAM_KEYS: KeyTable = {
  config: MODELLED,
  driver: 'the IPAM driver is not converted; the cluster assigns pod addresses',
  options: 'IPAM driver options are not converted',
};

export const IPAM_CONFIG_KEYS: KeyTable = {
  subnet: MODELLED,
  gateway: 'the gateway is not converted; the cluster assigns pod addresses',
  ip_range: 'the IP range is not converted; the cluster assigns pod addresses',
  aux_addresses: 'auxiliary addresses are not converted',
};

export const SECRET_KEYS: KeyTable = {
  file: MODELLED,
  environment: MODELLED,
  external: MODELLED,
  name: MODELLED,
  labels: MODELLED,
  driver: SWARM_ONLY,
  driver_opts: SWARM_ONLY,
  template_driver: SWARM_ONLY,
};

export const CONFIG_KEYS: KeyTable = {
  file: MODELLED,
  environment: MODELLED,
  content: MODELLED,
  external: MODELLED,
  name: MODELLED,
  labels: MODELLED,
  template_driver: SWARM_ONLY,
};

export const INCLUDE_KEYS: KeyTable = {
  path: MODELLED,
  project_directory: MODELLED,
  env_file: MODELLED,
};

/** `post_start` and `pre_stop` hooks: `lifecycle.postStart` and `lifecycle.preStop` exec handlers. */
export const SERVICE_HOOK_KEYS: KeyTable = {
  command: MODELLED,
  user: "a hook runs as the container's user: Kubernetes has no user per hook",
  privileged: "a hook runs with the container's privileges: Kubernetes has no privilege per hook",
  working_dir: "a hook runs in the container's working directory: Kubernetes has no working directory per hook",
  environment: "a hook sees the container's environment: Kubernetes has no environment per hook",
};

/** `pre_start` hooks: init containers that share the service's volumes. */
export const PRE_START_HOOK_KEYS: KeyTable = {
  command: MODELLED,
  image: MODELLED,
  user: MODELLED,
  privileged: MODELLED,
  working_dir: MODELLED,
  environment: MODELLED,
  per_replica: MODELLED,
};

/** The top-level `models` of Docker Model Runner. */
export const MODEL_KEYS: KeyTable = {
  name: 'AI models run by Docker Model Runner are not converted',
  model: 'AI models run by Docker Model Runner are not converted',
  context_size: 'AI models run by Docker Model Runner are not converted',
  runtime_flags: 'AI models run by Docker Model Runner are not converted',
};

export const EXTERNAL_KEYS: KeyTable = {
  name: MODELLED,
};

export const ULIMIT_KEYS: KeyTable = {
  soft: MODELLED,
  hard: MODELLED,
};

export const GPU_KEYS: KeyTable = DEVICE_REQUEST_KEYS;

/** Edit distance, for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** The closest known key, when one is close enough to be a likely typo. */
export function closestKey(key: string, table: KeyTable): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of Object.keys(table).sort()) {
    const distance = editDistance(key.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}
