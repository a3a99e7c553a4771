// Where a service runs: the values only, in a module without cdk8s, so that the CLI's option parser can load it
// without the construct libraries.

/** Where a service runs; the values are the `x-cdk8s-compose.target` strings (and the CLI's `--target`). */
export enum ServiceTarget {
  /** A container workload (Deployment, Job, CronJob or stateful dependency). */
  CONTAINER = 'container',
  /** The app's golden-image VM (`ComposeAppProps.vm`), which runs it from its own compose project. */
  VM = 'vm',
  /** The VM when `assessService` flags the service (docker.sock, privileged, host network, devices, sysctls, /lib/modules), else a container. */
  AUTO = 'auto',
}
