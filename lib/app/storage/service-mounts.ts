import { shellCommand } from '../../util/shell-words';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { KubeSecret } from '../../../imports/k8s';
import { ComposeLocation, FileContent, VolumeMount } from '../../compose/model';
import { joinDnsLabel } from '../../base/naming';
import { sizeFromBytes } from '../../base/quantities';
import { secretHandle } from '../../base/secret-handle';
import { secretFileReason } from '../../compose/secret-files';
import { compare } from '../../util/sort';
import { ClaimInitOptions, ClaimPrep, addClaimInitContainers, claimsGroup, noShellReason } from './claim-init';
import { ENGINE_DATA_SUBPATHS } from './claim-sources';
import { KeyNames } from '../key-names';
import { configMapData, fileName, secretData } from './file-data';
import { MountedFileSource, ServicePartProps, WorkloadKind, objectMetadata } from '../service/service-plan';

/** One volume mounted into the service's container. */
export interface PodMount {
  readonly path: string;
  readonly volume: kplus.Volume;
  /** The name of a claim's volume in the pod, when it mounts a claim. */
  readonly volumeName?: string;
  readonly subPath?: string;
  readonly readOnly: boolean;
}

/** A bound file read from the project, kept in the `<name>-files` ConfigMap or Secret under `key`. */
interface BoundFile {
  readonly mount: VolumeMount;
  readonly content: FileContent;
  readonly key: string;
}

/**
 * A service's volumes, secrets, configs and bind mounts as pod volumes and mounts: claims for named volumes and for
 * project folders bound read-write (seeded from their files, filled by copy-up, an engine's data directory on a
 * subdirectory), emptyDirs for tmpfs and anonymous volumes, the compose secrets and configs the app holds, and the
 * read-only bound files of the project in the `<name>-files` ConfigMap (or Secret, for files holding a secret value).
 * The engine's data path of a stateful dependency is left to it (`engineDataClaim`).
 */
export class ServiceMounts {
  /** The mounts, sorted by path. */
  public readonly mounts: PodMount[] = [];
  /** The claims the pod mounts, by volume name in the pod. */
  public readonly claims: Record<string, kplus.IPersistentVolumeClaim> = {};

  private readonly scope: Construct;
  private dataClaim?: kplus.IPersistentVolumeClaim;
  private dataMountPath?: string;
  private dataKept = false;
  private filesObjects: { configMap?: kplus.ConfigMap; secret?: KubeSecret } = {};
  private readonly part: ServicePartProps;
  private readonly volumeNames: KeyNames;
  private readonly files: BoundFile[] = [];
  private readonly fileKeys = new KeyNames();
  private readonly preps: ClaimPrep[] = [];

  constructor(scope: Construct, part: ServicePartProps) {
    this.scope = scope;
    this.part = part;
    const { plan, context } = part;
    this.volumeNames = new KeyNames(true, plan.sidecarOf !== undefined ? plan.name : undefined);
    for (const mount of plan.service.volumes) {
      this.planVolume(mount);
    }
    const fileRefs = [
      ...plan.service.secrets.map((ref) => ({
        ref,
        what: 'secret',
        id: 'Secret',
        source: context.secretSource(ref.source, plan, ref.at),
      })),
      ...plan.service.configs.map((ref) => ({
        ref,
        what: 'config',
        id: 'Config',
        source: context.configSource(ref.source, plan, ref.at),
      })),
    ];
    for (const { ref, what, id, source } of fileRefs) {
      if (source) {
        this.mounts.push(this.fileMount(source, ref.target, ref.mode, `${id}-${ref.source}`));
      }
      if (ref.uid !== undefined || ref.gid !== undefined) {
        context.warn(
          'unsupported-key',
          `ignored uid/gid of ${what} "${ref.source}": mounted files belong to the pod's user`,
          ref.at,
        );
      }
    }
    if (this.files.length > 0) {
      this.mountFiles();
    }
    this.mounts.sort((a, b) => compare(a.path, b.path));
  }

  /** The claim compose mounts at a stateful dependency's data path. */
  public get engineDataClaim(): kplus.IPersistentVolumeClaim | undefined {
    return this.dataClaim;
  }

  /**
   * Where compose mounts `engineDataClaim` when that is a folder above the engine's data path
   * (`pgdata:/var/lib/postgresql`); undefined at the data path itself.
   */
  public get engineDataMountPath(): string | undefined {
    return this.dataMountPath;
  }

  /** Compose keeps the engine's data: a named volume or a bind mount at its data path or a folder above it. */
  public get engineDataKept(): boolean {
    return this.dataKept;
  }

  /** The ConfigMap of bind-mounted files (`<name>-files`). */
  public get filesConfigMap(): kplus.ConfigMap | undefined {
    return this.filesObjects.configMap;
  }

  /** The Secret of bind-mounted files that hold a secret value (`<name>-files`). */
  public get filesSecret(): KubeSecret | undefined {
    return this.filesObjects.secret;
  }

  /** Mounts every volume into the container. */
  public mountInto(container: kplus.Container): void {
    for (const mount of this.mounts) {
      container.mount(mount.path, mount.volume, { subPath: mount.subPath, readOnly: mount.readOnly });
    }
  }

  /**
   * The group that owns the pod's claims (`fsGroup`): compose's `user: uid:gid` group, so that a non-root process
   * can write its volumes; undefined when the pod mounts no claim or compose names no group.
   */
  public get fsGroup(): number | undefined {
    const hasClaims = Object.keys(this.claims).length > 0 || this.dataClaim !== undefined;
    return hasClaims ? claimsGroup(this.part.plan.service, this.part.context.warn) : undefined;
  }

  /**
   * The init containers that prepare the pod's claims before the app starts (`addClaimInitContainers`): the seed of
   * a bound folder's files, and copy-up of the image's files into a new named volume.
   */
  public addInitContainers(
    workload: kplus.AbstractPod | kplus.Workload,
    options: Pick<ClaimInitOptions, 'seedImage' | 'resources'>,
  ): void {
    const { plan, settings } = this.part;
    addClaimInitContainers(workload, this.preps, {
      ...options,
      scope: this.scope,
      volumeNames: this.volumeNames,
      image: settings.image,
      imagePullPolicy: settings.imagePullPolicy,
      user: plan.service.user,
    });
  }

  /** The tmpfs volumes compose gave a size, with that size in bytes. */
  public tmpfsSizes(): Array<{ volume: kplus.Volume; bytes: number }> {
    const { service } = this.part.plan;
    return this.mounts.flatMap((m) => {
      const tmpfs = service.volumes.find((v) => v.type === 'tmpfs' && v.target === m.path && v.sizeBytes !== undefined);
      return tmpfs ? [{ volume: m.volume, bytes: tmpfs.sizeBytes! }] : [];
    });
  }

  private planVolume(mount: VolumeMount): void {
    const { plan, context } = this.part;
    const engine = plan.kind === WorkloadKind.STATEFUL ? plan.engine : undefined;
    const target = mount.target.replace(/\/+$/, '');
    const onEngineData = engine !== undefined && target === engine.dataPath;
    const keepsEngineData =
      engine !== undefined && (target === engine.dataPath || engine.dataPath.startsWith(`${target}/`));
    if (keepsEngineData && (mount.type === 'bind' || (mount.type === 'volume' && mount.source !== undefined))) {
      this.dataKept = true;
    }
    if (mount.type === 'tmpfs') {
      const volume = kplus.Volume.fromEmptyDir(
        this.scope,
        `Tmpfs${mount.target}`,
        this.volumeNames.key(`tmpfs-${mount.target}`),
        {
          medium: kplus.EmptyDirMedium.MEMORY,
          sizeLimit: mount.sizeBytes !== undefined ? sizeFromBytes(mount.sizeBytes) : undefined,
        },
      );
      this.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
    } else if (mount.type === 'volume' && mount.source === undefined) {
      if (onEngineData) {
        return;
      }
      const volumeName = this.volumeNames.key(`anon-${mount.target}`);
      const volume = kplus.Volume.fromEmptyDir(this.scope, `Anonymous${mount.target}`, volumeName);
      this.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
      const { image, copyUp } = this.part.settings;
      // Docker fills a new anonymous volume with the image's files (a node_modules folder kept apart from a bound
      // source folder is the common case): without them the app finds an empty folder.
      const copies = !mount.readOnly && !mount.nocopy && copyUp && noShellReason(image) === undefined;
      if (copies) {
        this.preps.push({ volume, volumeName, copyFrom: mount.target });
      }
      context.warn(
        'anonymous-volume',
        copies
          ? `anonymous volume at ${mount.target} becomes an emptyDir that an init container from the service's ` +
              `image fills with the image's files at each start, as docker fills a new anonymous volume (it needs ` +
              `sh and cp in "${image}"; turn it off with volume.nocopy: true, services[name].copyUp or --copy-up ` +
              'off); what the app writes there is lost with the pod: name the volume to keep it'
          : `anonymous volume at ${mount.target} becomes an emptyDir: it starts empty (docker would ` +
              "copy the image's files into it) and is lost with the pod: name the volume to keep it",
        mount.at,
      );
    } else if (mount.type === 'volume') {
      const claim = context.claimFor(mount.source!, plan, mount.at);
      if (onEngineData && mount.subpath === undefined) {
        this.dataClaim = claim;
        return;
      }
      // A volume above the data path (postgres 18 images declare /var/lib/postgresql) holds the data in a folder of
      // its own: it is the engine's data claim, mounted where compose mounts it, not a second claim beside a new one.
      if (keepsEngineData && mount.subpath === undefined && this.dataClaim === undefined) {
        this.dataClaim = claim;
        this.dataMountPath = target;
        return;
      }
      const volume = this.mountClaim(claim, `Claim-${mount.source}`, mount, mount.subpath);
      const external = context.isExternalVolume(mount.source!);
      // Docker copies into a whole new volume, not into a subpath of one.
      const copies = !mount.readOnly && !mount.nocopy && mount.subpath === undefined;
      if (copies && !external && this.part.settings.copyUp) {
        this.addCopyUp(volume, mount);
      }
    } else {
      this.planBind(mount, onEngineData);
    }
  }

  /**
   * Mounts a claim at the mount's target: one pod volume per claim however often it is mounted, and a known engine's
   * data directory on a subdirectory of the claim, so that a fresh claim's `lost+found` does not stop its first start.
   */
  private mountClaim(
    claim: kplus.IPersistentVolumeClaim,
    id: string,
    mount: VolumeMount,
    subpath: string | undefined,
  ): { volume: kplus.Volume; volumeName: string; subPath?: string } {
    // The key is taken even for a claim mounted twice, so the names after it stay as they are.
    const newName = this.volumeNames.key(claim.name);
    const volumeName = Object.entries(this.claims).find(([, c]) => c === claim)?.[0];
    const volume =
      volumeName !== undefined
        ? this.mounts.find((m) => m.volumeName === volumeName)!.volume
        : kplus.Volume.fromPersistentVolumeClaim(this.scope, id, claim, { name: newName });
    if (volumeName === undefined) {
      this.claims[newName] = claim;
    }
    const engineSubPath = subpath === undefined ? ENGINE_DATA_SUBPATHS[mount.target] : undefined;
    if (engineSubPath !== undefined && !mount.readOnly) {
      this.part.context.warn(
        'engine-data-subpath',
        `${mount.target} is a database data directory: it is mounted from the subdirectory "${engineSubPath}" of ` +
          `the claim "${claim.name}", because a new claim's lost+found makes the engine refuse to initialise it`,
        mount.at,
      );
    }
    // A read-only mount of the same claim sees the engine's data where the writer put it.
    const subPath = subpath ?? engineSubPath;
    this.mounts.push({
      path: mount.target,
      volume,
      volumeName: volumeName ?? newName,
      subPath,
      readOnly: mount.readOnly,
    });
    return { volume, volumeName: volumeName ?? newName, subPath };
  }

  /** Copy-up: the image's files at the mount path go into the new claim before the app starts. */
  private addCopyUp(
    claimVolume: { volume: kplus.Volume; volumeName: string; subPath?: string },
    mount: VolumeMount,
  ): void {
    const { settings, context } = this.part;
    const reason = noShellReason(settings.image);
    if (reason !== undefined) {
      context.warn(
        'copy-up',
        `volume "${mount.source}" at ${mount.target} starts empty: docker would copy the image's files there, but ` +
          `the image "${settings.image}" ${reason}, so no init container can copy them; copy them in after deploying, ` +
          'or set volume.nocopy: true to say the volume starts empty',
        mount.at,
      );
      return;
    }
    if (this.preps.some((p) => p.volumeName === claimVolume.volumeName && p.copyFrom !== undefined)) {
      return;
    }
    context.warn(
      'copy-up',
      `volume "${mount.source}" at ${mount.target}: an init container from the service's image copies the image's ` +
        `files there into a new claim once, as docker does (it needs sh and cp in "${settings.image}"; ` +
        'turn it off with volume.nocopy: true, services[name].copyUp or --copy-up off)',
      mount.at,
    );
    this.preps.push({ ...claimVolume, copyFrom: mount.target });
  }

  private planBind(mount: VolumeMount, onEngineData: boolean): void {
    const { context } = this.part;
    const source = mount.source ?? '';
    const kind = mount.bind?.kind ?? 'missing';
    const bindClaim = context.bindClaimFor(source);
    if (bindClaim && onEngineData) {
      this.dataClaim = bindClaim.claim;
      return;
    }
    if (bindClaim) {
      const claimVolume = this.mountClaim(bindClaim.claim, `Bind-${bindClaim.path}`, mount, undefined);
      if (bindClaim.seed && !this.preps.some((p) => p.volumeName === claimVolume.volumeName && p.seed)) {
        this.preps.push({ ...claimVolume, seed: bindClaim.seed });
      }
      return;
    }
    if (onEngineData) {
      context.warn(
        'directory-bind',
        `bind mount "${source}" at the data path ${mount.target} is replaced by the database's ` +
          'claim: host data does not travel; restore it from a dump',
        mount.at,
      );
      return;
    }
    if (kind === 'file' && mount.bind?.content) {
      if (!mount.readOnly) {
        context.warn(
          'bind-read-only',
          `the bound file "${source}" is mounted read-only from a ConfigMap; writes to it fail`,
          mount.at,
        );
      }
      this.files.push({ mount, content: mount.bind.content, key: this.fileKeys.key(fileName(source)) });
    } else if (kind === 'file') {
      context.warn(
        'large-bind-file',
        `the bound file "${source}" was not read, so it is not mounted at ${mount.target}`,
        mount.at,
      );
    } else if (kind === 'directory' && mount.bind?.files && mount.bind.files.length > 0) {
      if (!mount.readOnly) {
        context.warn(
          'bind-read-only',
          `the bound directory "${source}" is mounted read-only from a ConfigMap (its files, ` +
            `${mount.bind.files.length} of them); writes to it fail`,
          mount.at,
        );
      }
      const target = mount.target.replace(/\/+$/, '');
      for (const file of mount.bind.files) {
        this.files.push({
          mount: { ...mount, source: `${source.replace(/\/+$/, '')}/${file.path}`, target: `${target}/${file.path}` },
          content: file,
          key: this.fileKeys.key(file.path),
        });
      }
    } else if (kind === 'directory' && mount.bind?.files) {
      const volume = kplus.Volume.fromEmptyDir(
        this.scope,
        `Empty${mount.target}`,
        this.volumeNames.key(`bind-${mount.target}`),
      );
      this.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
    } else if (kind === 'directory' && mount.bind?.sizeBytes !== undefined) {
      context.warn(
        'large-bind-directory',
        `directory bind mount "${source}" → ${mount.target} holds more than a ConfigMap ` +
          `can (1 MiB, 256 files), so it is not migrated: the container sees the image's own files there. Put the data in ` +
          `a named volume and copy it in after deploying (${shellCommand('kubectl', 'cp', source, `<pod>:${mount.target}`, '-n', context.namespace)})`,
        mount.at,
      );
    } else if (kind === 'directory') {
      context.warn(
        'directory-bind',
        `directory bind mount "${source}" → ${mount.target} is not migrated: host data does not ` +
          "travel, and the container sees the image's own files there. Use a named volume (and copy the data in) or " +
          'configs for files',
        mount.at,
      );
    } else if (kind === 'missing') {
      context.warn(
        'directory-bind',
        `bind mount "${source}" does not exist; ${mount.target} becomes an empty emptyDir, as ` +
          'docker would create an empty directory; if the app needs files there, create the folder with them and ' +
          'convert again',
        mount.at,
      );
      const volume = kplus.Volume.fromEmptyDir(
        this.scope,
        `Missing${mount.target}`,
        this.volumeNames.key(`bind-${mount.target}`),
      );
      this.mounts.push({ path: mount.target, volume, readOnly: mount.readOnly });
    } else {
      context.warn(
        'host-path',
        `bind mount of the host path "${source}" is not migrated: a pod does not see its node's files. ` +
          'Run this service on a VM (GoldenImageVm) if it needs the host',
        mount.at,
      );
    }
  }

  /** A compose secret or config, mounted through the handle of the object that holds it. */
  private fileMount(source: MountedFileSource, target: string, mode: number | undefined, id: string): PodMount {
    const volume =
      source.kind === 'Secret'
        ? kplus.Volume.fromSecret(this.scope, id, source.secret, {
            name: this.volumeNames.key(`secret-${source.secret.name}`),
            defaultMode: mode,
          })
        : kplus.Volume.fromConfigMap(this.scope, id, source.configMap, {
            name: this.volumeNames.key(`config-${source.configMap.name}`),
            defaultMode: mode,
          });
    return { path: target, volume, subPath: source.key, readOnly: true };
  }

  /** The bound files: the `<name>-files` ConfigMap, and the `<name>-files` Secret for those holding a secret value. */
  private mountFiles(): void {
    const { plan, context } = this.part;
    const service = plan.service;
    const reasons = new Map(this.files.map((f) => [f, secretFileReason(f.content, context.secretValues)]));
    const holdsSecret = this.files.filter((f) => reasons.get(f) !== undefined);
    const plainFiles = this.files.filter((f) => !holdsSecret.includes(f));
    const owner = { owner: `the bind-mounted files of service "${service.name}"`, at: service.at };
    const name = joinDnsLabel(plan.name, 'files');
    if (plainFiles.length > 0) {
      context.names.claim('ConfigMap', name, owner);
      const configMap = new kplus.ConfigMap(this.scope, 'FilesConfigMap', {
        metadata: objectMetadata(this.part, name),
        ...configMapData(plainFiles),
      });
      this.filesObjects = { configMap };
      const volume = kplus.Volume.fromConfigMap(this.scope, 'FilesVolume', configMap, {
        name: this.volumeNames.key('files'),
      });
      this.mountEach(plainFiles, volume);
    }
    if (holdsSecret.length > 0) {
      context.names.claim('Secret', name, owner);
      for (const file of holdsSecret) {
        context.warn(
          'file-holds-secret',
          `the bound file "${file.mount.source}" ${reasons.get(file)}, so it is mounted from ` +
            `the Secret "${name}" instead of a ConfigMap`,
          file.mount.at,
        );
      }
      const secret = new KubeSecret(this.scope, 'FilesSecret', {
        metadata: objectMetadata(this.part, name),
        type: 'Opaque',
        data: secretData(holdsSecret),
      });
      this.filesObjects = { ...this.filesObjects, secret };
      const handle = secretHandle(this.scope, 'FilesSecretRef', secret);
      this.mountEach(
        holdsSecret,
        kplus.Volume.fromSecret(this.scope, 'FilesSecretVolume', handle, {
          name: this.volumeNames.key('files-secret'),
        }),
      );
    }
    for (const file of this.files.filter((f) => !f.content.binary)) {
      this.reportReferences(file.content.text, `the bound file "${file.mount.source}"`, file.mount.at);
    }
  }

  private mountEach(files: readonly BoundFile[], volume: kplus.Volume): void {
    for (const file of files) {
      this.mounts.push({ path: file.mount.target, volume, subPath: file.key, readOnly: true });
    }
  }

  /** Rule 2 for files: names that would not resolve in Kubernetes are reported, one warning each. */
  private reportReferences(text: string, what: string, at: ComposeLocation): void {
    for (const reference of this.part.context.hosts.references(text)) {
      this.part.context.warn(
        'file-host-reference',
        `${what} refers to "${reference.from}", which is the Service "${reference.to}" in ` +
          'Kubernetes; edit the file',
        at,
      );
    }
  }
}
