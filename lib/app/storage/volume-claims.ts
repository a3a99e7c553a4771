import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../../compose/errors';
import { ComposeLocation, ComposeModel, ComposeVolume, VolumeMount } from '../../compose/model';
import { Redactor } from '../../compose/sensitive';
import { NameRegistry, joinDnsLabel, toDnsLabel } from '../../base/naming';
import { claimSize, storageBytes } from '../../base/sizes';
import {
  COMPOSE_SOURCE_ANNOTATION,
  ENGINE_DATA_SUBPATHS,
  composeSourceKey,
  isDataBind,
  projectBindPath,
} from './claim-sources';
import { BindClaim, seedFor } from './claim-seed';
import { AppWarnings } from '../app-warnings';
import { COMPOSE_APP_DEFAULTS, ComposeAppProps, SharedVolumes } from '../compose-app-props';
import { HONOURED_KOMPOSE_VOLUME_LABELS, labelAt } from '../kompose/kompose-labels';
import { MigratedService, ServicePlan, WorkloadKind } from '../service/migrated-service';
import { KomposeLabel, VolumeOverrides, sizeLabel } from '../settings';

export type { BindClaim } from './claim-seed';

/** Props of `VolumeClaims`: where the claims are made, from what, and the app's handles they use. */
export interface VolumeClaimsProps {
  /** The construct the claims are made in (their ids are `Volume-<name>` and `Bind-<path>`). */
  readonly scope: Construct;
  readonly model: ComposeModel;
  readonly props: Pick<ComposeAppProps, 'volumes' | 'storageClassName' | 'storageSize' | 'sharedVolumes'>;
  /** The pods a service runs at most (its replicas, or its autoscaler's maximum), for the claims' access modes. */
  readonly podsOf: (plan: ServicePlan) => number;
  readonly namespace: string;
  readonly names: NameRegistry;
  /** The app's secret values: a seed file that holds one goes to a Secret. */
  readonly redactor: Redactor;
  readonly warnings: AppWarnings;
}

/**
 * The claims of the compose sources that keep data: one per top-level named volume and one per project folder some
 * service binds read-write (seeded from its files), each annotated with its source (`COMPOSE_SOURCE_ANNOTATION`).
 * Pods that mount one source share its claim as compose shared it (`shareClaims`).
 */
export class VolumeClaims {
  private readonly claimMap = new Map<string, kplus.IPersistentVolumeClaim>();
  /** The claims of read-write binds of project folders, by normalised path (`./library`). */
  private readonly bindClaims = new Map<string, BindClaim>();
  /** The compose sources (`volume:x`, `bind:./y`) that more than one pod mounts, with their pods' owners. */
  private readonly sharers = new Map<string, Set<string>>();

  constructor(private readonly props: VolumeClaimsProps) {}

  /** Makes the claims the container `plans` use: the named volumes' in name order, then the bound folders' by path. */
  public createAll(plans: readonly ServicePlan[]): void {
    this.findSharers(plans);
    for (const volume of this.props.model.volumes) {
      const user = plans.find((p) => p.service.volumes.some((m) => m.type === 'volume' && m.source === volume.name));
      if (user) {
        this.claimFor(volume.name, user, volume.at);
      }
    }
    this.createBindClaims(plans);
  }

  /** Claims of the top-level named volumes, by compose volume name. */
  public get claims(): Record<string, kplus.IPersistentVolumeClaim> {
    return Object.fromEntries(this.claimMap);
  }

  /** The claim of a named volume: created on first use, referenced when external. */
  public claimFor(volumeName: string, user: ServicePlan, at: ComposeLocation): kplus.IPersistentVolumeClaim {
    const { model, namespace, names, warnings, scope } = this.props;
    const volume = model.volumes.find((v) => v.name === volumeName);
    if (!volume) {
      throw new ComposeError(`volume "${volumeName}" is not declared in the top-level volumes`, {
        at,
        hint: `declare it under volumes:`,
      });
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
      claim = this.newClaim({
        id: `Volume-${volume.name}`,
        name,
        source: composeSourceKey({ type: 'volume', name: volume.name }),
        what: `volume "${volume.name}"`,
        bytes,
        storageClassName:
          this.props.props.volumes?.[volume.name]?.storageClassName ??
          volume.labels[KomposeLabel.VOLUME_STORAGE_CLASS] ??
          user.service.labels[KomposeLabel.VOLUME_STORAGE_CLASS] ??
          this.props.props.storageClassName,
        at: volume.at,
      });
    }
    this.claimMap.set(volumeName, claim);
    return claim;
  }

  /**
   * The claim of a read-write bind of a project folder (`./library`), with the seed of its files when the folder has
   * some; undefined for a bind that is not a claim (a file, a host path, a read-only folder no service writes).
   */
  public bindClaimFor(source: string): BindClaim | undefined {
    const bindPath = projectBindPath(source);
    return bindPath !== undefined ? this.bindClaims.get(bindPath) : undefined;
  }

  /** The pods that mount each compose source: by source key, the owners of the pods (a sidecar's is its host). */
  private findSharers(plans: readonly ServicePlan[]): void {
    const owners = new Map<string, Set<string>>();
    const pods = new Map<string, number>();
    for (const plan of plans) {
      const owner = plan.sidecarOf ?? plan.service.name;
      for (const mount of plan.service.volumes) {
        const key =
          mount.type === 'volume' && mount.source !== undefined
            ? composeSourceKey({ type: 'volume', name: mount.source })
            : mount.type === 'bind' && mount.source !== undefined && projectBindPath(mount.source) !== undefined
              ? composeSourceKey({ type: 'bind', name: projectBindPath(mount.source)! })
              : undefined;
        if (key !== undefined) {
          owners.set(key, new Set([...(owners.get(key) ?? []), owner]));
        }
      }
      if (plan.sidecarOf === undefined) {
        pods.set(owner, this.props.podsOf(plan));
      }
    }
    for (const [key, users] of [...owners.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (users.size > 1 || [...users].some((u) => (pods.get(u) ?? 1) > 1)) {
        this.sharers.set(key, users);
      }
    }
  }

  /** A claim per project folder that some service binds read-write, in path order, after the named volumes. */
  private createBindClaims(plans: readonly ServicePlan[]): void {
    const binds = new Map<string, Array<{ mount: VolumeMount; plan: ServicePlan }>>();
    for (const plan of plans) {
      for (const mount of plan.service.volumes) {
        const bindPath = mount.type === 'bind' && mount.source ? projectBindPath(mount.source) : undefined;
        if (bindPath !== undefined) {
          binds.set(bindPath, [...(binds.get(bindPath) ?? []), { mount, plan }]);
        }
      }
    }
    const { names, warnings } = this.props;
    for (const bindPath of [...binds.keys()].sort()) {
      const uses = binds.get(bindPath)!;
      const mounts = uses.map((u) => u.mount);
      const writer = mounts.find(isDataBind);
      if (!writer) {
        continue;
      }
      // An engine's data folder is a database's files: they travel with move-data (or a dump), not through a ConfigMap.
      const engineData = uses.some(
        ({ mount, plan }) =>
          ENGINE_DATA_SUBPATHS[mount.target] !== undefined ||
          (plan.kind === WorkloadKind.STATEFUL && plan.engine?.dataPath === mount.target),
      );
      const base = toDnsLabel(bindPath === '.' ? 'project' : bindPath.slice(2)) || 'bind';
      let name = base;
      for (let i = 1; names.has('PersistentVolumeClaim', name); i++) {
        name = joinDnsLabel(base, i === 1 ? 'bind' : `bind-${i}`);
      }
      const owner = { owner: `bind mount "${bindPath}"`, at: writer.at };
      names.claim('PersistentVolumeClaim', name, owner);
      const override = this.volumeOverride(bindPath);
      // kompose reads its volume labels on the service for the service's binds too.
      const user = uses.find((u) => u.mount === writer)!.plan.service;
      const sizeText = user.labels[KomposeLabel.VOLUME_SIZE];
      const claim = this.newClaim({
        id: `Bind-${bindPath}`,
        name,
        source: composeSourceKey({ type: 'bind', name: bindPath }),
        what: `bind mount "${bindPath}"`,
        bytes:
          override?.size !== undefined
            ? storageBytes(override.size)
            : sizeText !== undefined
              ? sizeLabel(sizeText, labelAt(user, KomposeLabel.VOLUME_SIZE))
              : storageBytes(this.props.props.storageSize ?? COMPOSE_APP_DEFAULTS.storageSize),
        storageClassName:
          override?.storageClassName ??
          user.labels[KomposeLabel.VOLUME_STORAGE_CLASS] ??
          this.props.props.storageClassName,
        at: writer.at,
      });
      const folder = mounts.find((m) => m.bind?.kind === 'directory');
      if (folder && engineData && (folder.bind?.files === undefined || folder.bind.files.length > 0)) {
        warnings.warn(
          'move-data',
          `the bound folder "${bindPath}" is a database's data folder: its claim "${name}" starts empty; bring ` +
            'the files with `cdk8s-compose move-data` (or restore a dump) before starting the app',
          folder.at,
        );
      }
      const seed =
        folder && !engineData
          ? seedFor({
              scope: this.props.scope,
              claimName: name,
              bindPath,
              bind: folder.bind!,
              at: folder.at,
              namespace: this.props.namespace,
              names,
              redactor: this.props.redactor,
              warnings,
            })
          : undefined;
      this.bindClaims.set(bindPath, { path: bindPath, claim, seed });
    }
  }

  /** A new claim of a compose source, annotated with the source, ReadWriteMany when shared and asked for. */
  private newClaim(options: {
    id: string;
    name: string;
    source: string;
    what: string;
    bytes: number;
    storageClassName?: string;
    at: ComposeLocation;
  }): kplus.PersistentVolumeClaim {
    const { warnings, namespace, scope } = this.props;
    const { size, rounded } = claimSize(options.bytes);
    if (rounded) {
      warnings.warn(
        'volume-size-rounded',
        `${options.what} asks for ${options.bytes} bytes; the claim asks for ${size.toGibibytes()}Gi ` +
          '(claims are sized in whole GiB)',
        options.at,
      );
    }
    const manyNodes =
      this.props.props.sharedVolumes === SharedVolumes.READ_WRITE_MANY && this.sharers.has(options.source);
    return new kplus.PersistentVolumeClaim(scope, options.id, {
      metadata: { name: options.name, namespace, annotations: { [COMPOSE_SOURCE_ANNOTATION]: options.source } },
      accessModes: [
        manyNodes ? kplus.PersistentVolumeAccessMode.READ_WRITE_MANY : kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE,
      ],
      storage: size,
      storageClassName: options.storageClassName,
    });
  }

  /** The `volumes` override of a bind path, under its key as written (`./library`, `library/`) or normalised. */
  private volumeOverride(bindPath: string): VolumeOverrides | undefined {
    const overrides = this.props.props.volumes ?? {};
    const key = Object.keys(overrides)
      .sort()
      .find((k) => k === bindPath || projectBindPath(k.startsWith('.') ? k : `./${k}`) === bindPath);
    return key !== undefined ? overrides[key] : undefined;
  }

  /**
   * Shared like compose: the pods that mount one compose source (several services, or replicas of one) can all mount
   * its claim. With a ReadWriteMany claim (`sharedVolumes`) they may run anywhere; otherwise the pods of each group of
   * services linked by shared sources get the label `VOLUME_GROUP_LABEL` and a required podAffinity on it, so they
   * run on one node as compose ran them on one host. What cannot hold (a DaemonSet, an autoscaler) is reported.
   */
  public shareClaims(migrated: ReadonlyMap<string, MigratedService>): void {
    const { warnings, scope } = this.props;
    const manyNodes = this.props.props.sharedVolumes === SharedVolumes.READ_WRITE_MANY;
    const groups = new Map<string, string>();
    const root = (owner: string): string => {
      let at = owner;
      while (groups.has(at) && groups.get(at) !== at) {
        at = groups.get(at)!;
      }
      return at;
    };
    const sources = [...this.sharers.entries()].filter(([key]) => this.claimOf(key) !== undefined);
    for (const [key, users] of sources) {
      const at = this.sourceAt(key);
      const claim = this.claimOf(key)!;
      const services = [...users].sort();
      const spread = services.filter((u) => migrated.get(u)?.kind !== WorkloadKind.DAEMON_SET);
      const who = (list: readonly string[]) =>
        list.length > 1
          ? `services ${list.join(', ')}`
          : `the ${migrated.get(list[0])?.autoscaler ? 'autoscaled' : (migrated.get(list[0])?.replicas ?? 1)} pods of service "${list[0]}"`;
      if (manyNodes) {
        warnings.warn(
          'shared-volume-rwx',
          `${describeSource(key)} is mounted by ${who(services)}: its ${claim instanceof kplus.PersistentVolumeClaim ? '' : 'external '}claim "${claim.name}" ${claim instanceof kplus.PersistentVolumeClaim ? 'is' : 'must be'} ReadWriteMany, which ` +
            `needs a storage class that supports it (${storageClassOf(claim)})`,
          at,
        );
        continue;
      }
      if (spread.length > 1 || (spread.length === 1 && services.length === 1)) {
        for (const user of spread) {
          groups.set(root(user), root(spread[0]));
        }
        warnings.warn(
          'shared-volume',
          `${describeSource(key)} is mounted by ${who(spread)}: its ReadWriteOnce claim "${claim.name}" attaches to ` +
            `one node, so their pods are scheduled onto one node (a required podAffinity on ${VOLUME_GROUP_LABEL}), as ` +
            'compose ran them on one host; use a ReadWriteMany class instead with sharedVolumes (--shared-volumes rwx)',
          at,
        );
      }
      for (const user of services) {
        const service = migrated.get(user);
        if (service?.kind === WorkloadKind.DAEMON_SET) {
          warnings.warn(
            'shared-volume',
            `${describeSource(key)} is mounted by service "${user}", a DaemonSet with a pod on every node: a ` +
              'ReadWriteOnce claim attaches to one node, so the pods on other nodes stay Pending (use a ReadWriteMany ' +
              'class with --shared-volumes rwx, or run it as a Deployment)',
            at,
          );
        } else if (service?.autoscaler) {
          warnings.warn(
            'shared-volume',
            `${describeSource(key)} is mounted by service "${user}", which autoscales: every pod it adds must run on ` +
              "the claim's one node, so it scales only as far as that node has room (use a ReadWriteMany class with " +
              '--shared-volumes rwx to spread them)',
            at,
          );
        }
      }
    }
    const members = new Map<string, string[]>();
    for (const owner of [...groups.keys()].sort()) {
      members.set(root(owner), [...(members.get(root(owner)) ?? []), owner]);
    }
    for (const [, owners] of [...members.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      // Named after the first claim (by name) the group shares: claim names are unique DNS labels.
      const group = sources
        .filter(([, users]) => owners.some((o) => users.has(o)))
        .map(([key]) => this.claimOf(key)!.name)
        .sort()[0];
      const selector = kplus.Pods.select(scope, `VolumeGroup-${group}`, { labels: { [VOLUME_GROUP_LABEL]: group } });
      for (const owner of owners) {
        const workload = migrated.get(owner)?.workload;
        if (workload && !(workload instanceof kplus.DaemonSet)) {
          workload.podMetadata.addLabel(VOLUME_GROUP_LABEL, group);
          workload.scheduling.colocate(selector, { topology: kplus.Topology.HOSTNAME });
        }
      }
    }
  }

  /** The claim of a compose source key, when the app made or referenced one. */
  public claimOf(key: string): kplus.IPersistentVolumeClaim | undefined {
    const [type, ...rest] = key.split(':');
    const name = rest.join(':');
    return type === 'volume' ? this.claimMap.get(name) : this.bindClaims.get(name)?.claim;
  }

  /** Where a compose source is declared: the top-level volume, or the first mount of the bound folder. */
  private sourceAt(key: string): ComposeLocation {
    const [type, ...rest] = key.split(':');
    const name = rest.join(':');
    if (type === 'volume') {
      return this.props.model.volumes.find((v) => v.name === name)!.at;
    }
    for (const service of this.props.model.services) {
      const mount = service.volumes.find((m) => m.type === 'bind' && m.source && projectBindPath(m.source) === name);
      if (mount) {
        return mount.at;
      }
    }
    return this.props.model.at;
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
}

/** The pod label the services that share a ReadWriteOnce claim have in common; their podAffinity selects it. */
export const VOLUME_GROUP_LABEL = 'cdk8s-compose.io/volume-group';

/** The storage class a claim asks for, in words. */
function storageClassOf(claim: kplus.IPersistentVolumeClaim): string {
  const name = claim instanceof kplus.PersistentVolumeClaim ? claim.storageClassName : undefined;
  return name !== undefined ? `the class "${name}"` : "the cluster's default class, or --storage-class-name";
}

/** `volume "data"` or `bind mount "./library"`, from a compose source key. */
export function describeSource(key: string): string {
  const [type, ...rest] = key.split(':');
  return type === 'volume' ? `volume "${rest.join(':')}"` : `bind mount "${rest.join(':')}"`;
}
