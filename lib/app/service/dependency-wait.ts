import * as kplus from 'cdk8s-plus-27';
import { joinDnsLabel } from '../../base/naming';
import { HELPER_RESOURCES, HELPER_SECURITY_CONTEXT, pullPolicyFor } from '../../base/pod-defaults';

/**
 * Rule 1: a dependent starts only after its dependency is ready. Init containers run in order before the app's
 * container, so each wait is one init container.
 */

/** What a dependent waits for. */
export enum WaitKind {
  /** The dependency's Service accepts TCP connections. A Service routes only to ready pods, so this is readiness. */
  TCP = 'tcp',
  /** A Job completed (`service_completed_successfully`), read through the API. */
  JOB_COMPLETE = 'job-complete',
  /**
   * A Deployment is available (a StatefulSet's pod ready, a VirtualMachine ready), read through the API: for
   * dependencies without a TCP port, or on no network the dependent shares (its Service is out of the dependent's
   * reach).
   */
  WORKLOAD_READY = 'workload-ready',
}

/** One dependency a pod waits for. */
export interface DependencyWait {
  readonly kind: WaitKind;
  /** The compose name of the dependency, for the log line. */
  readonly service: string;
  /** The Service name (TCP) or the Job / Deployment name (API). */
  readonly target: string;
  /** The TCP port, for `WaitKind.TCP`. */
  readonly port?: number;
  /** The kind of workload, for `WaitKind.WORKLOAD_READY`. */
  readonly workload?: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'VirtualMachine';
}

/** Images and timing of the waits. */
export interface WaitSettings {
  readonly namespace: string;
  readonly timeoutSeconds: number;
  /** An image with `sh` and a `nc` that knows `-z` (busybox). */
  readonly tcpImage: string;
  /** An image whose entrypoint is `kubectl` (no shell needed). */
  readonly kubectlImage: string;
}

/** Where kubectl keeps its discovery cache ($HOME), on a scratch volume: the root filesystem is read-only. */
export const SCRATCH_PATH = '/tmp';

/** The init container name of a wait: `wait-for-<target>`. */
export function waitContainerName(wait: DependencyWait): string {
  return joinDnsLabel('wait-for', wait.target);
}

/** True when the wait reads the API, so the pod needs a service account allowed to read the target. */
export function needsApi(wait: DependencyWait): boolean {
  return wait.kind !== WaitKind.TCP;
}

/**
 * The init container of one wait, bounded by the timeout. A TCP wait is a busybox loop with one clear log line when
 * it starts, succeeds or gives up; an API wait is `kubectl wait` itself, run as the image's entrypoint (the official
 * kubectl image has no shell), which prints `<object> condition met` or `timed out waiting for the condition`.
 * `scratch` is a writable volume for kubectl's cache (the root filesystem is read-only); TCP waits need none.
 */
export function waitContainer(
  wait: DependencyWait,
  settings: WaitSettings,
  scratch?: kplus.Volume,
): kplus.ContainerProps {
  const image = wait.kind === WaitKind.TCP ? settings.tcpImage : settings.kubectlImage;
  return {
    name: waitContainerName(wait),
    image,
    imagePullPolicy: pullPolicyFor(image),
    command: wait.kind === WaitKind.TCP ? ['sh', '-c', tcpWaitScript(wait, settings)] : undefined,
    args: wait.kind === WaitKind.TCP ? undefined : kubectlWaitArgs(wait, settings),
    resources: HELPER_RESOURCES,
    securityContext: HELPER_SECURITY_CONTEXT,
    envVariables: needsApi(wait) ? { HOME: kplus.EnvValue.fromValue(SCRATCH_PATH) } : undefined,
    volumeMounts: needsApi(wait) && scratch ? [{ path: SCRATCH_PATH, volume: scratch }] : undefined,
  };
}

function tcpWaitScript(wait: DependencyWait, settings: WaitSettings): string {
  const t = settings.timeoutSeconds;
  const address = `${wait.target}:${wait.port}`;
  return [
    `echo "waiting up to ${t}s for ${address} (compose service ${wait.service}) to accept connections"`,
    `deadline=$(($(date +%s) + ${t}))`,
    `until nc -z -w 2 ${wait.target} ${wait.port}; do`,
    `  if [ "$(date +%s)" -ge "$deadline" ]; then echo "gave up: ${address} did not accept connections within ${t}s" >&2; exit 1; fi`,
    '  sleep 2',
    'done',
    `echo "${address} is ready"`,
  ].join('\n');
}

/**
 * `kubectl wait` for a Job to complete, a Deployment to be available, a StatefulSet's pod or a VM to be ready; a
 * DaemonSet has neither a condition nor a fixed count of pods, so `kubectl rollout status` waits for every node's pod.
 */
function kubectlWaitArgs(wait: DependencyWait, settings: WaitSettings): string[] {
  if (wait.kind !== WaitKind.JOB_COMPLETE && wait.workload === 'DaemonSet') {
    return [
      'rollout',
      'status',
      `--namespace=${settings.namespace}`,
      `--timeout=${settings.timeoutSeconds}s`,
      `daemonset/${wait.target}`,
    ];
  }
  // A StatefulSet has no Available condition: its one pod is ready when readyReplicas is 1.
  const [resource, condition] =
    wait.kind === WaitKind.JOB_COMPLETE
      ? ['job', 'condition=complete']
      : wait.workload === 'StatefulSet'
        ? ['statefulset', 'jsonpath={.status.readyReplicas}=1']
        : wait.workload === 'VirtualMachine'
          ? ['virtualmachine', 'condition=Ready']
          : ['deployment', 'condition=available'];
  return [
    'wait',
    `--namespace=${settings.namespace}`,
    `--for=${condition}`,
    `--timeout=${settings.timeoutSeconds}s`,
    `${resource}/${wait.target}`,
  ];
}

/**
 * The API resource a wait reads, for a Role rule restricted to that one object. `kubectl wait` gets the object,
 * then lists and watches it with a `metadata.name` field selector, which RBAC authorises by `resourceNames`.
 */
export function waitResource(wait: DependencyWait): kplus.IApiResource {
  if (wait.kind === WaitKind.JOB_COMPLETE) {
    return { apiGroup: 'batch', resourceType: 'jobs', resourceName: wait.target };
  }
  if (wait.workload === 'VirtualMachine') {
    return { apiGroup: 'kubevirt.io', resourceType: 'virtualmachines', resourceName: wait.target };
  }
  const resourceType =
    wait.workload === 'StatefulSet' ? 'statefulsets' : wait.workload === 'DaemonSet' ? 'daemonsets' : 'deployments';
  return { apiGroup: 'apps', resourceType, resourceName: wait.target };
}

/** The verbs `kubectl wait` needs on the one object it waits for. */
export const WAIT_VERBS: readonly string[] = ['get', 'list', 'watch'];
