import type { Wave } from '../app/deploy-waves';
import type { OutputFile } from './output/output';
import type { Project } from './project';
import type { SecretsOptions } from './options/secrets-options';

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

/** One value of a Secret and where it is kept in the store. */
export interface RemoteValue {
  readonly secret: string;
  readonly key: string;
  /** The remote key in the store: `<namespace>-<secret>-<key>`, in the characters every provider takes. */
  readonly remoteKey: string;
  /** True when the value is not UTF-8 text: it is stored base64-encoded and decoded by the operator. */
  readonly binary: boolean;
}

/** What `--secrets` did to the output (lib/cli/gitops/secret-modes.ts), for the writer, deploy and the runbook. */
export interface SecretsSplit {
  readonly options: SecretsOptions;
  /** The Secrets taken out of the waves, in wave order. */
  readonly secrets: readonly RenderedObject[];
  /** external: each value and its remote key. */
  readonly remote: readonly RemoteValue[];
}
