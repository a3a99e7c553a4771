import { FileContent } from '../../compose/model';
import { base64 } from '../key-names';

// Files as the data of a ConfigMap or Secret, one rule for bound files and for the files that seed a claim.

/** A file under its key in a ConfigMap or Secret. */
export interface KeyedFile {
  readonly key: string;
  readonly content: FileContent;
}

/** The last part of a file's path, its key in a ConfigMap or Secret before collisions are numbered. */
export function fileName(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return parts[parts.length - 1] ?? 'file';
}

/**
 * A file kept as `binaryData`: binary, or text with a line that ends in blanks, which no YAML block scalar keeps
 * byte for byte and linters reject (the bytes stay the file's).
 */
function asBinary(content: FileContent): boolean {
  return content.binary || /[ \t]\r?$/m.test(content.text);
}

/** A file's bytes in base64 (a binary file's text is its base64 already). */
function base64Of(content: FileContent): string {
  return content.binary ? content.text : base64(content.text);
}

/** The `data` and `binaryData` of a ConfigMap holding the files. */
export function configMapData(files: readonly KeyedFile[]): {
  data: Record<string, string>;
  binaryData: Record<string, string>;
} {
  return {
    data: Object.fromEntries(files.filter((f) => !asBinary(f.content)).map((f) => [f.key, f.content.text])),
    binaryData: Object.fromEntries(files.filter((f) => asBinary(f.content)).map((f) => [f.key, base64Of(f.content)])),
  };
}

/** The `data` of a Secret holding the files. */
export function secretData(files: readonly KeyedFile[]): Record<string, string> {
  return Object.fromEntries(files.map((f) => [f.key, base64Of(f.content)]));
}
