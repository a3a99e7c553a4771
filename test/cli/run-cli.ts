import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Manifest } from '../support/problems';
import { YamlFile, readYamlFiles } from '../support/yaml-docs';
import { CORPUS_DIR } from '../support/shared';

/** The CLI tests' helpers: the runner and the file helpers are shared with the other suites (test/support). */
export { AS_REFERENCE, BIN, CLEAN_ENV, GENERATED_HEADER, expectBuilt, inParallel, runCli } from '../support/cli';
export type { CliRun } from '../support/cli';
export { listFiles, yamllintProblems, yamllintProblemsLater } from '../support/files';

/** The project folder. */
export const ROOT = path.resolve(__dirname, '../..');
/** The shared corpus of real compose files (read only: tests copy a folder before converting it). */
export const CORPUS = CORPUS_DIR;

/** A fresh temporary folder; {@link removeTempDirs} deletes them all. */
export function tempDir(prefix = 'cli'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cdk8s-compose-test-${prefix}-`));
  created.push(dir);
  return dir;
}

const created: string[] = [];

export function removeTempDirs(): void {
  created.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true }));
}

/** Copies a folder of the corpus (or any folder) into `into/<name>` and returns the copy. */
export function copyFolder(from: string, into: string, name = path.basename(from)): string {
  const target = path.join(into, name);
  fs.cpSync(from, target, { recursive: true });
  return target;
}

/** The manifests of an output folder: the YAML files of its wave folders (golden-image/ holds a bundle's own files). */
export function manifestFiles(dir: string): YamlFile[] {
  return readYamlFiles(dir).filter((f) => /^\d+-/.test(f.file));
}

/** The documents of {@link manifestFiles}. */
export function manifestDocs(dir: string): Manifest[] {
  return manifestFiles(dir).flatMap((f) => f.docs);
}
