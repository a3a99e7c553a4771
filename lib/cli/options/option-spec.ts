/**
 * One command-line option as the parser and the help text know it. On its own so that options.ts and the modules
 * that bring their own options (gitops-options.ts) do not import each other.
 */
export interface OptionSpec {
  readonly name: string;
  readonly short?: string;
  /** Other long names (`--output` for `--out`). */
  readonly aliases?: readonly string[];
  readonly kind: 'boolean' | 'string' | 'list';
  readonly value?: string;
  readonly help: string;
}
