// A service's environment (`env_file`, then `environment`) and its `label_file`s.
import * as path from 'path';
import { ENV_NAME, parseDotenv } from './dotenv';
import { ComposeError, quoteValue } from './errors';
import { MAX_CONTENT_BYTES, readProjectFile, resolveInProject, statPath, textOf } from './files';
import { ENV_FILE_KEYS } from './keys';
import { EnvVar } from './model';
import { SharedContext, sorted } from './normalize-context';
import { asMap, asSeq, asString, asText, checkKeys, invalid, isNull, optionalBool, optionalString } from './read';
import { YMap, YNode } from './yaml';

export function normalizeEnvironment(service: YMap, ctx: SharedContext): EnvVar[] {
  const vars = new Map<string, EnvVar>();
  const envFileNode = service.entries.get('env_file');
  if (!isNull(envFileNode)) {
    const entries =
      envFileNode!.kind === 'scalar'
        ? [envFileNode!]
        : asSeq(envFileNode!, {
            allowed: 'a path, a list of paths, or a list of {path, required}',
          }).items;
    for (const entry of entries) {
      for (const variable of readEnvFile(entry, ctx)) {
        vars.set(variable.name, variable);
      }
    }
  }
  const envNode = service.entries.get('environment');
  if (!isNull(envNode)) {
    const map = asMap(envNode!, { allowed: 'a map of NAME: value, or a list of NAME=value' });
    for (const [name, node] of map.entries) {
      if (!ENV_NAME.test(name)) {
        // The name only: the value may be secret.
        throw new ComposeError(`invalid environment variable name ${quoteValue(name)}`, {
          at: node.at,
          allowed: 'a letter or "_", then letters, digits, "_", "." and "-" (what Kubernetes accepts)',
          hint: 'rename the variable in the compose file and in the image that reads it',
        });
      }
      if (isNull(node)) {
        const value = ctx.lookup(name);
        if (value === undefined) {
          if (!vars.has(name)) {
            ctx.warn(
              'unset-variable',
              `environment variable ${name} has no value and is not set in the environment; ` + 'it is left out',
              node.at,
            );
          }
          continue;
        }
        vars.set(name, { name, value, origin: 'environment', at: node.at, written: `\${${name}}` });
      } else {
        const written = node.kind === 'scalar' ? node.written : undefined;
        vars.set(name, {
          name,
          value: asText(node, { secret: true }),
          origin: 'environment',
          at: node.at,
          ...(written !== undefined ? { written } : {}),
        });
      }
    }
  }
  return sorted([...vars.values()], (v) => v.name);
}

/** `label_file`: labels from files in the env-file format, later files winning; `labels` wins over them. */
export function labelFiles(node: YNode | undefined, ctx: SharedContext): Record<string, string> {
  const out: Record<string, string> = {};
  const entries =
    node === undefined
      ? []
      : node.kind === 'scalar'
        ? [node]
        : asSeq(node, { allowed: 'a path or a list of paths' }).items;
  for (const entry of entries) {
    for (const label of readEnvFile(entry, ctx, 'label file')) {
      out[label.name] = label.value;
    }
  }
  return out;
}

function readEnvFile(entry: YNode, ctx: SharedContext, what: 'env file' | 'label file' = 'env file'): EnvVar[] {
  let written: string;
  let required = true;
  if (entry.kind === 'map') {
    checkKeys(entry, ENV_FILE_KEYS, 'an env_file entry', ctx.warn);
    const pathNode = entry.entries.get('path');
    if (isNull(pathNode)) {
      throw new ComposeError('an env_file entry needs a path', { at: entry.at, hint: 'add path: ./file.env' });
    }
    written = asString(pathNode!);
    required = optionalBool(entry.entries.get('required'), true);
    const format = optionalString(entry.entries.get('format'));
    if (format !== undefined && format !== '') {
      throw invalid(entry.entries.get('format')!, `unsupported env_file format "${format}"`, {
        allowed: 'the default compose format (leave format out)',
      });
    }
  } else {
    written = asString(entry, { allowed: 'a path, or {path, required}' });
  }
  const where = resolveInProject(ctx.projectDir, written);
  if (where.kind === 'outside' && !ctx.allowOutsideProject) {
    throw new ComposeError(`${what} "${written}" is outside the project folder and was not read`, {
      at: entry.at,
      allowed: 'a path inside the folder of the compose file',
      hint:
        'move the file into the project folder, or allow it with allowOutsideProject: true ' +
        '(CLI: --allow-outside-project)',
    });
  }
  const absolute = where.kind === 'inside' ? where.absolute : path.resolve(ctx.projectDir, written);
  ctx.toolOutput.refuse(absolute, written, what, entry.at);
  const stat = statPath(absolute);
  if (stat.kind === 'missing') {
    if (required) {
      throw new ComposeError(`${what} "${written}" not found`, {
        at: entry.at,
        hint: `create ${written}, or mark it optional: env_file: [{path: ${written}, required: false}]`,
      });
    }
    ctx.warn('missing-env-file', `optional ${what} "${written}" not found; no variables read from it`, entry.at);
    return [];
  }
  if (stat.kind === 'directory') {
    throw new ComposeError(`${what} "${written}" is a directory`, {
      at: entry.at,
      hint: `point ${what === 'env file' ? 'env_file' : 'label_file'} at a file`,
    });
  }
  if (stat.kind === 'loop') {
    throw new ComposeError(`${what} "${written}" is a loop of symbolic links`, {
      at: entry.at,
      hint: 'make the link point at a file',
    });
  }
  if (stat.kind === 'special') {
    throw new ComposeError(`${what} "${written}" is not a regular file (a FIFO, socket or device) and was not read`, {
      at: entry.at,
      hint: `point ${what === 'env file' ? 'env_file' : 'label_file'} at a regular file`,
    });
  }
  if (stat.size > MAX_CONTENT_BYTES) {
    throw new ComposeError(`${what} "${written}" is larger than 1 MiB`, { at: entry.at });
  }
  const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
  const text = textOf(what, written, readProjectFile(what, written, absolute, entry.at, { confineTo }), entry.at);
  return parseDotenv(text, written, ctx.lookup)
    .filter((e) => e.value !== undefined)
    .map((e) => ({ name: e.name, value: e.value as string, origin: 'env_file' as const, at: entry.at }));
}
