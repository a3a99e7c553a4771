import { parseDocument, stringify } from 'yaml';
import { holdsUnsafeText, safeManifestYaml } from '../base/manifest-yaml';

/**
 * YAML for tools that read YAML 1.1 (cloud-init and docker-compose 1.x use PyYAML): strings such as `yes`, `on`
 * or `0644` are quoted so that they stay strings. Long lines are never folded, so the output is byte-stable. A value
 * holding a string the `yaml` library would print unsafely (U+2028, a tab in a plain scalar, … issue 25) is printed
 * by the manifests' safe printer instead, which escapes it.
 */
export function toYaml11(value: unknown): string {
  return holdsUnsafeText(value)
    ? safeManifestYaml(value)
    : stringify(value, { version: '1.1', lineWidth: 0, minContentWidth: 0 });
}

/** Parses one YAML document the way PyYAML would read it; throws on syntax errors. */
export function parseYaml11(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw doc.errors[0];
  }
  return doc.toJS();
}
