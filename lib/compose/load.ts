import * as path from 'path';
import { Redactor, redactError } from './sensitive';
import { ComposeError } from './errors';
import { interpolateTree, VariableLookup } from './interpolate';
import {
  ComposeSource,
  checkSize,
  composeFileFromEnv,
  discover,
  parseRoot,
  readComposeFile,
  readInterpolationEnv,
} from './load-files';
import {
  DEFAULT_LOAD_LIMITS,
  LoadComposeFromStringOptions,
  LoadComposeOptions,
  LoadLimits,
  LoadResult,
} from './load-options';
import { addIfSecret, collectModelSecrets, collectTreeSecrets } from './load-secrets';
import { mergeFiles } from './merge';
import { ComposeLocation } from './model';
import { normalizeProject } from './normalize';
import { ComposeFiles } from './project-files';
import { ToolOutput } from './tool-output';
import { isNull, optionalString } from './read';
import { WarningList } from './warning-list';
import { compare } from '../util/sort';

export { DEFAULT_COMPOSE_FILES } from './load-files';
export { DEFAULT_LOAD_LIMITS } from './load-options';
export type { LoadComposeFromStringOptions, LoadComposeOptions, LoadLimits, LoadResult } from './load-options';

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
  const sources = files.map((file) => ({
    display: file,
    text: readComposeFile(workingDir, file, limits, undefined, confineTo),
  }));
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
  sources: readonly ComposeSource[],
  projectDir: string,
  workingDir: string,
  options: LoadComposeOptions,
  limits: LoadLimits,
  warnings: WarningList,
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
  sources: readonly ComposeSource[],
  projectDir: string,
  workingDir: string,
  options: LoadComposeOptions,
  limits: LoadLimits,
  warnings: WarningList,
  environment: VariableLookup,
  secrets: Redactor,
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
  const nameNode = [...roots]
    .reverse()
    .map((root) => root.entries.get('name'))
    .find((node) => !isNull(node));
  const projectName = normalizeProjectName(
    options.projectName ??
      environment('COMPOSE_PROJECT_NAME') ??
      (nameNode ? optionalString(interpolateTree(nameNode, environment, onUnset)) : undefined) ??
      path.basename(projectDir),
    nameNode?.at ?? roots[0].at,
  );
  const variables = new Map<string, string>();
  const lookup: VariableLookup = (name) => {
    const value = name === 'COMPOSE_PROJECT_NAME' ? projectName : environment(name);
    if (value !== undefined) {
      variables.set(name, value);
    }
    return value;
  };
  const toolOutput = new ToolOutput(
    projectDir,
    options.outputDir === undefined ? undefined : path.resolve(workingDir, options.outputDir),
  );

  const files = new ComposeFiles({
    projectDir,
    allowOutsideProject: options.allowOutsideProject ?? false,
    toolOutput,
    read: (written, at) =>
      parseRoot(
        {
          display: written,
          text: readComposeFile(projectDir, written, limits, at, options.allowOutsideProject ? undefined : projectDir),
        },
        limits,
      ),
    onUnset,
  });
  // The include chain names files relative to the project folder, as include paths are.
  const trees = sources.map((source, index) =>
    files.expand(roots[index], '.', lookup, [
      path.relative(projectDir, path.resolve(workingDir, source.display)).split(path.sep).join('/'),
    ]),
  );
  trees.forEach((tree) => collectTreeSecrets(tree, secrets));
  const merged = mergeFiles(trees);
  const profiles =
    options.profiles ??
    (lookup('COMPOSE_PROFILES') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');

  const model = normalizeProject(merged, {
    projectDir,
    projectName,
    files: sources.map((s) => s.display),
    lookup,
    images: options.images ?? {},
    ...(options.registry !== undefined ? { registry: checkRegistry(options.registry) } : {}),
    profiles,
    allowOutsideProject: options.allowOutsideProject ?? false,
    toolOutput,
    warn: (code, message, at) => warnings.add(code, message, at),
  });
  collectModelSecrets(model, secrets);
  secrets.keepNames([model.name]);
  const redacted = warnings
    .sorted(sources.map((s) => s.display))
    .map((w) => ({ ...w, message: secrets.redact(w.message) }));
  const used = Object.fromEntries([...variables].sort(([a], [b]) => compare(a, b)));
  return { model: { ...model, secretValues: secrets.list(), variables: used }, warnings: redacted };
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
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '')
    .replace(/^[^a-z0-9]+/, '');
  if (name === '') {
    throw new ComposeError(`project name "${raw}" has no usable characters`, {
      at,
      allowed: 'lower case letters, digits, "-" and "_", starting with a letter or digit',
      hint: 'set name: in the file, or pass a project name',
    });
  }
  return name;
}
