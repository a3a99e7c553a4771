import { ComposeError } from '../compose/errors';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A password for a guest user, always supplied by the operator and never written in code or in a VM spec.
 */
export abstract class CloudInitPassword {
  /**
   * The password is read from an environment variable when this is called (at synth time). Its value goes only into
   * the Secret that then holds the user data (`cloudInitNoCloud.secretRef`), so do not commit output synthesized with
   * it; prefer {@link CloudInitPassword.fromSecret}.
   *
   * @param variable the environment variable, e.g. `VM_PASSWORD`
   * @param env where to read it from
   * @default env process.env
   */
  public static fromEnvironment(variable: string, env: NodeJS.ProcessEnv = process.env): CloudInitPassword {
    if (!ENV_NAME.test(variable)) {
      throw new ComposeError('the password variable name is not an environment variable name', {
        value: variable,
        allowed: 'letters, digits and underscores, not starting with a digit',
        hint: 'name the variable the operator exports, for example VM_PASSWORD',
      });
    }
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new ComposeError(`the password variable ${variable} is not set`, {
        allowed: 'a password the operator exports before synth',
        hint: `export ${variable} in the shell that runs the synth, or use CloudInitPassword.fromSecret() with an existing Secret`,
      });
    }
    return new EnvironmentPassword(variable, value);
  }

  /**
   * KubeVirt sets the password from an existing Secret in the VM's namespace through the qemu guest agent
   * (`accessCredentials[].userPassword`); it never passes through this code, the user data or the manifests.
   * The Secret's keys are user names and its values their passwords, e.g.
   * `kubectl create secret generic vm-passwords --from-literal=ops=<PASSWORD>`.
   *
   * @param secretName the Secret the operator creates
   */
  public static fromSecret(secretName: string): CloudInitPassword {
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(secretName) || secretName.length > 253) {
      throw new ComposeError('the password Secret name is not a valid Kubernetes name', {
        value: secretName,
        allowed: 'lower-case letters, digits, "-" and ".", starting and ending with a letter or digit',
        hint: 'name the Secret exactly as the operator created it',
      });
    }
    return new SecretPassword(secretName);
  }

  /** How the password reaches the guest: `environment` (in the user data, held in a Secret) or `secret` (guest agent). */
  public abstract readonly kind: 'environment' | 'secret';
  /** The environment variable or the Secret name; never the password. */
  public abstract readonly source: string;
}

/** A password read from the environment at synth time: it goes only into the Secret that holds the user data. */
export class EnvironmentPassword extends CloudInitPassword {
  public readonly kind = 'environment';
  readonly #value: string;
  constructor(
    public readonly source: string,
    value: string,
  ) {
    super();
    this.#value = value;
  }
  /** @internal */
  public _reveal(): string {
    return this.#value;
  }
}

class SecretPassword extends CloudInitPassword {
  public readonly kind = 'secret';
  constructor(public readonly source: string) {
    super();
  }
}

/** The error for a password written into user data or props as plain text. */
export function inlinePasswordError(item: string, vmName?: string): ComposeError {
  const who = vmName ? `VirtualMachine "${vmName}": ` : '';
  return new ComposeError(`${who}${item}: the cloud-init user data sets a password inline`, {
    allowed:
      'a password supplied by the operator: CloudInitPassword.fromSecret("<secret>") (set by KubeVirt from an existing Secret) or CloudInitPassword.fromEnvironment("<VARIABLE>") (kept in a Secret)',
    hint: 'remove the password from the user data and give the user a password: CloudInitPassword.fromSecret(...)',
  });
}
