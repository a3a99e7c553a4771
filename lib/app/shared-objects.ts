import * as kplus from 'cdk8s-plus-27';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import { ComposeConfig, ComposeLocation, ComposeSecret, FileSource } from '../compose/model';
import { secretFileReason } from '../compose/secret-files';
import { toDnsLabel } from '../base/naming';
import { secretHandle } from '../base/secret-handle';
import { HostRewriter } from './hosts/host-rewrite';
import { MigratedService, MountedFileSource, ServicePlan, WorkloadKind } from './service/migrated-service';
import { BindClaim, VolumeClaims, VolumeClaimsProps } from './storage/volume-claims';

export type { BindClaim } from './storage/volume-claims';
export { VOLUME_GROUP_LABEL, describeSource } from './storage/volume-claims';

/** Props of `SharedObjects`: where they are made, from what, and the app's handles they use. */
export interface SharedObjectsProps extends VolumeClaimsProps {
  /** Rule 2's rewriter: reports the hosts that config files name. */
  readonly hosts: HostRewriter;
}

/**
 * The objects several services may share: a claim per top-level named volume and per folder bound read-write
 * (`VolumeClaims`), a Secret per compose secret, a ConfigMap (or a Secret, when it holds a secret value) per compose
 * config; each made on first use, or referenced with a warning when external. Services reach them through
 * `claimFor`, `bindClaimFor`, `secretSource` and `configSource`.
 */
export class SharedObjects {
  /** Secrets made from compose secrets, by compose secret name. */
  public readonly secrets: Record<string, KubeSecret> = {};
  /** ConfigMaps (or Secrets) made from compose configs, by compose config name. */
  public readonly configs: Record<string, kplus.ConfigMap | KubeSecret> = {};
  private readonly secretSources = new Map<string, MountedFileSource | undefined>();
  private readonly configSources = new Map<string, MountedFileSource | undefined>();

  /** The claims of the named volumes and bound folders, and how their pods share them. */
  public readonly volumeClaims: VolumeClaims;

  constructor(private readonly props: SharedObjectsProps) {
    this.volumeClaims = new VolumeClaims(props);
  }

  /** Claims of the top-level named volumes, by compose volume name. */
  public get claims(): Record<string, kplus.IPersistentVolumeClaim> {
    return this.volumeClaims.claims;
  }

  /**
   * Makes the claims, Secrets and ConfigMaps the `plans` use before the services, in name order, so the output groups
   * them instead of placing each after its first user. What only the VM's services use lives in the VM's compose
   * project, not in Kubernetes.
   */
  public createAll(allPlans: Iterable<ServicePlan>): void {
    const { model } = this.props;
    const plans = [...allPlans].filter((p) => p.kind !== WorkloadKind.VM);
    this.volumeClaims.createAll(plans);
    for (const secret of model.secrets) {
      const user = plans.find((p) => p.service.secrets.some((r) => r.source === secret.name));
      if (user) {
        this.secretSource(secret.name, user, secret.at);
      }
    }
    for (const config of model.configs) {
      const user = plans.find((p) => p.service.configs.some((r) => r.source === config.name));
      if (user) {
        this.configSource(config.name, user, config.at);
      }
    }
  }

  /** The claim of a named volume: created on first use, referenced when external. */
  public claimFor(volumeName: string, user: ServicePlan, at: ComposeLocation): kplus.IPersistentVolumeClaim {
    return this.volumeClaims.claimFor(volumeName, user, at);
  }

  /** The claim of a read-write bind of a project folder, with its seed (`VolumeClaims.bindClaimFor`). */
  public bindClaimFor(source: string): BindClaim | undefined {
    return this.volumeClaims.bindClaimFor(source);
  }

  /** Shares each claim among the pods that mount it (`VolumeClaims.shareClaims`). */
  public shareClaims(migrated: ReadonlyMap<string, MigratedService>): void {
    this.volumeClaims.shareClaims(migrated);
  }

  /** Every `kompose.*` label of a top-level volume that the claims do not read, reported once. */
  public reportVolumeLabels(): void {
    this.volumeClaims.reportVolumeLabels();
  }

  /** The Secret and key of a compose secret: created on first use, referenced when external. */
  public secretSource(name: string, _user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined {
    if (this.secretSources.has(name)) {
      return this.secretSources.get(name);
    }
    const { model, namespace, names, scope } = this.props;
    const secret = model.secrets.find((s) => s.name === name);
    let source: MountedFileSource | undefined;
    if (!secret) {
      throw new ComposeError(`secret "${name}" is not declared in the top-level secrets`, {
        at,
        hint: 'declare it under secrets:',
      });
    }
    const key = fileKey(secret.name);
    if (secret.source.kind === 'external' || secret.source.kind === 'outside') {
      source = this.referencedFileSource('secret', secret.name, secret.source, key, secret.at);
    } else {
      const objectName = names.claim('Secret', toDnsLabel(secret.name) || 'secret', {
        owner: `secret "${secret.name}"`,
        at: secret.at,
      });
      const content = secret.source.content;
      this.secrets[secret.name] = new KubeSecret(scope, `Secret-${secret.name}`, {
        metadata: { name: objectName, namespace },
        type: 'Opaque',
        data: { [key]: content.binary ? content.text : Buffer.from(content.text, 'utf8').toString('base64') },
      });
      source = {
        kind: 'Secret',
        secret: secretHandle(scope, `SecretRef-${secret.name}`, this.secrets[secret.name]),
        key,
      };
    }
    this.warnLabels(secret, 'secret');
    this.secretSources.set(name, source);
    return source;
  }

  /** The text of a compose secret the app read (trimmed), for values that embed it; undefined otherwise. */
  public secretContent(name: string): string | undefined {
    const secret = this.props.model.secrets.find((s) => s.name === name);
    return secret && 'content' in secret.source && !secret.source.content.binary
      ? secret.source.content.text.trim()
      : undefined;
  }

  /** The ConfigMap (or Secret) and key of a compose config: created on first use, referenced when external. */
  public configSource(name: string, _user: ServicePlan, at: ComposeLocation): MountedFileSource | undefined {
    if (this.configSources.has(name)) {
      return this.configSources.get(name);
    }
    const { model, namespace, names, scope, warnings } = this.props;
    const config = model.configs.find((c) => c.name === name);
    if (!config) {
      throw new ComposeError(`config "${name}" is not declared in the top-level configs`, {
        at,
        hint: 'declare it under configs:',
      });
    }
    const key = fileKey(config.name);
    let source: MountedFileSource | undefined;
    if (config.source.kind === 'external' || config.source.kind === 'outside') {
      source = this.referencedFileSource('config', config.name, config.source, key, config.at);
    } else {
      const content = config.source.content;
      const reason = secretFileReason(content, this.props.redactor);
      const holdsSecret = reason !== undefined;
      const kind = holdsSecret ? 'Secret' : 'ConfigMap';
      const objectName = names.claim(kind, toDnsLabel(config.name) || 'config', {
        owner: `config "${config.name}"`,
        at: config.at,
      });
      if (holdsSecret) {
        warnings.warn(
          'file-holds-secret',
          `config "${config.name}" ${reason}, so it is kept in the Secret "${objectName}"`,
          config.at,
        );
        const object = new KubeSecret(scope, `Config-${config.name}`, {
          metadata: { name: objectName, namespace },
          type: 'Opaque',
          data: { [key]: content.binary ? content.text : Buffer.from(content.text, 'utf8').toString('base64') },
        });
        this.configs[config.name] = object;
        source = { kind: 'Secret', secret: secretHandle(scope, `ConfigRef-${config.name}`, object), key };
      } else {
        const object = new kplus.ConfigMap(scope, `Config-${config.name}`, {
          metadata: { name: objectName, namespace },
          data: content.binary ? undefined : { [key]: content.text },
          binaryData: content.binary ? { [key]: content.text } : undefined,
        });
        this.configs[config.name] = object;
        source = { kind: 'ConfigMap', configMap: object, key };
      }
      if (!content.binary) {
        // References are reported once per config, not per service that mounts it.
        for (const reference of this.props.hosts.references(content.text)) {
          warnings.warn(
            'file-host-reference',
            `config "${config.name}" refers to "${reference.from}", which is the Service ` +
              `"${reference.to}" in Kubernetes; edit the file`,
            config.at,
          );
        }
      }
    }
    this.warnLabels(config, 'config');
    this.configSources.set(name, source);
    return source;
  }

  /**
   * A secret or config the app does not create, referenced by name with a warning: an external one, or a file outside
   * the project that was not read.
   */
  private referencedFileSource(
    what: 'secret' | 'config',
    name: string,
    source: Extract<FileSource, { kind: 'external' | 'outside' }>,
    key: string,
    at: ComposeLocation,
  ): MountedFileSource {
    const kind = what === 'secret' ? 'Secret' : 'ConfigMap';
    const objectName = toDnsLabel(source.kind === 'external' ? source.externalName : name);
    const why =
      source.kind === 'external' ? 'is external' : `reads "${source.path}", outside the project, which was not read`;
    this.props.warnings.warn(
      `external-${what}`,
      `${what} "${name}" ${why}: create the ${kind} "${objectName}" with the key "${key}" in ` +
        `namespace "${this.props.namespace}" before deploying`,
      at,
    );
    // A reference by name: the object is outside the app.
    const id = `${what === 'secret' ? 'Secret' : 'Config'}Ref-${name}`;
    return what === 'secret'
      ? { kind: 'Secret', secret: kplus.Secret.fromSecretName(this.props.scope, id, objectName), key }
      : { kind: 'ConfigMap', configMap: kplus.ConfigMap.fromConfigMapName(this.props.scope, id, objectName), key };
  }

  private warnLabels(item: ComposeSecret | ComposeConfig, what: string): void {
    if (Object.keys(item.labels).length > 0) {
      this.props.warnings.warnOnce(
        `${what}:${item.name}:labels`,
        'unsupported-key',
        `ignored the labels of ${what} "${item.name}"`,
        item.at,
      );
    }
  }
}

/** A ConfigMap or Secret key for a compose secret or config name. */
function fileKey(name: string): string {
  return /^[-._a-zA-Z0-9]+$/.test(name) ? name : name.replace(/[^-._a-zA-Z0-9]/g, '_');
}
