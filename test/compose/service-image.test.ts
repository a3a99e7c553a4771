import { errorOf, load, web } from './helpers';

describe('image and build', () => {
  test('a build-only service runs the image docker compose build tags, reported once; images and registry change it', () => {
    const text =
      'name: shop\nservices:\n  api:\n    build:\n      context: ./api\n      dockerfile: Dockerfile.prod\n' +
      '      target: builder\n      args: [VERSION=1, FROM_ENV]\n      cache_from: [x]\n      platforms: [linux/amd64, linux/arm64]\n' +
      '  Web:\n    build: ./web\n    platform: linux/amd64\n';
    const { model, warnings } = load(text, { env: { FROM_ENV: 'e' } });
    expect(model.services.map((s) => [s.name, s.image])).toEqual([
      ['Web', 'shop-web'],
      ['api', 'shop-api'],
    ]);
    expect(model.services[1].build).toEqual({
      context: './api',
      dockerfile: 'Dockerfile.prod',
      target: 'builder',
      args: { FROM_ENV: 'e', VERSION: '1' },
      platforms: ['linux/amd64', 'linux/arm64'],
      runsBuiltImage: true,
    });
    expect(model.services[0].build).toEqual({
      context: './web',
      args: {},
      platforms: ['linux/amd64'],
      runsBuiltImage: true,
    });
    expect(warnings.map((w) => [w.code, w.at.path, w.message])).toEqual([
      [
        'unsupported-key',
        'services.api.build.cache_from',
        'ignored key "cache_from": the build context is never read; only the image is used',
      ],
      [
        'build-image',
        'services.Web',
        'services Web, api are built from source without an image: they run the images ' +
          'docker compose build tags (Web → shop-web, api → shop-api); build and push them where the cluster can pull them ' +
          '(RUNBOOK.md and analyze give the commands), under your registry with --registry HOST[/PATH], or name another ' +
          'image with --image SERVICE=REF',
      ],
    ]);

    const registry = load(text, { registry: 'registry.example.com/team/', images: { Web: 'nginx:1.25' } });
    expect(registry.model.services.map((s) => [s.name, s.image, s.build?.runsBuiltImage])).toEqual([
      ['Web', 'nginx:1.25', false],
      ['api', 'registry.example.com/team/shop-api', true],
    ]);
    expect(registry.warnings.filter((w) => w.code === 'build-image').map((w) => w.message)).toEqual([
      'service api is built from source without an image: it runs the image docker compose build tags ' +
        '(api → registry.example.com/team/shop-api); build and push it where the cluster can pull it (RUNBOOK.md and ' +
        'analyze give the commands), under your registry with --registry HOST[/PATH], or name another image with --image SERVICE=REF',
    ]);
  });

  test('the registry goes before an image: of a built service unless it names a registry host', () => {
    const text =
      'services:\n  a:\n    build: .\n    image: shop/a:1.0\n  b:\n    build: .\n    image: ghcr.io/me/b:1.0\n' +
      '  c:\n    image: redis:7\n  d:\n    build: .\n    image: localhost/d:1\n';
    const { model, warnings } = load(text, { registry: 'localhost:5000' });
    expect(model.services.map((s) => s.image)).toEqual([
      'localhost:5000/shop/a:1.0',
      'ghcr.io/me/b:1.0',
      'redis:7',
      'localhost/d:1',
    ]);
    expect(warnings.filter((w) => w.code === 'build-image')).toEqual([]);
    expect(errorOf(() => load(text, { registry: 'https://registry.example.com' })).message).toBe(
      'registry "https://registry.example.com" cannot start an image reference. Allowed: HOST[:PORT][/PATH], for example ' +
        'registry.example.com/shop or localhost:5000. Fix: give the registry host and the path of the repositories, without a scheme or a tag.',
    );
  });

  test('a service with neither image nor build is refused', () => {
    expect(errorOf(() => load('services:\n  a:\n    command: [x]\n')).message).toBe(
      'compose.yaml:3:5: services.a: service "a" has neither image nor build. Fix: add image: with the container image to run, for example image: nginx:1.25.',
    );
  });

  test('an image that is not a valid reference gives a warning', () => {
    const { warnings } = load(web('', 'apache/airflow:|version|'));
    expect(warnings.map((w) => w.message)).toEqual([
      'image "apache/airflow:|version|" is not a valid image reference; a cluster cannot pull it',
    ]);
  });

  test('a service with neither image nor build is an error', () => {
    expect(errorOf(() => load('services:\n  web:\n    ports: ["80"]\n')).problem).toBe(
      'service "web" has neither image nor build',
    );
  });
});
