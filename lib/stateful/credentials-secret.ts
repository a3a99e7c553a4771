import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { DatabaseCredentials, DatabaseEngine } from './engine';

// Only what is secret goes into the Secret: a user or database name in a Secret would make every other mention of
// it (a namespace, a label) look like a leak.
const SECRET_KEYS = ['password', 'uri'] as const;

/** Props of `CredentialsSecret`: the engine, the Service address clients use, and the credentials given. */
export interface CredentialsSecretProps {
  readonly engine: DatabaseEngine;
  /** The host in the connection string: the dependency's Service name. */
  readonly host: string;
  readonly port: number;
  /** `metadata` of the Secret, `<name>-credentials`. */
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly labels: Record<string, string> };
  /**
   * The credentials as given.
   * @default - the engine's defaults, no password
   */
  readonly credentials?: DatabaseCredentials;
  /**
   * A Secret the user creates, with the keys `password` and `uri`, in place of the `<name>-credentials` Secret: none
   * is made, and neither the password nor a connection string with it is in the output.
   * @default - the `<name>-credentials` Secret, made from `credentials`
   */
  readonly existingSecret?: string;
}

/**
 * The credentials of a stateful dependency: the `<name>-credentials` Secret with the keys `password` and `uri`, made
 * only when there is a password, and one kplus handle on it (`secret`) for every env value that reads it.
 *
 * A builder: it adds its objects to the owner's scope under the ids `Credentials` and `CredentialsRef`, as the owner
 * did before it was split. The Secret is the generated `KubeSecret`, not a kplus `Secret`: kplus writes
 * `stringData` (and an `immutable: false`) where the manifests carry base64 `data`, so it cannot render the same
 * bytes; the handle is built once from the rendered object's name instead.
 */
export class CredentialsSecret {
  /** The rendered Secret; none when the database has no password, as nothing about it is then secret. */
  public readonly resource?: KubeSecret;
  /** The kplus handle on `resource`, for `EnvValue.fromSecretValue` and `DatabaseBackup`. */
  public readonly secret?: kplus.ISecret;
  /** The credentials given (`{}` when none): what the engine's variables are set from. */
  public readonly given: DatabaseCredentials;
  /** The credentials with the engine's defaults filled in. */
  public readonly resolved: DatabaseCredentials;
  /** The connection string with the password, as a plain string: only ever put it into a Secret. */
  public readonly connectionUri: string;
  /** The connection string as an env value: read from the Secret, or plain without a password. */
  public readonly connectionString: kplus.EnvValue;

  constructor(scope: Construct, props: CredentialsSecretProps) {
    if (props.existingSecret !== undefined) {
      // The password is the existing Secret's: the engine's password variable reads it from there, and nothing here
      // holds it (the connection string without it is for messages only).
      const { password: _password, ...rest } = props.credentials ?? {};
      this.given = { ...rest, password: '' };
      this.resolved = { ...props.engine.withDefaults(rest), password: '' };
      this.connectionUri = props.engine.connectionUri(props.host, props.port, {
        ...this.resolved,
        password: undefined,
      });
      this.secret = kplus.Secret.fromSecretName(scope, 'CredentialsRef', props.existingSecret);
      this.connectionString = kplus.EnvValue.fromSecretValue({ secret: this.secret, key: 'uri' });
      return;
    }
    this.given = props.credentials ?? {};
    this.resolved = props.engine.withDefaults(props.credentials);
    this.connectionUri = props.engine.connectionUri(props.host, props.port, this.resolved);
    if (this.resolved.password !== undefined) {
      const data = { password: this.resolved.password, uri: this.connectionUri };
      this.resource = new KubeSecret(scope, 'Credentials', {
        metadata: props.metadata,
        type: 'Opaque',
        data: Object.fromEntries(SECRET_KEYS.map((key) => [key, Buffer.from(data[key]).toString('base64')])),
      });
      this.secret = kplus.Secret.fromSecretName(scope, 'CredentialsRef', this.resource.name);
      this.connectionString = kplus.EnvValue.fromSecretValue({ secret: this.secret, key: 'uri' });
    } else {
      this.connectionString = kplus.EnvValue.fromValue(this.connectionUri);
    }
  }
}
