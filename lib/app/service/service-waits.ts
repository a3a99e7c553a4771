import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { Construct } from 'constructs';
import { ComposeError } from '../../compose/errors';
import { isUnpinnedImage } from '../../compose/image';
import { joinDnsLabel } from '../../base/naming';
import { pullPolicyFor } from '../../base/pod-defaults';
import { WorkloadController } from '../../stateful/stateful-dependency';
import {
  DependencyWait,
  WAIT_VERBS,
  WaitKind,
  needsApi,
  waitContainer,
  waitContainerName,
  waitResource,
} from './dependency-wait';
import { labelAt } from '../kompose/kompose-labels';
import { KomposeLabel } from '../settings';
import { ServicePartProps, WorkloadKind, objectMetadata } from './service-plan';

/** The pod a service's init containers join: its workload, and where the pod template sits in its manifest. */
export interface ServicePod {
  readonly workload: kplus.Deployment | kplus.StatefulSet | kplus.DaemonSet | kplus.Job | kplus.CronJob;
  readonly podTemplatePath: string;
}

/**
 * depends_on → waits (rule 1): an init container per dependency, run before the service's own, in order (databases
 * and caches first); waits that ask the API (a Job's completion, a portless workload's readiness) get a service
 * account with a Role that may read only the awaited objects. Then the `kompose.init.containers.*` container.
 */
export class ServiceWaits {
  /** The waits, in the order the init containers run. */
  public readonly waits: readonly DependencyWait[];

  private readonly part: ServicePartProps;

  constructor(part: ServicePartProps) {
    this.part = part;
    this.waits = this.planWaits();
  }

  /**
   * Adds the wait containers to the pod, and the service account, Role and RoleBinding of the API waits; returns the
   * account and Role, when there are API waits in a pod of the service's own.
   */
  public addTo(scope: Construct, pod: ServicePod): { account: kplus.IServiceAccount; role: kplus.Role } | undefined {
    const { plan, settings, context } = this.part;
    if (this.waits.length === 0) {
      return undefined;
    }
    if (plan.sidecarOf !== undefined) {
      // In its host's pod: the host's own waits run already; the pod has one service account, the host's.
      const present = new Set(pod.workload.initContainers.map((c) => c.name));
      for (const wait of this.waits.filter((w) => !present.has(waitContainerName(w)))) {
        if (needsApi(wait)) {
          context.warn(
            'sidecar-wait',
            `does not wait for "${wait.service}" through the API: the service runs in the pod of ` +
              `"${plan.sidecarOf}", whose service account it cannot change; give "${wait.service}" a port to wait on`,
            plan.service.at,
          );
        } else {
          pod.workload.addInitContainer(waitContainer(wait, context.wait));
        }
      }
      return undefined;
    }
    const apiWaits = this.waits.filter(needsApi);
    const scratch = apiWaits.length > 0 ? kplus.Volume.fromEmptyDir(scope, 'WaitScratch', 'wait-scratch') : undefined;
    for (const wait of this.waits) {
      pod.workload.addInitContainer(waitContainer(wait, context.wait, scratch));
    }
    if (apiWaits.length === 0) {
      return undefined;
    }
    const metadata = objectMetadata(this.part, joinDnsLabel(plan.name, 'wait'));
    // Under kompose.serviceaccount-name the pod's own account gets the wait's Role: a pod has one account.
    const own = settings.serviceAccountName;
    const account =
      own !== undefined
        ? kplus.ServiceAccount.fromServiceAccountName(scope, 'WaitServiceAccount', own, {
            namespaceName: context.namespace,
          })
        : new kplus.ServiceAccount(scope, 'WaitServiceAccount', { metadata, automountToken: false });
    const role = new kplus.Role(scope, 'WaitRole', { metadata });
    for (const wait of apiWaits) {
      role.allow([...WAIT_VERBS], waitResource(wait));
    }
    const binding = new kplus.RoleBinding(scope, 'WaitRoleBinding', { metadata, role });
    binding.addSubjects(account);
    runAs(pod, account.name);
    return { account, role };
  }

  /**
   * `kompose.serviceaccount-name`: the pod runs as that existing account, with its token (set here unless the waits
   * set it already), reported because the cluster must have it.
   */
  public useServiceAccount(pod: ServicePod, waitsSetIt: boolean): void {
    const { plan, settings, context } = this.part;
    if (settings.serviceAccountName === undefined) {
      return;
    }
    context.warn(
      'external-service-account',
      `the pod runs as service account "${settings.serviceAccountName}", with its token mounted: ` +
        `create it in namespace "${context.namespace}" before applying (cdk8s-compose does not)`,
      labelAt(plan.service, KomposeLabel.SERVICE_ACCOUNT_NAME),
    );
    if (!waitsSetIt) {
      runAs(pod, settings.serviceAccountName);
    }
  }

  /**
   * The `kompose.init.containers.*` container, after the waits, with the service's own resources and security context
   * (a ResourceQuota rejects containers without resources).
   */
  public addKomposeInitContainer(
    pod: ServicePod,
    resources: kplus.ContainerResources,
    securityContext: kplus.ContainerSecurityContextProps,
  ): void {
    const { plan, settings, context } = this.part;
    const init = settings.initContainer;
    if (!init) {
      return;
    }
    if (pod.workload.containers.some((c) => c.name === init.name)) {
      throw new ComposeError(`the init container "${init.name}" has the name of the service's container`, {
        at: labelAt(plan.service, KomposeLabel.INIT_CONTAINER_NAME),
        value: init.name,
        hint: `name it otherwise with ${KomposeLabel.INIT_CONTAINER_NAME}`,
      });
    }
    if (isUnpinnedImage(init.image)) {
      context.warn(
        'unpinned-image',
        `image "${init.image}" of the init container is not pinned (no tag, or :latest): ` +
          'each node may pull a different image; pin a version tag or a digest',
        init.at,
      );
    }
    pod.workload.addInitContainer({
      name: init.name,
      image: init.image,
      imagePullPolicy: pullPolicyFor(init.image),
      command: init.command ? [...init.command] : undefined,
      resources,
      securityContext,
    });
  }

  private planWaits(): DependencyWait[] {
    const { plan, context } = this.part;
    const waits: DependencyWait[] = [];
    for (const dependency of plan.service.dependsOn) {
      const target = context.plans.get(dependency.service);
      if (!target || dependency.service === plan.sidecarOf) {
        continue;
      }
      const tcp =
        target.ports.find((p) => p.protocol === kplus.Protocol.TCP && !p.inferred) ??
        target.ports.find((p) => p.protocol === kplus.Protocol.TCP);
      const sharesNetwork = plan.service.networks.some((mine) =>
        target.service.networks.some((theirs) => theirs.name === mine.name),
      );
      const vmReady: DependencyWait = {
        kind: WaitKind.WORKLOAD_READY,
        service: dependency.service,
        target: target.vm ?? target.name,
        workload: 'VirtualMachine',
      };
      if (target.kind === WorkloadKind.VM && dependency.condition === 'service_completed_successfully') {
        context.warn(
          'vm-dependency',
          `"${dependency.service}" runs in the VM, where its completion is not visible to Kubernetes: ` +
            'the pod waits for the VM to be ready instead',
          dependency.at,
        );
        waits.push(vmReady);
      } else if (target.kind === WorkloadKind.CRON_JOB) {
        context.warn(
          'scheduled-dependency',
          `does not wait for "${dependency.service}": it runs on a schedule (a CronJob), so there is ` +
            'nothing to wait for',
          dependency.at,
        );
      } else if (target.kind === WorkloadKind.JOB) {
        waits.push({ kind: WaitKind.JOB_COMPLETE, service: dependency.service, target: target.name });
      } else if (target.hasService && tcp && sharesNetwork) {
        waits.push({ kind: WaitKind.TCP, service: dependency.service, target: target.name, port: tcp.port });
      } else if (target.kind === WorkloadKind.VM) {
        waits.push(vmReady);
      } else {
        const workload =
          target.controller === WorkloadController.STATEFUL_SET || target.kind === WorkloadKind.STATEFUL_SET
            ? 'StatefulSet'
            : target.kind === WorkloadKind.DAEMON_SET
              ? 'DaemonSet'
              : 'Deployment';
        waits.push({ kind: WaitKind.WORKLOAD_READY, service: dependency.service, target: target.name, workload });
      }
    }
    // Databases and caches first (rule 1), then the rest in compose's order; init containers run in this order.
    // Several services in the VM are one wait for the VM.
    const stateful = (w: DependencyWait) => (context.plans.get(w.service)?.kind === WorkloadKind.STATEFUL ? 0 : 1);
    const unique = waits.filter((w, i) => waits.findIndex((o) => waitContainerName(o) === waitContainerName(w)) === i);
    return unique.sort((x, y) => stateful(x) - stateful(y));
  }
}

/**
 * The pod runs as the account, with its token. kplus sets the service account only at construction, and a
 * StatefulDependency's pod is made before its waits are known: both fields are patched in, the same way for every
 * kind of workload.
 */
function runAs(pod: ServicePod, account: string): void {
  ApiObject.of(pod.workload).addJsonPatch(
    JsonPatch.add(`${pod.podTemplatePath}/spec/serviceAccountName`, account),
    JsonPatch.add(`${pod.podTemplatePath}/spec/automountServiceAccountToken`, true),
  );
}
