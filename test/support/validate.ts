import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import {
  ManifestProblem,
  Manifest,
  describeDoc,
  expandLists,
  expectNoProblems,
  isObject,
  joinPath,
  quote,
} from './problems';
import {
  Catalog,
  K8S_SCHEMA_ID,
  PROJECT_ROOT,
  QUANTITY_PATTERN,
  buildCatalog,
  k8sSchema,
  kindKey,
  rootSchema,
  schemaFiles,
  schemasDir,
} from './schemas';

/**
 * Checks manifests against the vendored schemas: k8s 1.27, KubeVirt v0.59.0, CDI v1.56.0 and the GitOps CRDs (Argo
 * CD, Flux, External Secrets), with unknown fields
 * rejected as the API server's strict field validation rejects them.
 *
 * Compiling a schema costs up to a second (a pod spec pulls in most of the k8s definitions) and jest gives every
 * test file a fresh module registry, so each kind's validator is compiled once, written as standalone code under
 * `node_modules/.cache/cdk8s-compose-validator/<hash>/` and loaded from there afterwards. The hash covers the schema
 * files, this code and ajv's version, so a change to any of them compiles afresh.
 * `CDK8S_COMPOSE_VALIDATOR_CACHE=off` keeps everything in memory.
 */

export interface ValidateOptions {
  /**
   * `apiVersion/kind` of kinds without a vendored schema that are accepted unchecked,
   * e.g. `k8s.cni.cncf.io/v1/NetworkAttachmentDefinition`.
   * @default - every kind must have a schema
   */
  readonly unvalidatedKinds?: readonly string[];
}

/** Every problem in `docs` (the items of a `v1` `List` checked one by one), in document order. */
export function validateManifests(docs: readonly Manifest[], options: ValidateOptions = {}): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  for (const doc of expandLists(docs)) {
    problems.push(...validateManifest(doc, options));
  }
  return problems;
}

/** Throws one error listing every problem as `Kind/name: path: message`. */
export function expectValidManifests(docs: readonly Manifest[], options: ValidateOptions = {}): void {
  expectNoProblems(validateManifests(docs, options), 'schema validation');
}

function validateManifest(doc: Manifest, options: ValidateOptions): ManifestProblem[] {
  const { kind, name } = describeDoc(doc);
  const problem = (p: string, message: string): ManifestProblem => ({ kind, name, path: p, message });
  if (!isObject(doc)) {
    return [problem('', `a manifest must be an object, got ${quote(doc)}`)];
  }
  if (typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string') {
    return [problem('', `apiVersion and kind must be strings, got ${quote(doc.apiVersion)} and ${quote(doc.kind)}`)];
  }
  const key = kindKey(doc.apiVersion, doc.kind);
  const validate = validatorFor(key);
  if (!validate) {
    if (options.unvalidatedKinds?.includes(key)) {
      return [];
    }
    return [problem('', unknownKindMessage(doc.apiVersion, doc.kind))];
  }
  if (validate(doc)) {
    return [];
  }
  const seen = new Set<string>();
  const problems: ManifestProblem[] = [];
  for (const error of validate.errors ?? []) {
    const p = toProblem(doc, error);
    const id = `${p.path}\0${p.message}`;
    if (!seen.has(id)) {
      seen.add(id);
      problems.push(problem(p.path, p.message));
    }
  }
  return problems;
}

function unknownKindMessage(apiVersion: string, kind: string): string {
  const elsewhere = Object.keys(catalog())
    .filter((k) => k.endsWith(`/${kind}`))
    .map((k) => k.slice(0, -kind.length - 1));
  const known = elsewhere.length ? ` (${kind} is known as apiVersion ${elsewhere.sort().join(', ')})` : '';
  return `unknown apiVersion/kind "${apiVersion}" "${kind}": no schema for it in k8s 1.27, KubeVirt v0.59.0, CDI v1.56.0 or the GitOps CRDs${known}`;
}

function toProblem(doc: Manifest, error: ErrorObject): { path: string; message: string } {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at = '';
  let value: unknown = doc;
  for (const segment of segments) {
    const index = Array.isArray(value) && /^[0-9]+$/.test(segment) ? Number(segment) : undefined;
    at = joinPath(at, index ?? segment);
    value = (value as any)?.[segment];
  }
  const params = error.params as Record<string, any>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: joinPath(at, params.additionalProperty), message: `unknown field "${params.additionalProperty}"` };
    case 'required':
      return { path: joinPath(at, params.missingProperty), message: 'required field is missing' };
    case 'type':
      return {
        path: at,
        message: `must be ${String(params.type).split(',').join(' or ')}, got ${typeName(value)} ${quote(value)}`,
      };
    case 'enum':
      return { path: at, message: `must be one of ${params.allowedValues.map(quote).join(', ')}, got ${quote(value)}` };
    case 'pattern':
      if (params.pattern === QUANTITY_PATTERN) {
        return { path: at, message: `must be a quantity such as 500m, 2, 1.5Gi or 10G, got ${quote(value)}` };
      }
      return { path: at, message: `must match ${params.pattern}, got ${quote(value)}` };
    default:
      return { path: at, message: `${error.message}, got ${quote(value)}` };
  }
}

function typeName(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'array';
  }
  return Number.isInteger(value) ? 'integer' : typeof value;
}

type Validator = ((doc: unknown) => boolean) & { errors?: ErrorObject[] | null };

const validators = new Map<string, Validator | undefined>();

function validatorFor(key: string): Validator | undefined {
  if (!validators.has(key)) {
    validators.set(key, loadValidator(key));
  }
  return validators.get(key);
}

function loadValidator(key: string): Validator | undefined {
  const file = cacheDir() && path.join(cacheDir()!, `${key.replace(/[^A-Za-z0-9.-]/g, '_')}.js`);
  if (file && fs.existsSync(file)) {
    return evaluate(fs.readFileSync(file, 'utf-8'));
  }
  const entry = catalog()[key];
  if (!entry) {
    return undefined;
  }
  const ajv = compiler();
  const standaloneCode: typeof import('ajv/dist/standalone').default = require('ajv/dist/standalone').default;
  const code = standaloneCode(ajv, ajv.compile(rootSchema(entry)));
  if (file) {
    writeAtomically(file, code);
  }
  return evaluate(code);
}

/** Runs standalone validator code as a CommonJS module; its only imports are ajv's runtime helpers. */
function evaluate(code: string): Validator {
  const mod = { exports: {} as any };
  new Function('module', 'exports', 'require', code)(mod, mod.exports, require);
  return mod.exports;
}

let ajvInstance: Ajv | undefined;
/** ajv itself is loaded only to compile: a test file that finds every validator in the cache never pays for it. */
function compiler(): Ajv {
  if (!ajvInstance) {
    const AjvClass: typeof Ajv = require('ajv').default;
    // strict: false because k8s schemas combine keywords in ways ajv's strict mode flags (e.g. pattern with a
    // type list); the schemas are upstream data, checked by their own projects.
    ajvInstance = new AjvClass({ allErrors: true, strict: false, validateSchema: false, code: { source: true } });
    ajvInstance.addSchema(k8sSchema(), K8S_SCHEMA_ID);
  }
  return ajvInstance;
}

let catalogCache: Catalog | undefined;
function catalog(): Catalog {
  if (!catalogCache) {
    const file = cacheDir() && path.join(cacheDir()!, 'catalog.json');
    if (file && fs.existsSync(file)) {
      catalogCache = JSON.parse(fs.readFileSync(file, 'utf-8')) as Catalog;
    } else {
      catalogCache = buildCatalog();
      if (file) {
        writeAtomically(file, JSON.stringify(catalogCache));
      }
    }
  }
  return catalogCache;
}

let cacheDirValue: string | null | undefined;
/** The cache folder for the current schemas and code, or null when caching is off or impossible. */
function cacheDir(): string | null {
  if (cacheDirValue === undefined) {
    cacheDirValue = null;
    if (process.env.CDK8S_COMPOSE_VALIDATOR_CACHE !== 'off') {
      const root = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'cdk8s-compose-validator');
      const dir = path.join(root, cacheKey());
      try {
        fs.mkdirSync(dir, { recursive: true });
        pruneOtherVersions(root, dir);
        cacheDirValue = dir;
      } catch {
        // A read-only tree: compile in memory.
      }
    }
  }
  return cacheDirValue;
}

function cacheKey(): string {
  const hash = createHash('sha256');
  hash.update(require('ajv/package.json').version);
  const sources = [__filename, path.join(__dirname, `schemas${path.extname(__filename)}`)];
  for (const source of sources) {
    hash.update(fs.readFileSync(source));
  }
  const dir = schemasDir();
  for (const file of schemaFiles()) {
    hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

function pruneOtherVersions(root: string, keep: string): void {
  for (const entry of fs.readdirSync(root)) {
    const dir = path.join(root, entry);
    if (dir !== keep) {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Parallel jest workers may compile the same kind: each writes a private file, then renames it into place. */
function writeAtomically(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, content);
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}
