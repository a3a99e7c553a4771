import * as path from 'path';
import {
  DEFAULT_SENSITIVE_NAME_PATTERNS,
  SecretValues,
  embeddedPasswords,
  hasEmbeddedPassword,
  isSensitiveName,
} from '../compose/sensitive';
import { ComposeError } from '../compose/errors';
import { ComposeModel, ComposeService } from '../compose/model';
import { codeBlock, inlineCode, shellQuote } from '../util/shell-words';

/**
 * The commands that build and push the images of the services built from source, for the runbook and `analyze`:
 * per service `docker build` with its context, Dockerfile, arguments, target and platforms, then `docker push`; or
 * one `docker buildx bake` over the compose files. Build arguments that hold a secret are passed by name
 * (`--build-arg NAME`: docker reads the value from the environment), so no value of one is ever printed.
 */

/** The build of one service's image. */
export interface ImageBuild {
  /** The compose service. */
  readonly service: string;
  /** The reference the cluster pulls. */
  readonly image: string;
  /** `docker build …` then `docker push …`, each a shell line. */
  readonly commands: readonly string[];
  /** Build arguments passed from the environment (their values are secret, or span lines), sorted. */
  readonly argsFromEnvironment: readonly string[];
  /** Those of `argsFromEnvironment` whose values span lines, which no command line of the runbook can show, sorted. */
  readonly argsWithLineBreaks: readonly string[];
}

/** The services that run an image built from their `build:` (not one `--image` named instead), sorted by name. */
export function builtServices(model: ComposeModel): ComposeService[] {
  return model.services.filter((s) => s.build?.runsBuiltImage === true);
}

/** The build and push commands of every service that runs an image built from source. */
export function imageBuilds(
  model: ComposeModel,
  patterns: readonly string[] = DEFAULT_SENSITIVE_NAME_PATTERNS,
): ImageBuild[] {
  const secrets = modelSecrets(model, patterns);
  return builtServices(model).map((service) => {
    const build = service.build!;
    const fromEnvironment: string[] = [];
    const withLineBreaks: string[] = [];
    const words = ['docker', 'build', '-t', service.image];
    if (build.dockerfile !== undefined) {
      words.push('-f', dockerfilePath(build.context, build.dockerfile));
    }
    for (const [name, value] of Object.entries(build.args)) {
      const spansLines = /[\r\n]/.test(value);
      if (spansLines || isSensitiveName(name, patterns) || hasEmbeddedPassword(value) || secrets.foundIn(value)) {
        // A value with line breaks would break the line of the command in the runbook and in analyze (issue 25,
        // finding 8): docker reads it from the environment, as it reads a secret one.
        fromEnvironment.push(name);
        if (spansLines) {
          withLineBreaks.push(name);
        }
        words.push('--build-arg', name);
      } else {
        words.push('--build-arg', `${name}=${value}`);
      }
    }
    if (build.target !== undefined) {
      words.push('--target', build.target);
    }
    if (build.platforms.length > 0) {
      words.push('--platform', build.platforms.join(','));
    }
    words.push(build.context);
    const broken = words.find((w) => /[\r\n]/.test(w));
    if (broken !== undefined) {
      throw new ComposeError('a build setting holds a line break, which the docker build command line cannot carry', {
        at: { ...service.at, path: `${service.at.path}.build` },
        value: broken,
        hint: 'remove the line break from the build target, context, Dockerfile or platforms',
      });
    }
    return {
      service: service.name,
      image: service.image,
      commands: [words.map(shellQuote).join(' '), ['docker', 'push', service.image].map(shellQuote).join(' ')],
      argsFromEnvironment: fromEnvironment.sort(),
      argsWithLineBreaks: withLineBreaks.sort(),
    };
  });
}

/**
 * One `docker buildx bake` that builds and pushes every image of the compose files (buildx reads the builds itself),
 * each tagged with the reference the cluster pulls.
 */
export function bakeCommand(model: ComposeModel): string {
  const services = builtServices(model);
  return [
    'docker',
    'buildx',
    'bake',
    ...model.files.flatMap((f) => ['-f', f]),
    ...services.flatMap((s) => ['--set', `${s.name}.tags=${s.image}`]),
    '--push',
    ...services.map((s) => s.name),
  ]
    .map(shellQuote)
    .join(' ');
}

/**
 * The runbook's text for the images, as Markdown lines: what to run from the project folder, per service, and the
 * one-command alternative. Empty when no service is built from source.
 */
export function imageBuildMarkdown(model: ComposeModel, patterns?: readonly string[]): string[] {
  const builds = imageBuilds(model, patterns);
  if (builds.length === 0) {
    return [];
  }
  const out = [
    `${builds.map((b) => b.service).join(', ')} ${builds.length === 1 ? 'runs an image' : 'run images'} built from source. ` +
      'Build and push each where the cluster can pull it, from the folder of the compose file, before the deploy:',
    '',
  ];
  for (const build of builds) {
    out.push(
      `- ${build.service} → ${inlineCode(build.image)}` +
        `${build.argsFromEnvironment.length > 0 ? ` (set ${build.argsFromEnvironment.join(', ')} in the environment first: ${build.argsWithLineBreaks.length > 0 ? 'secret build arguments and those with line breaks' : 'secret build arguments'} are read from it)` : ''}:`,
      '',
    );
    out.push(...codeBlock('sh', build.commands, '  '), '');
  }
  out.push(
    'Or build and push them all with buildx, which reads the compose files (and the secret arguments from the environment):',
    '',
  );
  out.push(...codeBlock('sh', [bakeCommand(model)]), '');
  // A name without a "/" is Docker Hub's official library/, which nobody else may push to.
  const bare = builds.filter((b) => !b.image.includes('/')).map((b) => inlineCode(b.image));
  if (bare.length > 0) {
    out.push(
      `${bare.join(', ')} ${bare.length === 1 ? 'names no registry: its push goes' : 'name no registry: their push goes'} ` +
        "to Docker Hub's official `library/`, which refuses it. Convert again with `--registry HOST[/PATH]` to push " +
        'under your registry, or load the images into the nodes instead of pushing them (`kind load docker-image ' +
        'NAME`, `minikube image load NAME`).',
      '',
    );
  }
  return out;
}

/** `-f` for docker build: compose's `dockerfile` is relative to the context, docker's to the current folder. */
function dockerfilePath(context: string, dockerfile: string): string {
  if (path.posix.isAbsolute(dockerfile) || /^[a-z]+:\/\//i.test(context) || context.startsWith('git@')) {
    return dockerfile;
  }
  return path.posix.join(context, dockerfile);
}

/** The app's secret strings as the converter classifies them (environment values), to keep them out of the commands. */
function modelSecrets(model: ComposeModel, patterns: readonly string[]): SecretValues {
  const values = new SecretValues();
  for (const service of model.services) {
    for (const variable of service.environment) {
      if (isSensitiveName(variable.name, patterns) || hasEmbeddedPassword(variable.value)) {
        values.add(variable.value);
        embeddedPasswords(variable.value).forEach((p) => values.add(p));
      }
    }
  }
  for (const secret of model.secrets) {
    if ('content' in secret.source && !secret.source.content.binary) {
      values.add(secret.source.content.text);
    }
  }
  return values;
}
