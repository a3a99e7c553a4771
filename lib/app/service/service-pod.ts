import { ApiObject, Duration, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Quantity } from '../../../imports/k8s';
import { ComposeService } from '../../compose/model';
import { capability } from '../../base/pod-defaults';
import { ServicePartProps, atKey } from './service-plan';

/** The pod- and container-level settings of a service that compose states directly: user, capabilities, sysctls. */

// Sysctls Kubernetes allows without a kubelet allow-list (1.27).
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
];

/** The container's security context: compose's user, capabilities, privileged and read_only. */
export function containerSecurityContext({ plan, settings }: ServicePartProps): kplus.ContainerSecurityContextProps {
  const { service } = plan;
  const user = service.user !== undefined ? parseUser(service.user) : undefined;
  const sysAdmin = service.capAdd.includes('SYS_ADMIN') || service.capAdd.includes('ALL');
  return {
    // Non-root is enforced only when compose names a non-root uid; most images start as root on purpose.
    ensureNonRoot: user !== undefined && user.uid !== 0,
    user: user?.uid,
    group: user?.gid,
    privileged: service.privileged,
    readOnlyRootFilesystem: service.readOnly,
    allowPrivilegeEscalation: settings.allowPrivilegeEscalation ?? (service.privileged || sysAdmin),
    capabilities:
      service.capAdd.length + service.capDrop.length > 0
        ? {
            add: service.capAdd.length > 0 ? service.capAdd.map(capability) : undefined,
            drop: service.capDrop.length > 0 ? service.capDrop.map(capability) : undefined,
          }
        : undefined,
  };
}

/** The safe sysctls; the others are reported. */
export function podSysctls({ plan, context }: ServicePartProps): kplus.Sysctl[] {
  const { service } = plan;
  const sysctls: kplus.Sysctl[] = [];
  for (const name of Object.keys(service.sysctls).sort()) {
    if (SAFE_SYSCTLS.includes(name)) {
      sysctls.push({ name, value: service.sysctls[name] });
    } else {
      context.warn(
        'unsafe-sysctl',
        `sysctl "${name}" is not set: Kubernetes rejects unsafe sysctls unless the kubelet allows ` +
          'them (--allowed-unsafe-sysctls)',
        atKey(service, `sysctls.${name}`),
      );
    }
  }
  return sysctls;
}

/** extra_hosts → host aliases, one per address; names that are not addresses are reported. */
export function podHostAliases({ plan, context }: ServicePartProps): kplus.HostAlias[] {
  const byIp = new Map<string, string[]>();
  for (const host of plan.service.extraHosts) {
    if (/^[0-9.]+$|:/.test(host.ip)) {
      byIp.set(host.ip, [...(byIp.get(host.ip) ?? []), host.hostname]);
    } else {
      context.warn(
        'unsupported-key',
        `extra host "${host.hostname}:${host.ip}" is not kept: "${host.ip}" is not an address ` + 'a pod can use',
        atKey(plan.service, 'extra_hosts'),
      );
    }
  }
  return [...byIp.keys()].sort().map((ip) => ({ ip, hostnames: byIp.get(ip)!.sort() }));
}

/** GPUs from deploy.resources.reservations.devices become `nvidia.com/gpu` limits of the container. */
export function addDevices(
  { plan, context }: ServicePartProps,
  workload: kplus.AbstractPod | kplus.Workload,
  container: kplus.Container,
  templatePath: string,
): void {
  const devices = plan.service.deploy.reservations.devices;
  let gpus = 0;
  for (const device of devices) {
    if (!device.capabilities.includes('gpu')) {
      context.warn(
        'unsupported-key',
        `ignored device reservation with capabilities ${device.capabilities.join(', ')}: only GPUs are converted`,
        device.at,
      );
      continue;
    }
    if (device.count === 'all' || (device.count === undefined && device.deviceIds.length === 0)) {
      context.warn('gpu-count', 'GPU count "all" becomes 1 GPU: Kubernetes needs a number', device.at);
      gpus += 1;
    } else {
      gpus += device.count ?? device.deviceIds.length;
    }
  }
  if (gpus > 0) {
    // kplus's ContainerResources has no extended resources, so the limit is patched in. The generated class maps
    // the patched tree through its TypeScript types afterwards, so the value must be a Quantity, not a number.
    // A container without a cpu or memory limit has no `limits` to add to: the whole map is set then.
    const at = `${templatePath}/spec/containers/${workload.containers.indexOf(container)}/resources/limits`;
    const limited = container.resources?.cpu?.limit !== undefined || container.resources?.memory?.limit !== undefined;
    ApiObject.of(workload).addJsonPatch(
      limited
        ? JsonPatch.add(`${at}/nvidia.com~1gpu`, Quantity.fromNumber(gpus))
        : JsonPatch.add(at, { 'nvidia.com/gpu': Quantity.fromNumber(gpus) }),
    );
  }
}

/** `uid`, `uid:gid`; undefined for user names, which need the image's /etc/passwd. */
export function parseUser(user: string): { uid: number; gid?: number } | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(user.trim());
  return match ? { uid: Number(match[1]), gid: match[2] !== undefined ? Number(match[2]) : undefined } : undefined;
}

/** Kubernetes expands `$(VAR)` in command and args; compose does not, so a literal `$(` is escaped as `$$(`. */
export function escapeExpansion(argv: readonly string[]): string[] {
  return argv.map((arg) => arg.replace(/\$\(/g, '$$$$('));
}

/** stop_grace_period, in whole seconds. */
export function gracePeriod(service: ComposeService): Duration | undefined {
  return service.stopGracePeriodSeconds !== undefined
    ? Duration.seconds(Math.ceil(service.stopGracePeriodSeconds))
    : undefined;
}
