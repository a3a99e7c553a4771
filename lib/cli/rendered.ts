import type { Wave } from '../app/deploy-waves';
import type { OutputFile } from './output';
import type { Project } from './project';
import type { SecretsSplit } from './secret-modes';

// The rendered project's shape, on its own so that render.ts (which calls the runbook) and runbook.ts (which reads
// what was rendered) do not import each other.

/** A synthesized object: where its manifest went and what it holds. */
export interface RenderedObject {
  readonly kind: string;
  readonly name: string;
  /** The manifest as cdk8s writes it (`Yaml.stringify`, byte for byte: `manifestYaml`), without the header. */
  readonly yaml: string;
  /** The manifest as an object: the chart's `toJson()` for this object, which is what cdk8s writes. */
  readonly manifest: any;
  /** Its file in a one-file-per-resource output, e.g. `2-app/web-deployment.yaml`. */
  readonly file: string;
}

/** The synthesized objects of one wave. */
export interface RenderedWave {
  readonly wave: Wave;
  readonly objects: readonly RenderedObject[];
}

/** A project synthesized into manifests, split into waves, with the golden image bundles of its VM. */
export interface Rendered {
  readonly project: Project;
  readonly waves: readonly RenderedWave[];
  /** The bundle files, `golden-image/<name>/…` (`GoldenImageBundle.synthesizeAll`). */
  readonly bundleFiles: readonly OutputFile[];
  /** What `--secrets separate|external` took out of the waves; none for inline (the default). */
  readonly secrets?: SecretsSplit;
}
