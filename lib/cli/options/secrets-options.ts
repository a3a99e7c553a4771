import { isDnsSubdomain } from '../../util/dns';

/** The `--secrets` values: where the values of the app's Secrets go. */
export enum SecretsMode {
  /** The Secrets with their values, in the wave folders like every object (the output holds the values). */
  INLINE = 'inline',
  /** The Secrets under `secrets/`, ignored by Git and listed in no kustomization; the rest of the output holds no value. */
  SEPARATE = 'separate',
  /** External Secrets Operator `ExternalSecret`s in place of the Secrets; the values go into the user's secret store. */
  EXTERNAL = 'external',
}

/** The `--secret-store-kind` values: the two store kinds an ExternalSecret names. */
export enum SecretStoreKind {
  SECRET_STORE = 'SecretStore',
  CLUSTER_SECRET_STORE = 'ClusterSecretStore',
}

/** What `--secrets`, `--secret-store` and `--secret-store-kind` asked for. */
export interface SecretsOptions {
  readonly mode: SecretsMode;
  /** `--secret-store`: the store the ExternalSecrets read (external only). */
  readonly store?: string;
  readonly storeKind: SecretStoreKind;
}

/** Today's output: the values in the Secrets, in the wave folders. */
export const INLINE_SECRETS: SecretsOptions = { mode: SecretsMode.INLINE, storeKind: SecretStoreKind.SECRET_STORE };

type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

/**
 * The secrets options from the scanned values of `convert` or `deploy`. `stdout` is true for `convert --stdout`, which
 * writes no folder for the Secrets to go to, `oneFile` for the one-file outputs. `fail` throws the usage error.
 */
export function parseSecretsOptions(
  values: Values,
  output: { readonly stdout: boolean; readonly oneFile: boolean; readonly chart?: boolean },
  fail: (message: string) => never,
): SecretsOptions {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  // A chart goes to Git and to chart repositories: no secret value in it unless asked for.
  const modeText = text('secrets') ?? (output.chart ? SecretsMode.SEPARATE : SecretsMode.INLINE);
  if (!(Object.values(SecretsMode) as string[]).includes(modeText)) {
    fail(`--secrets "${modeText}" is not allowed. Allowed: inline, separate, external`);
  }
  const mode = modeText as SecretsMode;
  const store = text('secret-store');
  const kindText = text('secret-store-kind');
  if (mode === SecretsMode.EXTERNAL && store === undefined) {
    fail(
      '--secrets external needs --secret-store NAME: the SecretStore (or, with --secret-store-kind ClusterSecretStore, ' +
        'the ClusterSecretStore) of the External Secrets Operator that holds the values',
    );
  }
  if (mode !== SecretsMode.EXTERNAL && (store !== undefined || kindText !== undefined)) {
    fail(`${store !== undefined ? '--secret-store' : '--secret-store-kind'} is for --secrets external`);
  }
  if (store !== undefined && (!isDnsSubdomain(store) || store.length > 253)) {
    fail(
      `--secret-store "${store}" is not an object name. Allowed: a DNS subdomain (lower case letters, digits, "-" and ".")`,
    );
  }
  if (kindText !== undefined && !(Object.values(SecretStoreKind) as string[]).includes(kindText)) {
    fail(`--secret-store-kind "${kindText}" is not allowed. Allowed: SecretStore, ClusterSecretStore`);
  }
  if (output.stdout && mode !== SecretsMode.INLINE) {
    fail(`--secrets ${mode} writes files beside the manifests: leave out --stdout and give -o DIR`);
  }
  if (output.oneFile && mode === SecretsMode.SEPARATE) {
    fail(
      '--secrets separate needs the folder output (one file per resource), whose secrets/ is applied after the ' +
        'namespace: leave out -o FILE.yaml and --single-file',
    );
  }
  return { mode, store, storeKind: (kindText as SecretStoreKind | undefined) ?? SecretStoreKind.SECRET_STORE };
}
