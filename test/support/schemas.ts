import * as fs from 'fs';
import * as path from 'path';
import { isObject } from './problems';
import { PROJECT_ROOT, SCHEMAS_DIR } from './shared';

/**
 * The pinned schemas (see schemas/README.md) turned into JSON Schemas that ajv checks the way the API
 * server's strict field validation does. Test-only: the schemas are not part of the shipped package.
 */

export { PROJECT_ROOT };

/** The same folder scripts/import.js reads. */
export function schemasDir(): string {
  return SCHEMAS_DIR;
}

const K8S_DEFINITIONS = 'k8s/v1.27/_definitions.json';
/** KubeVirt and CDI, and the Argo CD, Flux and External Secrets Operator CRDs of `gitops/` and `--secrets external`. */
const CRD_FOLDERS = ['kubevirt/v0.59.0', 'cdi/v1.56.0', 'gitops'];

/** The id under which the k8s definitions are added to ajv; CRD schemas reach ObjectMeta through it. */
export const K8S_SCHEMA_ID = 'k8s-1.27.json';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** Where the schema of one `apiVersion/kind` comes from. */
export type SchemaSource =
  | { readonly source: 'k8s'; readonly definition: string }
  | { readonly source: 'crd'; readonly file: string; readonly version: string };

/** `apiVersion/kind` (e.g. `apps/v1/Deployment`, `v1/Service`) to its schema. */
export type Catalog = Record<string, SchemaSource>;

export function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}/${kind}`;
}

/** Every schema file the validator reads, relative to `schemasDir()`, sorted. */
export function schemaFiles(): string[] {
  const dir = schemasDir();
  const crds = CRD_FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(dir, folder))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `${folder}/${f}`),
  );
  return [K8S_DEFINITIONS, ...crds].sort();
}

let rawDefinitions: Record<string, any> | undefined;
function k8sDefinitions(): Record<string, any> {
  rawDefinitions ??= JSON.parse(fs.readFileSync(path.join(schemasDir(), K8S_DEFINITIONS), 'utf-8')).definitions;
  return rawDefinitions!;
}

const crds = new Map<string, any>();
function crd(file: string): any {
  if (!crds.has(file)) {
    // Loaded here only: a cached run never parses a CRD.
    const { parse }: typeof import('yaml') = require('yaml');
    crds.set(file, parse(fs.readFileSync(path.join(schemasDir(), file), 'utf-8')));
  }
  return crds.get(file);
}

/** Reads every schema file: expensive (the CRD YAML parses take about a second), so callers cache the result. */
export function buildCatalog(): Catalog {
  const catalog: Catalog = {};
  for (const [definition, schema] of Object.entries(k8sDefinitions())) {
    for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
      const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
      catalog[kindKey(apiVersion, gvk.kind)] = { source: 'k8s', definition };
    }
  }
  for (const file of schemaFiles().filter((f) => f.endsWith('.yaml'))) {
    const spec = crd(file).spec;
    for (const version of spec.versions) {
      if (version.served) {
        catalog[kindKey(`${spec.group}/${version.name}`, spec.names.kind)] = {
          source: 'crd',
          file,
          version: version.name,
        };
      }
    }
  }
  return catalog;
}

let converted: Record<string, any> | undefined;
/** The k8s definitions converted for ajv, as one schema to add under `K8S_SCHEMA_ID`. */
export function k8sSchema(): any {
  if (!converted) {
    converted = {};
    for (const [name, schema] of Object.entries(k8sDefinitions())) {
      converted[name] = convert(schema, false);
    }
    // A Quantity is a string or a number; the API server parses the string, so check its grammar here.
    converted['io.k8s.apimachinery.pkg.api.resource.Quantity'] = {
      type: ['string', 'number'],
      pattern: QUANTITY_PATTERN,
    };
    converted['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = { type: ['integer', 'string'] };
  }
  return { $id: K8S_SCHEMA_ID, definitions: converted };
}

/** The schema ajv compiles for one catalog entry. */
export function rootSchema(entry: SchemaSource): any {
  if (entry.source === 'k8s') {
    return { $ref: `${K8S_SCHEMA_ID}#/definitions/${entry.definition}` };
  }
  const version = crd(entry.file).spec.versions.find((v: any) => v.name === entry.version);
  return convert(version.schema.openAPIV3Schema, true);
}

/** The grammar of resource.Quantity (k8s.io/apimachinery/pkg/api/resource). */
/** The grammar of resource.Quantity, as the KubeVirt and CDI CRDs spell it. */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';
const DATE_TIME_PATTERN =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$';

/** Keywords that document or default a value, or that ajv would not understand; none of them restricts a value. */
const DROPPED = new Set(['description', 'default', 'example', 'externalDocs', 'title', 'nullable', 'format']);

/**
 * Converts one OpenAPI schema (k8s definition or CRD openAPIV3Schema) into a JSON Schema with:
 * - unknown fields rejected where the API server's strict field validation rejects them: every object with
 *   `properties` and neither `additionalProperties` nor `x-kubernetes-preserve-unknown-fields`, and in CRDs also
 *   every object without `properties` (the server prunes those to `{}`);
 * - int-or-string, nullable and the formats the server checks expressed as plain keywords (no ajv formats, so the
 *   compiled code is standalone);
 * - in CRDs, `metadata` objects checked as ObjectMeta. At the root this is what the server does. Nested ones (a VM's
 *   `spec.template.metadata`, `dataVolumeTemplates[].metadata`) the server keeps as free-form, but KubeVirt and CDI
 *   decode them as ObjectMeta and silently drop anything else, so a misspelt key there is a bug worth failing on.
 */
function convert(schema: any, isCrd: boolean): any {
  if (!isObject(schema)) {
    return schema;
  }
  const out: Record<string, any> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-kubernetes-')) {
      continue;
    }
    if (key === 'properties') {
      out.properties = {};
      for (const [name, property] of Object.entries(value as Record<string, any>)) {
        out.properties[name] =
          isCrd && name === 'metadata' && isFreeFormObject(property) ? objectMetaRef() : convert(property, isCrd);
      }
    } else if (key === '$ref' && typeof value === 'string') {
      out.$ref = value;
    } else if (['items', 'additionalProperties', 'not'].includes(key)) {
      out[key] = convert(value, isCrd);
    } else if (['anyOf', 'allOf', 'oneOf'].includes(key)) {
      out[key] = (value as any[]).map((s) => convert(s, isCrd));
    } else {
      out[key] = value;
    }
  }
  if (schema['x-kubernetes-int-or-string'] === true || schema.format === 'int-or-string') {
    delete out.anyOf;
    out.type = ['integer', 'string'];
  }
  Object.assign(out, formatKeywords(schema.format, out));
  if (schema.nullable === true && out.type !== undefined) {
    out.type = [...(Array.isArray(out.type) ? out.type : [out.type]), 'null'];
  }
  if (schema['x-kubernetes-embedded-resource'] === true && out.properties) {
    out.properties = {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: objectMetaRef(),
      ...out.properties,
    };
  }
  const open = 'additionalProperties' in schema || schema['x-kubernetes-preserve-unknown-fields'] === true;
  // In a CRD, an object without properties is pruned to {} by the API server (`bridge: {}`, `masquerade: {}`), so
  // any key in it is unknown; k8s definitions use such objects for raw JSON (FieldsV1, RawExtension).
  if (!open && (out.properties || (isCrd && schema.type === 'object'))) {
    out.additionalProperties = false;
  }
  return out;
}

function formatKeywords(format: unknown, out: Record<string, any>): Record<string, any> {
  switch (format) {
    case 'int32':
      return { minimum: out.minimum ?? -2147483648, maximum: out.maximum ?? 2147483647 };
    case 'byte':
      return { pattern: BASE64_PATTERN };
    case 'date-time':
      return { pattern: DATE_TIME_PATTERN };
    default:
      // int64 and double: any JSON number; the others appear in none of the vendored schemas.
      return {};
  }
}

function isFreeFormObject(schema: any): boolean {
  return isObject(schema) && schema.type === 'object' && !schema.properties && !schema.additionalProperties;
}

function objectMetaRef(): any {
  return { $ref: `${K8S_SCHEMA_ID}#/definitions/${OBJECT_META}` };
}
