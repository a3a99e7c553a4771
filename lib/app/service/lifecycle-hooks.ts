import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import { ComposeService, LifecycleHook } from '../../compose/model';
import { Warn } from '../../compose/read';

/** What the service's container already has, for the hooks to share. */
export interface HookTarget {
  readonly service: ComposeService;
  readonly workload: kplus.AbstractPod | kplus.Workload;
  readonly container: kplus.Container;
  /** Where the pod template sits in the workload's manifest (`/spec/template`, deeper in a CronJob). */
  readonly podTemplatePath: string;
  readonly resources: kplus.ContainerResources;
  readonly securityContext: kplus.ContainerSecurityContextProps;
  /** True for a variable whose value must stay in a Secret (rule 3). */
  isSecret(name: string, value: string): boolean;
  readonly warn: Warn;
}

/**
 * compose's lifecycle hooks: each `pre_start` becomes an init container (after the dependency waits) with the
 * service's volumes, environment, resources and security context; `post_start` and `pre_stop` become the
 * container's `lifecycle.postStart` and `lifecycle.preStop` exec handlers. What Kubernetes cannot express is reported.
 */
export function addLifecycleHooks(target: HookTarget): void {
  const { service } = target;
  (service.preStart ?? []).forEach((hook, index) => addPreStart(target, hook, index));
  const lifecycle: Record<string, { exec: { command: string[] } }> = {};
  for (const [key, hooks] of [
    ['postStart', service.postStart],
    ['preStop', service.preStop],
  ] as const) {
    if (hooks && hooks.length > 0) {
      lifecycle[key] = { exec: { command: handlerCommand(hooks, key, target.warn) } };
    }
  }
  if (Object.keys(lifecycle).length > 0) {
    // kplus takes a container's lifecycle only when the container is made; the patch adds it to the finished one.
    const index = target.workload.containers.indexOf(target.container);
    ApiObject.of(target.workload).addJsonPatch(
      JsonPatch.add(`${target.podTemplatePath}/spec/containers/${index}/lifecycle`, lifecycle),
    );
  }
}

/** One handler per hook kind in Kubernetes: several hooks run one after the other in a shell. */
function handlerCommand(hooks: readonly LifecycleHook[], key: string, warn: Warn): string[] {
  if (hooks.length === 1) {
    return [...hooks[0].command];
  }
  warn(
    'lifecycle-hooks-joined',
    `${hooks.length} ${key === 'postStart' ? 'post_start' : 'pre_stop'} hooks run as one ` +
      `lifecycle.${key} handler, one after the other in sh -c (Kubernetes takes one handler; the image needs a shell)`,
    hooks[0].at,
  );
  return ['sh', '-c', hooks.map((hook) => hook.command.map(shellWord).join(' ')).join(' && ')];
}

function addPreStart(target: HookTarget, hook: NonNullable<ComposeService['preStart']>[number], index: number): void {
  const { service } = target;
  const uid = hook.user !== undefined && /^\d+$/.test(hook.user) ? Number(hook.user) : undefined;
  if (hook.user !== undefined && uid === undefined) {
    target.warn('unsupported-key', `ignored pre_start user "${hook.user}": Kubernetes takes a numeric uid`, hook.at);
  }
  if (!hook.perReplica && (service.deploy.replicas ?? 1) > 1) {
    target.warn(
      'pre-start-per-pod',
      'the pre_start hook runs in every pod, before each replica starts: Kubernetes has ' +
        'no hook that runs once for the whole service',
      hook.at,
    );
  }
  const init = target.workload.addInitContainer({
    name: `pre-start-${index + 1}`,
    image: hook.image ?? service.image,
    command: hook.command ? [...hook.command] : undefined,
    workingDir: hook.workingDir ?? service.workingDir,
    resources: target.resources,
    securityContext: {
      ...target.securityContext,
      ...(uid !== undefined ? { user: uid, ensureNonRoot: uid !== 0 } : {}),
      ...(hook.privileged ? { privileged: true, allowPrivilegeEscalation: true } : {}),
    },
  });
  for (const [name, value] of Object.entries(target.container.env.variables)) {
    init.env.addVariable(name, value);
  }
  target.container.env.sources.forEach((source) => init.env.copyFrom(source));
  for (const variable of hook.environment) {
    if (target.isSecret(variable.name, variable.value)) {
      target.warn(
        'secret-hook-environment',
        `pre_start variable ${variable.name} holds a secret and is left out: put it in the ` +
          "service's environment, which keeps it in a Secret",
        variable.at,
      );
    } else {
      init.env.addVariable(variable.name, kplus.EnvValue.fromValue(variable.value));
    }
  }
  for (const mount of target.container.mounts) {
    init.mount(mount.path, mount.volume, {
      subPath: mount.subPath,
      readOnly: mount.readOnly,
      propagation: mount.propagation,
      subPathExpr: mount.subPathExpr,
    });
  }
}

function shellWord(word: string): string {
  return /^[-A-Za-z0-9_./=:,@%+]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
