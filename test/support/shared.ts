import * as path from 'path';

/** The project's root folder. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/**
 * The shared folder CI provides (specification, vendored schemas, compose corpus): `CDK8S_COMPOSE_SHARED`, or
 * `../shared` beside the project. Tests read it in place; its data is never copied into the project.
 */
export const SHARED_DIR = path.resolve(PROJECT_ROOT, process.env.CDK8S_COMPOSE_SHARED ?? '../shared');

/** The 30 real-world compose files, one folder each. */
export const CORPUS_DIR = path.join(SHARED_DIR, 'corpus');

/** The vendored schemas; `CDK8S_COMPOSE_SCHEMAS` overrides, as in scripts/import.js. */
export const SCHEMAS_DIR = process.env.CDK8S_COMPOSE_SCHEMAS
  ? path.resolve(PROJECT_ROOT, process.env.CDK8S_COMPOSE_SCHEMAS)
  : path.join(SHARED_DIR, 'schemas');
