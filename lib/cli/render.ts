import * as fs from 'fs';
import * as path from 'path';
import { ApiObject } from 'cdk8s';
import { ComposeError } from '../compose/errors';
import { GOLDEN_IMAGE_DIR, GoldenImageBundle } from '../vm/golden-image-bundle';
import { ConversionOptions, OutputLayout } from './options/options';
import { OutputFile } from './output/output';
import { MARKDOWN_HEADER, YAML_HEADER } from './output/output-files';
import { kustomizationFiles } from './gitops/gitops';
import { manifestYaml } from '../base/manifest-yaml';
import { CliEnvironment } from './io';
import { BuildSettings, buildProject, withRedaction } from './project';
import { RunbookLayout, renderRunbook } from './runbook/runbook';
import type { Rendered } from './rendered';

export type { Rendered, RenderedObject, RenderedWave } from './rendered';

/** The runbook's file name, beside the manifests. */
export const RUNBOOK_FILE = 'RUNBOOK.md';

/** The folder of the golden image bundles, whose files are vouched for by a ledger (they cannot carry the header). */
export const BUNDLE_FOLDER = GOLDEN_IMAGE_DIR;

/** Wave folders the CLI writes, e.g. `1-stateful`: generated files in them that are no longer produced are removed. */
export const WAVE_FOLDER = /^\d+-(namespace|stateful|app|vm)$/;

/**
 * Builds the project and synthesizes it. `chart.toJson()` is what `app.synth()` does without the files: it resolves
 * the dependencies, validates the whole app and resolves every object, once; each manifest's text is what cdk8s's
 * `Yaml.stringify` (the call `app.synth()` makes for the file of one resource) writes, byte for byte, printed by
 * `manifestYaml`. The objects are the constructs' own: nothing here builds a manifest. The golden image bundles are written by `GoldenImageBundle.synthesizeAll` into `<stage>/synth` and read back.
 */
export function renderProject(
  options: ConversionOptions,
  where: CliEnvironment,
  stage: string,
  settings: Omit<BuildSettings, 'outdir'> = {},
): Rendered {
  const outdir = path.join(stage, 'synth');
  const project = buildProject(options, where, { ...settings, outdir });
  const manifests = new Map<string, any>();
  for (const manifest of withRedaction(project.composeApp.redactor, () => project.chart.toJson())) {
    manifests.set(manifestKey(manifest.kind, manifest.metadata?.namespace, manifest.metadata?.name), manifest);
  }
  const seen = new Map<string, ApiObject>();
  const waves = project.waves.map((wave) => ({
    wave,
    objects: wave.objects.map((object) => {
      const file = `${wave.folder}/${object.name}-${object.kind.toLowerCase()}.yaml`;
      const other = seen.get(file.slice(wave.folder.length + 1));
      if (other) {
        throw new ComposeError(
          `two objects are both ${object.kind} "${object.name}" (${other.node.path} and ${object.node.path}), ` +
            'and the cluster keeps only one of them',
          {
            hint: 'rename the compose service whose name the object took',
          },
        );
      }
      seen.set(file.slice(wave.folder.length + 1), object);
      const manifest = manifests.get(manifestKey(object.kind, object.metadata.namespace, object.name));
      return { kind: object.kind, name: object.name, yaml: manifestYaml(manifest), manifest, file };
    }),
  }));
  // The bundle's compose files carry ${VAR} references for secrets (compose-subset); its prose files pass through
  // the redactor as every message does.
  const bundleFiles = GoldenImageBundle.synthesizeAll(project.app, outdir).map((file) => {
    const content = fs.readFileSync(path.join(outdir, file));
    return {
      path: file,
      content: /\.md$/.test(file) ? project.composeApp.redactor.redact(content.toString('utf-8')) : content,
    };
  });
  return { project, waves, bundleFiles };
}

function manifestKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** The manifests as one YAML stream in wave order, with the header on top. */
export function singleFileContent(rendered: Rendered): string {
  const docs = rendered.waves.flatMap((w) => w.objects.map((o) => o.yaml));
  return `${YAML_HEADER}\n${docs.join('---\n')}`;
}

/** Where the output goes and in what shape. */
export interface OutputTarget {
  /** The folder the files are written to. */
  readonly root: string;
  readonly layout: OutputLayout;
  /** The manifest file name in the one-file layout. */
  readonly fileName?: string;
}

/** The output folder and layout for `-o` (a folder, or a `.yaml` file) and `--single-file`. */
export function outputTarget(
  out: string | undefined,
  layout: OutputLayout,
  cwd: string,
  namespace: string,
): OutputTarget {
  const resolved = path.resolve(cwd, out ?? '.');
  if (layout === OutputLayout.SINGLE_FILE && out !== undefined && /\.ya?ml$/i.test(out)) {
    return { root: path.dirname(resolved), layout, fileName: path.basename(resolved) };
  }
  return { root: resolved, layout, fileName: layout === OutputLayout.SINGLE_FILE ? `${namespace}.yaml` : undefined };
}

/** Every file of the output: the manifests in the chosen layout (with their kustomizations) and RUNBOOK.md. */
export function outputFiles(rendered: Rendered, target: OutputTarget): OutputFile[] {
  const files: OutputFile[] = [];
  let layout: RunbookLayout;
  if (target.layout === OutputLayout.SINGLE_FILE) {
    files.push({ path: target.fileName!, content: singleFileContent(rendered) });
    layout = { file: target.fileName! };
  } else {
    for (const wave of rendered.waves) {
      for (const object of wave.objects) {
        files.push({ path: object.file, content: `${YAML_HEADER}\n${object.yaml}` });
      }
    }
    files.push(...kustomizationFiles(rendered));
    layout = {};
  }
  files.push(...rendered.bundleFiles);
  const runbook = rendered.project.composeApp.redactor.redact(renderRunbook(rendered, layout));
  files.push({ path: RUNBOOK_FILE, content: `${MARKDOWN_HEADER}\n${runbook}` });
  return files;
}
