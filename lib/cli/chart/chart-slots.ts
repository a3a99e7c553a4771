import { manifestYaml } from '../../base/manifest-yaml';

/**
 * The one step that turns a manifest into a Helm template: values at known paths are replaced by markers, the manifest
 * is printed by the same printer as the plain output (`manifestYaml`), and each marker becomes the template expression
 * that gives back the value from `values.yaml`. Everything else is the object's own text, with any `{{` in it escaped
 * so that Helm prints it as it is.
 */

/** How a slot's value is written back. */
export enum SlotKind {
  /** A string: `{{ EXPR | toString | quote }}` (a number given with --set renders as its text). */
  STRING = 'string',
  /** An integer, unquoted: `{{ EXPR }}`. */
  INTEGER = 'integer',
  /** A map key that is left out when the value is empty: `{{- with EXPR }}` around the line. */
  OPTIONAL_STRING = 'optional-string',
  /** A list or a map, printed with `toYaml` under its key. */
  BLOCK = 'block',
}

/** One value of a manifest taken from `values.yaml`. */
export interface Slot {
  /** Where in the manifest, e.g. `['spec', 'replicas']`. */
  readonly path: readonly (string | number)[];
  /** The template expression of the value, e.g. `index .Values "web" "replicas"`. */
  readonly expr: string;
  readonly kind: SlotKind;
}

/** A template expression that reads `values.yaml` at `path` (keys of any spelling, list indices). */
export function valuesExpr(path: readonly (string | number)[]): string {
  return `index .Values ${path.map((p) => (typeof p === 'number' ? String(p) : JSON.stringify(p))).join(' ')}`;
}

const MARKER = (n: number) => `HELMSLOT${n}X`;

/** The template text of `manifest` with the slots' values read from `values.yaml`. */
export function templateText(manifest: unknown, slots: readonly Slot[]): string {
  const copy = structuredClone(manifest);
  slots.forEach((slot, n) => setAt(copy, slot.path, MARKER(n)));
  let text = manifestYaml(copy).replace(/\{\{/g, '{{ "{{" }}');
  slots.forEach((slot, n) => {
    const marker = MARKER(n);
    const line = new RegExp(`^( *)(- )?([^\\n]*?): ${marker}$`, 'm');
    switch (slot.kind) {
      case SlotKind.STRING:
        text = text.replace(marker, `{{ ${slot.expr} | toString | quote }}`);
        break;
      case SlotKind.INTEGER:
        text = text.replace(marker, `{{ ${slot.expr} }}`);
        break;
      case SlotKind.OPTIONAL_STRING:
        text = text.replace(line, (_m, indent: string, dash: string | undefined, key: string) => {
          if (dash) {
            throw new Error(`an optional value cannot start a list item (${slot.path.join('.')})`);
          }
          return `${indent}{{- with ${slot.expr} }}\n${indent}${key}: {{ . | toString | quote }}\n${indent}{{- end }}`;
        });
        break;
      case SlotKind.BLOCK:
        text = text.replace(
          line,
          (_m, indent: string, dash: string | undefined, key: string) =>
            `${indent}${dash ?? ''}${key}: {{- toYaml (${slot.expr}) | nindent ${indent.length + (dash ? 4 : 2)} }}`,
        );
        break;
    }
  });
  return text;
}

/** The value at `path`, or undefined. */
export function getAt(object: unknown, path: readonly (string | number)[]): unknown {
  return path.reduce<unknown>(
    (value, key) =>
      value === undefined || value === null || typeof value !== 'object'
        ? undefined
        : (value as Record<string | number, unknown>)[key],
    object,
  );
}

function setAt(object: unknown, path: readonly (string | number)[], value: unknown): void {
  const parent = getAt(object, path.slice(0, -1));
  if (parent === undefined || parent === null || typeof parent !== 'object') {
    throw new Error(`no value at ${path.join('.')} to take from values.yaml`);
  }
  (parent as Record<string | number, unknown>)[path[path.length - 1]] = value;
}
