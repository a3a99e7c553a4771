import { ComposeError } from '../compose/errors';

/** The KubeVirt release the VM target is built and tested against (the CRDs in `imports/` come from it). */
export const KUBEVIRT_VERSION = 'v0.59.0';

/** The CDI release that pairs with {@link KUBEVIRT_VERSION} (HyperConverged Cluster Operator v1.9.0 ships the two). */
export const CDI_VERSION = 'v1.56.0';

/** KubeVirt releases whose CDI partner is known, from the HyperConverged Cluster Operator's `hack/config`. */
const CDI_FOR_KUBEVIRT: Readonly<Record<string, string>> = {
  [KUBEVIRT_VERSION]: CDI_VERSION,
};

const VERSION_PATTERN = /^v\d+\.\d+\.\d+$/;

/** Checks a release version variable (`v<major>.<minor>.<patch>`). */
export function checkReleaseVersion(version: string, what: string): string {
  if (!VERSION_PATTERN.test(version)) {
    throw new ComposeError(`${what} version is not a release version`, {
      value: version,
      allowed: 'v<major>.<minor>.<patch>, for example "v0.59.0"',
      hint: 'write the release tag exactly as it appears on the release page',
    });
  }
  return version;
}

/**
 * The CDI release to install with a KubeVirt release.
 *
 * @param kubevirtVersion the KubeVirt release, e.g. `v0.59.0`
 * @param cdiVersion an explicit CDI release, needed for KubeVirt releases whose partner is not known here
 */
export function cdiVersionFor(kubevirtVersion: string, cdiVersion?: string): string {
  checkReleaseVersion(kubevirtVersion, 'KubeVirt');
  if (cdiVersion !== undefined) {
    return checkReleaseVersion(cdiVersion, 'CDI');
  }
  const known = CDI_FOR_KUBEVIRT[kubevirtVersion];
  if (!known) {
    throw new ComposeError('no CDI release is known to pair with this KubeVirt release', {
      value: kubevirtVersion,
      allowed: `a KubeVirt release with a known CDI partner (${Object.keys(CDI_FOR_KUBEVIRT).sort().join(', ')}), or an explicit CDI release`,
      hint: 'pass the CDI release that the HyperConverged Cluster Operator ships with this KubeVirt release',
    });
  }
  return known;
}
