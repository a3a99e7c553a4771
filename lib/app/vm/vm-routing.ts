import { ComposeService } from '../../compose/model';
import { DatabaseEngine } from '../../stateful/engine';
import { ServiceAssessment, assessService } from '../../vm/assess';
import { ServiceTarget, readServiceExtension } from '../settings';

/** What decides where a service runs, most specific first; the first one set wins. */
export interface VmRoutingChoice {
  /** The service's own `ComposeAppProps.services[name].target`. */
  readonly override?: ServiceTarget;
  /** Whether `ComposeAppProps.vm.services` lists the service. */
  readonly listed?: boolean;
  /**
   * The app-wide target, used when neither the props nor the service's `x-cdk8s-compose.target` choose.
   * @default ServiceTarget.CONTAINER
   */
  readonly target?: ServiceTarget;
  /**
   * How a reason words the app-wide target (the CLI's `--target vm`).
   * @default - `target is "vm"`
   */
  readonly targetWhy?: string;
  /**
   * The service's own `ComposeAppProps.services[name].engine`.
   * @default - its `x-cdk8s-compose.engine`, else the engine its image names
   */
  readonly engine?: DatabaseEngine | false;
}

/**
 * `assessService` with the engine the app runs the service as (the choice's, its `x-cdk8s-compose.engine`, else its
 * image's): a stateful dependency ignores sysctls, so they do not move it.
 */
export function assessForRouting(service: ComposeService, engine?: DatabaseEngine | false): ServiceAssessment {
  const chosen = engine ?? readServiceExtension(service).engine;
  const found = chosen === false ? undefined : (chosen ?? DatabaseEngine.detect(service.image));
  return assessService(service, { engine: found?.name });
}

/**
 * Why a service runs in the golden-image VM, or nothing when it runs as a container: a target of `vm` is its own reason
 * (naming where it was set), `auto` takes the reasons `assessService` finds.
 */
export function vmRoutingReasons(service: ComposeService, choice: VmRoutingChoice): string[] {
  const own = readServiceExtension(service).target;
  const [target, why] =
    choice.override !== undefined
      ? [choice.override, `services["${service.name}"].target is "${choice.override}"`]
      : choice.listed
        ? [ServiceTarget.VM, 'vm.services lists it']
        : own !== undefined
          ? [own, `x-cdk8s-compose.target is "${own}"`]
          : [choice.target ?? ServiceTarget.CONTAINER, choice.targetWhy ?? `target is "${choice.target}"`];
  if (target === ServiceTarget.VM) {
    return [why];
  }
  return target === ServiceTarget.AUTO ? [...assessForRouting(service, choice.engine).reasons] : [];
}
