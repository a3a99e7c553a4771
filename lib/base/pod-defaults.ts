import { Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { isUnpinnedImage } from '../compose/image';

/**
 * Settings shared by every pod this library renders, where kplus defaults would otherwise break compose images or
 * add noise.
 */

/**
 * The pull policy Kubernetes itself would choose: `Always` for `:latest` or no tag, `IfNotPresent` otherwise
 * (kplus would always say `Always`).
 */
export function pullPolicyFor(image: string): kplus.ImagePullPolicy {
  return isUnpinnedImage(image) ? kplus.ImagePullPolicy.ALWAYS : kplus.ImagePullPolicy.IF_NOT_PRESENT;
}

/**
 * A capability as Kubernetes spells it: without the `CAP_` prefix (`NET_ADMIN`, `ALL`), which is what Pod Security
 * admission compares against. kplus's enum carries the prefix and has no `ALL`.
 */
export function capability(name: string): kplus.Capability {
  return name.toUpperCase().replace(/^CAP_/, '') as kplus.Capability;
}

/** The user helper containers (waits, backups of non-root images) run as: `nobody`. */
export const HELPER_USER = 65534;

/**
 * The security context of this library's own helper containers (dependency waits): non-root, read-only root
 * filesystem, no privilege escalation, every capability dropped. They only open sockets and call the API.
 */
export const HELPER_SECURITY_CONTEXT: kplus.ContainerSecurityContextProps = {
  ensureNonRoot: true,
  user: HELPER_USER,
  group: HELPER_USER,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: { drop: [capability('ALL')] },
};

/** Requests and limits of helper containers: a shell loop needs almost nothing. */
export const HELPER_RESOURCES: kplus.ContainerResources = {
  cpu: { request: kplus.Cpu.millis(10), limit: kplus.Cpu.millis(100) },
  memory: { request: Size.mebibytes(16), limit: Size.mebibytes(64) },
};

/**
 * The pod-level security context: kplus would set `runAsNonRoot: true` for the whole pod, which stops every image
 * that starts as root (most official images do, then drop privileges themselves).
 */
export const POD_SECURITY_CONTEXT: kplus.PodSecurityContextProps = {
  ensureNonRoot: false,
};
