import * as fs from 'fs';
import * as path from 'path';
import { parseDotenv } from './dotenv';
import { DEFAULT_SENSITIVE_NAME_PATTERNS, embeddedPasswords, isSensitiveName, Redactor, redactError } from '../app/sensitive';
import { ComposeError, ComposeWarning } from './errors';
import { interpolateTree, VariableLookup } from './interpolate';
import { describeFsError, MAX_CONTENT_BYTES, readProjectFile, statPath, textOf } from './files';
import { TOP_LEVEL_KEYS } from './keys';
import { mergeFiles } from './merge';
import { ComposeLocation, ComposeModel } from './model';
import { normalizeProject } from './normalize';
import { ComposeFiles } from './project-files';
import { isNull, optionalString } from './read';
import { DEFAULT_YAML_LIMITS, parseYaml, YMap, YNode, YamlLimits } from './yaml';

/** Limits against hostile input. */
export interface LoadLimits extends YamlLimits {
  /** Largest compose file read, in bytes. */
  readonly maxFileBytes: number;
}

export const DEFAULT_LOAD_LIMITS: LoadLimits = { ...DEFAULT_YAML_LIMITS, maxFileBytes: 2 * 1024 * 1024 };

/** Options of `loadCompose`: which files, the environment for interpolation, profiles and the loader's limits. */
export interface LoadComposeOptions {
  /**
   * The compose files, merged in this order (later files override earlier ones), relative to `workingDir`.
   * @default - `COMPOSE_FILE` from `env` if set, else the first of compose.yaml, compose.yml, docker-compose.yaml,
   * docker-compose.yml found in `workingDir`, followed by its `.override` file (e.g. compose.override.yaml) if present
   */
  readonly files?: readonly string[];
  /**
   * The folder the files are relative to and where they are discovered. The project folder is the folder of the
   * first file: relative paths inside the files resolve there, and `.env` is read from there.
   * @default process.cwd()
   */
  readonly workingDir?: string;
  /**
   * The shell environment, which wins over env files for interpolation.
   * @default process.env
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Env files for interpolation (`docker compose --env-file`), relative to `workingDir`; later files win.
   * They replace the project's `.env`, as in compose.
   * @default - the `.env` file in the project folder, if present
   */
  readonly envFiles?: readonly string[];
  /**
   * Active profiles; `*` activates all. Services with profiles are left out unless one of theirs is active.
   * @default - `COMPOSE_PROFILES` from the environment (comma-separated), else none
   */
  readonly profiles?: readonly string[];
  /**
   * Project name (`docker compose -p`).
   * @default - `COMPOSE_PROJECT_NAME`, else the top-level `name`, else the project folder's name (normalised)
   */
  readonly projectName?: string;
  /**
   * Image per service name (CLI `--image <service>=<ref>`). Required for services with `build` and no `image`;
   * for other services it replaces their `image`.
   * @default {}
   */
  readonly images?: Readonly<Record<string, string>>;
  /**
   * The registry the images built from source are pushed to, `HOST[/PATH]` (CLI `--registry`): it goes before the
   * reference of every service with `build:` whose image names no registry host of its own (`<project>-<service>`,
   * or an `image:` such as `shop/api:1.0`). `images` entries are used as given.
   * @default - none: the references stay as `docker compose build` tags them
   */
  readonly registry?: string;
  /**
   * Read env files, secret and config files and bind-mounted files that lie outside the project folder
   * (`../x`, `/etc/x`, `~/x`). When false they are not read: secrets and configs get `source.kind: 'outside'`,
   * binds `bind.kind: 'outside'`, and env files are an error.
   * @default false
   */
  readonly allowOutsideProject?: boolean;
  /**
   * Limits against hostile input.
   * @default DEFAULT_LOAD_LIMITS
   */
  readonly limits?: Partial<LoadLimits>;
}

/** Options of `loadComposeFromString`: those of `loadCompose` without the files, plus the name the text goes by. */
export interface LoadComposeFromStringOptions extends Omit<LoadComposeOptions, 'files' | 'workingDir'> {
  /**
   * The name the text goes by in messages and in `at.file`.
   * @default 'compose.yaml'
   */
  readonly fileName?: string;
  /**
   * The project folder: relative paths in the text resolve there, and `.env` is read from there.
   * @default process.cwd()
   */
  readonly projectDir?: string;
}

/** What `loadCompose` and `loadComposeFromString` return: the model and the findings that did not stop the load. */
export interface LoadResult {
  /** The normalized compose project. */
  readonly model: ComposeModel;
  /** Findings that did not stop the load, sorted by file, line and path. Never printed by the library. */
  readonly warnings: ComposeWarning[];
}

/** The file names compose looks for, in its order. */
export const DEFAULT_COMPOSE_FILES: readonly string[] = [
  'compose.yaml', 'compose.yml', 'docker-compose.yaml', 'docker-compose.yml',
];

interface Source {
  /** As the user named it. */
  readonly display: string;
  readonly text: string;
}

/** Loads the compose files of a project into the model. Throws `ComposeError` for any bad input. */
export function loadCompose(options: LoadComposeOptions = {}): LoadResult {
  const workingDir = path.resolve(options.workingDir ?? process.cwd());
  const limits = { ...DEFAULT_LOAD_LIMITS, ...options.limits };
  const shell = options.env ?? process.env;
  const warnings = new WarningList();
  const named = options.files ?? composeFileFromEnv(shell);
  const files = named ?? discover(workingDir, options.workingDir, warnings);
  if (files.length === 0) {
    throw new ComposeError('no compose file given', { hint: 'pass at least one file' });
  }
  // Files found by name in the folder (not named by the user) must be inside it, links included.
  const confineTo = named === undefined && !options.allowOutsideProject ? workingDir : undefined;
  const sources = files.map((file) => ({ display: file, text: readComposeFile(workingDir, file, limits, undefined, confineTo) }));
  const projectDir = path.dirname(path.resolve(workingDir, files[0]));
  return loadSources(sources, projectDir, workingDir, options, limits, warnings);
}

/** Loads compose text held in memory (tests, fuzzing, editors). Files it names are read from `projectDir`. */
export function loadComposeFromString(text: string, options: LoadComposeFromStringOptions = {}): LoadResult {
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const limits = { ...DEFAULT_LOAD_LIMITS, ...options.limits };
  const display = options.fileName ?? 'compose.yaml';
  checkSize(Buffer.byteLength(text, 'utf8'), display, limits);
  return loadSources([{ display, text }], projectDir, projectDir, options, limits, new WarningList());
}

function loadSources(
  sources: readonly Source[], projectDir: string, workingDir: string, options: LoadComposeOptions,
  limits: LoadLimits, warnings: WarningList,
): LoadResult {
  const shell = options.env ?? process.env;
  const dotenv = readInterpolationEnv(projectDir, workingDir, options, shell);
  // Every value classified as secret so far: messages and warnings print none of them.
  const secrets = new Redactor();
  dotenv.forEach((value, name) => addIfSecret(secrets, name, value));
  const environment: VariableLookup = (name) => {
    const value = shell[name] ?? dotenv.get(name);
    if (value !== undefined) {
      addIfSecret(secrets, name, value);
    }
    return value;
  };
  try {
    return loadTrees(sources, projectDir, workingDir, options, limits, warnings, environment, secrets);
  } catch (err) {
    throw redactError(err, secrets);
  }
}

function loadTrees(
  sources: readonly Source[], projectDir: string, workingDir: string, options: LoadComposeOptions,
  limits: LoadLimits, warnings: WarningList, environment: VariableLookup, secrets: Redactor,
): LoadResult {

  const unset = new Set<string>();
  const onUnset = (name: string, at: ComposeLocation): void => {
    if (!unset.has(name)) {
      unset.add(name);
      warnings.add('unset-variable', `variable ${name} is not set; an empty string is used`, at);
    }
  };
  const roots = sources.map((source) => parseRoot(source, limits));
  // The project name comes first: COMPOSE_PROJECT_NAME is the final name in every file, as in compose.
  const nameNode = [...roots].reverse().map((root) => root.entries.get('name')).find((node) => !isNull(node));
  const projectName = normalizeProjectName(
    options.projectName ?? environment('COMPOSE_PROJECT_NAME')
      ?? (nameNode ? optionalString(interpolateTree(nameNode, environment, onUnset)) : undefined) ?? path.basename(projectDir),
    nameNode?.at ?? roots[0].at,
  );
  const lookup: VariableLookup = (name) => (name === 'COMPOSE_PROJECT_NAME' ? projectName : environment(name));

  const files = new ComposeFiles({
    projectDir,
    allowOutsideProject: options.allowOutsideProject ?? false,
    read: (written, at) => parseRoot({
      display: written,
      text: readComposeFile(projectDir, written, limits, at, options.allowOutsideProject ? undefined : projectDir),
    }, limits),
    onUnset,
  });
  // The include chain names files relative to the project folder, as include paths are.
  const trees = sources.map((source, index) => files.expand(roots[index], '.', lookup,
    [path.relative(projectDir, path.resolve(workingDir, source.display)).split(path.sep).join('/')]));
  trees.forEach((tree) => collectTreeSecrets(tree, secrets));
  const merged = mergeFiles(trees);
  const profiles = options.profiles
    ?? (lookup('COMPOSE_PROFILES') ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');

  const model = normalizeProject(merged, {
    projectDir,
    projectName,
    files: sources.map((s) => s.display),
    lookup,
    images: options.images ?? {},
    ...(options.registry !== undefined ? { registry: checkRegistry(options.registry) } : {}),
    profiles,
    allowOutsideProject: options.allowOutsideProject ?? false,
    warn: (code, message, at) => warnings.add(code, message, at),
  });
  collectModelSecrets(model, secrets);
  secrets.keepNames([model.name]);
  const redacted = warnings.sorted(sources.map((s) => s.display))
    .map((w) => ({ ...w, message: secrets.redact(w.message) }));
  return { model: { ...model, secretValues: secrets.list() }, warnings: redacted };
}

/** Records a variable's value when its name says it is secret, and any password embedded in it. */
function addIfSecret(secrets: Redactor, name: string, value: string): void {
  if (isSensitiveName(name, DEFAULT_SENSITIVE_NAME_PATTERNS)) {
    secrets.add(value);
  }
  embeddedPasswords(value).forEach((p) => secrets.add(p));
}

/**
 * Sensitive `environment` values of the services, from the tree before it is normalised, so that a message about
 * any other key of the service already knows them.
 */
function collectTreeSecrets(root: YMap, secrets: Redactor): void {
  const services = root.entries.get('services');
  if (services?.kind !== 'map') {
    return;
  }
  for (const [name, service] of services.entries) {
    const image = service.kind === 'map' ? service.entries.get('image') : undefined;
    secrets.keepNames([name, ...(image?.kind === 'scalar' && image.value !== null ? [String(image.value)] : [])]);
    const environment = service.kind === 'map' ? service.entries.get('environment') : undefined;
    if (environment?.kind === 'map') {
      environment.entries.forEach((node, name) => {
        if (node.kind === 'scalar' && node.value !== null) {
          addIfSecret(secrets, name, String(node.value));
        }
      });
    } else if (environment?.kind === 'seq' || environment?.kind === 'scalar') {
      const items = environment.kind === 'seq' ? environment.items : [environment];
      for (const item of items) {
        const text = item.kind === 'scalar' && item.value !== null ? String(item.value) : '';
        const eq = text.indexOf('=');
        if (eq > 0) {
          addIfSecret(secrets, text.slice(0, eq), text.slice(eq + 1));
        }
      }
    }
  }
}

/** The values of the model that are secret: sensitive environment values (env files too) and secret file contents. */
function collectModelSecrets(model: ComposeModel, secrets: Redactor): void {
  for (const service of model.services) {
    service.environment.forEach((variable) => addIfSecret(secrets, variable.name, variable.value));
  }
  for (const secret of model.secrets) {
    if ('content' in secret.source && !secret.source.content.binary) {
      secrets.add(secret.source.content.text);
    }
  }
}


/** A compose file's root map, parsed but not interpolated; a v1 file (services at the top level) is refused. */
function parseRoot(source: Source, limits: LoadLimits): YMap {
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
  const looksLikeService = (node: YNode): boolean => node.kind === 'map'
    && ['image', 'build', 'ports', 'command', 'environment', 'volumes', 'links'].some((key) => node.entries.has(key));
  const services = [...root.entries].filter(([key, node]) => !known.has(key) && !key.startsWith('x-') && looksLikeService(node));
  if (services.length === 0) {
    return;
  }
  const [first] = services[0];
  throw new ComposeError(`this is a compose v1 file: its services (${services.map(([name]) => name).join(', ')}) are at the top level`, {
    at: { ...root.entries.get(first)!.at, path: first },
    allowed: 'the compose specification: the services under a top-level services: key',
    hint: `add a first line "services:" and indent every service under it by two spaces ("services:", "  ${first}:", `
      + '"    image: …"); the service keys stay the same, and the version key is no longer needed',
  });
}

/** Env files for interpolation: the explicit ones, else the project's `.env`. Later files win. */
function readInterpolationEnv(
  projectDir: string, workingDir: string, options: LoadComposeOptions, shell: Readonly<Record<string, string | undefined>>,
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
    const text = textOf('env file', file,
      readProjectFile('env file', file, absolute, { file, path: '' }, { confineTo, maxBytes: MAX_CONTENT_BYTES }), { file, path: '' });
    for (const entry of parseDotenv(text, file, lookup)) {
      if (entry.value !== undefined) {
        values.set(entry.name, entry.value);
      }
    }
  }
  return values;
}

function composeFileFromEnv(env: Readonly<Record<string, string | undefined>>): string[] | undefined {
  const value = env.COMPOSE_FILE;
  if (!value) {
    return undefined;
  }
  const separator = env.COMPOSE_PATH_SEPARATOR || path.delimiter;
  return value.split(separator).filter((f) => f !== '');
}

function discover(workingDir: string, written: string | undefined, warnings: WarningList): string[] {
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
  const override = [`${stem}.override.yaml`, `${stem}.override.yml`].find((name) => isFile(path.join(workingDir, name)));
  return override ? [base, override] : [base];
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function readComposeFile(
  workingDir: string, file: string, limits: LoadLimits, from?: ComposeLocation, confineTo?: string,
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
  return textOf('compose file', file,
    readProjectFile('compose file', file, absolute, from ?? { file, path: '' }, { confineTo, maxBytes: limits.maxFileBytes }), from ?? { file, path: '' });
}

function checkSize(size: number, file: string, limits: LoadLimits): void {
  if (size > limits.maxFileBytes) {
    throw new ComposeError(`the compose file is larger than ${limits.maxFileBytes} bytes`, {
      at: { file, path: '' },
      hint: 'raise the loader\'s limits.maxFileBytes if the file is genuine',
    });
  }
}

/** A registry with its path, as docker reads the start of an image reference: `HOST[:PORT][/PATH]`. */
const REGISTRY = /^[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

/** The registry option without a trailing `/`; throws when it cannot start an image reference. */
export function checkRegistry(registry: string): string {
  const trimmed = registry.replace(/\/+$/, '');
  if (!REGISTRY.test(trimmed)) {
    throw new ComposeError(`registry "${registry}" cannot start an image reference`, {
      allowed: 'HOST[:PORT][/PATH], for example registry.example.com/shop or localhost:5000',
      hint: 'give the registry host and the path of the repositories, without a scheme or a tag',
    });
  }
  return trimmed;
}

/** Compose's project name rule: lower case letters, digits, `-` and `_`, starting with a letter or digit. */
function normalizeProjectName(raw: string, at: ComposeLocation): string {
  const name = raw.toLowerCase().replace(/[^a-z0-9_-]/g, '').replace(/^[^a-z0-9]+/, '');
  if (name === '') {
    throw new ComposeError(`project name "${raw}" has no usable characters`, {
      at,
      allowed: 'lower case letters, digits, "-" and "_", starting with a letter or digit',
      hint: 'set name: in the file, or pass a project name',
    });
  }
  return name;
}

/** Collects warnings, one per code and location. */
class WarningList {
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
    return [...this.items.values()].sort((a, b) => order(a.at.file) - order(b.at.file)
      || (a.at.line ?? 0) - (b.at.line ?? 0)
      || (a.at.column ?? 0) - (b.at.column ?? 0)
      || (a.at.path < b.at.path ? -1 : a.at.path > b.at.path ? 1 : 0)
      || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
  }
}
