import { App, Chart, Size, YamlOutputType } from 'cdk8s';
import { ComposeApp } from '../app/compose-app';
import { ServiceOverrides } from '../app/settings';
import { compare } from '../util/sort';
import { SAFE_PRINTER_CONTEXT } from '../app/printer-safety';
import { cpuFromMillicores, parseCpuMillicores, parseMemoryBytes, sizeFromBytes } from '../base/quantities';
import { QuotaAmounts } from '../app/quota/quota';
import { Redactor, redactError } from '../compose/sensitive';
import { ComposeWarning } from '../compose/errors';
import { loadCompose } from '../compose/load';
import { vmRoutingReasons } from '../app/vm/vm-routing';
import { overridableVolumes } from '../app/storage/claim-sources';
import { ComposeModel } from '../compose/model';
import { CliEnvironment } from './io';
import { ConversionOptions, QuotaKeyName, UsageError } from './options/options';
import { Wave, planWaves } from '../app/deploy-waves';

/** The id of the chart the CLI builds; it names no object (every object is named by the app). */
export const CHART_ID = 'cdk8s-compose';

/** A compose project built into a cdk8s app, not yet synthesized. */
export interface Project {
  readonly app: App;
  readonly chart: Chart;
  readonly composeApp: ComposeApp;
  readonly model: ComposeModel;
  readonly waves: readonly Wave[];
  /** `--labels`: on every object, and in each wave's kustomization. */
  readonly labels: Readonly<Record<string, string>>;
  /** The loader's and the app's findings, in that order. */
  readonly warnings: readonly ComposeWarning[];
}

/** Options of {@link buildProject} that only matter for synthesis. */
export interface BuildSettings {
  /** The folder `app.synth()` writes to. */
  readonly outdir: string;
  /**
   * The image base URL of a VM when `--image-base-url` is not given; analyze passes one, since an assessment publishes
   * nothing.
   * @default - none: a service in the VM without `--image-base-url` is a usage error
   */
  readonly placeholderImageBaseUrl?: string;
  /**
   * The output folder (absolute): the loader reads nothing from it (see the loader's `outputDir`).
   * @default - the output is not a folder of the project; the tool's marks are still skipped
   */
  readonly outputDir?: string;
}

/**
 * Loads the compose files and builds the app the same way a cdk8s program would: an `App` (one file per resource,
 * `.yaml`), one chart, a `ComposeApp`. The command-line labels and annotations are the app's `labels` and
 * `annotations` props.
 */
export function buildProject(options: ConversionOptions, where: CliEnvironment, settings: BuildSettings): Project {
  const loaded = loadCompose({
    files: options.files.length > 0 ? options.files : undefined,
    workingDir: where.cwd,
    env: where.env,
    envFiles: options.envFiles.length > 0 ? options.envFiles : undefined,
    profiles: options.profiles.length > 0 ? options.profiles : undefined,
    projectName: options.projectName,
    images: options.images,
    registry: options.registry,
    allowOutsideProject: options.allowOutsideProject,
    outputDir: settings.outputDir,
  });
  const model = loaded.model;
  // Errors from here on (the --image check, x-cdk8s-compose.target, …) may quote a value that is a secret.
  where.redaction?.use(new Redactor().addAll(model.secretValues ?? []).keepNames([model.name]));
  const names = model.services.map((s) => s.name);
  for (const [flag, byService] of [
    ['--image', options.images],
    ['--ingress-host', options.ingressHosts],
    ['--external', options.externals],
    ['--external-cidr', options.externalCidrs],
  ] as const) {
    for (const service of Object.keys(byService).filter((s) => !names.includes(s))) {
      throw new UsageError(
        `${flag} ${service}=…: the project has no service "${service}" (or its profile is not active). ` +
          `Allowed: ${names.join(', ') || 'no services'}`,
      );
    }
  }

  const overridable = overridableVolumes(model);
  for (const name of Object.keys(options.volumeSizes).filter((n) => !overridable.accepts(n))) {
    throw new UsageError(
      `--volume-size ${name}=…: the project has no named volume or read-write bound folder "${name}". ` +
        `Allowed: ${overridable.allowed.join(', ') || 'none'} (a top-level volume, or a folder as a service binds it: ./data)`,
    );
  }

  for (const service of Object.keys(options.externalCidrs).filter((s) => options.externals[s] === undefined)) {
    throw new UsageError(
      `--external-cidr ${service}=…: "${service}" is not external; give --external ${service}=HOST[:PORT] too`,
    );
  }
  const target = options.target;
  const routed = model.services
    .map((s) => ({ name: s.name, reasons: vmRoutingReasons(s, { target, targetWhy: `--target ${target}` }) }))
    .filter((s) => s.reasons.length > 0);
  const imageBaseUrl = options.imageBaseUrl ?? (routed.length > 0 ? settings.placeholderImageBaseUrl : undefined);
  if (routed.length > 0 && imageBaseUrl === undefined) {
    const first = routed[0];
    throw new UsageError(
      `${routed.map((s) => s.name).join(', ')} ${routed.length === 1 ? 'runs' : 'run'} in a VM (${first.name}: ` +
        `${first.reasons[0]}), whose golden image needs a home: pass --image-base-url URL, the folder URL where you will ` +
        'publish the image (RUNBOOK.md shows how to build and publish it)',
    );
  }

  const app = new App({
    outdir: settings.outdir,
    outputFileExtension: '.yaml',
    yamlOutputType: YamlOutputType.FILE_PER_RESOURCE,
  });
  // The CLI prints every manifest with the safe printer (lib/base/manifest-yaml.ts), which escapes U+2028 and the rest.
  app.node.setContext(SAFE_PRINTER_CONTEXT, true);
  const chart = new Chart(app, CHART_ID);
  const composeApp = withRedaction(
    new Redactor().addAll(model.secretValues ?? []),
    () =>
      new ComposeApp(chart, 'App', {
        model,
        namespace: options.namespace,
        controller: options.controller,
        services: serviceOverrides(options),
        target,
        vm:
          imageBaseUrl !== undefined
            ? {
                imageBaseUrl,
                storageClassName: options.storageClassName,
                dataDiskSize:
                  options.vmDataSize !== undefined ? sizeFromBytes(parseMemoryBytes(options.vmDataSize)) : undefined,
                sshKeySecret: options.vmSshKeySecret,
              }
            : undefined,
        allowSystemNamespace: options.allowSystemNamespace,
        syncWaves: options.syncWaves,
        networkPolicies: options.networkPolicies,
        ingressControllerNamespace: options.ingressControllerNamespace,
        ingressControllerPodLabels:
          Object.keys(options.ingressControllerPodLabels).length > 0 ? options.ingressControllerPodLabels : undefined,
        ingressClassName: options.ingressClassName,
        storageClassName: options.storageClassName,
        volumes:
          Object.keys(options.volumeSizes).length > 0
            ? Object.fromEntries(
                Object.entries(options.volumeSizes).map(([name, kib]) => [name, { size: Size.kibibytes(kib) }]),
              )
            : undefined,
        sharedVolumes: options.sharedVolumes,
        copyUp: options.copyUp,
        backup: options.backup,
        quota: typeof options.quota === 'boolean' ? options.quota : { hard: quotaAmounts(options.quota) },
        defaultLimits: options.defaultLimits,
        labels: options.labels,
        annotations: options.annotations,
      }),
  );
  where.redaction?.use(composeApp.redactor);
  return {
    app,
    chart,
    composeApp,
    model,
    waves: planWaves(composeApp),
    labels: options.labels,
    // The loader's warnings are redacted already; the app's pass through its redactor, which knows every secret.
    warnings: [
      ...loaded.warnings,
      ...composeApp.warnings.map((w) => ({ ...w, message: composeApp.redactor.redact(w.message) })),
    ],
  };
}

/** The per-service flags (`--ingress-host`, `--external`, `--external-cidr`) as ComposeApp's `services` prop. */
function serviceOverrides(options: ConversionOptions): Record<string, ServiceOverrides> {
  const names = [...new Set([...Object.keys(options.ingressHosts), ...Object.keys(options.externals)])].sort(compare);
  return Object.fromEntries(
    names.map((service) => {
      const host = options.ingressHosts[service];
      const external = options.externals[service];
      const cidr = options.externalCidrs[service];
      return [
        service,
        {
          ...(host !== undefined ? { ingressHost: host } : {}),
          ...(external !== undefined ? { external: { ...external, ...(cidr ? { egressCidr: cidr } : {}) } } : {}),
        },
      ];
    }),
  );
}

/** `--quota KEY=AMOUNT,…` as the quota's amounts (the flag's values are checked in shape when it is parsed). */
function quotaAmounts(given: Readonly<Partial<Record<QuotaKeyName, string>>>): QuotaAmounts {
  const cpu = (text?: string) => (text === undefined ? undefined : cpuFromMillicores(parseCpuMillicores(text)));
  const memory = (text?: string) => (text === undefined ? undefined : sizeFromBytes(parseMemoryBytes(text)));
  const claims = given.persistentvolumeclaims;
  return {
    requestsCpu: cpu(given['requests.cpu']),
    requestsMemory: memory(given['requests.memory']),
    limitsCpu: cpu(given['limits.cpu']),
    limitsMemory: memory(given['limits.memory']),
    persistentVolumeClaims: claims === undefined ? undefined : Number(claims),
  };
}

/** Runs `fn`; an error it throws quotes no secret the redactor knows. */
export function withRedaction<T>(redactor: Redactor, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw redactError(err, redactor);
  }
}
