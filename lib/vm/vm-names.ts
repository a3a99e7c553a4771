import { Size } from 'cdk8s';

/** The label that ties a VM's pods to Services and NetworkPolicies (`spec.template.metadata.labels`). */
export const VM_LABEL = 'kubevirt.io/vm';
/** The root disk and its volume. */
export const ROOT_DISK = 'rootdisk';
/** The cloud-init disk and its volume. */
export const CLOUD_INIT_DISK = 'cloudinitdisk';
/** The default interface and its network. */
export const DEFAULT_NETWORK = 'default';
/** Guest memory when neither resources.requests.memory nor resources.limits.memory is given. */
export const DEFAULT_MEMORY = Size.gibibytes(2);

/** Metadata with only the keys given: an explicit `name: undefined` would stop cdk8s from generating the name. */
export function objectMeta(
  name: string | undefined,
  namespace: string | undefined,
): { name?: string; namespace?: string } {
  return { ...(name !== undefined ? { name } : {}), ...(namespace !== undefined ? { namespace } : {}) };
}
