import { CloudConfig } from './cloud-init';

/** Where a VM volume's data comes from. */
export type VmVolumeKind =
  'dataVolume' | 'persistentVolumeClaim' | 'configMap' | 'secret' | 'cloudInitNoCloud' | 'cloudInitNoCloudSecret';

/** A volume of the VM (`spec.template.spec.volumes[]`); the disk with the same name presents it to the guest. */
export class VmVolume {
  /** A DataVolume in the VM's namespace (`dataVolume.name`). */
  public static dataVolume(name: string, dataVolumeName: string): VmVolume {
    return new VmVolume(name, 'dataVolume', dataVolumeName);
  }

  /** A PersistentVolumeClaim in the VM's namespace (`persistentVolumeClaim.claimName`). */
  public static persistentVolumeClaim(name: string, claimName: string): VmVolume {
    return new VmVolume(name, 'persistentVolumeClaim', claimName);
  }

  /** A ConfigMap presented as a disk (`configMap.name`); mount it in the guest by its serial or label. */
  public static configMap(name: string, configMapName: string): VmVolume {
    return new VmVolume(name, 'configMap', configMapName);
  }

  /**
   * A Secret presented as a disk (`secret.secretName`), one file per key. KubeVirt builds the disk from the Secret at
   * each start of the VM, so a changed Secret reaches the guest on restart; find it by the disk's serial.
   */
  public static secret(name: string, secretName: string): VmVolume {
    return new VmVolume(name, 'secret', secretName);
  }

  /**
   * Cloud-init NoCloud user data. Inline (`cloudInitNoCloud.userData`) when it holds no secret, otherwise in a
   * Secret that the VM references (`cloudInitNoCloud.secretRef`).
   */
  public static cloudInitNoCloud(name: string, userData: CloudConfig): VmVolume {
    return new VmVolume(name, 'cloudInitNoCloud', undefined, userData);
  }

  /** Cloud-init NoCloud user data from an existing Secret (key `userdata`), written by the operator. */
  public static cloudInitNoCloudFromSecret(name: string, secretName: string): VmVolume {
    return new VmVolume(name, 'cloudInitNoCloudSecret', secretName);
  }

  private constructor(
    /** The volume name. */
    public readonly name: string,
    /** The kind of source. */
    public readonly kind: VmVolumeKind,
    /** The DataVolume, claim, ConfigMap or Secret referenced. */
    public readonly reference?: string,
    /** The user data, for `cloudInitNoCloud`. */
    public readonly userData?: CloudConfig,
  ) {}
}
