import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';

/**
 * The kplus handle of a Secret this library renders, built once from the object, for the env values and volumes that
 * read it. The object itself stays a generated `KubeSecret`: kplus's `Secret` writes its values as `stringData` and
 * always writes `immutable: false`, where this library writes `data` (base64, which keeps binary files byte for byte)
 * and leaves `immutable` out, so a kplus `Secret` would change every rendered Secret.
 */
export function secretHandle(scope: Construct, id: string, secret: KubeSecret): kplus.ISecret {
  return kplus.Secret.fromSecretName(scope, id, secret.name);
}
