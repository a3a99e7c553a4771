import { load } from '../compose/helpers';
import { bakeCommand, imageBuildMarkdown, imageBuilds } from '../../lib/cli/image-builds';

/** The build and push commands of the images built from source: what the runbook and analyze print. */

const TEXT = [
  'name: shop',
  'services:',
  '  api:',
  '    build:',
  '      context: ./api',
  '      dockerfile: docker/Dockerfile.prod',
  '      target: runtime',
  '      platforms: [linux/amd64, linux/arm64]',
  '      args:',
  '        VERSION: "1.2"',
  '        NPM_TOKEN: npm-s3cr3t-token',
  '        MOTD: "hello world"',
  '        DB: db-pass-9876',
  '    environment:',
  '      DB_PASSWORD: db-pass-9876',
  '  web:',
  '    build: https://github.com/example/web.git#main',
  '    image: shop/web:2.0',
  '  cache:',
  '    image: redis:7.2',
  '  worker:',
  '    build: ./worker',
  '',
].join('\n');

test('per service: docker build with context, Dockerfile, arguments, target and platforms, then docker push', () => {
  const { model } = load(TEXT, { registry: 'registry.example.com/team' });
  expect(imageBuilds(model)).toEqual([
    {
      service: 'api',
      image: 'registry.example.com/team/shop-api',
      commands: [
        'docker build -t registry.example.com/team/shop-api -f api/docker/Dockerfile.prod --build-arg DB --build-arg ' +
          "'MOTD=hello world' --build-arg NPM_TOKEN --build-arg VERSION=1.2 --target runtime --platform linux/amd64,linux/arm64 ./api",
        'docker push registry.example.com/team/shop-api',
      ],
      argsFromEnvironment: ['DB', 'NPM_TOKEN'],
      argsWithLineBreaks: [],
    },
    {
      service: 'web',
      image: 'registry.example.com/team/shop/web:2.0',
      commands: [
        "docker build -t registry.example.com/team/shop/web:2.0 'https://github.com/example/web.git#main'",
        'docker push registry.example.com/team/shop/web:2.0',
      ],
      argsFromEnvironment: [],
      argsWithLineBreaks: [],
    },
    {
      service: 'worker',
      image: 'registry.example.com/team/shop-worker',
      commands: [
        'docker build -t registry.example.com/team/shop-worker ./worker',
        'docker push registry.example.com/team/shop-worker',
      ],
      argsFromEnvironment: [],
      argsWithLineBreaks: [],
    },
  ]);
  expect(bakeCommand(model)).toBe(
    'docker buildx bake -f compose.yaml --set api.tags=registry.example.com/team/shop-api ' +
      '--set web.tags=registry.example.com/team/shop/web:2.0 --set worker.tags=registry.example.com/team/shop-worker --push api web worker',
  );
});

test('secret build arguments are passed by name: no value of one is printed', () => {
  const { model } = load(TEXT);
  const text = imageBuildMarkdown(model).join('\n');
  expect(text).toContain('- api → `shop-api` (set DB, NPM_TOKEN in the environment first');
  for (const secret of ['npm-s3cr3t-token', 'db-pass-9876']) {
    expect(text).not.toContain(secret);
  }
});

test('a service whose image --image names is not built; nothing to build gives no text', () => {
  const { model } = load(TEXT, {
    images: { api: 'ghcr.io/me/api:1', web: 'ghcr.io/me/web:1', worker: 'ghcr.io/me/worker:1' },
  });
  expect(imageBuilds(model)).toEqual([]);
  expect(imageBuildMarkdown(model)).toEqual([]);
});

test('names without a registry: the runbook says their push is refused, and what to do instead', () => {
  const bare = imageBuildMarkdown(load(TEXT).model).join('\n');
  expect(bare).toContain(
    "`shop-api`, `shop-worker` name no registry: their push goes to Docker Hub's official `library/`, which " +
      'refuses it. Convert again with `--registry HOST[/PATH]`',
  );
  expect(bare).not.toContain('`shop/web:2.0` name');
  const registry = imageBuildMarkdown(load(TEXT, { registry: 'registry.example.com/team' }).model).join('\n');
  expect(registry).not.toContain('names no registry');
  expect(registry).not.toContain('name no registry');
});
