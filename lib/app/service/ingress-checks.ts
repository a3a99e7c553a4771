import { ComposeError } from '../../compose/errors';
import { ComposeModel } from '../../compose/model';
import { WarnFn } from '../app-warnings';
import { COMPOSE_APP_DEFAULTS } from '../compose-app-props';
import { MigratedService } from './migrated-service';
import { VmMigratedService } from '../vm/vm-migrated-service';

/** A service of the app that may route through an Ingress: in a container or in the VM. */
export type IngressService = MigratedService | VmMigratedService;

/** Two services that route the same Ingress host and path, one message each (for `node.addValidation`). */
export function ingressCollisions(services: readonly IngressService[]): string[] {
  const seen = new Map<string, IngressService>();
  const errors: string[] = [];
  for (const service of services) {
    for (const rule of service.ingressRules) {
      const key = `${rule.host}${rule.path}`;
      const other = seen.get(key);
      if (other) {
        errors.push(
          new ComposeError(
            `services "${other.composeName}" and "${service.composeName}" both route ` +
              `${rule.host}${rule.path} through an Ingress`,
            {
              at: rule.at,
              allowed: 'one service per Ingress host and path',
              hint: `give one of them another ingressHost or ingressPath in services["${service.composeName}"]`,
            },
          ).message,
        );
      }
      seen.set(key, service);
    }
  }
  return errors;
}

/**
 * Ingress hosts left at their default, `<service>.example.com`: example.com is reserved for documentation, so no
 * client ever reaches it. Each is reported, to be set with `ingressHost` (`--ingress-host`).
 */
export function reportPlaceholderHosts(services: readonly IngressService[], model: ComposeModel, warn: WarnFn): void {
  for (const service of services) {
    for (const host of [...new Set(service.ingressRules.map((r) => r.host))]) {
      if (host === `${service.name}.${COMPOSE_APP_DEFAULTS.ingressDomain}`) {
        const source = model.services.find((s) => s.name === service.composeName);
        warn(
          'placeholder-host',
          `the Ingress of service "${service.composeName}" has the placeholder host "${host}"; set the ` +
            `real one (--ingress-host ${service.composeName}=HOST, the ingressHost prop or kompose.service.expose)`,
          source?.at ?? model.at,
        );
      }
    }
  }
}
