import * as path from 'path';
import type { VolumeMount } from '../../compose/model';

/**
 * Which compose mounts keep data, and the compose source each claim replaces: durability follows the mount (a named
 * volume, a read-write bind of a project folder), never the image.
 */

/**
 * The annotation every claim that replaces a compose source carries: `volume:<compose volume key>` or
 * `bind:<project-relative path, normalised>` (`bind:./library`). `move-data` reads it to find what to bring.
 */
export const COMPOSE_SOURCE_ANNOTATION = 'cdk8s-compose.io/compose-source';

/** How the pods that mount one claim (several services, or replicas of one) can all mount it. */
export enum SharedVolumes {
  /** ReadWriteOnce claims; the pods that share one get a required podAffinity that keeps them on one node. */
  SAME_NODE = 'SameNode',
  /** ReadWriteMany claims for the shared sources, no affinity: needs a storage class that supports it. */
  READ_WRITE_MANY = 'ReadWriteMany',
}

/** The file an init container leaves in a claim once it has seeded it from a bound folder's files. */
export const SEEDED_MARKER = '.cdk8s-compose-seeded';
/** The file an init container leaves in a claim once it has copied the image's content into it. */
export const COPIED_MARKER = '.cdk8s-compose-copied';

/**
 * Engine data directories that refuse a non-empty directory on first start (a new ext4 claim holds `lost+found`), and
 * the claim subdirectory mounted there instead of the claim's root. The subdirectories are those `StatefulDependency`
 * uses, so the claim's layout is the same whatever the image is called.
 */
export const ENGINE_DATA_SUBPATHS: Readonly<Record<string, string>> = {
  '/var/lib/postgresql/data': 'pgdata',
  '/var/lib/mysql': 'mysql',
  '/data/db': 'db',
};

/**
 * The project-relative path of a bind source, normalised (`./library/` and `library//` are `./library`, `.` the
 * project folder), or undefined for a source that is not a project path: absolute, `~`, a Windows path, or one that
 * leaves the project (`../x`).
 */
export function projectBindPath(source: string): string | undefined {
  if (!source.startsWith('.')) {
    return undefined;
  }
  const normal = path.posix.normalize(source).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) {
    return undefined;
  }
  return normal === '.' || normal === '' ? '.' : `./${normal}`;
}

/** The compose source key of a claim: `volume:<name>` or `bind:<path>`. */
export function composeSourceKey(mount: { type: 'volume' | 'bind'; name: string }): string {
  return `${mount.type}:${mount.name}`;
}

/**
 * A read-write bind of a project folder that exists or is missing: docker keeps what the container writes there
 * across restarts, so it is a claim. Files, host paths, links out of the project and read-only binds are not.
 */
export function isDataBind(mount: VolumeMount): boolean {
  return (
    mount.type === 'bind' &&
    !mount.readOnly &&
    mount.source !== undefined &&
    projectBindPath(mount.source) !== undefined &&
    (mount.bind?.kind === 'directory' || mount.bind?.kind === 'missing')
  );
}

/**
 * The names a claim-size override (`volumes[NAME]`, `--volume-size NAME=SIZE`) may use: the top-level volumes and
 * the project folders a service binds read-write (`./data`), and whether `name` is one of them.
 */
export function overridableVolumes(model: {
  readonly volumes: readonly { readonly name: string }[];
  readonly services: readonly { readonly volumes: readonly VolumeMount[] }[];
}): { readonly allowed: readonly string[]; readonly accepts: (name: string) => boolean } {
  const volumes = model.volumes.map((v) => v.name);
  const binds = [
    ...new Set(model.services.flatMap((s) => s.volumes.filter(isDataBind).map((m) => projectBindPath(m.source!)!))),
  ].sort();
  return {
    allowed: [...volumes, ...binds],
    accepts: (name) => {
      const asBind = projectBindPath(name.startsWith('.') ? name : `./${name}`);
      return volumes.includes(name) || (asBind !== undefined && binds.includes(asBind));
    },
  };
}
