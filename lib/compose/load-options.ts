import { ComposeWarning } from './errors';
import { ComposeModel } from './model';
import { DEFAULT_YAML_LIMITS, YamlLimits } from './yaml';

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
  /**
   * The folder the conversion writes to (the CLI's `-o`), relative to `workingDir`. Bound folders are read without
   * it, and an include, env file, config or bound file in it is refused, so that the output of one run (its Secrets
   * included) never comes back in the next. The tool's staging folders, ledgers and the files that carry its header
   * are skipped wherever they are, with or without this.
   * @default - only the marks are known
   */
  readonly outputDir?: string;
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
