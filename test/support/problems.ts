/**
 * The one finding type shared by the schema validator, the Kubernetes rules and the safety rules.
 * Test-only: the schemas these checks read live outside the shipped package.
 */
export interface ManifestProblem {
  /** The document's `kind`, or `<no kind>`. */
  readonly kind: string;
  /** The document's `metadata.name`, or `<unnamed>`; for extra texts (runbook, logs) the text's name. */
  readonly name: string;
  /** Where in the document, e.g. `spec.template.spec.containers[0].image`; empty for the whole document. */
  readonly path: string;
  /** What is wrong, with the value received where it helps. */
  readonly message: string;
}

/** A parsed manifest: any JSON value (rules check the shape themselves). */
export type Manifest = any;

/** `Kind/name: path: message`, the format every `expect…` helper throws. */
export function formatProblem(problem: ManifestProblem): string {
  const at = problem.path ? `${problem.path}: ` : '';
  return `${problem.kind}/${problem.name}: ${at}${problem.message}`;
}

/** Throws one error listing every problem (one per line), or returns when there are none. */
export function expectNoProblems(problems: readonly ManifestProblem[], what: string): void {
  if (problems.length === 0) {
    return;
  }
  const lines = problems.map((p) => `  ${formatProblem(p)}`);
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  throw new Error(`${what}: ${count}\n${lines.join('\n')}`);
}

/** The kind and name a problem about `doc` carries. */
export function describeDoc(doc: Manifest): { kind: string; name: string } {
  const kind = isObject(doc) && typeof doc.kind === 'string' && doc.kind ? doc.kind : '<no kind>';
  const name =
    isObject(doc) && isObject(doc.metadata) && typeof doc.metadata.name === 'string' && doc.metadata.name
      ? doc.metadata.name
      : '<unnamed>';
  return { kind, name };
}

/** A problem about `doc` at `path`. */
export function problemAt(doc: Manifest, path: string, message: string): ManifestProblem {
  return { ...describeDoc(doc), path, message };
}

/** Joins a path and a key the way messages print them: `a.b`, `a[0]`, `a["x.y/z"]` for keys that are not identifiers. */
export function joinPath(path: string, key: string | number): string {
  if (typeof key === 'number') {
    return `${path}[${key}]`;
  }
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) {
    return path ? `${path}.${key}` : key;
  }
  return `${path}[${JSON.stringify(key)}]`;
}

/** A value quoted for a message, shortened so a long (or secret-looking) value cannot flood the output. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The documents with every `v1` `List` replaced by its items (kubectl applies a List item by item; kompose and
 * `kubectl get -o yaml` write them).
 */
export function expandLists(docs: readonly Manifest[]): Manifest[] {
  return docs.flatMap((doc) =>
    isObject(doc) && doc.apiVersion === 'v1' && doc.kind === 'List' && Array.isArray(doc.items)
      ? expandLists(doc.items)
      : [doc],
  );
}
