import { ComposeModel, ComposeService, EnvVar } from '../compose/model';
import { PublicNames, Redactor, embeddedPasswords, hasEmbeddedPassword, isSensitiveName } from '../compose/sensitive';
import { DatabaseEngine } from '../stateful/engine';
import { AppSettings } from './app-settings';
import { WarnFn } from './app-warnings';
import { checkPlainFields } from './plain-fields';
import { readServiceExtension } from './settings';

/** What `collectSecretValues` reads and where it reports. */
export interface SecretValuesOptions {
  readonly model: ComposeModel;
  readonly namespace: string;
  readonly settings: AppSettings;
  readonly warn: WarnFn;
}

/**
 * Teaches `redactor` every secret string of the app (sensitive variables, passwords inside URLs, compose secrets,
 * the loader's), so that no other value or file may carry one outside a Secret; refuses plain fields that carry one,
 * and reports secrets that are empty or part of a public name.
 */
export function collectSecretValues(redactor: Redactor, options: SecretValuesOptions): void {
  const { model, namespace, settings } = options;
  const patterns = settings.sensitiveNamePatterns;
  for (const service of model.services) {
    const extra = settings.overrides(service).sensitiveEnv ?? [];
    for (const variable of service.environment) {
      if (
        isSensitiveName(variable.name, patterns) ||
        extra.includes(variable.name) ||
        hasEmbeddedPassword(variable.value)
      ) {
        redactor.add(variable.value);
        embeddedPasswords(variable.value).forEach((p) => redactor.add(p));
      }
    }
  }
  // A password written in a URL of a command, an entrypoint or a healthcheck (issue 25, finding 9) is a secret as
  // one in the environment is: the container reads it from the Secret through a variable (ServiceEnvironment). A
  // reference to a variable of the container's own (`$PGPASS`) is left to its shell.
  for (const service of model.services) {
    for (const word of [
      ...(service.entrypoint ?? []),
      ...(service.command ?? []),
      ...(service.healthcheck?.test?.command ?? []),
    ]) {
      embeddedPasswords(word)
        .filter((p) => !p.startsWith('$'))
        .forEach((p) => redactor.add(p));
    }
  }
  for (const secret of model.secrets) {
    if ('content' in secret.source && !secret.source.content.binary) {
      redactor.add(secret.source.content.text);
    }
  }
  (model.secretValues ?? []).forEach((value) => redactor.add(value));
  // Public names: a secret that is part of one is public anyway (weak-secret), and is neither redacted nor refused.
  redactor.keepNames([
    model.name,
    namespace,
    settings.ingressDomain,
    ...model.services.flatMap((s) => [s.name, s.image]),
  ]);
  for (const service of model.services) {
    checkPlainFields(
      service,
      settings.overrides(service).ingressHost ?? readServiceExtension(service).ingressHost,
      redactor,
    );
  }
  reportWeakSecrets(options);
}

/**
 * A password such as `postgres` or `airflow` is also part of an image, service or project name, so it shows in
 * the output however well the Secret keeps it. Each one is reported, without the value.
 */
function reportWeakSecrets({ model, namespace, settings, warn }: SecretValuesOptions): void {
  const patterns = settings.sensitiveNamePatterns;
  const list = [model.name, namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) => n.toLowerCase());
  const names = new PublicNames(list);
  // A value with NUL is part of a name only if that name holds NUL too, not where two names meet.
  const inAName = (value: string) =>
    value.includes('\0') ? list.some((name) => name.includes(value)) : names.has(value);
  for (const service of model.services) {
    const extra = settings.overrides(service).sensitiveEnv ?? [];
    for (const variable of service.environment) {
      const value = variable.value.trim().toLowerCase();
      const sensitive = isSensitiveName(variable.name, patterns) || extra.includes(variable.name);
      if (sensitive && value === '') {
        const engine = DatabaseEngine.detect(service.image);
        warn(
          'empty-secret',
          `${variable.name} is empty, so its Secret key holds 0 bytes` +
            (engine && /PASS/i.test(variable.name) ? `; the ${engine.name} image refuses to start with it empty` : '') +
            '; set a value (an unset variable gives an empty string)',
          variable.at,
        );
      }
      if (sensitive && value !== '' && inAName(value)) {
        warn(
          'weak-secret',
          `the value of ${variable.name} is also part of an image, service or project name, so it ` +
            'appears outside the Secret anyway; set a real secret',
          variable.at,
        );
      }
    }
  }
}

/** Rule 3 for the VM's `.env`: the same test the containers' env Secrets use. */
export function sensitiveEnvTest(
  settings: AppSettings,
  redactor: Redactor,
): (variable: EnvVar, service: ComposeService) => boolean {
  return (variable, service) =>
    isSensitiveName(variable.name, settings.sensitiveNamePatterns) ||
    (settings.overrides(service).sensitiveEnv ?? []).includes(variable.name) ||
    hasEmbeddedPassword(variable.value) ||
    redactor.foundIn(variable.value);
}
