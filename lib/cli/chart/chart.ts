import { WaveKind } from '../../app/deploy-waves';
import { ChartValues } from './chart-values';
import { templateText, valuesExpr } from './chart-slots';
import { manifestYaml } from '../../base/manifest-yaml';
import { JSON_HEADER, OutputFile, TEMPLATE_HEADER, YAML_HEADER } from '../output/output-files';
import type { Rendered, RenderedObject } from '../rendered';
import { SECRETS_FOLDER } from '../gitops/secret-modes';
import { SecretsMode } from '../options/secrets-options';

/**
 * `convert --chart`: the output as a Helm chart, in place of the wave folders and their kustomizations. The templates
 * are the rendered objects themselves (one per file under `templates/`, named `<wave>-<name>-<kind>.yaml`), with the values a user
 * changes per environment read from `values.yaml` (lib/cli/chart/chart-values.ts) at known paths: at its default values,
 * `helm template` renders the very objects of the plain output.
 *
 * Order: Helm installs by kind (the Namespace first, the workloads after their Secrets, ConfigMaps and claims), and the
 * converted pods already wait for what they depend on in their init containers, as they do under `kubectl apply`:
 * the deploy waves need no hooks (a hook is not part of the release: `helm uninstall` would leave it behind).
 */

/** The chart's files, relative to the output folder. */
export const CHART_FILE = 'Chart.yaml';
export const VALUES_FILE = 'values.yaml';
export const VALUES_SCHEMA_FILE = 'values.schema.json';
export const TEMPLATES_FOLDER = 'templates';
export const NOTES_FILE = `${TEMPLATES_FOLDER}/NOTES.txt`;
export const HELMIGNORE_FILE = '.helmignore';

/** The chart's version: the chart is generated anew from the compose file, and versioned by the user's release. */
const CHART_VERSION = '0.1.0';

/** Every file of the chart: Chart.yaml, values.yaml, values.schema.json, the templates, NOTES.txt and .helmignore. */
export function chartFiles(rendered: Rendered): OutputFile[] {
  const app = rendered.project.composeApp;
  const namespace = app.namespace;
  const objects = rendered.waves.flatMap((w) => w.objects);
  const mode = rendered.secrets?.options.mode ?? SecretsMode.INLINE;
  const secretNames = new Set(
    [...objects, ...(rendered.secrets?.secrets ?? [])].filter((o) => o.kind === 'Secret').map((o) => o.name),
  );
  const values = new ChartValues(objects, namespace, secretNames, mode === SecretsMode.INLINE);
  const files: OutputFile[] = [];
  for (const wave of rendered.waves) {
    for (const object of wave.objects) {
      files.push({
        path: `${TEMPLATES_FOLDER}/${object.file.replace('/', '-')}`,
        content: `${YAML_HEADER}\n${guarded(object, templateText(object.manifest, values.slotsOf(object)))}`,
      });
    }
  }
  const comment = [
    `${YAML_HEADER}`,
    `# The values of the chart of ${namespace}: per workload (by its Kubernetes name) the image, replicas, resources,`,
    '# the non-secret environment, the Ingress and the claims; app-wide the namespace, the network policies and the quota.',
    '# secrets.<name>.existingSecret: a Secret you created, read in place of the one the chart names <name>.',
    ...(mode === SecretsMode.INLINE
      ? ['# secrets.<name>.data: the values of the Secrets the chart makes (base64); keep this file out of Git.']
      : mode === SecretsMode.SEPARATE
        ? [
            `# No secret value is here: the Secrets are in ${SECRETS_FOLDER}/ (kubectl apply -f ${SECRETS_FOLDER}/, after the namespace).`,
          ]
        : ['# No secret value is here: the ExternalSecrets make the Secrets from your secret store.']),
  ];
  files.push(
    { path: CHART_FILE, content: `${YAML_HEADER}\n${manifestYaml(chartYaml(rendered))}` },
    { path: VALUES_FILE, content: `${comment.join('\n')}\n${manifestYaml(values.sortedValues())}` },
    {
      path: VALUES_SCHEMA_FILE,
      content: `${JSON_HEADER}\n${JSON.stringify(values.schema(), undefined, 2).slice(2)}\n`,
    },
    { path: NOTES_FILE, content: notes(rendered, values) },
    {
      path: HELMIGNORE_FILE,
      content: `${YAML_HEADER}\n# Not part of the chart: the Secrets of --secrets separate, the VM image bundle, the runbook.\n${SECRETS_FOLDER}/\ngolden-image/\nRUNBOOK.md\n`,
    },
  );
  return files;
}

function chartYaml(rendered: Rendered): object {
  const app = rendered.project.composeApp;
  return {
    apiVersion: 'v2',
    name: app.namespace,
    description: `The compose project ${rendered.project.model.name}, converted by cdk8s-compose`,
    type: 'application',
    version: CHART_VERSION,
  };
}

/** The switches of values.yaml around whole objects: the network policies, the quota, the namespace, made Secrets. */
function guarded(object: RenderedObject, text: string): string {
  const condition =
    object.kind === 'NetworkPolicy'
      ? '.Values.networkPolicies.enabled'
      : object.kind === 'ResourceQuota'
        ? '.Values.quota.enabled'
        : object.kind === 'Namespace'
          ? '.Values.createNamespace'
          : object.kind === 'Secret' || object.kind === 'ExternalSecret'
            ? `not (index .Values "secrets" ${JSON.stringify(object.name)} "existingSecret")`
            : undefined;
  return condition ? `{{- if ${condition} }}\n${text}{{- end }}\n` : text;
}

/** NOTES.txt: what was installed, and what is left to do. */
function notes(rendered: Rendered, values: ChartValues): string {
  const objects = rendered.waves.flatMap((w) => w.objects);
  const ingresses = objects.filter((o) => o.kind === 'Ingress');
  const mode = rendered.secrets?.options.mode;
  const lines = [
    `{{ .Chart.Name }} is installed into the namespace {{ .Values.namespace }}.`,
    '',
    'Watch the pods start (each waits in its init containers for what it depends on):',
    '  kubectl get pods -n {{ .Values.namespace }} -w',
  ];
  if (mode === SecretsMode.SEPARATE) {
    lines.push(
      '',
      `The Secrets are not in the chart: create them from the chart folder's ${SECRETS_FOLDER}/ (which Git ignores),`,
      'or name Secrets you created with --set secrets.<name>.existingSecret=<yours>:',
      `  kubectl apply -f <chart folder>/${SECRETS_FOLDER}/`,
    );
  }
  if (mode === SecretsMode.EXTERNAL) {
    lines.push(
      '',
      'The Secrets come from your secret store through the External Secrets Operator:',
      '  kubectl get externalsecrets -n {{ .Values.namespace }}',
    );
  }
  if (ingresses.length > 0) {
    lines.push('', 'The app answers at:');
    for (const ingress of ingresses) {
      (ingress.manifest.spec?.rules ?? []).forEach((rule: { host?: string }, i: number) => {
        if (rule.host !== undefined) {
          const key = values.ingressKey(ingress);
          const scheme = (ingress.manifest.spec?.tls ?? []).length > 0 ? 'https' : 'http';
          lines.push(`  ${scheme}://{{ ${valuesExpr([...key, 'hosts', i])} }}/`);
        }
      });
    }
  }
  if (rendered.waves.some((w) => w.wave.kind === WaveKind.VM)) {
    lines.push('', 'The VM boots from its golden image, which you publish first (see golden-image/ beside the chart).');
  }
  return `${TEMPLATE_HEADER}\n${lines.join('\n')}\n`;
}
