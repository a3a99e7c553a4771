import { ComposeLocation } from './model';
import { ComposeWarning } from './errors';

/** Collects warnings, one per code and location. */
export class WarningList {
  private readonly items = new Map<string, ComposeWarning>();

  add(code: string, message: string, at: ComposeLocation): void {
    const key = `${code}\0${at.file}\0${at.path}\0${message}`;
    if (!this.items.has(key)) {
      this.items.set(key, { code, message, at });
    }
  }

  sorted(files: readonly string[]): ComposeWarning[] {
    const order = (file: string): number => {
      const index = files.indexOf(file);
      return index < 0 ? files.length : index;
    };
    return [...this.items.values()].sort(
      (a, b) =>
        order(a.at.file) - order(b.at.file) ||
        (a.at.line ?? 0) - (b.at.line ?? 0) ||
        (a.at.column ?? 0) - (b.at.column ?? 0) ||
        (a.at.path < b.at.path ? -1 : a.at.path > b.at.path ? 1 : 0) ||
        (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
    );
  }
}
