import { createHash } from 'crypto';
import * as path from 'path';
import { ComposeError, quoteValue } from '../../compose/errors';
import { readConfined } from '../../compose/files';
import { LEDGER_FILE } from '../../compose/tool-output';
import { OutputFile, YAML_HEADER, hasLinkOnTheWay, isGenerated, lstatOrUndefined } from './output-files';

export { LEDGER_FILE };

/** The ledger of a folder whose files cannot carry the header. */
export class Ledger {
  /** The ledger's own path. */
  public readonly file: string;
  /** True when an earlier run left a ledger. */
  public readonly existed: boolean;
  private readonly folder: string;
  private readonly previous = new Map<string, string>();

  constructor(
    private readonly root: string,
    folder: string,
    rootName: string,
  ) {
    this.folder = folder.replace(/\/+$/, '');
    this.file = `${this.folder}/${LEDGER_FILE}`;
    const absolute = path.join(root, this.file);
    const stat = lstatOrUndefined(absolute);
    this.existed = stat?.isFile() === true && isGenerated(absolute);
    if (this.existed) {
      const read = readConfined(absolute, { confineTo: root, maxBytes: MAX_LEDGER_BYTES });
      if (read.kind !== 'file') {
        throw new ComposeError(
          `the ledger ${this.file} in the output folder ${rootName} is not a regular file of at most 1 MiB`,
          {
            hint: `delete ${this.file}; the next conversion writes it again`,
          },
        );
      }
      read.bytes
        .toString('utf-8')
        .split('\n')
        .slice(1)
        .forEach((line, index) => {
          const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
          if (match) {
            this.checkListed(match[2], index + 2, rootName);
            this.previous.set(match[2], match[1]);
          }
        });
    }
  }

  /**
   * A ledger is a file anyone can write: each path it lists must be a plain path inside its folder (no `..`, `.`,
   * empty or absolute parts), or nothing is deleted, read or overwritten on its word.
   */
  private checkListed(listed: string, line: number, rootName: string): void {
    const parts = listed.split('/');
    const plain =
      listed.startsWith(`${this.folder}/`) &&
      !listed.includes('\\') &&
      !listed.includes('\0') &&
      parts.every((part) => part !== '' && part !== '.' && part !== '..');
    if (!plain) {
      throw new ComposeError(
        `the ledger ${this.file} in the output folder ${rootName} lists ${quoteValue(listed)} on line ${line}, ` +
          `which is not a file inside ${this.folder}/: nothing was written or removed`,
        {
          allowed: `paths inside ${this.folder}/ without "..", "." or empty parts, as cdk8s-compose writes them`,
          hint: `the ledger was changed by hand or by someone else: check ${this.folder}/, then delete ${this.file} (the next conversion writes it again)`,
        },
      );
    }
  }

  /** True for the files the ledger vouches for (not the ledger itself, which carries the header). */
  public covers(relative: string): boolean {
    return relative.startsWith(`${this.folder}/`) && relative !== this.file;
  }

  /** True when the ledger lists the file with its current content. */
  public isUnchanged(relative: string): boolean {
    const hash = this.previous.get(relative);
    if (hash === undefined || hasLinkOnTheWay(this.root, relative)) {
      // A file reached through a link is never the tool's: the link may lead anywhere.
      return false;
    }
    // Bounded: a file larger than any the tool writes is not the one it wrote, and is not read to find out.
    const read = readConfined(path.join(this.root, relative), { confineTo: this.root, maxBytes: MAX_HASHED_BYTES });
    return read.kind === 'file' && hash === sha256(read.bytes);
  }

  /** The files the previous run listed. */
  public listed(): string[] {
    return [...this.previous.keys()];
  }

  /** The files with the new ledger, when any of them is in the folder. */
  public withLedger(files: readonly OutputFile[]): OutputFile[] {
    const covered = files.filter((f) => this.covers(f.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
    if (covered.length === 0) {
      return [...files];
    }
    const lines = covered.map(
      (f) => `${sha256(typeof f.content === 'string' ? Buffer.from(f.content, 'utf-8') : f.content)}  ${f.path}`,
    );
    return [...files, { path: this.file, content: `${YAML_HEADER}\n${lines.join('\n')}\n` }];
  }
}

/** Largest ledger read. */
const MAX_LEDGER_BYTES = 1024 * 1024;
/** Largest file hashed to tell whether the tool wrote it (bundle files are scripts, templates and config files). */
const MAX_HASHED_BYTES = 64 * 1024 * 1024;

function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}
