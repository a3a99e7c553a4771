import { Size } from 'cdk8s';

/** The label that ties a VM's pods to Services and NetworkPolicies (`spec.template.metadata.labels`). */
export const VM_LABEL = 'kubevirt.io/vm';
/** The root disk and its volume. */
export const ROOT_DISK = 'rootdisk';
/** The data disk and its volume (the DataVolume `<vm>-datadisk`). */
export const DATA_DISK = 'datadisk';
/** The data disk's serial: the guest finds it at `/dev/disk/by-id/virtio-app-data`. */
export const DATA_DISK_SERIAL = 'app-data';
/** The disk and volume of the app's Secret (its `.env` and secret files). */
export const APP_SECRETS_DISK = 'appsecrets';
/** The app Secret disk's serial: the guest finds it at `/dev/disk/by-id/virtio-app-secrets`. */
export const APP_SECRETS_SERIAL = 'app-secrets';
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
