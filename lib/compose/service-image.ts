// The image a service runs: `image:`, the tag `docker compose build` gives a built service, `--image` and
// `--registry`; and `build:`.
import { ComposeError } from './errors';
import { isUnpinnedImage } from './image';
import { BUILD_KEYS } from './keys';
import { ComposeService } from './model';
import { NormalizeContext, optional, SharedContext } from './normalize-context';
import { asMap, asString, asStringList, asText, checkKeys, invalid, isNull, optionalString } from './read';
import { YMap, YNode } from './yaml';

const IMAGE_REFERENCE = new RegExp(
  '^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*' +
    '(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*' +
    '(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$',
);

/**
 * One warning for the services built from source that have no image: they run the image `docker compose build` tags
 * (`<project>-<service>`, under `registry` when given), which must be built and pushed where the cluster can pull it.
 */
export function warnBuildOnly(enabled: ReadonlyMap<string, YMap>, ctx: NormalizeContext): void {
  const built = [...enabled].filter(
    ([name, service]) =>
      ctx.images[name] === undefined && isNull(service.entries.get('image')) && !isNull(service.entries.get('build')),
  );
  if (built.length === 0) {
    return;
  }
  const one = built.length === 1;
  const refs = built.map(([name]) => `${name} → ${builtImageName(ctx.projectName, name, ctx.registry)}`);
  ctx.warn(
    'build-image',
    `${one ? 'service' : 'services'} ${built.map(([name]) => name).join(', ')} ` +
      `${one ? 'is' : 'are'} built from source without an image: ${one ? 'it runs' : 'they run'} the ` +
      `${one ? 'image' : 'images'} docker compose build tags (${refs.join(', ')}); build and push ` +
      `${one ? 'it' : 'them'} where the cluster can pull ${one ? 'it' : 'them'} (RUNBOOK.md and analyze give the ` +
      'commands), under your registry with --registry HOST[/PATH], or name another image with --image SERVICE=REF',
    built[0][1].at,
  );
}

/** The image `docker compose build` tags for a service without `image:`: `<project>-<service>`, in lower case. */
function builtImageName(projectName: string, service: string, registry?: string): string {
  return withRegistry(`${projectName}-${service}`.toLowerCase(), registry);
}

/** A registry host names a domain (a dot), a port (a colon) or is `localhost`, as docker reads a reference. */
function namesRegistryHost(image: string): boolean {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  return first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
}

/** The reference under `registry` (`HOST[/PATH]`), unless it names a registry host of its own. */
function withRegistry(image: string, registry: string | undefined): string {
  return registry === undefined || namesRegistryHost(image) ? image : `${registry}/${image}`;
}

export function serviceImage(name: string, service: YMap, node: YNode | undefined, ctx: SharedContext): string {
  const supplied = ctx.images[name];
  if (supplied !== undefined) {
    return supplied;
  }
  const build = !isNull(service.entries.get('build'));
  if (node === undefined) {
    if (build) {
      return builtImageName(ctx.projectName, name, ctx.registry);
    }
    throw new ComposeError(`service "${name}" has neither image nor build`, {
      at: service.at,
      hint: 'add image: with the container image to run, for example image: nginx:1.25',
    });
  }
  const image = asString(node, { allowed: 'an image reference such as nginx:1.25' });
  if (image === '') {
    throw invalid(node, 'the image is empty', {
      allowed: 'an image reference such as nginx:1.25',
      hint: 'set the variable the image comes from, or write the image name',
    });
  }
  if (!IMAGE_REFERENCE.test(image)) {
    ctx.warn('invalid-image', `image "${image}" is not a valid image reference; a cluster cannot pull it`, node.at);
  } else if (isUnpinnedImage(image)) {
    ctx.warn(
      'unpinned-image',
      `image "${image}" is not pinned (no tag, or :latest), so each pull may run a different ` +
        'version; pin a version tag or a digest',
      node.at,
    );
  }
  return build ? withRegistry(image, ctx.registry) : image;
}

export function normalizeBuild(
  name: string,
  service: YMap,
  node: YNode | undefined,
  ctx: SharedContext,
): ComposeService['build'] {
  if (node === undefined) {
    return undefined;
  }
  const platform = optionalString(service.entries.get('platform'));
  const runsBuiltImage = ctx.images[name] === undefined;
  if (node.kind === 'scalar' && typeof node.value === 'string') {
    return { context: node.value, args: {}, platforms: platform ? [platform] : [], runsBuiltImage };
  }
  const map = asMap(node, { allowed: 'a build context path, or a map with context, dockerfile, target and args' });
  checkKeys(map, BUILD_KEYS, 'build', ctx.warn);
  const args: Record<string, string> = {};
  const argsNode = map.entries.get('args');
  if (!isNull(argsNode)) {
    const argMap = asMap(argsNode as YNode, { allowed: 'a map of build arguments, or a list of NAME=value' });
    for (const key of [...argMap.entries.keys()].sort()) {
      const value = argMap.entries.get(key) as YNode;
      const text = isNull(value) ? ctx.lookup(key) : asText(value, { secret: true });
      if (text !== undefined) {
        args[key] = text;
      }
    }
  }
  const platformsNode = map.entries.get('platforms');
  const platforms = isNull(platformsNode) ? (platform ? [platform] : []) : asStringList(platformsNode!);
  return {
    context: optionalString(map.entries.get('context')) ?? '.',
    ...optional('dockerfile', optionalString(map.entries.get('dockerfile'))),
    ...optional('target', optionalString(map.entries.get('target'))),
    args,
    platforms,
    runsBuiltImage,
  };
}
