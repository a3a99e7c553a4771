import { Size } from 'cdk8s';
import { Construct } from 'constructs';
import { DataVolume, DataVolumeSpecPvcResourcesRequests } from '../../imports/cdi-dv-cdi.kubevirt.io';
import { sizeToKibibytes, sizeToQuantity } from '../base/sizes';
import { ComposeError } from '../compose/errors';
import { DiskSource } from './disk-source';
import { ROOT_DISK, objectMeta } from './vm-names';

const DEFAULT_STORAGE = Size.gibibytes(20);

/** Props of {@link rootDiskDataVolume}: the image and the claim of a VM's root disk. */
export interface RootDiskProps {
  /**
   * The VM's name as given: the DataVolume is named `<name>-rootdisk`.
   * @default - a name generated from the construct path
   */
  readonly vmName?: string;
  /** The VM's name as rendered, for messages. */
  readonly displayName: string;
  /**
   * `metadata.namespace` of the DataVolume.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
  /** The disk image to import. */
  readonly image: DiskSource;
  /**
   * Size of the claim.
   * @default - the smallest size that holds the image when it is known, otherwise 20Gi
   */
  readonly storage?: Size;
  /**
   * Storage class of the claim.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
}

/**
 * The DataVolume (id `DataVolume` in `scope`) that imports a VM's root disk image, sized to hold it.
 * Throws when the storage given is smaller than the image needs.
 */
export function rootDiskDataVolume(scope: Construct, props: RootDiskProps): DataVolume {
  const image = props.image;
  const storage = props.storage ?? image.minimumStorage ?? DEFAULT_STORAGE;
  if (image.minimumStorage && sizeToKibibytes(storage) < sizeToKibibytes(image.minimumStorage)) {
    throw new ComposeError(
      `VirtualMachine "${props.displayName}": storage ${sizeToQuantity(storage)} is too small for the image`,
      {
        allowed: `at least ${sizeToQuantity(image.minimumStorage)} (the image's virtual size plus CDI's file-system overhead)`,
        hint: 'raise storage, or leave it out to get the smallest size that fits',
      },
    );
  }
  return new DataVolume(scope, 'DataVolume', {
    metadata: objectMeta(props.vmName ? `${props.vmName}-${ROOT_DISK}` : undefined, props.namespace),
    spec: {
      source:
        image.kind === 'http'
          ? { http: { url: image.url, certConfigMap: image.certConfigMap } }
          : { registry: { url: image.url } },
      pvc: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: DataVolumeSpecPvcResourcesRequests.fromString(sizeToQuantity(storage)) } },
        storageClassName: props.storageClassName,
      },
    },
  });
}
