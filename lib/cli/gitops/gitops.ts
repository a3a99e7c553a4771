import * as fs from 'fs';
import * as path from 'path';
import { WaveKind, WaveWait } from '../../app/deploy-waves';
import { ComposeWarning } from '../../compose/errors';
import { GitOpsMode, GitOpsOptions, fluxUrl } from '../options/gitops-options';
import { manifestYaml } from '../../base/manifest-yaml';
import { OutputFile } from '../output/output';
import { YAML_HEADER } from '../output/output-files';
import type { Rendered, RenderedObject, RenderedWave } from '../rendered';

/**
 * The files that make the output fit Kustomize, Argo CD and Flux: a kustomization per wave and one over the waves,
 * `gitops/` (an Argo CD Application, Flux Kustomizations per wave), and the overlays a user starts.
 */

/**
 * The kustomization of a wave folder. Kustomize reads three names; `kubectl apply -f <folder>/` reads every `.yaml`
 * file of a folder and fails on a `kustomization.yaml` (it is no Kubernetes object), so the wave folders take the
 * name without an extension and applying a folder works as before.
 */
export const WAVE_KUSTOMIZATION = 'Kustomization';
/** The kustomization over the waves, at the top of the output, and in each overlay. */
export const KUSTOMIZATION = 'kustomization.yaml';
/** The folder of the Argo CD and Flux objects. */
export const GITOPS_FOLDER = 'gitops';
/** The folder of the overlays. */
export const OVERLAYS_FOLDER = 'overlays';
/** The Argo CD Application's file in {@link GITOPS_FOLDER}. */
export const ARGOCD_FILE = 'argocd-application.yaml';
/** The Flux GitRepository and Kustomizations' file in {@link GITOPS_FOLDER}. */
export const FLUX_FILE = 'flux-kustomizations.yaml';
/** The stand-in for the output folder's path in the repository, until `--gitops-path` is given. */
export const PATH_PLACEHOLDER = '<PATH_IN_REPO>';

const KUSTOMIZE_API = 'kustomize.config.k8s.io/v1beta1';
/**
 * Kustomize's output in the order listed (kustomize 5, kubectl 1.27), which is wave order: by default it sorts by kind,
 * which would apply the NetworkPolicies after the pods.
 */
const IN_ORDER = { order: 'fifo' };
/** Where Argo CD and Flux keep their objects in a default install. */
const ARGOCD_NAMESPACE = 'argocd';
const FLUX_NAMESPACE = 'flux-system';
/** How long Flux waits for a wave's health checks: deploy's default wait, and the VM image import's. */
const FLUX_TIMEOUT = '5m';
const FLUX_VM_TIMEOUT = '30m';

/**
 * A kustomization in each wave folder, listing its files in wave order with the namespace and the `--labels` (which
 * the objects carry already: applying a folder gives the same objects), and one at the top listing the waves:
 * `kubectl apply -k OUT` applies the app, `kubectl apply -k OUT/1-stateful` one wave.
 */
export function kustomizationFiles(rendered: Rendered): OutputFile[] {
  const { namespace } = rendered.project.composeApp;
  const labels = rendered.project.labels;
  const files = rendered.waves.map((wave) =>
    generated(`${wave.wave.folder}/${WAVE_KUSTOMIZATION}`, {
      apiVersion: KUSTOMIZE_API,
      kind: 'Kustomization',
      namespace,
      ...(Object.keys(labels).length > 0 ? { labels: [{ pairs: { ...labels } }] } : {}),
      resources: wave.objects.map((o) => path.posix.basename(o.file)),
      sortOptions: IN_ORDER,
    }),
  );
  files.push(
    generated(KUSTOMIZATION, {
      apiVersion: KUSTOMIZE_API,
      kind: 'Kustomization',
      resources: rendered.waves.map((w) => w.wave.folder),
      sortOptions: IN_ORDER,
    }),
  );
  return files;
}

/** What {@link gitopsFiles} writes, and what the user should know about it. */
export interface GitOpsOutput {
  readonly files: readonly OutputFile[];
  readonly warnings: readonly ComposeWarning[];
}

/**
 * `gitops/`: an Argo CD Application whose source is the output folder (Argo CD renders its kustomization and applies
 * the objects by their sync waves), and a Flux GitRepository with a Kustomization per wave, each depending on the one
 * before and checking the health of what `deploy` waits for. Nothing under `--gitops none`, and nothing without
 * `--gitops-repo`: no stand-in for the repository's URL is one that Flux's CRD accepts (`spec.url` must be an http(s)://
 * or ssh:// URL), so convert says what it did not write and how to get it instead.
 */
export function gitopsFiles(rendered: Rendered, options: GitOpsOptions, at: ComposeWarning['at']): GitOpsOutput {
  if (options.mode !== GitOpsMode.ARGOCD) {
    return { files: [], warnings: [] };
  }
  if (options.repo === undefined) {
    return {
      files: [],
      warnings: [
        ...secretsWarning(rendered, at),
        {
          code: 'gitops-repo-missing',
          message:
            `${GITOPS_FOLDER}/ (an Argo CD Application and Flux Kustomizations) is not written: it needs the Git repository ` +
            'the output is committed to: --gitops-repo URL --gitops-path PATH (--gitops none turns this note off)',
          at,
        },
      ],
    };
  }
  const { namespace } = rendered.project.composeApp;
  const repo = options.repo;
  const folder = options.path ?? PATH_PLACEHOLDER;
  const application = {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: namespace, namespace: ARGOCD_NAMESPACE },
    spec: {
      project: 'default',
      source: { repoURL: repo, targetRevision: options.branch, path: folder },
      destination: { server: 'https://kubernetes.default.svc', namespace },
      syncPolicy: { automated: { prune: true, selfHeal: true } },
    },
  };
  const source = { kind: 'GitRepository', name: namespace };
  const flux: object[] = [
    {
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'GitRepository',
      metadata: { name: namespace, namespace: FLUX_NAMESPACE },
      spec: { interval: '1m', url: fluxUrl(repo), ref: { branch: options.branch } },
    },
  ];
  rendered.waves.forEach((wave, index) => {
    const checks = wave.wave.waits.map((wait) => healthCheck(wave, wait, namespace));
    flux.push({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: `${namespace}-${wave.wave.folder}`, namespace: FLUX_NAMESPACE },
      spec: {
        ...(index > 0 ? { dependsOn: [{ name: `${namespace}-${rendered.waves[index - 1].wave.folder}` }] } : {}),
        interval: '10m',
        path: `./${folder === '.' ? '' : `${folder}/`}${wave.wave.folder}`,
        prune: true,
        sourceRef: source,
        // Only what deploy waits for: a claim whose class binds on first use stays Pending until its CronJob runs,
        // and a wait on everything (`wait: true`) would hold the next wave back until then.
        ...(checks.length > 0
          ? { healthChecks: checks, timeout: wave.wave.kind === WaveKind.VM ? FLUX_VM_TIMEOUT : FLUX_TIMEOUT }
          : {}),
      },
    });
  });
  const files = [
    generated(`${GITOPS_FOLDER}/${ARGOCD_FILE}`, application),
    {
      path: `${GITOPS_FOLDER}/${FLUX_FILE}`,
      content: `${YAML_HEADER}\n${flux.map((doc) => manifestYaml(doc)).join('---\n')}`,
    },
  ];
  const warnings: ComposeWarning[] = [];
  if (options.path === undefined) {
    warnings.push({
      code: 'gitops-placeholder',
      message:
        `${GITOPS_FOLDER}/${ARGOCD_FILE} and ${GITOPS_FOLDER}/${FLUX_FILE} hold ${PATH_PLACEHOLDER} where the output ` +
        "folder's path in the repository goes; Argo CD and Flux find nothing there until --gitops-path PATH is given",
      at,
    });
  }
  warnings.push(...secretsWarning(rendered, at));
  return { files, warnings };
}

/** The Secrets that hold values, named (never quoted) in a warning: the output is on its way to Git. */
export function secretsWarning(rendered: Rendered, at: ComposeWarning['at']): ComposeWarning[] {
  const secrets = rendered.waves
    .flatMap((w) => w.objects)
    .filter(
      (o) =>
        o.kind === 'Secret' &&
        Object.keys(o.manifest.data ?? {}).length + Object.keys(o.manifest.stringData ?? {}).length > 0,
    )
    .map((o) => o.name);
  return secrets.length === 0
    ? []
    : [
        {
          code: 'gitops-secret',
          message:
            `the Secrets ${secrets.join(', ')} hold values from the compose project: committed to Git as they are, ` +
            'anyone who reads the repository reads them; --secrets separate keeps them out of Git (in secrets/, applied ' +
            'first), --secrets external out of the output (ExternalSecrets read them from your store)',
          at,
        },
      ];
}

/** A Flux health check of what `deploy` waits for: the workload of a service, a Job, the VirtualMachine. */
function healthCheck(wave: RenderedWave, wait: WaveWait, namespace: string): object {
  const kinds =
    wait.condition === 'complete'
      ? ['Job']
      : wait.condition === 'vm-ready'
        ? ['VirtualMachine']
        : ['Deployment', 'StatefulSet', 'DaemonSet'];
  const object = wave.objects.find((o) => o.name === wait.name && kinds.includes(o.kind));
  if (!object) {
    throw new Error(`the wave ${wave.wave.folder} waits for ${wait.name}, which it does not hold`);
  }
  return { apiVersion: object.manifest.apiVersion, kind: object.kind, name: object.name, namespace };
}

/** What {@link overlayFiles} writes, and the overlays it left alone. */
export interface OverlayOutput {
  readonly files: readonly OutputFile[];
  /** Overlays that exist already, by their kustomization's path: they are the user's and are not written. */
  readonly kept: readonly string[];
}

/**
 * `overlays/<name>/kustomization.yaml` for each overlay that does not exist yet: the wave folders as its base, and a patch
 * per value an environment usually changes, set to the base's value for the user to edit: the replicas of each
 * workload outside the stateful wave that no autoscaler drives, and the host of each Ingress rule (and its TLS entry).
 * It carries no generated header: it is the user's from then on, and convert never writes it again.
 */
export function overlayFiles(rendered: Rendered, overlays: readonly string[], root: string): OverlayOutput {
  const files: OutputFile[] = [];
  const kept: string[] = [];
  const objects = rendered.waves.flatMap((w) => w.objects);
  const scaled = new Set(
    objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((o) => `${o.manifest.spec?.scaleTargetRef?.kind}/${o.manifest.spec?.scaleTargetRef?.name}`),
  );
  const patches: object[] = [];
  for (const wave of rendered.waves.filter((w) => w.wave.kind !== WaveKind.STATEFUL)) {
    for (const object of wave.objects.filter(
      (o) => ['Deployment', 'StatefulSet'].includes(o.kind) && !scaled.has(`${o.kind}/${o.name}`),
    )) {
      patches.push(patch(object, [{ op: 'add', path: '/spec/replicas', value: object.manifest.spec?.replicas ?? 1 }]));
    }
  }
  for (const object of objects.filter((o) => o.kind === 'Ingress')) {
    const operations: object[] = [];
    (object.manifest.spec?.rules ?? []).forEach((rule: { host?: string }, i: number) => {
      if (rule.host !== undefined) {
        operations.push({ op: 'replace', path: `/spec/rules/${i}/host`, value: rule.host });
      }
    });
    (object.manifest.spec?.tls ?? []).forEach((tls: { hosts?: string[] }, i: number) => {
      (tls.hosts ?? []).forEach((host, j) =>
        operations.push({ op: 'replace', path: `/spec/tls/${i}/hosts/${j}`, value: host }),
      );
    });
    if (operations.length > 0) {
      patches.push(patch(object, operations));
    }
  }
  for (const name of overlays) {
    const file = `${OVERLAYS_FOLDER}/${name}/${KUSTOMIZATION}`;
    if (fs.existsSync(path.join(root, file))) {
      kept.push(file);
      continue;
    }
    const header = [
      `# The overlay "${name}" of ${rendered.project.composeApp.namespace}, started by cdk8s-compose convert --overlay ${name}.`,
      `# It is yours: convert writes it only when it is missing. Set the values, then: kubectl apply -k ${OVERLAYS_FOLDER}/${name}`,
      "# Each patch holds the base's value: the replicas of the app's workloads and the hosts of its Ingresses.",
    ];
    files.push({
      path: file,
      content: `${header.join('\n')}\n${manifestYaml({
        apiVersion: KUSTOMIZE_API,
        kind: 'Kustomization',
        // The waves, not the output folder: kustomize refuses a base that holds the overlay.
        resources: rendered.waves.map((w) => `../../${w.wave.folder}`),
        sortOptions: IN_ORDER,
        ...(patches.length > 0 ? { patches } : {}),
      })}`,
    });
  }
  return { files, kept };
}

/** A JSON 6902 patch of one object, in the text form kustomize's `patches` take. */
function patch(object: RenderedObject, operations: readonly object[]): object {
  return { target: { kind: object.kind, name: object.name }, patch: manifestYaml(operations) };
}

function generated(file: string, content: object): OutputFile {
  return { path: file, content: `${YAML_HEADER}\n${manifestYaml(content)}` };
}
