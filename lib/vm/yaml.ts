import { parseDocument, stringify } from 'yaml';

/**
 * YAML for tools that read YAML 1.1 (cloud-init and docker-compose 1.x use PyYAML): strings such as `yes`, `on`
 * or `0644` are quoted so that they stay strings. Long lines are never folded, so the output is byte-stable.
 */
export function toYaml11(value: unknown): string {
  return stringify(value, { version: '1.1', lineWidth: 0, minContentWidth: 0 });
}

/** Parses one YAML document the way PyYAML would read it; throws on syntax errors. */
export function parseYaml11(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw doc.errors[0];
  }
  return doc.toJS();
}
