import { ComposeService, VolumeMount } from '../../compose/model';
import {
  COMPOSE_SOURCE_ANNOTATION,
  ENGINE_DATA_SUBPATHS,
  composeSourceKey,
  isDataBind,
  projectBindPath,
} from '../storage/claim-sources';
import { WorkloadKind } from '../service/migrated-service';
import { VOLUME_GROUP_LABEL, describeSource } from '../storage/volume-claims';
import { VerifiedManifests, VerifiedPod } from './verified-manifests';
import { VerifyCheck, VerifyReport, VerifyStatus } from './verify-report';

// `verify`'s data class: what compose keeps across a restart survives one (a claim, never an emptyDir), what
// several pods share is one claim they can all mount at once, and a bound folder's files reach its claim.

const HOSTNAME = 'kubernetes.io/hostname';

/** The parts of a rendered pod volume the checks read. */
interface PodVolume {
  readonly name: string;
  readonly persistentVolumeClaim?: { readonly claimName: string };
  readonly emptyDir?: object;
  readonly configMap?: { readonly name: string; readonly items?: readonly KeyToPath[] };
  readonly secret?: { readonly secretName: string; readonly items?: readonly KeyToPath[] };
}

interface KeyToPath {
  readonly key: string;
  readonly path: string;
}

interface MountingContainer {
  readonly name: string;
  readonly volumeMounts?: ReadonlyArray<{ readonly name: string; readonly mountPath: string }>;
}

interface AffinityTerm {
  readonly topologyKey?: string;
  readonly labelSelector?: { readonly matchLabels?: Record<string, string>; readonly matchExpressions?: unknown };
  readonly namespaces?: unknown;
  readonly namespaceSelector?: unknown;
}

function podVolumes(pod: VerifiedPod | undefined): PodVolume[] {
  return pod?.spec.volumes ?? [];
}

/** The compose source a mount keeps its data in (`volume:x`, `bind:./y`), or undefined when it keeps none. */
export function keptSource(mount: VolumeMount): string | undefined {
  if (mount.type === 'volume' && mount.source !== undefined && !mount.readOnly) {
    return composeSourceKey({ type: 'volume', name: mount.source });
  }
  return isDataBind(mount) ? composeSourceKey({ type: 'bind', name: projectBindPath(mount.source!)! }) : undefined;
}

/** The three checks over every service migrated to a container. */
export function checkData(m: VerifiedManifests): void {
  const sharers = new Map<string, Set<string>>();
  for (const service of m.app.model.services) {
    const migrated = m.migrated.get(service.name);
    if (!migrated) {
      continue;
    }
    for (const mount of service.volumes) {
      const source = keptSource(mount) ?? claimedSource(m, service, mount);
      if (source === undefined) {
        continue;
      }
      if (keptSource(mount) !== undefined) {
        checkDurable(m, service, mount, source);
      }
      if (isDataBind(mount) && mount.bind?.kind === 'directory') {
        checkSeeded(m, service, mount, source);
      }
      const owner = migrated.sidecarOf ?? service.name;
      sharers.set(source, new Set([...(sharers.get(source) ?? []), owner]));
    }
  }
  for (const [source, owners] of [...sharers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    checkShared(m, source, [...owners].sort());
  }
}

/** `convert`'s count of the data class: `data: 5 durable, 1 shared, 2 seeded (0 broken)`; empty without any. */
export function dataSummary(report: VerifyReport): string {
  const data = report.expectations.filter((e) => e.check === VerifyCheck.DATA);
  if (data.length === 0) {
    return '';
  }
  const holding = (kind: string) =>
    data.filter((e) => e.subject.startsWith(`${kind} `) && e.status === VerifyStatus.OK).length;
  const broken = data.filter((e) => e.status === VerifyStatus.BROKEN).length;
  return `data: ${holding('durable')} durable, ${holding('shared')} shared, ${holding('seeded')} seeded (${broken} broken)`;
}

/** A read-only mount of a source that another service writes: it shares the claim, so it counts among the sharers. */
function claimedSource(m: VerifiedManifests, service: ComposeService, mount: VolumeMount): string | undefined {
  const volume = volumeAt(m.pods.get(service.name), mount.target);
  const claim = volume?.persistentVolumeClaim
    ? m.find('PersistentVolumeClaim', volume.persistentVolumeClaim.claimName)
    : undefined;
  const annotated = claim?.metadata?.annotations?.[COMPOSE_SOURCE_ANNOTATION];
  return mount.type !== 'tmpfs' && typeof annotated === 'string' ? annotated : undefined;
}

/** The pod volume mounted at a path in the service's container. */
function volumeAt(pod: VerifiedPod | undefined, target: string): PodVolume | undefined {
  const container: MountingContainer | undefined = pod?.container;
  const mount = (container?.volumeMounts ?? []).find((v) => v.mountPath === target);
  return mount ? podVolumes(pod).find((v) => v.name === mount.name) : undefined;
}

function checkDurable(m: VerifiedManifests, service: ComposeService, mount: VolumeMount, source: string): void {
  const subject = `durable ${mount.target} (${describeSource(source)})`;
  const volume = volumeAt(m.pods.get(service.name), mount.target);
  if (!volume) {
    m.add(service.name, VerifyCheck.DATA, subject, VerifyStatus.BROKEN, 'nothing is mounted there: the data is lost');
    return;
  }
  if (!volume.persistentVolumeClaim) {
    const kind = volume.emptyDir ? 'an emptyDir' : volume.configMap ? 'a ConfigMap' : 'not a claim';
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      `mounted from ${kind}: what the app writes is lost with the pod`,
    );
    return;
  }
  const claimName = volume.persistentVolumeClaim.claimName;
  const claim = m.find('PersistentVolumeClaim', claimName);
  const external =
    source.startsWith('volume:') && m.app.model.volumes.some((v) => `volume:${v.name}` === source && v.external);
  if (!claim && !external) {
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      `the claim "${claimName}" is not in the manifests`,
    );
  } else if (claim && claim.metadata?.annotations?.[COMPOSE_SOURCE_ANNOTATION] !== source) {
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      `the claim "${claimName}" is not the one of ${describeSource(source)} (${COMPOSE_SOURCE_ANNOTATION})`,
    );
  } else {
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.OK,
      `claim ${claimName}${external ? ' (external)' : ''}`,
    );
  }
}

/** The bound folder's files reach its claim: an init container mounts the claim and seed volumes holding each file. */
function checkSeeded(m: VerifiedManifests, service: ComposeService, mount: VolumeMount, source: string): void {
  const files = mount.bind?.files;
  if (files !== undefined && files.length === 0) {
    return;
  }
  const subject = `seeded ${describeSource(source).replace(/^bind mount /, '')}`;
  const moved = m.warned(mount.at.path, ['move-data']);
  if (files === undefined || ENGINE_DATA_SUBPATHS[mount.target] !== undefined || moved) {
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      moved ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
      moved ? moved.message : 'the folder is not read and nothing says how its files reach the claim',
    );
    return;
  }
  const pod = m.pods.get(service.name);
  const claimName = volumeAt(pod, mount.target)?.persistentVolumeClaim?.claimName;
  const volumes = podVolumes(pod);
  const initContainers: MountingContainer[] = pod?.spec.initContainers ?? [];
  const byName = (name: string) => volumes.find((v) => v.name === name);
  const seeder = initContainers.find((c) =>
    (c.volumeMounts ?? []).some((vm) => byName(vm.name)?.persistentVolumeClaim?.claimName === claimName),
  );
  if (claimName === undefined || !seeder) {
    m.add(
      service.name,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      'no init container copies its files into the claim',
    );
    return;
  }
  const seedVolumes = (seeder.volumeMounts ?? [])
    .map((vm) => byName(vm.name))
    .filter((v): v is PodVolume => v?.configMap !== undefined || v?.secret !== undefined);
  for (const file of files) {
    const found = seedVolumes.some((v) => {
      const item = (v.configMap ?? v.secret)!.items?.find((i) => i.path === file.path);
      return item && seedBytes(m, v, item.key)?.equals(fileBytes(file)) === true;
    });
    if (!found) {
      m.add(
        service.name,
        VerifyCheck.DATA,
        subject,
        VerifyStatus.BROKEN,
        `the file "${file.path}" is not in the seed of init container ${seeder.name}, or its bytes differ`,
      );
      return;
    }
  }
  m.add(
    service.name,
    VerifyCheck.DATA,
    subject,
    VerifyStatus.OK,
    `init container ${seeder.name} copies its ${files.length} file(s) into claim ${claimName}`,
  );
}

/** Several pods that mount one source mount one claim, and can at once: ReadWriteMany, or one node by podAffinity. */
function checkShared(m: VerifiedManifests, source: string, owners: readonly string[]): void {
  const pods = owners.map((o) => ({ owner: o, pod: m.pods.get(o), migrated: m.migrated.get(o) }));
  const spread = pods.some((p) => p.migrated?.kind === WorkloadKind.DAEMON_SET);
  const replicas = pods.reduce((sum, p) => sum + (p.migrated?.autoscaler ? 2 : (p.migrated?.replicas ?? 1)), 0);
  if (owners.length < 2 && replicas < 2 && !spread) {
    return;
  }
  const subject = `shared ${describeSource(source)}`;
  const service = owners[0];
  const claimNames = new Set<string>();
  for (const service of m.app.model.services) {
    for (const mount of service.volumes) {
      if ((keptSource(mount) ?? claimedSource(m, service, mount)) === source) {
        const name = volumeAt(m.pods.get(service.name), mount.target)?.persistentVolumeClaim?.claimName;
        claimNames.add(name ?? '(no claim)');
      }
    }
  }
  if (claimNames.size !== 1 || claimNames.has('(no claim)')) {
    m.add(
      service,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      `mounted from ${[...claimNames].sort().join(', ')}: not one claim`,
    );
    return;
  }
  const claimName = [...claimNames][0];
  const claim = m.find('PersistentVolumeClaim', claimName);
  if ((claim?.spec?.accessModes ?? []).includes('ReadWriteMany')) {
    m.add(service, VerifyCheck.DATA, subject, VerifyStatus.OK, `claim ${claimName} is ReadWriteMany`);
    return;
  }
  const reported = m.warned(sourceAtPath(source), ['shared-volume']);
  if (spread) {
    m.add(
      service,
      VerifyCheck.DATA,
      subject,
      reported ? VerifyStatus.REPORTED : VerifyStatus.BROKEN,
      reported ? reported.message : `claim ${claimName} is ReadWriteOnce and a DaemonSet mounts it on every node`,
    );
    return;
  }
  const group = pods[0].pod?.labels[VOLUME_GROUP_LABEL];
  const apart = pods.filter(
    (p) =>
      group === undefined ||
      p.pod?.labels[VOLUME_GROUP_LABEL] !== group ||
      !(p.pod?.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(
        (term: AffinityTerm) =>
          term.topologyKey === HOSTNAME &&
          term.labelSelector?.matchLabels?.[VOLUME_GROUP_LABEL] === group &&
          Object.keys(term.labelSelector.matchLabels).length === 1 &&
          term.labelSelector.matchExpressions === undefined &&
          term.namespaces === undefined &&
          term.namespaceSelector === undefined,
      ),
  );
  if (apart.length > 0) {
    m.add(
      service,
      VerifyCheck.DATA,
      subject,
      VerifyStatus.BROKEN,
      `claim ${claimName} is ReadWriteOnce and the pods of ${apart.map((p) => p.owner).join(', ')} are not held on ` +
        'its node by a required podAffinity: a second node cannot attach it',
    );
    return;
  }
  m.add(
    service,
    VerifyCheck.DATA,
    subject,
    VerifyStatus.OK,
    `claim ${claimName} (ReadWriteOnce): ${owners.join(', ')} held on one node by podAffinity ${VOLUME_GROUP_LABEL}=${group}`,
  );
}

/** The compose path warnings about a source are at: the top-level volume, or the service volumes (a bind). */
function sourceAtPath(source: string): string {
  return source.startsWith('volume:') ? `volumes.${source.slice('volume:'.length)}` : 'services';
}

function fileBytes(file: { text: string; binary: boolean }): Buffer {
  return file.binary ? Buffer.from(file.text, 'base64') : Buffer.from(file.text, 'utf8');
}

/** The bytes of a key of a seed volume's ConfigMap or Secret. */
function seedBytes(m: VerifiedManifests, volume: PodVolume, key: string): Buffer | undefined {
  const object: { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined = volume.configMap
    ? m.find('ConfigMap', volume.configMap.name)
    : m.find('Secret', volume.secret!.secretName);
  if (!object) {
    return undefined;
  }
  if (object.data?.[key] !== undefined) {
    return volume.configMap
      ? Buffer.from(String(object.data[key]), 'utf8')
      : Buffer.from(String(object.data[key]), 'base64');
  }
  return object.binaryData?.[key] !== undefined ? Buffer.from(String(object.binaryData[key]), 'base64') : undefined;
}
