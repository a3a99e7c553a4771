import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { Manifest } from './problems';

/** One YAML file of an output folder. */
export interface YamlFile {
  /** The path relative to the folder read, with `/` separators. */
  readonly file: string;
  /** The file's documents, empty ones left out. */
  readonly docs: Manifest[];
}

/**
 * Every `.yaml`/`.yml` file under `dir` (recursively, sorted by path), parsed.
 * Parses as YAML 1.1, the way kubectl's go-yaml reads a manifest, so an unquoted `yes` or `on` arrives as the boolean
 * the cluster would see. Throws, naming the file, on a syntax error or a duplicate key.
 */
export function readYamlFiles(dir: string): YamlFile[] {
  return listYamlFiles(dir, '').map((file) => ({
    file,
    docs: parseYamlDocs(fs.readFileSync(path.join(dir, file), 'utf-8'), file),
  }));
}

/** The documents of every YAML file under `dir`, in file order. */
export function readYamlDocs(dir: string): Manifest[] {
  return readYamlFiles(dir).flatMap((f) => f.docs);
}

/** The documents of one YAML text; `name` is used in error messages. */
export function parseYamlDocs(text: string, name: string): Manifest[] {
  const docs: Manifest[] = [];
  for (const doc of parseAllDocuments(text, { version: '1.1' })) {
    const error = doc.errors[0];
    if (error) {
      throw new Error(`${name}: ${error.message}`);
    }
    const value = doc.toJS();
    if (value !== null && value !== undefined) {
      docs.push(value);
    }
  }
  return docs;
}

/** The documents a chart synthesizes (`Testing.synth`), ready for the validator and the rules. */
export function synthDocs(chart: Chart): Manifest[] {
  return Testing.synth(chart);
}

/** The document of `kind` named `name`; throws when there is none, so a test cannot pass on a typo. */
export function findDoc(docs: readonly Manifest[], kind: string, name: string): Manifest {
  const found = docs.find((d) => d?.kind === kind && d?.metadata?.name === name);
  if (!found) {
    const present = docs.map((d) => `${d?.kind}/${d?.metadata?.name}`).join(', ');
    throw new Error(`no ${kind}/${name} among the documents: ${present || 'none'}`);
  }
  return found;
}

/** Every document of `kind`, in order. */
export function findDocs(docs: readonly Manifest[], kind: string): Manifest[] {
  return docs.filter((d) => d?.kind === kind);
}

function listYamlFiles(root: string, relative: string): string[] {
  const entries = fs
    .readdirSync(path.join(root, relative), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: string[] = [];
  for (const entry of entries) {
    const file = relative ? `${relative}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      files.push(...listYamlFiles(root, file));
    } else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) {
      files.push(file);
    }
  }
  return files;
}
