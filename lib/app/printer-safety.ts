import { ComposeLocation, ComposeModel } from '../compose/model';

/**
 * The context key by which a program that prints the manifests with the safe printer (`lib/base/manifest-yaml.ts`,
 * as the CLI does) says so; without it, `cdk8s synth` prints them with cdk8s's `Yaml.stringify`.
 */
export const SAFE_PRINTER_CONTEXT = 'cdk8s-compose:safe-yaml-printer';

/**
 * Line breaks that YAML 1.1 readers (PyYAML, go-yaml under kubectl and kustomize) honour and cdk8s's `Yaml.stringify`
 * writes raw: after one, the rest of a value is read as new keys of the manifest (issue 25, finding 1).
 */
const YAML_11_BREAKS = /[\u0085\u2028\u2029]/;

/**
 * The compose values that hold a YAML 1.1 line break, each as a message with its compose path: what `cdk8s synth`
 * cannot print safely. At most `limit` of them.
 */
export function unprintableValues(model: ComposeModel, limit = 5): string[] {
  const found: string[] = [];
  const walk = (value: unknown, at: ComposeLocation, field: string, depth: number): void => {
    if (found.length >= limit || depth > 64) {
      return;
    }
    if (typeof value === 'string') {
      const match = YAML_11_BREAKS.exec(value);
      if (match) {
        const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
        found.push(
          `${at.file}${at.line ? `:${at.line}:${at.column ?? 1}` : ''}: ${at.path || 'the compose file'}: ` +
            `${field ? `its ${field}` : 'the value'} holds U+${code}, which cdk8s's YAML printer writes as it is and ` +
            'YAML 1.1 readers (kubectl, PyYAML) take for a line break: the rest of the value would be read as keys of ' +
            'the manifest. Fix: remove the character, or convert with the cdk8s-compose CLI, whose printer escapes it',
        );
      }
      return;
    }
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) {
      return;
    }
    const own = (value as { at?: unknown }).at;
    const [here, base] = isLocation(own) ? [own, ''] : [at, field];
    for (const [key, item] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
      if (key !== 'at' && key !== 'secretValues') {
        const next = typeof key === 'number' ? `${base}[${key}]` : base ? `${base}.${key}` : key;
        walk(item, here, next, depth + 1);
      }
    }
  };
  walk(model, model.at, '', 0);
  return found;
}

function isLocation(value: unknown): value is ComposeLocation {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ComposeLocation).file === 'string' &&
    typeof (value as ComposeLocation).path === 'string'
  );
}
