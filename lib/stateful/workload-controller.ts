// The controllers of a stateful dependency: the values only, in a module without cdk8s, so that the CLI's option
// parser can load it without the construct libraries.

/** The controller that runs a stateful dependency; the values are the Kubernetes kinds. */
export enum WorkloadController {
  /** A Deployment with 1 replica and the `Recreate` strategy: the old pod lets go of the claim first. */
  DEPLOYMENT = 'Deployment',
  /** A StatefulSet with 1 replica, addressed through the dependency's Service. */
  STATEFUL_SET = 'StatefulSet',
}
