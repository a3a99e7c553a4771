import { SYNC_WAVE_ANNOTATION } from '../../app/deploy-waves';
import { compare } from '../../util/sort';
import { manifestYaml } from '../../base/manifest-yaml';
import { OutputFile, YAML_HEADER } from '../output/output-files';
import type { RemoteValue, Rendered, RenderedObject, RenderedWave, SecretsSplit } from '../rendered';
import { SecretsMode, SecretsOptions } from '../options/secrets-options';

/**
 * `--secrets separate|external`: the values of the app's Secrets kept out of the manifests that go to Git.
 *
 * The objects are the constructs' own: `separate` moves each Secret into `secrets/` (ignored by Git, in no
 * kustomization, applied first by `deploy` and the runbook); `external` puts an External Secrets Operator
 * `ExternalSecret` in its place, which makes the same Secret (same name, keys, type and labels) from the user's store,
 * and writes `secrets/push-secrets.sh`, which puts each value into the store from a `separate` output without printing it.
 */

/** The folder of the Secrets (separate) or of the script that fills the store (external). */
export const SECRETS_FOLDER = 'secrets';
/** The script that puts the values into the secret store (external). */
export const PUSH_SCRIPT = 'push-secrets.sh';
/** The ExternalSecrets' API, as the External Secrets Operator serves it (schemas/gitops/eso-externalsecrets.yaml). */
export const EXTERNAL_SECRET_API = 'external-secrets.io/v1';
/** How often the operator reads the store again: its documented default. */
const REFRESH_INTERVAL = '1h';

/**
 * The output as `--secrets` wants it: the same waves without the Secrets (separate) or with an ExternalSecret in the
 * place of each (external), and what was taken out in `secrets`. `inline` returns the output unchanged.
 */
export function splitSecrets(rendered: Rendered, options: SecretsOptions): Rendered {
  if (options.mode === SecretsMode.INLINE) {
    return rendered;
  }
  const namespace = rendered.project.composeApp.namespace;
  const secrets: RenderedObject[] = [];
  const remote: RemoteValue[] = [];
  const taken = new Map<string, string>();
  const waves: RenderedWave[] = rendered.waves.map((wave) => ({
    wave: wave.wave,
    objects: wave.objects.flatMap((object) => {
      if (object.kind !== 'Secret') {
        return [object];
      }
      secrets.push({ ...object, file: `${SECRETS_FOLDER}/${object.name}-secret.yaml` });
      if (options.mode === SecretsMode.SEPARATE) {
        return [];
      }
      const values = remoteValues(object, namespace);
      for (const value of values) {
        const other = taken.get(value.remoteKey);
        if (other !== undefined) {
          throw new Error(
            `the values ${other} and ${value.secret}.${value.key} would share the remote key "${value.remoteKey}"`,
          );
        }
        taken.set(value.remoteKey, `${value.secret}.${value.key}`);
      }
      remote.push(...values);
      return [externalSecret(object, wave, values, options)];
    }),
  }));
  return { ...rendered, waves, secrets: { options, secrets, remote } };
}

/** The files of `secrets/`: the Secrets and a `.gitignore` (separate), or the script that fills the store (external). */
export function secretsFiles(rendered: Rendered, convertCommand: string): OutputFile[] {
  const split = rendered.secrets;
  if (!split) {
    return [];
  }
  if (split.options.mode === SecretsMode.SEPARATE) {
    return [
      {
        path: `${SECRETS_FOLDER}/.gitignore`,
        content: `${YAML_HEADER}\n# The Secrets here hold the values of the app: they stay out of Git.\n*\n!.gitignore\n`,
      },
      ...split.secrets.map((s) => ({ path: s.file, content: `${YAML_HEADER}\n${s.yaml}` })),
    ];
  }
  return [{ path: `${SECRETS_FOLDER}/${PUSH_SCRIPT}`, content: pushScript(rendered, split, convertCommand) }];
}

function remoteValues(object: RenderedObject, namespace: string): RemoteValue[] {
  // The constructs write base64 `data` only (KubeSecret, never kplus's stringData).
  const data: Record<string, string> = object.manifest.data ?? {};
  return Object.keys(data)
    .sort(compare)
    .map((key) => ({
      secret: object.name,
      key,
      remoteKey: `${namespace}-${object.name}-${key}`.replace(/[^A-Za-z0-9-]/g, '-'),
      binary: !isUtf8(Buffer.from(data[key], 'base64')),
    }));
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf-8'), 'utf-8').equals(bytes);
}

/** The ExternalSecret that makes `secret` from the store: same name, keys, type, labels and annotations. */
function externalSecret(
  secret: RenderedObject,
  wave: RenderedWave,
  values: readonly RemoteValue[],
  options: SecretsOptions,
): RenderedObject {
  const metadata = secret.manifest.metadata ?? {};
  const annotations: Record<string, string> = { ...(metadata.annotations ?? {}) };
  const templateAnnotations = Object.fromEntries(
    Object.entries(annotations).filter(([key]) => key !== SYNC_WAVE_ANNOTATION),
  );
  const templateMetadata = {
    ...(metadata.labels ? { labels: metadata.labels } : {}),
    ...(Object.keys(templateAnnotations).length > 0 ? { annotations: templateAnnotations } : {}),
  };
  const manifest = {
    apiVersion: EXTERNAL_SECRET_API,
    kind: 'ExternalSecret',
    metadata: {
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(metadata.labels ? { labels: metadata.labels } : {}),
      name: secret.name,
      ...(metadata.namespace ? { namespace: metadata.namespace } : {}),
    },
    spec: {
      ...(values.length > 0
        ? {
            data: values.map((v) => ({
              remoteRef: { key: v.remoteKey, ...(v.binary ? { decodingStrategy: 'Base64' } : {}) },
              secretKey: v.key,
            })),
          }
        : {}),
      refreshInterval: REFRESH_INTERVAL,
      secretStoreRef: { kind: options.storeKind, name: options.store },
      target: {
        creationPolicy: 'Owner',
        name: secret.name,
        template: {
          ...(Object.keys(templateMetadata).length > 0 ? { metadata: templateMetadata } : {}),
          type: secret.manifest.type ?? 'Opaque',
        },
      },
    },
  };
  return {
    kind: 'ExternalSecret',
    name: secret.name,
    manifest,
    yaml: manifestYaml(manifest),
    file: `${wave.wave.folder}/${secret.name}-externalsecret.yaml`,
  };
}

/**
 * `secrets/push-secrets.sh`: reads each value from the Secret files of a `--secrets separate` output (given as its
 * argument) and hands it, on stdin, to the command in `PUSH` with the remote key as `$1`. It holds no value, and
 * prints none.
 */
function pushScript(rendered: Rendered, split: SecretsSplit, convertCommand: string): string {
  const ns = rendered.project.composeApp.namespace;
  const q = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  return [
    YAML_HEADER,
    `# Puts each value of the Secrets of ${ns} into the secret store "${split.options.store}" that the ExternalSecrets read,`,
    '# one remote key per value. It holds no value: it reads them from the Secrets that --secrets separate writes,',
    '# into a folder outside Git, and hands each to PUSH on stdin with the remote key as $1. For example:',
    '#',
    `#   ${convertCommand} --secrets separate -o /tmp/${ns}-secrets`,
    `#   PUSH='aws secretsmanager create-secret --name "$1" --secret-string file:///dev/stdin' \\`,
    `#     sh ${SECRETS_FOLDER}/${PUSH_SCRIPT} /tmp/${ns}-secrets/${SECRETS_FOLDER}`,
    `#   rm -r /tmp/${ns}-secrets`,
    '#',
    '# A value marked base64 is not text: it is pushed base64-encoded, and its ExternalSecret decodes it.',
    'set -eu',
    'dir=${1:?give the secrets/ folder of a --secrets separate output}',
    ': "${PUSH:?set PUSH to the command that stores its stdin under the remote key \\$1}"',
    '# value FILE KEY: the base64 value of KEY in the data of the Secret manifest FILE.',
    'value() {',
    `  awk -v key="$2" '/^data:/ { data = 1; next } /^[^ ]/ { data = 0 }` +
      ` data && /^  [^ ]/ { k = substr($1, 1, length($1) - 1); gsub(/^["\\047]|["\\047]$/, "", k); if (k == key) { print $2; found = 1 } }` +
      ` END { exit !found }' "$dir/$1"`,
    '}',
    '# push FILE KEY REMOTE_KEY text|base64',
    'push() {',
    '  encoded=$(value "$1" "$2") || { echo "push-secrets: $1 has no key $2" >&2; exit 1; }',
    '  if [ "$4" = base64 ]; then',
    '    printf %s "$encoded" | sh -c "$PUSH" push-secrets "$3"',
    '  else',
    '    printf %s "$encoded" | base64 -d | sh -c "$PUSH" push-secrets "$3"',
    '  fi',
    '  echo "push-secrets: $3" >&2',
    '}',
    ...split.remote.map(
      (v) => `push ${q(`${v.secret}-secret.yaml`)} ${q(v.key)} ${q(v.remoteKey)} ${v.binary ? 'base64' : 'text'}`,
    ),
    '',
  ].join('\n');
}
