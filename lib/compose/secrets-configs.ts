// Secrets and configs: the top-level declarations with their one source, and the references of services to them.
import * as path from 'path';
import { ComposeError } from './errors';
import { checkConfigKey } from './config-keys';
import { contentOf, markedContentOf, MAX_CONTENT_BYTES, ReadOnce, resolveInProject, statPath } from './files';
import { CONFIG_KEYS, FILE_REFERENCE_KEYS, SECRET_KEYS } from './keys';
import { ComposeConfig, ComposeSecret, FileReference, FileSource } from './model';
import { externalOf, NormalizeContext, nonNull, optional, sorted } from './normalize-context';
import { asListOrMap, asMap, asSeq, asString, asText, checkKeys, invalid, isNull, optionalString } from './read';
import { YMap, YNode } from './yaml';

export function normalizeReferences(
  node: YNode | undefined,
  kind: 'secret' | 'config',
  names: ReadonlySet<string>,
): FileReference[] {
  if (node === undefined) {
    return [];
  }
  const out: FileReference[] = [];
  for (const item of asSeq(node, { allowed: `a list of ${kind} names, or {source, target, uid, gid, mode}` }).items) {
    let source: string;
    let target: string | undefined;
    let uid: string | undefined;
    let gid: string | undefined;
    let mode: number | undefined;
    if (item.kind === 'map') {
      checkKeys(item, FILE_REFERENCE_KEYS, `a service ${kind}`, undefined);
      const sourceNode = item.entries.get('source');
      if (isNull(sourceNode)) {
        throw new ComposeError(`a long-syntax ${kind} needs a source`, {
          at: item.at,
          hint: `add source: <${kind} name>`,
        });
      }
      source = asString(sourceNode!);
      target = optionalString(item.entries.get('target'));
      uid = optionalString(item.entries.get('uid'));
      gid = optionalString(item.entries.get('gid'));
      mode = modeOf(nonNull(item.entries.get('mode')));
    } else {
      source = asString(item);
    }
    if (!names.has(source)) {
      const known = [...names].sort();
      throw invalid(item, `the service uses ${kind} "${source}", which is not declared under the top-level ${kind}s`, {
        allowed: known.length > 0 ? `one of ${known.join(', ')}` : `a declared ${kind}`,
        hint: `add "${source}:" under the top-level ${kind}s`,
      });
    }
    const prefix = kind === 'secret' ? '/run/secrets/' : '/';
    const mountPath = target ?? source;
    out.push({
      source,
      target: mountPath.startsWith('/') ? mountPath : prefix + mountPath,
      ...optional('uid', uid),
      ...optional('gid', gid),
      ...optional('mode', mode),
      at: item.at,
    });
  }
  return sorted(out, (r) => r.source);
}

/** A file mode: `0440` written plainly reads as octal (as compose's YAML does), so does a string; `288` is decimal. */
function modeOf(node: YNode | undefined): number | undefined {
  if (node === undefined) {
    return undefined;
  }
  let mode: number | undefined;
  if (node.kind === 'scalar') {
    const text = node.plain ?? (typeof node.value === 'string' ? node.value : undefined);
    if (text !== undefined && /^0o?[0-7]+$/.test(text)) {
      mode = parseInt(text.replace(/^0o?/, '') || '0', 8);
    } else if (typeof node.value === 'string' && /^[0-7]+$/.test(node.value)) {
      mode = parseInt(node.value, 8);
    } else if (typeof node.value === 'number' && Number.isInteger(node.value)) {
      mode = node.value;
    }
  }
  if (mode === undefined || mode < 0 || mode > 0o7777) {
    throw invalid(node, 'invalid file mode', { allowed: 'an octal mode such as 0440 or "0440"' });
  }
  return mode;
}

/** A top-level secret or config: the same shape, configs also taking inline `content`. */
export function normalizeFileObject(
  what: 'secret' | 'config',
  name: string,
  node: YNode,
  ctx: NormalizeContext,
): ComposeSecret | ComposeConfig {
  const map = asMap(node, {
    allowed:
      what === 'secret'
        ? 'a map with file, environment or external'
        : 'a map with file, environment, content or external',
  });
  checkKeys(map, what === 'secret' ? SECRET_KEYS : CONFIG_KEYS, `a ${what}`, ctx.warn);
  checkConfigKey(name, what, name, map.at);
  return {
    name,
    source: fileSource(name, map, what, ctx),
    labels: asListOrMap(map.entries.get('labels')),
    at: map.at,
  };
}

/** The files each load has read for its secrets and configs: one read per file, however many name it. */
const readsOf = new WeakMap<NormalizeContext, ReadOnce>();

function fileSource(name: string, map: YMap, kind: 'secret' | 'config', ctx: NormalizeContext): FileSource {
  const sources = ['file', 'environment', 'content', 'external'].filter((key) => {
    const value = map.entries.get(key);
    return !isNull(value) && !(key === 'external' && value!.kind === 'scalar' && value!.value === false);
  });
  const allowed =
    kind === 'secret' ? 'one of file, environment or external' : 'one of file, environment, content or external';
  if (sources.length !== 1) {
    throw new ComposeError(
      sources.length === 0
        ? `${kind} "${name}" has no source`
        : `${kind} "${name}" has more than one source (${sources.join(', ')})`,
      {
        at: map.at,
        allowed,
        hint: `give the ${kind} exactly one of ${kind === 'secret' ? 'file:, environment: or external: true' : 'file:, environment:, content: or external: true'}`,
      },
    );
  }
  const source = sources[0];
  const node = map.entries.get(source) as YNode;
  // A config that is secret by nature (a key, an htpasswd) is marked, so that the app keeps it in a Secret.
  const wrap = kind === 'config' ? markedContentOf : contentOf;
  const nameNode = map.entries.get('name');
  if (source !== 'external' && !isNull(nameNode)) {
    ctx.warn('unsupported-key', `ignored key "name": the ${kind} is named after its key`, nameNode!.at);
  }
  switch (source) {
    case 'external': {
      const external = externalOf(node, ctx.warn);
      return { kind: 'external', externalName: external.name ?? optionalString(map.entries.get('name')) ?? name };
    }
    case 'content': {
      const text = asText(node, { secret: true, allowed: 'the content as a string' });
      return { kind: 'content', content: wrap(name, Buffer.from(text, 'utf8')) };
    }
    case 'environment': {
      const variable = asString(node, { allowed: 'the name of an environment variable' });
      const value = ctx.lookup(variable);
      if (value === undefined) {
        throw invalid(node, `${kind} "${name}" comes from environment variable ${variable}, which is not set`, {
          hint: `set ${variable} in the environment or in the .env file`,
        });
      }
      return { kind: 'environment', variable, content: wrap(name, Buffer.from(value, 'utf8')) };
    }
    default: {
      const written = asString(node, { allowed: 'a path to a file' });
      const where = resolveInProject(ctx.projectDir, written);
      if (where.kind === 'outside' && !ctx.allowOutsideProject) {
        return { kind: 'outside', path: written };
      }
      const absolute = where.kind === 'inside' ? where.absolute : path.resolve(ctx.projectDir, written);
      if (kind === 'config') {
        ctx.toolOutput.refuse(absolute, written, `${kind} file`, node.at);
      }
      const confineTo = ctx.allowOutsideProject ? undefined : ctx.projectDir;
      let reads = readsOf.get(ctx);
      if (reads === undefined) {
        reads = new ReadOnce();
        readsOf.set(ctx, reads);
      }
      if (reads.has(absolute, { confineTo })) {
        return {
          kind: 'file',
          content: wrap(written, reads.bytes(`${kind} file`, written, absolute, node.at, { confineTo })),
        };
      }
      const stat = statPath(absolute);
      if (stat.kind === 'missing') {
        throw invalid(node, `${kind} file "${written}" not found`, {
          hint: `create ${written} next to the compose file, or fix the path`,
        });
      }
      if (stat.kind !== 'file') {
        const what =
          stat.kind === 'directory'
            ? 'a directory'
            : stat.kind === 'loop'
              ? 'a loop of symbolic links'
              : 'not a regular file (a FIFO, socket or device)';
        throw invalid(node, `${kind} file "${written}" is ${what}`, {
          hint: `point ${kind}s.${name}.file at a regular file`,
        });
      }
      if (stat.size > MAX_CONTENT_BYTES) {
        throw invalid(node, `${kind} file "${written}" is larger than 1 MiB`, {
          hint: 'Kubernetes Secrets and ConfigMaps hold at most 1 MiB',
        });
      }
      return {
        kind: 'file',
        content: wrap(written, reads.bytes(`${kind} file`, written, absolute, node.at, { confineTo })),
      };
    }
  }
}
