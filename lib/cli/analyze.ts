import { IngressRule, PortAccess, PublishedPort, WorkloadKind } from '../app/migrated-service';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, hasEmbeddedPassword, isSensitiveName } from '../compose/sensitive';
import { VmMigratedService } from '../app/vm-migrated-service';
import { DatabaseEngine } from '../stateful/engine';
import { ComposeLocation, ComposeService } from '../compose/model';
import { ComposeWarning, formatWarning } from '../compose/errors';
import { assessService } from '../vm/assess';
import { CliIo, ExitCode } from './io';
import { AnalyzeOptions } from './options';
import { bakeCommand, imageBuilds } from './image-builds';
import { createTempStage, removeStage } from './output-stage';
import { Rendered, renderProject } from './render';
import { podSpec } from './runbook';

/** The migration assessment of a whole project (`analyze --json` prints it). */
export interface ProjectAnalysis {
  readonly project: string;
  readonly files: readonly string[];
  readonly namespace: string;
  readonly services: readonly ServiceAnalysis[];
  /** One `docker buildx bake` that builds and pushes every image built from source; null when there is none. */
  readonly buildAll: string | null;
  /** Warnings that belong to no single service. */
  readonly warnings: readonly AnalysisWarning[];
  /** The services the active profiles leave out (`--profile NAME` brings them in), with their profiles. */
  readonly leftOutByProfiles: readonly { readonly service: string; readonly profiles: readonly string[] }[];
  /**
   * The VM whose golden image convert and deploy need a URL for (`--image-base-url`), when services run in a VM
   * and none was given; null otherwise.
   */
  readonly imageBaseUrlNeededBy: string | null;
}

/** A finding of the conversion: its stable code (`directory-bind`, `empty-secret`, …) and its line. */
export interface AnalysisWarning {
  readonly code: string;
  /** `compose.yaml:12:7: services.web.ports[1]: …`, as `convert` prints it. */
  readonly message: string;
}

/** The assessment of one compose service. */
export interface ServiceAnalysis {
  /** The compose name. */
  readonly service: string;
  /** The Kubernetes name of its workload and Service. */
  readonly name: string;
  /**
   * The assessment: `vm` when something in it cannot run as an ordinary container (`reasons` says what). It is a
   * recommendation: without `--target auto` (or `vm`) the service still runs in a container (`runsIn`).
   */
  readonly target: 'container' | 'vm';
  readonly reasons: readonly string[];
  /** Where the conversion puts it with the options given. */
  readonly runsIn: 'container' | 'vm';
  /** `Deployment`, `StatefulSet`, `Job`, `CronJob`, or `VirtualMachine <name>` for a service in the VM. */
  readonly workload: string;
  readonly replicas: number;
  readonly stateful: boolean;
  /** The database or cache engine detected, e.g. `postgres`. */
  readonly engine: string | null;
  readonly exposure: Exposure;
  readonly volumes: readonly VolumeAnalysis[];
  /** Secrets by name, never by value. */
  readonly secrets: readonly SecretAnalysis[];
  readonly dependsOn: readonly DependencyAnalysis[];
  /** How to build and push the image it runs, when that image is built from its `build:`; else null. */
  readonly build: BuildAnalysis | null;
  readonly warnings: readonly AnalysisWarning[];
}

/** The image a service builds, and the commands (secret build arguments by name only). */
export interface BuildAnalysis {
  readonly image: string;
  readonly commands: readonly string[];
  readonly argsFromEnvironment: readonly string[];
}

export interface Exposure {
  /** The ClusterIP Service other workloads reach it by, or null when it has no ports (or is a Job). */
  readonly internal: string | null;
  /** The ways in from outside the cluster, one per published port. */
  readonly external: readonly ExternalAccess[];
  /**
   * Published ports kept inside the cluster (bound to 127.0.0.1 in compose, or a database's): reached with
   * `kubectl port-forward` while it runs.
   */
  readonly portForward: readonly PortForward[];
}

export interface PortForward {
  /** The published port: the local port of the forward. */
  readonly port: number;
  /** The container port. */
  readonly targetPort: number;
  readonly protocol: string;
  /** The host address compose bound it to, or null. */
  readonly hostIp: string | null;
  /** The command that opens it. */
  readonly command: string;
}

export interface ExternalAccess {
  /** `Ingress`, `LoadBalancer` or `NodePort`. */
  readonly via: string;
  /** The published port. */
  readonly port: number;
  /** The container port. */
  readonly targetPort: number;
  readonly protocol: string;
  readonly host: string | null;
  readonly path: string | null;
}

export interface VolumeAnalysis {
  /** `volume`, `bind`, `tmpfs`, `secret` or `config`. */
  readonly type: string;
  /** The named volume, bind path, secret or config; null for anonymous volumes and tmpfs. */
  readonly source: string | null;
  readonly target: string;
  /** What it became, e.g. `PersistentVolumeClaim db-data`, `ConfigMap web-files key nginx.conf`, `not migrated`. */
  readonly becomes: string;
}

export interface SecretAnalysis {
  /**
   * `env`: a sensitive variable (by its name, or a URL with a password); `secret`: a compose secret; `file`: a bound
   * file that holds a secret value; `copy`: a variable that is no secret itself but is kept in a Secret because its
   * value contains one (not counted as a secret).
   */
  readonly kind: 'env' | 'secret' | 'file' | 'copy';
  readonly name: string;
  /** The Secret that holds it; null for a service in the VM whose value the operator supplies. */
  readonly secret: string | null;
  /** True when its value is empty (an unset variable): a database refuses an empty password. */
  readonly empty: boolean;
}

export interface DependencyAnalysis {
  readonly service: string;
  readonly condition: string;
  readonly required: boolean;
}

/** Stands in for `--image-base-url` in an assessment, which publishes nothing (`.invalid` is never a real host). */
const ASSESSMENT_IMAGE_BASE_URL = 'https://image-base-url.invalid';

/** `cdk8s-compose analyze`: the assessment as text, or as JSON with `--json`. */
export function analyze(options: AnalyzeOptions, io: CliIo): number {
  const stage = createTempStage();
  try {
    const rendered = renderProject(options, io, stage, { placeholderImageBaseUrl: ASSESSMENT_IMAGE_BASE_URL });
    const analysis = { ...analyzeRendered(rendered), imageBaseUrlNeededBy: options.imageBaseUrl === undefined ? rendered.project.composeApp.vm?.vm.name ?? null : null };
    // The report quotes values (ports, hosts, commands): it passes through the redactor as every message does.
    io.stdout(rendered.project.composeApp.redactor.redact(options.json ? `${JSON.stringify(analysis, undefined, 2)}\n` : analysisText(analysis)));
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
  const buildOf = (service: string): BuildAnalysis | null => {
    const found = builds.find((b) => b.service === service);
    return found ? { image: found.image, commands: found.commands, argsFromEnvironment: found.argsFromEnvironment } : null;
  };
  const containers = app.services.map((migrated) => {
    const service = model.services.find((s) => s.name === migrated.composeName)!;
    const own = warnings.filter((w) => belongsTo(w.at, service));
    own.forEach((w) => claimed.add(w));
    const assessment = assessService(service);
    const workload = manifests.find((m) => ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(m.kind) && m.metadata?.name === migrated.name);
    const spec = podSpec(workload);
    const container = (spec?.containers ?? []).find((c: any) => c.name === migrated.container.name) ?? spec?.containers?.[0];
    const result: ServiceAnalysis = {
      service: service.name,
      name: migrated.name,
      target: assessment.target,
      reasons: assessment.reasons,
      runsIn: 'container',
      workload: workload?.kind ?? migrated.kind,
      replicas: migrated.replicas,
      stateful: migrated.kind === WorkloadKind.STATEFUL,
      engine: migrated.statefulDependency?.engine.name ?? null,
      exposure: exposureOf(migrated, app.namespace),
      volumes: volumesOf(service, spec, container),
      secrets: secretsOf(service, spec, container, manifests),
      dependsOn: service.dependsOn.map((d) => ({ service: d.service, condition: d.condition, required: d.required })),
      build: buildOf(service.name),
      warnings: own.map(analysisWarning),
    };
    return result;
  });
  const vms = app.vmServices.map((migrated) => {
    const service = model.services.find((s) => s.name === migrated.composeName)!;
    const own = warnings.filter((w) => belongsTo(w.at, service));
    own.forEach((w) => claimed.add(w));
    return { ...vmServiceAnalysis(migrated, service, manifests, app.namespace, own.map(analysisWarning)), build: buildOf(service.name) };
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

function analysisWarning(warning: ComposeWarning): AnalysisWarning {
  return { code: warning.code, message: formatWarning(warning) };
}

/** True when a finding's key path lies under the service. */
function belongsTo(at: ComposeLocation, service: ComposeService): boolean {
  const base = service.at.path;
  return at.file === service.at.file && (at.path === base || at.path.startsWith(`${base}.`) || at.path.startsWith(`${base}[`));
}

/** A service in the VM: its compose project there keeps the volumes; the operator or cloud-init supplies the secrets. */
function vmServiceAnalysis(
  migrated: VmMigratedService, service: ComposeService, manifests: readonly any[], namespace: string, warnings: AnalysisWarning[],
): ServiceAnalysis {
  const vm = migrated.vm;
  const engine = DatabaseEngine.detect(service.image);
  const userData = vm.vm.userDataSecret ? manifests.find((m) => m.kind === 'Secret' && m.metadata?.name === vm.vm.userDataSecret?.name) : undefined;
  const mounts = [
    ...service.volumes.map((v) => ({ type: v.type, source: v.source ?? null, target: v.target })),
    ...service.secrets.map((x) => ({ type: 'secret', source: x.source, target: x.target })),
    ...service.configs.map((c) => ({ type: 'config', source: c.source, target: c.target })),
  ];
  return {
    service: service.name,
    name: migrated.name,
    target: 'vm',
    reasons: migrated.reasons,
    runsIn: 'vm',
    workload: `VirtualMachine ${vm.vm.name}`,
    replicas: 1,
    stateful: engine !== undefined,
    engine: engine?.name ?? null,
    exposure: exposureOf(migrated, namespace),
    volumes: mounts.map((m) => ({ ...m, becomes: `kept by the compose project in the VM ${vm.vm.name}` })),
    secrets: vm.bundle.operatorInputs.filter((i) => i.usedBy.some((u) => u.startsWith(`services.${service.name}.`)))
      .map((i) => ({
        kind: i.kind === 'env' ? 'env' : 'file',
        name: i.name,
        secret: userData?.metadata?.name ?? null,
        empty: i.kind === 'env' && service.environment.some((v) => v.name === i.name && v.value === ''),
      })),
    dependsOn: service.dependsOn.map((d) => ({ service: d.service, condition: d.condition, required: d.required })),
    build: null,
    warnings,
  };
}

/** What exposure needs of a migrated service, in a container or in the VM. */
interface Exposed {
  readonly service?: { readonly name: string };
  readonly publishedPorts: readonly PublishedPort[];
  readonly ingressRules: readonly IngressRule[];
}

function exposureOf(service: Exposed, namespace: string): Exposure {
  const rule = service.ingressRules[0];
  const inside = service.publishedPorts.filter((p) => p.access === PortAccess.INTERNAL);
  return {
    internal: service.service?.name ?? null,
    external: service.publishedPorts.filter((p) => p.access !== PortAccess.INTERNAL).map((p) => ({
      via: p.access,
      port: p.mapping.published ?? p.mapping.target,
      targetPort: p.mapping.target,
      protocol: p.mapping.protocol,
      host: p.access === PortAccess.INGRESS && rule ? rule.host : null,
      path: p.access === PortAccess.INGRESS && rule ? rule.path : null,
    })),
    portForward: inside.map((p) => {
      const port = p.mapping.published ?? p.mapping.target;
      return {
        port,
        targetPort: p.mapping.target,
        protocol: p.mapping.protocol,
        hostIp: p.mapping.hostIp ?? null,
        command: service.service && p.mapping.protocol === 'tcp'
          ? `kubectl port-forward service/${service.service.name} ${port === p.mapping.target ? port : `${port}:${p.mapping.target}`} -n ${namespace}`
          : '',
      };
    }),
  };
}

/** Each compose mount (volumes, tmpfs, secrets, configs) and the pod volume now at its path. */
function volumesOf(service: ComposeService, spec: any, container: any): VolumeAnalysis[] {
  const mounts: { type: string; source: string | null; target: string }[] = [
    ...service.volumes.map((v) => ({ type: v.type, source: v.source ?? null, target: v.target })),
    ...service.secrets.map((s) => ({ type: 'secret', source: s.source, target: s.target })),
    ...service.configs.map((c) => ({ type: 'config', source: c.source, target: c.target })),
  ];
  const volumes = new Map<string, any>((spec?.volumes ?? []).map((v: any) => [v.name, v]));
  return mounts.map((mount) => {
    const volumeMount = (container?.volumeMounts ?? []).find((m: any) => m.mountPath === mount.target);
    return { ...mount, becomes: volumeMount ? describeVolume(volumes.get(volumeMount.name), volumeMount.subPath) : 'not migrated (see the warnings)' };
  });
}

function describeVolume(volume: any, subPath: string | undefined): string {
  const key = subPath ? ` key ${subPath}` : '';
  if (volume?.persistentVolumeClaim) {
    return `PersistentVolumeClaim ${volume.persistentVolumeClaim.claimName}${subPath ? ` subPath ${subPath}` : ''}`;
  }
  if (volume?.configMap) {
    return `ConfigMap ${volume.configMap.name}${key}`;
  }
  if (volume?.secret) {
    return `Secret ${volume.secret.secretName}${key}`;
  }
  if (volume?.emptyDir) {
    return volume.emptyDir.medium === 'Memory' ? 'emptyDir in memory' : 'emptyDir';
  }
  return 'a pod volume';
}

/** The secrets of a service by name: variables kept in a Secret, compose secrets, bound files holding a secret. */
function secretsOf(service: ComposeService, spec: any, container: any, manifests: readonly any[]): SecretAnalysis[] {
  const result: SecretAnalysis[] = [];
  const sizeOf = (secret: string, key: string | undefined) => {
    const data = manifests.find((m) => m.kind === 'Secret' && m.metadata?.name === secret)?.data ?? {};
    return key === undefined ? undefined : data[key]?.length;
  };
  for (const env of container?.env ?? []) {
    const ref = env.valueFrom?.secretKeyRef;
    if (ref) {
      const value = service.environment.find((v) => v.name === env.name)?.value;
      const secretByItself = value === undefined || isSensitiveName(env.name, DEFAULT_SENSITIVE_NAME_PATTERNS) || hasEmbeddedPassword(value);
      result.push({ kind: secretByItself ? 'env' : 'copy', name: env.name, secret: ref.name, empty: sizeOf(ref.name, ref.key) === 0 });
    }
  }
  const volumes = new Map<string, any>((spec?.volumes ?? []).map((v: any) => [v.name, v]));
  for (const mount of container?.volumeMounts ?? []) {
    const secretName = volumes.get(mount.name)?.secret?.secretName;
    if (!secretName) {
      continue;
    }
    const composeSecret = service.secrets.find((s) => s.target === mount.mountPath);
    const empty = sizeOf(secretName, mount.subPath) === 0;
    if (composeSecret) {
      result.push({ kind: 'secret', name: composeSecret.source, secret: secretName, empty });
    } else if (service.volumes.some((v) => v.target === mount.mountPath)) {
      result.push({ kind: 'file', name: mount.mountPath, secret: secretName, empty });
    }
  }
  return result;
}

/** The assessment as text: one block per service. */
export function analysisText(analysis: ProjectAnalysis): string {
  const lines = [
    `Project ${analysis.project} (${analysis.files.join(', ')}): ${analysis.services.length} service${analysis.services.length === 1 ? '' : 's'} `
      + `→ namespace ${analysis.namespace}`,
    '',
  ];
  const row = (label: string, value: string) => lines.push(`  ${`${label}:`.padEnd(12)}${value}`.trimEnd());
  for (const s of analysis.services) {
    lines.push(s.name === s.service ? s.service : `${s.service} (${s.name})`);
    row('target', s.target === 'container' ? 'container'
      : s.runsIn === 'vm' ? 'VM, because:' : 'VM recommended (it runs in a container: convert with --target auto to move it), because:');
    s.reasons.forEach((r) => lines.push(`      - ${r}`));
    row('runs as', s.workload === 'Job' ? 'Job (run to completion)' : s.workload === 'CronJob' ? 'CronJob (on a schedule)'
      : s.workload.startsWith('VirtualMachine ') ? `docker compose in the ${s.workload}`
        : s.workload === 'DaemonSet' ? 'DaemonSet, one pod on every node'
        : `${s.workload}, ${s.replicas} replica${s.replicas === 1 ? '' : 's'}`);
    row('stateful', s.stateful ? `yes, ${s.engine}` : 'no');
    const external = s.exposure.external.map((e) => {
      const port = `${e.port}/${e.protocol}${e.port !== e.targetPort ? ` → ${e.targetPort}` : ''}`;
      return e.via === 'Ingress' ? `Ingress ${e.host}${e.path} → ${e.targetPort}` : `${e.via} ${port}`;
    });
    const forwarded = s.exposure.portForward.map((f) => `${f.port}/${f.protocol}${f.port !== f.targetPort ? ` → ${f.targetPort}` : ''} `
      + `${f.hostIp ? `bound to ${f.hostIp} in compose` : 'published in compose'}, not outside the cluster${f.command ? ` (${f.command})` : ''}`);
    row('exposure', [s.exposure.internal ? `internal (Service ${s.exposure.internal})` : 'none (no ports)', ...external, ...forwarded].join('; '));
    row('volumes', s.volumes.length === 0 ? 'none' : '');
    s.volumes.forEach((v) => lines.push(`      - ${v.type} ${v.source ?? '(anonymous)'} at ${v.target} → ${v.becomes}`));
    const secrets = s.secrets.filter((x) => x.kind !== 'copy');
    const copies = s.secrets.filter((x) => x.kind === 'copy');
    row('secrets', secrets.length === 0 ? 'none' : secrets.map((x) => `${x.kind} ${x.name}${x.empty ? ' (EMPTY)' : ''}`).join(', '));
    if (copies.length > 0) {
      row('in Secrets', `${copies.map((x) => x.name).join(', ')} (no secrets, but their values contain one)`);
    }
    row('depends_on', s.dependsOn.length === 0 ? 'none'
      : s.dependsOn.map((d) => `${d.service} (${d.condition}${d.required ? '' : ', optional'})`).join(', '));
    if (s.build) {
      row('build', `${s.build.image}${s.build.argsFromEnvironment.length > 0 ? ` (secret build arguments from the environment: ${s.build.argsFromEnvironment.join(', ')})` : ''}`);
      s.build.commands.forEach((c) => lines.push(`      $ ${c}`));
    }
    row('warnings', s.warnings.length === 0 ? 'none' : '');
    s.warnings.forEach((w) => lines.push(`      - ${w.message.replace(/\s*\n\s*/g, ' ')}`));
    lines.push('');
  }
  if (analysis.leftOutByProfiles.length > 0) {
    lines.push('Left out by profiles (--profile NAME brings a service in):',
      ...analysis.leftOutByProfiles.map((s) => `  - ${s.service} (profile${s.profiles.length === 1 ? '' : 's'} ${s.profiles.join(', ')})`), '');
  }
  if (analysis.imageBaseUrlNeededBy !== null) {
    lines.push(`The VM ${analysis.imageBaseUrlNeededBy} boots from a golden image that you publish: convert and deploy need `
      + '--image-base-url URL, the folder URL it will be published at (RUNBOOK.md shows how to build and publish it).', '');
  }
  if (analysis.buildAll) {
    lines.push('Build and push every image built from source at once (from the folder of the compose file):', `  $ ${analysis.buildAll}`, '');
  }
  if (analysis.warnings.length > 0) {
    lines.push('Project warnings:', ...analysis.warnings.map((w) => `  - ${w.message.replace(/\s*\n\s*/g, ' ')}`), '');
  }
  return lines.join('\n');
}
