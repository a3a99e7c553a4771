import { WorkloadKind } from '../../app/service/migrated-service';
import { ComposeWarning } from '../../compose/errors';
import { assessForRouting } from '../../app/vm/vm-routing';
import { BuildAnalysis, ProjectAnalysis, ServiceAnalysis } from './analysis';
import { analysisText } from './analysis-text';
import {
  analysisWarning,
  belongsTo,
  exposureOf,
  secretsByName,
  secretsOf,
  vmServiceAnalysis,
  volumesOf,
} from './analyze-service';
import { CliIo, ExitCode } from '../io';
import { AnalyzeOptions } from '../options/options';
import { bakeCommand, imageBuilds } from '../image-builds';
import { createTempStage, removeStage } from '../output/output-stage';
import { Rendered, renderProject } from '../render';
import { podSpec } from '../runbook/runbook';

export { analysisText } from './analysis-text';
export type {
  AnalysisWarning,
  BuildAnalysis,
  DependencyAnalysis,
  Exposure,
  ExternalAccess,
  PortForward,
  ProjectAnalysis,
  SecretAnalysis,
  ServiceAnalysis,
  VolumeAnalysis,
} from './analysis';

/** Stands in for `--image-base-url` in an assessment, which publishes nothing (`.invalid` is never a real host). */
const ASSESSMENT_IMAGE_BASE_URL = 'https://image-base-url.invalid';

/** `cdk8s-compose analyze`: the assessment as text, or as JSON with `--json`. */
export function analyze(options: AnalyzeOptions, io: CliIo): number {
  const stage = createTempStage();
  try {
    const rendered = renderProject(options, io, stage, { placeholderImageBaseUrl: ASSESSMENT_IMAGE_BASE_URL });
    const analysis = {
      ...analyzeRendered(rendered),
      imageBaseUrlNeededBy:
        options.imageBaseUrl === undefined ? (rendered.project.composeApp.vm?.vm.name ?? null) : null,
    };
    // The report quotes values (ports, hosts, commands): it passes through the redactor as every message does.
    io.stdout(
      rendered.project.composeApp.redactor.redact(
        options.json ? `${JSON.stringify(analysis, undefined, 2)}\n` : analysisText(analysis),
      ),
    );
  } finally {
    removeStage(stage);
  }
  return ExitCode.OK;
}

/** The assessment of a synthesized project: every answer comes from the constructs and their manifests. */
export function analyzeRendered(rendered: Rendered): ProjectAnalysis {
  const { composeApp: app, model, warnings } = rendered.project;
  const manifests = rendered.waves.flatMap((w) => w.objects.map((o) => o.manifest));
  const claimed = new Set<ComposeWarning>();
  const builds = imageBuilds(model);
  // Looked up by name, the first of each as a search would find it: a thousand services each searching the services,
  // the builds and some seven thousand manifests is quadratic.
  const firstBy = <T>(items: readonly T[], key: (item: T) => string | undefined): Map<string | undefined, T> => {
    const found = new Map<string | undefined, T>();
    for (const item of items) {
      if (!found.has(key(item))) {
        found.set(key(item), item);
      }
    }
    return found;
  };
  const buildsByService = firstBy(builds, (b) => b.service);
  const servicesByName = firstBy(model.services, (s) => s.name);
  const workloads = firstBy(
    manifests.filter((m) => ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(m.kind)),
    (m) => m.metadata?.name,
  );
  const secrets = secretsByName(manifests);
  const buildOf = (service: string): BuildAnalysis | null => {
    const found = buildsByService.get(service);
    return found
      ? {
          image: found.image,
          commands: found.commands,
          argsFromEnvironment: found.argsFromEnvironment,
          argsWithLineBreaks: found.argsWithLineBreaks,
        }
      : null;
  };
  const containers = app.services.map((migrated) => {
    const service = servicesByName.get(migrated.composeName)!;
    const own = warnings.filter((w) => belongsTo(w.at, service));
    own.forEach((w) => claimed.add(w));
    const assessment = assessForRouting(service, migrated.statefulDependency?.engine ?? false);
    const workload = workloads.get(migrated.name);
    const spec = podSpec(workload);
    const container =
      (spec?.containers ?? []).find((c: any) => c.name === migrated.container.name) ?? spec?.containers?.[0];
    const result: ServiceAnalysis = {
      service: service.name,
      name: migrated.name,
      target: assessment.target,
      reasons: assessment.reasons,
      weakReasons: assessment.weak,
      runsIn: 'container',
      workload: workload?.kind ?? migrated.kind,
      replicas: migrated.replicas,
      stateful: migrated.kind === WorkloadKind.STATEFUL,
      engine: migrated.statefulDependency?.engine.name ?? null,
      exposure: exposureOf(migrated, app.namespace),
      volumes: volumesOf(service, spec, container),
      secrets: secretsOf(service, spec, container, secrets),
      dependsOn: service.dependsOn.map((d) => ({ service: d.service, condition: d.condition, required: d.required })),
      build: buildOf(service.name),
      warnings: own.map(analysisWarning),
    };
    return result;
  });
  const vms = app.vmServices.map((migrated) => {
    const service = servicesByName.get(migrated.composeName)!;
    const own = warnings.filter((w) => belongsTo(w.at, service));
    own.forEach((w) => claimed.add(w));
    return {
      ...vmServiceAnalysis(migrated, service, secrets, app.namespace, own.map(analysisWarning)),
      build: buildOf(service.name),
    };
  });
  const services = [...containers, ...vms].sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  return {
    project: model.name,
    files: model.files,
    namespace: app.namespace,
    services,
    buildAll: builds.length > 0 ? bakeCommand(model) : null,
    warnings: warnings.filter((w) => !claimed.has(w)).map(analysisWarning),
    leftOutByProfiles: (model.profileDisabled ?? []).map((s) => ({ service: s.name, profiles: s.profiles })),
    imageBaseUrlNeededBy: null,
  };
}
