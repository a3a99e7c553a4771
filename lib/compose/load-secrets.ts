import { ComposeModel } from './model';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, embeddedPasswords, isSensitiveName, Redactor } from './sensitive';
import { YMap } from './yaml';

/** Records a variable's value when its name says it is secret, and any password embedded in it. */
export function addIfSecret(secrets: Redactor, name: string, value: string): void {
  if (isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)) {
    secrets.add(value);
  }
  embeddedPasswords(value).forEach((p) => secrets.add(p));
}

/**
 * Sensitive `environment` values of the services, from the tree before it is normalised, so that a message about
 * any other key of the service already knows them.
 */
export function collectTreeSecrets(root: YMap, secrets: Redactor): void {
  const services = root.entries.get('services');
  if (services?.kind !== 'map') {
    return;
  }
  for (const [name, service] of services.entries) {
    const image = service.kind === 'map' ? service.entries.get('image') : undefined;
    secrets.keepNames([name, ...(image?.kind === 'scalar' && image.value !== null ? [String(image.value)] : [])]);
    const environment = service.kind === 'map' ? service.entries.get('environment') : undefined;
    if (environment?.kind === 'map') {
      environment.entries.forEach((node, name) => {
        if (node.kind === 'scalar' && node.value !== null) {
          addIfSecret(secrets, name, String(node.value));
        }
      });
    } else if (environment?.kind === 'seq' || environment?.kind === 'scalar') {
      const items = environment.kind === 'seq' ? environment.items : [environment];
      for (const item of items) {
        const text = item.kind === 'scalar' && item.value !== null ? String(item.value) : '';
        const eq = text.indexOf('=');
        if (eq > 0) {
          addIfSecret(secrets, text.slice(0, eq), text.slice(eq + 1));
        }
      }
    }
  }
}

/** The values of the model that are secret: sensitive environment values (env files too) and secret file contents. */
export function collectModelSecrets(model: ComposeModel, secrets: Redactor): void {
  for (const service of model.services) {
    service.environment.forEach((variable) => addIfSecret(secrets, variable.name, variable.value));
  }
  for (const secret of model.secrets) {
    if ('content' in secret.source && !secret.source.content.binary) {
      secrets.add(secret.source.content.text);
    }
  }
}
