import { ComposeLocation } from '../compose/model';
import { ComposeWarning } from '../compose/errors';
import { Redactor } from '../compose/sensitive';

/** Reports a finding of the app: its code, message and where in the compose files it comes from. */
export type WarnFn = (code: string, message: string, at: ComposeLocation) => void;

/**
 * The findings of one ComposeApp, in the order found, and the redactor that keeps every secret value out of them:
 * the parts of the app report through `warn` and `warnOnce`.
 */
export class AppWarnings {
  /** The findings, in the order found. */
  public readonly list: ComposeWarning[] = [];
  private readonly warned = new Set<string>();

  constructor(private readonly redactor: Redactor) {}

  /** Adds a finding; its message quotes no value the redactor knows (it learns them from the app's start). */
  public readonly warn: WarnFn = (code, message, at) => {
    this.list.push({ code, message: this.redactor.redact(message), at });
  };

  /** Adds a finding once per key, for findings that several services would repeat. */
  public warnOnce(key: string, code: string, message: string, at: ComposeLocation): void {
    if (!this.warned.has(key)) {
      this.warned.add(key);
      this.warn(code, message, at);
    }
  }

  /** Adds findings made elsewhere (the loader's, already redacted, or a part's, which are redacted here). */
  public addAll(warnings: readonly ComposeWarning[], redact: boolean): void {
    this.list.push(...warnings.map((w) => (redact ? { ...w, message: this.redactor.redact(w.message) } : w)));
  }
}
