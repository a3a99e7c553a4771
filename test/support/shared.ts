import * as path from 'path';

/** The project's root folder. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

/** The 30 real-world compose files, one folder each (`test/fixtures/corpus/INDEX.md` gives each one's source). */
export const CORPUS_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'corpus');

/** The pinned schemas (`schemas/README.md` gives their sources and SHA-256 sums). */
export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');

/**
 * Material given to the project that a clone does not hold (the peer projects' test suites, the specification):
 * `CDK8S_COMPOSE_SHARED`, or `../shared` beside the project. Only tests read it, and they skip when it is absent.
 */
export const SHARED_DIR = path.resolve(PROJECT_ROOT, process.env.CDK8S_COMPOSE_SHARED ?? '../shared');
