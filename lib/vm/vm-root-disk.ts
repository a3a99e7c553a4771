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
  /**
   * Access mode of the claim: `ReadWriteMany` lets the VM live-migrate.
   * @default VmAccessMode.READ_WRITE_ONCE
   */
  readonly accessMode?: VmAccessMode;
}

/** Access mode of a VM disk's claim. */
export enum VmAccessMode {
  /** One node at a time: the VM cannot live-migrate; a node drain stops it, and it starts again elsewhere. */
  READ_WRITE_ONCE = 'ReadWriteOnce',
  /** Shared storage: the VM can live-migrate when its node drains. */
  READ_WRITE_MANY = 'ReadWriteMany',
}

/**
 * CDI v1.56 deletes a DataVolume once its import completes (its garbage collection TTL); Argo CD's self-heal or
 * Flux's re-apply then creates it again, over and over. This annotation keeps it.
 */
export const KEEP_DATA_VOLUME_ANNOTATION = { 'cdi.kubevirt.io/storage.deleteAfterCompletion': 'false' };

/** Props of {@link blankDataVolume}. */
export interface BlankDiskProps {
  /** The DataVolume's name. */
  readonly name?: string;
  readonly namespace?: string;
  /** Size of the claim. */
  readonly storage: Size;
  /**
   * Storage class of the claim.
   * @default - the cluster's default storage class
   */
  readonly storageClassName?: string;
  /**
   * Access mode of the claim.
   * @default VmAccessMode.READ_WRITE_ONCE
   */
  readonly accessMode?: VmAccessMode;
}

/** A blank DataVolume (id `id` in `scope`), kept after CDI creates it: a VM's data disk, formatted by the guest. */
export function blankDataVolume(scope: Construct, id: string, props: BlankDiskProps): DataVolume {
  return new DataVolume(scope, id, {
    metadata: { ...objectMeta(props.name, props.namespace), annotations: { ...KEEP_DATA_VOLUME_ANNOTATION } },
    spec: {
      source: { blank: {} },
      pvc: {
        accessModes: [props.accessMode ?? VmAccessMode.READ_WRITE_ONCE],
        resources: {
          requests: { storage: DataVolumeSpecPvcResourcesRequests.fromString(sizeToQuantity(props.storage)) },
        },
        storageClassName: props.storageClassName,
      },
    },
  });
}

/**
 * The DataVolume (id `DataVolume` in `scope`) that imports a VM's root disk image, sized to hold it, and kept after
 * the import (KEEP_DATA_VOLUME_ANNOTATION).
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
    metadata: {
      ...objectMeta(props.vmName ? `${props.vmName}-${ROOT_DISK}` : undefined, props.namespace),
      annotations: { ...KEEP_DATA_VOLUME_ANNOTATION },
    },
    spec: {
      source:
        image.kind === 'http'
          ? { http: { url: image.url, certConfigMap: image.certConfigMap } }
          : { registry: { url: image.url } },
      pvc: {
        accessModes: [props.accessMode ?? VmAccessMode.READ_WRITE_ONCE],
        resources: { requests: { storage: DataVolumeSpecPvcResourcesRequests.fromString(sizeToQuantity(storage)) } },
        storageClassName: props.storageClassName,
      },
    },
  });
}
