import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s';
import { ComposeLocation, FileContent, VolumeMount } from '../../compose/model';
import { Redactor } from '../../compose/sensitive';
import { secretFileReason } from '../../compose/secret-files';
import { NameRegistry, joinDnsLabel } from '../../base/naming';
import { secretHandle } from '../../base/secret-handle';
import { AppWarnings } from '../app-warnings';
import { KeyNames } from '../key-names';
import { configMapData, secretData } from './file-data';

/**
 * The files of a bound folder that seed its claim: a `<claim>-seed` ConfigMap (and a `<claim>-seed` Secret for the
 * files that hold a secret value), each key mapped back to its path below the folder. An init container copies them
 * into the new claim once (`SEEDED_MARKER`), so the claim starts as the folder did, and later starts keep what the
 * app wrote.
 */

/** The claim of a read-write bind of a project folder, and the seed of the folder's files when it has some. */
export interface BindClaim {
  /** The normalised project-relative path (`./library`). */
  readonly path: string;
  readonly claim: kplus.IPersistentVolumeClaim;
  readonly seed?: ClaimSeed;
}

/** What a ConfigMap (or Secret) holds at most: the object, with its metadata, must stay under 1 MiB. */
export const SEED_OBJECT_BYTES = 1024 * 1024 - 16 * 1024;

/** One object of a seed: the volume source and its items (key → path below the folder). */
export interface SeedObject {
  readonly kind: 'ConfigMap' | 'Secret';
  readonly name: string;
  readonly configMap?: kplus.IConfigMap;
  readonly secret?: kplus.ISecret;
  readonly items: Readonly<Record<string, string>>;
}

/** The seed of a bound folder's claim. */
export interface ClaimSeed {
  readonly objects: readonly SeedObject[];
  /** The number of files it brings. */
  readonly files: number;
}

export interface SeedForOptions {
  readonly scope: Construct;
  readonly claimName: string;
  /** The normalised bind path (`./library`). */
  readonly bindPath: string;
  readonly bind: NonNullable<VolumeMount['bind']>;
  readonly at: ComposeLocation;
  readonly namespace: string;
  readonly names: NameRegistry;
  readonly redactor: Redactor;
  readonly warnings: AppWarnings;
}

/**
 * The seed of a bound folder: undefined when it is empty, or when its files do not fit a ConfigMap (then `move-data`
 * brings them, and the warning `move-data` says so).
 */
export function seedFor(options: SeedForOptions): ClaimSeed | undefined {
  const { bind, bindPath, claimName, at, warnings } = options;
  const files = bind.files;
  if (files === undefined) {
    warnings.warn(
      'move-data',
      `the bound folder "${bindPath}" holds more than a ConfigMap can (1 MiB, 256 files; ` +
        `${bind.sizeBytes ?? 0} bytes counted), so its claim "${claimName}" starts empty: bring its files with ` +
        '`cdk8s-compose move-data` before starting the app',
      at,
    );
    return undefined;
  }
  if (files.length === 0) {
    return undefined;
  }
  // Secret by nature (a key, a password file) or holding a secret value: the one rule of lib/compose/secret-files.ts.
  const secretFiles = files.filter((f) => secretFileReason(f, options.redactor) !== undefined);
  const plainFiles = files.filter((f) => !secretFiles.includes(f));
  const encoded = (list: readonly FileContent[], secret: boolean) =>
    list.reduce((sum, f) => sum + f.path.length + (f.binary || secret ? base64Length(f) : f.text.length), 0);
  if (encoded(plainFiles, false) > SEED_OBJECT_BYTES || encoded(secretFiles, true) > SEED_OBJECT_BYTES) {
    warnings.warn(
      'move-data',
      `the files of the bound folder "${bindPath}" do not fit a ConfigMap once encoded (1 MiB), so its claim ` +
        `"${claimName}" starts empty: bring them with \`cdk8s-compose move-data\` before starting the app`,
      at,
    );
    return undefined;
  }
  const name = joinDnsLabel(claimName, 'seed');
  const owner = { owner: `the files of bind mount "${bindPath}"`, at };
  const objects: SeedObject[] = [];
  if (plainFiles.length > 0) {
    options.names.claim('ConfigMap', name, owner);
    const keys = new KeyNames();
    const entries = plainFiles.map((f) => ({ file: f, key: keys.key(f.path) }));
    const configMap = new kplus.ConfigMap(options.scope, `Seed-${bindPath}`, {
      metadata: { name, namespace: options.namespace },
      ...configMapData(entries.map((e) => ({ key: e.key, content: e.file }))),
    });
    objects.push({
      kind: 'ConfigMap',
      name,
      configMap,
      items: Object.fromEntries(entries.map((e) => [e.key, e.file.path])),
    });
  }
  if (secretFiles.length > 0) {
    options.names.claim('Secret', name, owner);
    warnings.warn(
      'file-holds-secret',
      `files of the bound folder "${bindPath}" are secret (${secretFiles.map((f) => f.path).join(', ')}), ` +
        `so they seed its claim from the Secret "${name}" instead of a ConfigMap`,
      at,
    );
    const keys = new KeyNames();
    const entries = secretFiles.map((f) => ({ file: f, key: keys.key(f.path) }));
    const secret = new KubeSecret(options.scope, `SeedSecret-${bindPath}`, {
      metadata: { name, namespace: options.namespace },
      type: 'Opaque',
      data: secretData(entries.map((e) => ({ key: e.key, content: e.file }))),
    });
    objects.push({
      kind: 'Secret',
      name,
      secret: secretHandle(options.scope, `SeedSecretRef-${bindPath}`, secret),
      items: Object.fromEntries(entries.map((e) => [e.key, e.file.path])),
    });
  }
  return { objects, files: files.length };
}

function base64Length(file: FileContent): number {
  return file.binary ? file.text.length : Math.ceil(Buffer.byteLength(file.text, 'utf8') / 3) * 4;
}
