import { execFile, spawnSync } from 'child_process';
import { Manifest } from './problems';
import { parseYamlDocs } from './yaml-docs';

/** `kubectl kustomize` (kubectl's own kustomize: no cluster, no other tool) over the kustomizations convert writes. */

/** The objects `kubectl kustomize DIR` renders; throws with kubectl's message when it fails or kubectl is missing. */
export function kustomize(dir: string): Manifest[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error || result.status !== 0) {
    throw new Error(`kubectl kustomize ${dir} failed: ${result.error?.message ?? result.stderr}`);
  }
  return parseYamlDocs(result.stdout, `kubectl kustomize ${dir}`);
}

/** {@link kustomize} without blocking: several renders can run side by side. */
export function kustomizeLater(dir: string): Promise<Manifest[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'kubectl',
      ['kustomize', dir],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`kubectl kustomize ${dir} failed: ${stderr || error.message}`))
          : resolve(parseYamlDocs(stdout, `kubectl kustomize ${dir}`)),
    );
  });
}

/** A document as canonical JSON (keys sorted at every level): kustomize prints YAML its own way, the data is the same. */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      return v.map(sort);
    }
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value));
}

/** The documents as sorted canonical JSON: equal when both hold the same objects, in any order. */
export function sortedCanonical(docs: readonly Manifest[]): string[] {
  return docs.map(canonical).sort();
}
