import { Lazy } from 'cdk8s';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { CLOUD_INIT_DISK, objectMeta } from './vm-names';
import { VmVolume } from './vm-volume';

/** Props of {@link VmUserDataSecrets}. */
export interface VmUserDataSecretsProps {
  /**
   * The VM's name given by the user: the Secrets are named `<name>-<volume>`.
   * @default - generated from the construct path
   */
  readonly vmName?: string;
  /**
   * `metadata.namespace` of the Secrets.
   * @default - the chart's namespace
   */
  readonly namespace?: string;
}

/**
 * The Secrets that hold cloud-init user data which carries a secret (a password from the environment, a sensitive
 * file), one per volume, so the value never sits in the VirtualMachine. Created in the VM's scope (ids `UserData`
 * for the cloud-init disk, `UserData-<volume>` for others).
 */
export class VmUserDataSecrets {
  private readonly byVolume = new Map<string, KubeSecret>();
  private firstSecret?: KubeSecret;

  constructor(
    private readonly scope: Construct,
    private readonly props: VmUserDataSecretsProps,
  ) {}

  /** The first Secret created. */
  public get first(): KubeSecret | undefined {
    return this.firstSecret;
  }

  /** The Secret of a volume's user data, when it has one. */
  public secretOf(volume: string): KubeSecret | undefined {
    return this.byVolume.get(volume);
  }

  /** Puts a cloud-init volume's user data into a Secret; its content is rendered at synth. */
  public add(volume: VmVolume): KubeSecret {
    const id = volume.name === CLOUD_INIT_DISK ? 'UserData' : `UserData-${volume.name}`;
    const userData = volume.userData!;
    const secret = new KubeSecret(this.scope, id, {
      metadata: objectMeta(this.props.vmName ? `${this.props.vmName}-${volume.name}` : undefined, this.props.namespace),
      type: 'Opaque',
      data: Lazy.any({ produce: () => ({ userdata: Buffer.from(userData.render(), 'utf-8').toString('base64') }) }),
    });
    this.firstSecret = this.firstSecret ?? secret;
    this.byVolume.set(volume.name, secret);
    return secret;
  }
}
