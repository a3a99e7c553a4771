import { ComposeLocation } from './model';

// The located tree that the YAML readers build: plain values, each keeping where it was written.

/**
 * Compose's merge tags on a value: `!reset` removes the attribute (from what earlier files or `extends` gave, and
 * from this file), `!override` replaces what earlier files gave instead of merging with it.
 */
export type MergeTag = 'reset' | 'override';

/** A scalar of the located tree: the YAML value plus where it was written. */
export interface YScalar {
  readonly kind: 'scalar';
  /** Where the key that holds this node is written (a value's own location is `at`), for messages about the key. */
  readonly keyAt?: ComposeLocation;
  readonly value: string | number | boolean | null;
  readonly at: ComposeLocation;
  readonly mergeTag?: MergeTag;
  /** The source text of a plain (unquoted) scalar, e.g. `0440`, so octal modes read as compose reads them. */
  readonly plain?: string;
  /**
   * The text as written, when interpolation changed it. Messages quote this instead of the value: the value may
   * carry an environment variable's content, which may be secret.
   */
  readonly written?: string;
}

export interface YMap {
  readonly kind: 'map';
  /** Where the key that holds this node is written (a value's own location is `at`), for messages about the key. */
  readonly keyAt?: ComposeLocation;
  readonly mergeTag?: MergeTag;
  /** Entries in the order written; keys are strings (YAML numbers and booleans as keys are stringified). */
  readonly entries: ReadonlyMap<string, YNode>;
  readonly at: ComposeLocation;
}

export interface YSeq {
  readonly kind: 'seq';
  /** Where the key that holds this node is written (a value's own location is `at`), for messages about the key. */
  readonly keyAt?: ComposeLocation;
  readonly mergeTag?: MergeTag;
  readonly items: readonly YNode[];
  readonly at: ComposeLocation;
}

/**
 * The located tree: plain YAML values after anchors, aliases and merge keys are resolved, each node keeping its
 * compose location. Paths are logical (the path where a value is used, even when it was written in an anchor);
 * line and column are where its text is.
 */
export type YNode = YScalar | YMap | YSeq;

/** Joins a key path: `services` + `web` gives `services.web`; an index gives `ports[1]`. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') {
    return `${path}[${key}]`;
  }
  return path ? `${path}.${key}` : key;
}
