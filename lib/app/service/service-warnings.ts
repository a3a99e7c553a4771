import { ComposeLocation } from '../../compose/model';
import { KomposeControllerType, isHonouredKomposeLabel, labelAt } from '../kompose/kompose-labels';
import { KomposeLabel } from '../settings';
import { parseUser } from './service-pod';
import { ServicePlan, WorkloadKind, atKey } from './service-plan';

type Warn = (code: string, message: string, at: ComposeLocation) => void;

/**
 * Model keys this library does not turn into Kubernetes fields get one warning each.
 * @param appLabel the `app` label of the pod the service runs in (its host's, for a sidecar)
 */
export function warnUnmappedKeys(plan: ServicePlan, appLabel: string, warn: Warn): void {
  const s = plan.service;
  if (s.ulimits.length > 0) {
    warn(
      'unsupported-key',
      "ignored ulimits: Kubernetes has no per-pod ulimits; they come from the node's container runtime",
      atKey(s, 'ulimits'),
    );
  }
  if (s.devices.length > 0) {
    warn(
      'unsupported-key',
      `ignored devices ${s.devices.map((d) => `"${d}"`).join(', ')}: a pod cannot map host devices; ` +
        'run this service on a VM (GoldenImageVm) or use a device plugin',
      atKey(s, 'devices'),
    );
  }
  if (plan.sidecarOf !== undefined) {
    warn(
      'shared-pod',
      `runs as a second container in the pod of "${plan.sidecarOf}" (network_mode "${s.networkMode}"): ` +
        `they reach each other on localhost, and its ports are on the Service "${appLabel}"`,
      atKey(s, 'network_mode'),
    );
  } else if (s.networkMode !== undefined) {
    warn(
      'unsupported-key',
      `ignored network_mode "${s.networkMode}": the pod gets its own network namespace and is ` +
        'reached through its Service',
      atKey(s, 'network_mode'),
    );
  }
  if (plan.kind === WorkloadKind.CRON_JOB) {
    if (s.restart === 'always' || s.restart === 'unless-stopped') {
      warn(
        'unsupported-key',
        `restart "${s.restart}" is not kept: the service runs on its ${KomposeLabel.CRON_SCHEDULE}, ` +
          "and a CronJob's pods restart only on failure",
        atKey(s, 'restart'),
      );
    }
  } else if (s.restart === 'no' || s.restart === 'on-failure') {
    if (plan.kind !== WorkloadKind.JOB) {
      warn(
        'unsupported-key',
        `restart "${s.restart}" is not kept: a ${plan.kind === WorkloadKind.STATEFUL_SET || plan.kind === WorkloadKind.DAEMON_SET ? plan.kind : 'Deployment'} ` +
          `always restarts its containers (add ${KomposeLabel.CRON_SCHEDULE} to run it on a schedule)`,
        atKey(s, 'restart'),
      );
    }
  }
  if (s.deploy.mode === 'global' && plan.kind !== WorkloadKind.DAEMON_SET) {
    warn(
      'unsupported-key',
      `deploy.mode "global" is not kept: the service runs as a ${
        plan.kind === WorkloadKind.STATEFUL ? 'stateful dependency' : plan.kind
      }, not one pod per node`,
      atKey(s, 'deploy.mode'),
    );
  }
  if (plan.kind === WorkloadKind.DAEMON_SET && s.deploy.replicas !== undefined) {
    warn(
      'unsupported-key',
      `deploy.replicas ${s.deploy.replicas} is not kept: a DaemonSet runs one pod on every node`,
      atKey(s, 'deploy.replicas'),
    );
  }
  if (s.deploy.restartPolicy !== undefined) {
    warn(
      'unsupported-key',
      "ignored deploy.restart_policy: Kubernetes restarts containers by the pod's restartPolicy",
      atKey(s, 'deploy.restart_policy'),
    );
  }
  if (s.stdinOpen || s.tty) {
    warn(
      'unsupported-key',
      'ignored stdin_open/tty: the container runs without a terminal',
      atKey(s, s.tty ? 'tty' : 'stdin_open'),
    );
  }
  if (s.platform !== undefined && !/^linux\//.test(s.platform)) {
    warn(
      'unsupported-key',
      `platform "${s.platform}" is not a Linux platform; Kubernetes nodes run linux images`,
      atKey(s, 'platform'),
    );
  }
  for (const network of s.networks) {
    if (network.ipv4Address !== undefined || network.ipv6Address !== undefined) {
      warn(
        'unsupported-key',
        `ignored the static address on network "${network.name}": pods get their addresses ` +
          'from the cluster; reach the service by its Service name',
        network.at,
      );
    }
  }
  const labels = Object.keys(s.labels).sort();
  for (const label of labels.filter((l) => l.startsWith('kompose.') && !isHonouredKomposeLabel(l))) {
    warn('unsupported-label', `ignored label "${label}": this kompose label is not honoured`, labelAt(s, label));
  }
  const controller = plan.labels.controller;
  if (controller === KomposeControllerType.STATEFUL_SET && plan.kind === WorkloadKind.DEPLOYMENT) {
    warn(
      'unsupported-label',
      `${KomposeLabel.CONTROLLER_TYPE} "statefulset" is not kept: the service has no ports, and a ` +
        'StatefulSet needs a Service to name its pods, so it runs as a Deployment (give it a port with expose to get one)',
      labelAt(s, KomposeLabel.CONTROLLER_TYPE),
    );
  } else if (controller === KomposeControllerType.DAEMON_SET && plan.kind === WorkloadKind.STATEFUL) {
    warn(
      'unsupported-label',
      `${KomposeLabel.CONTROLLER_TYPE} "${controller}" is not kept: a database or cache runs as a ` +
        'stateful dependency with one pod',
      labelAt(s, KomposeLabel.CONTROLLER_TYPE),
    );
  } else if (controller === KomposeControllerType.REPLICATION_CONTROLLER) {
    warn(
      'unsupported-label',
      `${KomposeLabel.CONTROLLER_TYPE} "${controller}" is not supported: the service runs as a ` +
        `${plan.kind === WorkloadKind.STATEFUL ? 'stateful dependency' : 'Deployment'} (a ReplicationController is the ` +
        "Deployment's deprecated predecessor)",
      labelAt(s, KomposeLabel.CONTROLLER_TYPE),
    );
  } else if (controller !== undefined && (plan.kind === WorkloadKind.JOB || plan.kind === WorkloadKind.CRON_JOB)) {
    warn(
      'unsupported-label',
      `ignored ${KomposeLabel.CONTROLLER_TYPE} "${controller}": the service runs as a ${plan.kind}`,
      labelAt(s, KomposeLabel.CONTROLLER_TYPE),
    );
  }
  const others = labels.filter((l) => !l.startsWith('kompose.'));
  if (others.length > 0) {
    warn(
      'unsupported-key',
      `ignored labels ${others.map((l) => `"${l}"`).join(', ')}: compose labels are not copied to ` +
        'Kubernetes objects',
      atKey(s, 'labels'),
    );
  }
  if (s.user !== undefined && parseUser(s.user) === undefined) {
    warn(
      'unsupported-key',
      `user "${s.user}" is not numeric: runAsUser needs a uid, so the image's own user is kept`,
      atKey(s, 'user'),
    );
  }
}

/** A StatefulDependency's pod is its own; these keys do not reach it. */
export function warnStatefulPodKeys(plan: ServicePlan, warn: Warn): void {
  const s = plan.service;
  const keys = [
    Object.keys(s.sysctls).length > 0 ? 'sysctls' : undefined,
    s.extraHosts.length > 0 ? 'extra_hosts' : undefined,
    s.workingDir !== undefined ? 'working_dir' : undefined,
  ].filter((key): key is string => key !== undefined);
  for (const key of keys) {
    warn(
      'unsupported-key',
      `ignored ${key} on a database or cache: it runs as a StatefulDependency with the ` + "engine's own pod settings",
      atKey(s, key),
    );
  }
}
