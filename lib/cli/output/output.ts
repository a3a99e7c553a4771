import * as fs from 'fs';
import * as path from 'path';
import { ComposeError } from '../../compose/errors';
import { commit } from './output-commit';
import { Ledger } from './output-ledger';
import {
  OutputFile,
  YAML_HEADER,
  hasLinkOnTheWay,
  isGenerated,
  lstatOrUndefined,
  lstatOrUndefinedQuiet,
  writeError,
} from './output-files';

export type { OutputFile } from './output-files';

/** What {@link writeOutput} does. */
export interface WriteRequest {
  /** The output folder. Created when missing. */
  readonly root: string;
  /**
   * The output folder as messages name it.
   * @default - root
   */
  readonly rootName?: string;
  readonly files: readonly OutputFile[];
  /**
   * Folders (relative to root) the tool fills: files in them that carry the header and are no longer produced are
   * removed, so that `kubectl apply -f <folder>` applies no leftovers. The pattern is matched against the folder name.
   */
  readonly ownedFolders?: RegExp;
  /**
   * A folder (relative to root) whose files cannot carry the header (a Packer template, scripts, a systemd unit):
   * a ledger in it lists each file written with its hash. Such a file is the tool's while it still has that hash;
   * one the user changed is treated as theirs.
   * @default - none
   */
  readonly ledgerFolder?: string;
  /** Overwrite files that do not carry the header. */
  readonly force: boolean;
  /**
   * Called before each file is written beside its target (`write`) and before each is moved into place (`move`; the
   * files of a new folder, one after the other, before the folder is), where a folder swapped for a link would slip
   * in. For tests of that race only.
   * @default - nothing
   */
  readonly beforeStep?: (step: 'write' | 'move', relative: string) => void;
}

/** What {@link writeOutput} did. */
export interface WriteResult {
  readonly written: readonly string[];
  readonly removed: readonly string[];
  /** Files in owned folders that the tool did not generate, left in place. */
  readonly foreign: readonly string[];
}

/**
 * Writes files into the output folder without losing data:
 * - every check runs before the first write, so on any error nothing is written;
 * - a file that does not carry the tool's header is not overwritten unless `force` is set;
 * - no symbolic link inside the output folder is followed (a link in place of a file is replaced, with `force`);
 * - each file is written beside its target, then renamed into place; a new folder is filled under a staging name
 *   beside its place, then renamed into place whole.
 */
export function writeOutput(request: WriteRequest): WriteResult {
  const root = path.resolve(request.root);
  const rootName = request.rootName ?? request.root;
  const rootStat = lstatOrUndefined(root);
  if (rootStat && !fs.statSync(root).isDirectory()) {
    throw new ComposeError(`the output ${rootName} is a file, not a folder`, {
      hint: 'give a folder with -o, or a file name ending in .yaml for one file',
    });
  }
  const ledger = request.ledgerFolder === undefined ? undefined : new Ledger(root, request.ledgerFolder, rootName);
  const files = ledger ? ledger.withLedger(request.files) : request.files;
  const produced = new Set(files.map((f) => f.path));
  /** True when the file at `relative` (a regular file) was written by the tool and not changed since. */
  const isOurs = (relative: string) =>
    ledger?.covers(relative) ? ledger.isUnchanged(relative) : isGenerated(path.join(root, relative));

  const conflicts: string[] = [];
  /** The files found in place by the checks: each is moved aside without asking again whether it is there. */
  const existing = new Set<string>();
  // Each folder is looked at once (a wave folder holds thousands of files): whether it exists, or is missing.
  const folderExists = new Map<string, boolean>();
  for (const file of files) {
    const parts = file.path.split('/');
    let missing = false;
    for (let i = 1; i < parts.length && !missing; i++) {
      const folder = parts.slice(0, i).join('/');
      const known = folderExists.get(folder);
      if (known !== undefined) {
        missing = !known;
        continue;
      }
      const stat = lstatOrUndefined(path.join(root, folder));
      if (stat?.isSymbolicLink()) {
        throw new ComposeError(`refusing to write into ${folder}, a symbolic link in the output folder ${rootName}`, {
          hint: `remove the link, or choose another output folder; cdk8s-compose never writes through a link`,
        });
      }
      if (stat && !stat.isDirectory()) {
        throw new ComposeError(`${folder} in the output folder ${rootName} is a file where the output needs a folder`, {
          hint: 'move the file away, or choose another output folder',
        });
      }
      folderExists.set(folder, stat !== undefined);
      missing = stat === undefined;
    }
    const stat = missing ? undefined : lstatOrUndefined(path.join(root, file.path));
    if (!stat) {
      continue;
    }
    existing.add(file.path);
    if (stat.isDirectory()) {
      throw new ComposeError(
        `${file.path} in the output folder ${rootName} is a folder where the output needs a file`,
        {
          hint: 'move the folder away, or choose another output folder',
        },
      );
    }
    if (stat.isSymbolicLink() || !stat.isFile() || !isOurs(file.path)) {
      conflicts.push(stat.isSymbolicLink() ? `${file.path} (a symbolic link)` : file.path);
    }
  }
  if (conflicts.length > 0 && !request.force) {
    throw new ComposeError(
      `refusing to overwrite ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} that ` +
        `cdk8s-compose did not generate (without the "${YAML_HEADER}" header, or changed since): ${conflicts.join(', ')}`,
      {
        hint:
          conflicts.length === 1
            ? 'move it away or choose another output folder, or pass --force to overwrite it'
            : 'move them away or choose another output folder, or pass --force to overwrite them',
      },
    );
  }

  const stale: string[] = [];
  const foreign: string[] = [];
  if (request.ownedFolders && rootStat) {
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory() || !request.ownedFolders.test(entry.name)) {
        continue;
      }
      for (const child of fs.readdirSync(path.join(root, entry.name), { withFileTypes: true })) {
        const relative = `${entry.name}/${child.name}`;
        if (!produced.has(relative)) {
          (child.isFile() && isOurs(relative) ? stale : foreign).push(relative);
        }
      }
    }
  }
  for (const relative of ledger?.listed() ?? []) {
    if (produced.has(relative)) {
      continue;
    }
    // lstat of each folder on the way, never through a link: a listed file behind a link is foreign.
    const linked = hasLinkOnTheWay(root, relative);
    const stat = linked ? undefined : lstatOrUndefinedQuiet(path.join(root, relative));
    if (linked || stat) {
      (stat?.isFile() && ledger!.isUnchanged(relative) ? stale : foreign).push(relative);
    }
  }
  if (ledger?.existed && !produced.has(ledger.file)) {
    stale.push(ledger.file);
  }

  if (!rootStat) {
    try {
      fs.mkdirSync(root, { recursive: true });
    } catch (err) {
      throw writeError(err, `cannot create the output folder ${rootName}`, 'choose an output folder you can write to');
    }
  }
  commit(root, rootName, files, stale, existing, request.beforeStep);
  return { written: [...produced].sort(), removed: stale.sort(), foreign: foreign.sort() };
}
