import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeLocation, ComposeService } from '../../compose/model';
import { joinDnsLabel } from '../../base/naming';
import { HELPER_RESOURCES, capability, pullPolicyFor } from '../../base/pod-defaults';
import { compare } from '../../util/sort';
import { ClaimSeed } from './claim-seed';
import { COPIED_MARKER, SEEDED_MARKER } from './claim-sources';
import { KeyNames } from '../key-names';
import { parseUser } from '../service/service-pod';
import { atKey } from '../service/service-plan';

/**
 * The init containers that prepare a pod's claims before the app starts, each once per claim (a marker file in the
 * claim's root) and only into an empty folder, as docker fills only an empty volume: the seed of a bound folder's
 * files (copied from its ConfigMap and Secret by a small shell image), and copy-up of the image's files at a named
 * volume's path (by the service's own image, keeping ownership).
 */

/** Work an init container does on a claim before the app starts: seed it from a bound folder, or copy the image's files. */
export interface ClaimPrep {
  readonly volume: kplus.Volume;
  readonly volumeName: string;
  /** The claim's subdirectory the app mounts (compose's subpath, or an engine's data subdirectory). */
  readonly subPath?: string;
  readonly seed?: ClaimSeed;
  /** Copy-up: the path in the image whose files the claim receives. */
  readonly copyFrom?: string;
}

/** What the init containers are made with. */
export interface ClaimInitOptions {
  /** The construct their volumes are made in. */
  readonly scope: Construct;
  /** The pod's volume names, so the seed volumes take free ones. */
  readonly volumeNames: KeyNames;
  /** An image with `sh` and `cp` for the seed (the TCP waits' busybox). */
  readonly seedImage: string;
  /** The service's image, for copy-up. */
  readonly image: string;
  readonly imagePullPolicy?: kplus.ImagePullPolicy;
  /** Compose's `user:`: the seeded files are given to it. */
  readonly user?: string;
  /** The service container's resources, which copy-up runs with. */
  readonly resources: kplus.ContainerResources;
}

/**
 * The group that owns a pod's claims (`fsGroup`): compose's `user: uid:gid` group, so that a non-root process can
 * write its volumes; a non-root `user:` without a group is reported.
 */
export function claimsGroup(
  service: ComposeService,
  warn: (code: string, message: string, at: ComposeLocation) => void,
): number | undefined {
  const user = service.user !== undefined ? parseUser(service.user) : undefined;
  if (user !== undefined && user.uid !== 0 && user.gid === undefined) {
    warn(
      'volume-owner',
      `user "${service.user}" names no group, so the claims are not given to one (fsGroup): a new claim is owned ` +
        'by root, and this user may not write it; write user: "uid:gid" or set the kompose.volume.fs-group label',
      atKey(service, 'user'),
    );
  }
  return user?.gid !== undefined && user.gid !== 0 ? user.gid : undefined;
}

/** Adds the init containers of `preps` to the pod, in volume-name order. */
export function addClaimInitContainers(
  workload: kplus.AbstractPod | kplus.Workload,
  preps: readonly ClaimPrep[],
  options: ClaimInitOptions,
): void {
  const owner = parseUser(options.user ?? '');
  for (const prep of [...preps].sort(
    (a, b) => compare(a.volumeName, b.volumeName) || compare(String(a.copyFrom), String(b.copyFrom)),
  )) {
    const dest = prep.subPath !== undefined ? `/claim/${prep.subPath.replace(/^\/+|\/+$/g, '')}` : '/claim';
    if (prep.seed) {
      const seedVolumes = prep.seed.objects.map((object, i) => {
        const items = Object.fromEntries(Object.entries(object.items).map(([key, path]) => [key, { path }]));
        const name = options.volumeNames.key(`seed-${object.name}`);
        const id = `SeedVolume-${prep.volumeName}-${i}`;
        return {
          path: `/seed/${i}`,
          volume:
            object.kind === 'ConfigMap'
              ? kplus.Volume.fromConfigMap(options.scope, id, object.configMap!, { name, items })
              : kplus.Volume.fromSecret(options.scope, id, object.secret!, { name, items }),
          readOnly: true,
        };
      });
      const chown =
        owner !== undefined ? ` && chown -R ${owner.uid}${owner.gid !== undefined ? `:${owner.gid}` : ''} "$d"` : '';
      // A ConfigMap or Secret volume keeps its files under ..data (the rest are links into it): copy that folder.
      const copy = `${seedVolumes.map((v) => `cp -R ${v.path}/..data/. "$d"/`).join(' && ')}${chown}`;
      workload.addInitContainer({
        name: joinDnsLabel(prep.volumeName, 'seed'),
        image: options.seedImage,
        imagePullPolicy: pullPolicyFor(options.seedImage),
        command: ['sh', '-c', onceIntoEmpty(dest, SEEDED_MARKER, copy)],
        securityContext: SEED_SECURITY_CONTEXT,
        resources: HELPER_RESOURCES,
        volumeMounts: [{ path: '/claim', volume: prep.volume }, ...seedVolumes],
      });
    } else if (prep.copyFrom !== undefined) {
      const from = shQuote(prep.copyFrom);
      workload.addInitContainer({
        name: joinDnsLabel(prep.volumeName, 'copy-up'),
        image: options.image,
        imagePullPolicy: options.imagePullPolicy ?? pullPolicyFor(options.image),
        command: ['sh', '-c', onceIntoEmpty(dest, COPIED_MARKER, `if [ -d ${from} ]; then cp -a ${from}/. "$d"/; fi`)],
        // As docker's daemon does it: as root, keeping each file's owner and mode, and the folder's own on the claim.
        securityContext: COPY_UP_SECURITY_CONTEXT,
        resources: options.resources,
        volumeMounts: [{ path: '/claim', volume: prep.volume }],
      });
    }
  }
}

/**
 * The seed runs as root so it can write a new claim and give the files to compose's user; it may change owners and
 * read what it copies, nothing else.
 */
const SEED_SECURITY_CONTEXT: kplus.ContainerSecurityContextProps = {
  ensureNonRoot: false,
  user: 0,
  group: 0,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: {
    drop: [capability('ALL')],
    add: [capability('CHOWN'), capability('DAC_OVERRIDE'), capability('FOWNER')],
  },
};

/**
 * Copy-up runs the service's image as root, whatever user the image names, so that `cp -a` can write a new claim and
 * keep the owners and modes of the image's files (a non-root image's data folder stays its user's).
 */
const COPY_UP_SECURITY_CONTEXT: kplus.ContainerSecurityContextProps = {
  ...SEED_SECURITY_CONTEXT,
  readOnlyRootFilesystem: false,
  capabilities: {
    drop: [capability('ALL')],
    add: [capability('CHOWN'), capability('DAC_OVERRIDE'), capability('FOWNER'), capability('FSETID')],
  },
};

/**
 * A shell script that runs `copy` (into the folder `$d`) once per claim: not when the claim's root holds `marker`,
 * and not into a folder that already holds files (data brought by `move-data`), as docker copies only into an empty
 * volume. The marker is left either way, so later starts keep what the app wrote.
 */
function onceIntoEmpty(dest: string, marker: string, copy: string): string {
  return [
    `d=${shQuote(dest)}`,
    `if [ -e '/claim/${marker}' ]; then exit 0; fi`,
    'mkdir -p "$d"',
    'for f in "$d"/* "$d"/.[!.]* "$d"/..?*; do',
    '  [ -e "$f" ] || continue',
    '  case "${f##*/}" in lost+found|.cdk8s-compose-*) ;; *) touch \'/claim/' + marker + "'; exit 0 ;; esac",
    'done',
    `${copy} && touch '/claim/${marker}'`,
  ].join('\n');
}

/** One shell word: single-quoted, a quote inside written as '\''. */
function shQuote(word: string): string {
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * Why an image cannot run the copy-up's shell, when its name says so (distroless, scratch-based, chainguard's static
 * images); undefined when it is assumed to have `sh` and `cp`.
 */
export function noShellReason(image: string): string | undefined {
  const lower = image.toLowerCase();
  if (/(^|\/)distroless\/|gcr\.io\/distroless|(^|\/)scratch(:|$)/.test(lower)) {
    return 'is a distroless or scratch image without a shell';
  }
  if (/cgr\.dev\/chainguard\/(static|[^:]*-static)|-static(:|$)/.test(lower)) {
    return 'is a static image without a shell';
  }
  return undefined;
}
