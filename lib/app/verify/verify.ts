import { MigratedService } from '../service/migrated-service';
import { VerifiedApp, VerifiedManifests } from './verified-manifests';
import { checkData } from './verify-data';
import { checkDependencies, checkEnvironment, checkMounts } from './verify-pod';
import { checkNetworks, checkReferences } from './verify-reach';
import { VerifyReport, verifyReport } from './verify-report';

export type { VerifiedApp } from './verified-manifests';
export type { VerifyExpectation, VerifyReport } from './verify-report';
export { VerifyCheck, VerifyStatus, verifySummary } from './verify-report';
export { dataSummary } from './verify-data';

/**
 * `verify`: what compose promises each service, checked against the rendered manifests. The expectations come from
 * the compose model (every (client, name, port) reference and every pair on a shared network, the effective
 * environment, every file and volume mounted, every depends_on); each is checked on the objects as they would be
 * applied: the name resolves to a Service with that port and a NetworkPolicy admits the client, the environment with
 * its ConfigMap and Secret references resolved equals compose's (but for the reported host rewrites), each file is
 * mounted at its path with the same bytes, each dependency has a wait; and the data class: what compose keeps is on a
 * claim, a source several pods mount is one claim they can mount at once, a bound folder's files reach its claim. What the app already reported as something
 * the user must do (an external secret, a host path) is `reported`, not `broken`.
 */

/** Checks the expectations of the compose model against the manifests (the chart's `toJson()`). */
export function verifyManifests(app: VerifiedApp, manifests: readonly any[]): VerifyReport {
  const m = new VerifiedManifests(app, manifests);
  const services = new Map<string, MigratedService>(app.services.map((s) => [s.composeName, s]));
  for (const service of app.model.services) {
    const migrated = services.get(service.name);
    if (!migrated) {
      continue;
    }
    checkEnvironment(m, service);
    checkMounts(m, service);
    checkDependencies(m, service, migrated);
  }
  checkData(m);
  checkReferences(m);
  checkNetworks(m);
  return verifyReport(m.results);
}
