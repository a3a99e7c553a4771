import * as fs from 'fs';
import * as path from 'path';
import { parseDotenv } from './dotenv';
import { ComposeError } from './errors';
import { describeFsError, MAX_CONTENT_BYTES, readProjectFile, statPath, textOf } from './files';
import { VariableLookup } from './interpolate';
import { TOP_LEVEL_KEYS } from './keys';
import { LoadComposeOptions, LoadLimits } from './load-options';
import { ComposeLocation } from './model';
import { WarningList } from './warning-list';
import { parseYaml, YMap, YNode } from './yaml';

// The compose files of a project: found in the working folder or named by COMPOSE_FILE, read within the limits,
// parsed to their root map; and the env files that feed interpolation.

/** The file names compose looks for, in its order. */
export const DEFAULT_COMPOSE_FILES: readonly string[] = [
  'compose.yaml',
  'compose.yml',
  'docker-compose.yaml',
  'docker-compose.yml',
];

/** A compose file as read: the name the user gave it, and its text. */
export interface ComposeSource {
  /** As the user named it. */
  readonly display: string;
  readonly text: string;
}

/** A compose file's root map, parsed but not interpolated; a v1 file (services at the top level) is refused. */
export function parseRoot(source: ComposeSource, limits: LoadLimits): YMap {
  const root = parseYaml(source.text, source.display, limits);
  if (root === undefined || (root.kind === 'scalar' && root.value === null)) {
    throw new ComposeError('the compose file is empty', {
      at: { file: source.display, path: '' },
      hint: 'add a services: map with at least one service',
    });
  }
  if (root.kind !== 'map') {
    throw new ComposeError('a compose file must be a map of top-level keys such as services', {
      at: root.at,
      hint: 'start the file with services:',
    });
  }
  checkVersion1(root);
  return root;
}

/** Services written at the top level, with no `services:`: the compose v1 format, which compose no longer reads. */
function checkVersion1(root: YMap): void {
  if (root.entries.has('services')) {
    return;
  }
  const known = new Set(Object.keys(TOP_LEVEL_KEYS));
  const looksLikeService = (node: YNode): boolean =>
    node.kind === 'map' &&
    ['image', 'build', 'ports', 'command', 'environment', 'volumes', 'links'].some((key) => node.entries.has(key));
  const services = [...root.entries].filter(
    ([key, node]) => !known.has(key) && !key.startsWith('x-') && looksLikeService(node),
  );
  if (services.length === 0) {
    return;
  }
  const [first] = services[0];
  throw new ComposeError(
    `this is a compose v1 file: its services (${services.map(([name]) => name).join(', ')}) are at the top level`,
    {
      at: { ...root.entries.get(first)!.at, path: first },
      allowed: 'the compose specification: the services under a top-level services: key',
      hint:
        `add a first line "services:" and indent every service under it by two spaces ("services:", "  ${first}:", ` +
        '"    image: …"); the service keys stay the same, and the version key is no longer needed',
    },
  );
}

/** Env files for interpolation: the explicit ones, else the project's `.env`. Later files win. */
export function readInterpolationEnv(
  projectDir: string,
  workingDir: string,
  options: LoadComposeOptions,
  shell: Readonly<Record<string, string | undefined>>,
): Map<string, string> {
  const values = new Map<string, string>();
  const lookup: VariableLookup = (name) => shell[name] ?? values.get(name);
  const explicit = options.envFiles !== undefined;
  const files = options.envFiles ?? ['.env'];
  for (const file of files) {
    const absolute = path.resolve(explicit ? workingDir : projectDir, file);
    if (statPath(absolute).kind === 'missing') {
      if (!explicit) {
        continue;
      }
      throw new ComposeError(`env file "${file}" not found`, {
        at: { file, path: '' },
        hint: 'check the path given to the env file option (--env-file)',
      });
    }
    // The project's own .env must be inside the project, as env_file must; a file named with --env-file is the user's
    // choice. Both are bounded like env_file.
    const confineTo = explicit || options.allowOutsideProject ? undefined : projectDir;
    const text = textOf(
      'env file',
      file,
      readProjectFile('env file', file, absolute, { file, path: '' }, { confineTo, maxBytes: MAX_CONTENT_BYTES }),
      { file, path: '' },
    );
    for (const entry of parseDotenv(text, file, lookup)) {
      if (entry.value !== undefined) {
        values.set(entry.name, entry.value);
      }
    }
  }
  return values;
}

/** The files named by `COMPOSE_FILE` (split on `COMPOSE_PATH_SEPARATOR`), or undefined when it is unset. */
export function composeFileFromEnv(env: Readonly<Record<string, string | undefined>>): string[] | undefined {
  const value = env.COMPOSE_FILE;
  if (!value) {
    return undefined;
  }
  const separator = env.COMPOSE_PATH_SEPARATOR || path.delimiter;
  return value.split(separator).filter((f) => f !== '');
}

/** The compose file found in the working folder by its default names, and its `.override` file if there is one. */
export function discover(workingDir: string, written: string | undefined, warnings: WarningList): string[] {
  const found = DEFAULT_COMPOSE_FILES.filter((name) => isFile(path.join(workingDir, name)));
  if (found.length === 0) {
    throw new ComposeError(`no compose file found in ${written ?? 'the current folder'}`, {
      allowed: DEFAULT_COMPOSE_FILES.join(', '),
      hint: 'create compose.yaml there, or name the files to load',
    });
  }
  const base = found[0];
  if (found.length > 1) {
    warnings.add('multiple-compose-files', `found ${found.join(', ')}; using ${base}`, { file: base, path: '' });
  }
  const stem = base.replace(/\.ya?ml$/, '');
  const override = [`${stem}.override.yaml`, `${stem}.override.yml`].find((name) =>
    isFile(path.join(workingDir, name)),
  );
  return override ? [base, override] : [base];
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The text of a compose file, with an error naming the file when it is missing, unreadable or too large. */
export function readComposeFile(
  workingDir: string,
  file: string,
  limits: LoadLimits,
  from?: ComposeLocation,
  confineTo?: string,
): string {
  const absolute = path.resolve(workingDir, file);
  let size: number;
  try {
    const stat = fs.statSync(absolute);
    if (!stat.isFile()) {
      throw new ComposeError(`compose file "${file}" is not a file`, { at: from ?? { file, path: '' } });
    }
    size = stat.size;
  } catch (err) {
    if (err instanceof ComposeError) {
      throw err;
    }
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new ComposeError(`compose file "${file}" is a loop of symbolic links`, {
        at: from ?? { file, path: '' },
        hint: 'make the link point at a file',
      });
    }
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ComposeError(`cannot read compose file "${file}": ${describeFsError(err)}`, {
        at: from ?? { file, path: '' },
        hint: 'make the file readable by the user running the conversion, or fix the path',
      });
    }
    throw new ComposeError(`compose file "${file}" not found`, {
      at: from ?? { file, path: '' },
      hint: 'check the path; relative paths are taken from the working folder',
    });
  }
  checkSize(size, file, limits);
  return textOf(
    'compose file',
    file,
    readProjectFile('compose file', file, absolute, from ?? { file, path: '' }, {
      confineTo,
      maxBytes: limits.maxFileBytes,
    }),
    from ?? { file, path: '' },
  );
}

/** Refuses a compose file larger than the loader's limit. */
export function checkSize(size: number, file: string, limits: LoadLimits): void {
  if (size > limits.maxFileBytes) {
    throw new ComposeError(`the compose file is larger than ${limits.maxFileBytes} bytes`, {
      at: { file, path: '' },
      hint: "raise the loader's limits.maxFileBytes if the file is genuine",
    });
  }
}
