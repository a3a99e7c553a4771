import { ComposeApp } from '../../lib/app/compose-app';
import { CheckOptions } from './checks';
import { Manifest } from './problems';

/**
 * The check options that a ComposeApp's own output must pass with, derived from the app and its model rather than
 * written per test: privilege only where the compose file asked for it (`privileged`, `cap_add`), a service account
 * token only where a dependency wait needs the API, and every Secret value kept out of everything else.
 */

/** The decoded values of every Secret's `data` and `stringData`, each once. */
export function secretValuesOf(docs: readonly Manifest[]): string[] {
  const values = docs
    .filter((d) => d?.kind === 'Secret')
    .flatMap((d) => [
      ...Object.values(d.data ?? {}).map((v) => Buffer.from(String(v), 'base64').toString('utf8')),
      ...Object.values(d.stringData ?? {}).map(String),
    ]);
  return [...new Set(values)];
}

/**
 * Secret values that are also part of the project, namespace, a service or an image name (airflow's password
 * "airflow"): they cannot be kept out of the output, the app reports them as `weak-secret`, and the leak scan skips
 * them.
 */
export function weakSecretValues(app: ComposeApp, values: readonly string[]): string[] {
  const names = [app.model.name, app.namespace, ...app.model.services.flatMap((s) => [s.name, s.image])].map((n) =>
    n.toLowerCase(),
  );
  return values.filter((v) => v.trim() !== '' && names.some((n) => n.includes(v.trim().toLowerCase())));
}

/** The options for `expectManifestsPass` over the documents `app` synthesized (and any texts written with them). */
export function appCheckOptions(app: ComposeApp, docs: readonly Manifest[], extra: CheckOptions = {}): CheckOptions {
  const secrets = secretValuesOf(docs);
  const weak = weakSecretValues(app, secrets);
  // Services the app routed to a VM have no container to allow anything for.
  const containers = new Map(app.services.map((s) => [s.composeName, s]));
  return {
    secretValues: secrets.filter((s) => !weak.includes(s)),
    allowServiceAccountToken: app.services.filter((s) => s.serviceAccountName !== undefined).map((s) => s.name),
    allowPrivileged: app.model.services
      .filter((s) => (s.privileged || s.capAdd.length > 0) && containers.has(s.name))
      .map((s) => containers.get(s.name)!.name),
    ...extra,
  };
}
