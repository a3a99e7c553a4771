import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../imports/k8s';
import { ComposeError } from '../compose/errors';
import {
  ComposeConfig,
  ComposeLocation,
  ComposeModel,
  ComposeSecret,
  ComposeVolume,
  FileSource,
} from '../compose/model';
import { Redactor } from '../compose/sensitive';
import { secretFileReason } from '../compose/secret-files';
import { NameRegistry, toDnsLabel } from '../base/naming';
import { secretHandle } from '../base/secret-handle';
import { claimSize, storageBytes } from '../base/sizes';
import { AppWarnings } from './app-warnings';
import { COMPOSE_APP_DEFAULTS, ComposeAppProps } from './compose-app-props';
import { HostRewriter } from './host-rewrite';
import { HONOURED_KOMPOSE_VOLUME_LABELS, labelAt } from './kompose-labels';
import { MigratedService, MountedFileSource, ServicePlan, WorkloadKind } from './migrated-service';
import { KomposeLabel, sizeLabel } from './settings';

/** Props of `SharedObjects`: where they are made, from what, and the app's handles they use. */
export interface SharedObjectsProps {
  /** The construct the objects are made in (their ids are `Volume-<name>`, `Secret-<name>`, `Config-<name>`). */
  readonly scope: Construct;
  readonly model: ComposeModel;
  readonly props: Pick<ComposeAppProps, 'volumes' | 'storageClassName' | 'storageSize'>;
  readonly namespace: string;
  readonly names: NameRegistry;
  /** Rule 2's rewriter: reports the hosts that config files name. */
  readonly hosts: HostRewriter;
  /** The app's secret values: a config that holds one is kept in a Secret. */
  readonly redactor: Redactor;
  readonly warnings: AppWarnings;
}

/**
 * The objects several services may share: a claim per top-level named volume, a Secret per compose secret, a
 * ConfigMap (or a Secret, when it holds a secret value) per compose config; each made on first use, or referenced
 * with a warning when external. Services reach them through `claimFor`, `secretSource` and `configSource`.
 */
export class SharedObjects {
  /** Secrets made from compose secrets, by compose secret name. */
  public readonly secrets: Record<string, KubeSecret> = {};
  /** ConfigMaps (or Secrets) made from compose configs, by compose config name. */
  public readonly configs: Record<string, kplus.ConfigMap | KubeSecret> = {};
  private readonly claimMap = new Map<string, kplus.IPersistentVolumeClaim>();
  private readonly claimUsers = new Map<string, Set<string>>();
  private readonly secretSources = new Map<string, MountedFileSource | undefined>();
  private readonly configSources = new Map<string, MountedFileSource | undefined>();

  constructor(private readonly props: SharedObjectsProps) {}

  /** Claims of the top-level named volumes, by compose volume name. */
  public get claims(): Record<string, kplus.IPersistentVolumeClaim> {
    return Object.fromEntries(this.claimMap);
  }

  /**
   * Makes the claims, Secrets and ConfigMaps the `plans` use before the services, in name order, so the output groups
   * them instead of placing each after its first user. What only the VM's services use lives in the VM's compose
   * project, not in Kubernetes.
   */
  public createAll(allPlans: Iterable<ServicePlan>): void {
    const { model } = this.props;
    const plans = [...allPlans].filter((p) => p.kind !== WorkloadKind.VM);
    for (const volume of model.volumes) {
      const user = plans.find((p) => p.service.volumes.some((m) => m.type === 'volume' && m.source === volume.name));
      if (user) {
        this.claimFor(volume.name, user, volume.at, false);
      }
    }
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
  public claimFor(
    volumeName: string,
    user: ServicePlan,
    at: ComposeLocation,
    mounted = true,
  ): kplus.IPersistentVolumeClaim {
    const { model, namespace, names, warnings, scope } = this.props;
    const volume = model.volumes.find((v) => v.name === volumeName);
    if (!volume) {
      throw new ComposeError(`volume "${volumeName}" is not declared in the top-level volumes`, {
        at,
        hint: `declare it under volumes:`,
      });
    }
    if (mounted) {
      this.claimUsers.set(volumeName, new Set([...(this.claimUsers.get(volumeName) ?? []), user.service.name]));
    }
    const existing = this.claimMap.get(volumeName);
    if (existing) {
      return existing;
    }
    let claim: kplus.IPersistentVolumeClaim;
    if (volume.external) {
      const name = volume.externalName ?? volume.name;
      warnings.warn(
        'external-volume',
        `volume "${volume.name}" is external: the claim "${name}" must exist in namespace ` +
          `"${namespace}" before deploying`,
        volume.at,
      );
      claim = kplus.PersistentVolumeClaim.fromClaimName(scope, `Volume-${volume.name}`, name);
    } else {
      const name = names.claim('PersistentVolumeClaim', toDnsLabel(volume.name) || 'volume', {
        owner: `volume "${volume.name}"`,
        at: volume.at,
      });
      if (volume.driver !== undefined && volume.driver !== 'local') {
        warnings.warn(
          'unsupported-key',
          `ignored volume driver "${volume.driver}": the claim uses a storage class`,
          volume.at,
        );
      }
      if (Object.keys(volume.driverOpts).length > 0) {
        warnings.warn('unsupported-key', 'ignored driver_opts: the claim uses a storage class', volume.at);
      }
      const bytes = this.volumeBytes(volume, user);
      const { size, rounded } = claimSize(bytes);
      if (rounded) {
        warnings.warn(
          'volume-size-rounded',
          `volume "${volume.name}" asks for ${bytes} bytes; the claim asks for ${size.toGibibytes()}Gi ` +
            '(claims are sized in whole GiB)',
          volume.at,
        );
      }
      claim = new kplus.PersistentVolumeClaim(scope, `Volume-${volume.name}`, {
        metadata: { name, namespace },
        accessModes: [kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
        storage: size,
        storageClassName:
          this.props.props.volumes?.[volume.name]?.storageClassName ??
          volume.labels[KomposeLabel.VOLUME_STORAGE_CLASS] ??
          user.service.labels[KomposeLabel.VOLUME_STORAGE_CLASS] ??
          this.props.props.storageClassName,
      });
    }
    this.claimMap.set(volumeName, claim);
    return claim;
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

  /** Claims that several services, replicas or nodes mount: a ReadWriteOnce claim attaches to one node at a time. */
  public reportSharedClaims(migrated: ReadonlyMap<string, MigratedService>): void {
    const { model, warnings } = this.props;
    for (const [volume, users] of [...this.claimUsers.entries()].sort()) {
      const at = model.volumes.find((v) => v.name === volume)!.at;
      if (users.size > 1) {
        warnings.warn(
          'shared-volume',
          `volume "${volume}" is mounted by services ${[...users].sort().join(', ')}: its ReadWriteOnce ` +
            'claim attaches to one node at a time, so their pods must land on the same node (or use a ReadWriteMany storage class)',
          at,
        );
      }
      for (const user of users) {
        const service = migrated.get(user);
        if (service?.kind === WorkloadKind.DAEMON_SET) {
          warnings.warn(
            'shared-volume',
            `volume "${volume}" is mounted by service "${user}", a DaemonSet with a pod on every node: a ` +
              'ReadWriteOnce claim attaches to one node at a time, so the pods on other nodes stay Pending (use a ReadWriteMany ' +
              'storage class, or run it as a Deployment)',
            at,
          );
        } else if (service && service.replicas > 1) {
          warnings.warn(
            'shared-volume',
            `volume "${volume}" is mounted by ${service.replicas} replicas of service "${user}": a ` +
              'ReadWriteOnce claim attaches to one node at a time',
            at,
          );
        }
      }
    }
  }

  /** Every `kompose.*` label of a top-level volume that the claims do not read, reported once. */
  public reportVolumeLabels(): void {
    for (const volume of this.props.model.volumes) {
      for (const label of Object.keys(volume.labels).sort()) {
        if (label.startsWith('kompose.') && !HONOURED_KOMPOSE_VOLUME_LABELS.includes(label)) {
          this.props.warnings.warn(
            'unsupported-label',
            `ignored label "${label}": this kompose label is not honoured`,
            labelAt(volume, label),
          );
        }
      }
    }
  }

  /** Size of a named volume: the prop, the volume's label, the first user's label, or the default. */
  private volumeBytes(volume: ComposeVolume, user: ServicePlan): number {
    const props = this.props.props;
    const override = props.volumes?.[volume.name]?.size;
    if (override) {
      return storageBytes(override);
    }
    const label = volume.labels[KomposeLabel.VOLUME_SIZE];
    if (label !== undefined) {
      return sizeLabel(label, labelAt(volume, KomposeLabel.VOLUME_SIZE));
    }
    const serviceLabel = user.service.labels[KomposeLabel.VOLUME_SIZE];
    if (serviceLabel !== undefined) {
      return sizeLabel(serviceLabel, labelAt(user.service, KomposeLabel.VOLUME_SIZE));
    }
    return storageBytes(props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize);
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
