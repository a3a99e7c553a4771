import { loadCompose } from '../../lib/compose/load';
import { errorOf, load, makeProject } from './helpers';

/** include, extends across folders, and the compose v1 refusal. */

function inProject<T>(files: Record<string, string>, run: (dir: string) => T): T {
  const project = makeProject(files);
  try {
    return run(project.dir);
  } finally {
    project.cleanup();
  }
}

describe('paths of an extended file resolve from its folder', () => {
  test('env_file, build context, bind sources, secret files and a nested extends.file', () => {
    const model = inProject(
      {
        'compose.yaml':
          'services:\n  web:\n    extends: {file: sub/base.yaml, service: web}\n' +
          'secrets:\n  token:\n    file: ./token.txt\n',
        'token.txt': 'abc',
        'sub/base.yaml':
          'services:\n  web:\n    extends: {file: ../common/root.yaml, service: root}\n    build: ./app\n' +
          '    env_file: ./web.env\n    volumes: ["./conf/site.conf:/etc/site.conf:ro", {type: bind, source: data, target: /data}]\n' +
          '    secrets: [token]\n',
        'sub/web.env': 'MODE=sub\n',
        'sub/conf/site.conf': 'listen 80;\n',
        'common/root.yaml':
          'services:\n  root:\n    image: nginx:1.27.2\n    env_file: [{path: ./root.env, required: true}]\n',
        'common/root.env': 'ROOT=yes\n',
      },
      (dir) => loadCompose({ workingDir: dir, env: {} }).model,
    );
    const web = model.services[0];
    expect(web.build?.context).toBe('sub/app');
    expect(web.environment.map((e) => `${e.name}=${e.value}`)).toEqual(['MODE=sub', 'ROOT=yes']);
    expect(web.volumes.map((v) => [v.source, v.bind?.kind, v.bind?.content?.text])).toEqual([
      ['sub/data', 'missing', undefined],
      ['./sub/conf/site.conf', 'file', 'listen 80;\n'],
    ]);
  });

  test("the issue's example: an env_file beside the extended file is found", () => {
    const model = inProject(
      {
        'compose.yaml': 'services:\n  web:\n    extends: {file: sub/base.yaml, service: base}\n',
        'sub/base.yaml': 'services:\n  base:\n    image: nginx:1.27.2\n    env_file: ./web.env\n',
        'sub/web.env': 'A=1\n',
      },
      (dir) => loadCompose({ workingDir: dir, env: {} }).model,
    );
    expect(model.services[0].environment.map((e) => e.name)).toEqual(['A']);
  });
});

describe('include', () => {
  const files = {
    'compose.yaml':
      'include:\n  - db/compose.yaml\n  - path: cache/compose.yaml\n  - path: [api/compose.yaml, api/override.yaml]\n' +
      '    project_directory: api\n    env_file: api/api.env\n' +
      'services:\n  web:\n    image: nginx:1.27.2\n    depends_on: [db, cache, api]\n',
    'db/compose.yaml':
      'services:\n  db:\n    image: postgres:16.4\n    env_file: db.env\n    volumes: [data:/var/lib/postgresql/data]\n' +
      'volumes:\n  data:\n',
    'db/db.env': 'POSTGRES_DB=shop\n',
    'cache/compose.yaml': 'services:\n  cache:\n    image: redis:${REDIS_TAG:-7.4}\n',
    'cache/.env': 'REDIS_TAG=7.2\n',
    'api/compose.yaml': 'services:\n  api:\n    image: shop/api:${API_TAG}\n    build: .\n',
    'api/override.yaml': 'services:\n  api:\n    environment: [LEVEL=debug]\n',
    'api/api.env': 'API_TAG=3.1\n',
  };

  test("all three forms, with project_directory, env_file and the included project's own .env", () => {
    const { model, warnings } = inProject(files, (dir) => loadCompose({ workingDir: dir, env: {} }));
    expect(model.services.map((s) => [s.name, s.image])).toEqual([
      ['api', 'shop/api:3.1'],
      ['cache', 'redis:7.2'],
      ['db', 'postgres:16.4'],
      ['web', 'nginx:1.27.2'],
    ]);
    const byName = Object.fromEntries(model.services.map((s) => [s.name, s]));
    expect(byName.api.build?.context).toBe('api');
    expect(byName.api.environment.map((e) => `${e.name}=${e.value}`)).toEqual(['LEVEL=debug']);
    expect(byName.db.environment.map((e) => `${e.name}=${e.value}`)).toEqual(['POSTGRES_DB=shop']);
    expect(model.volumes.map((v) => v.name)).toEqual(['data']);
    expect(warnings.filter((w) => w.code === 'unset-variable')).toEqual([]);
  });

  test("the outer environment wins over the include's env files", () => {
    const { model } = inProject(files, (dir) => loadCompose({ workingDir: dir, env: { REDIS_TAG: '7.0' } }));
    expect(model.services.find((s) => s.name === 'cache')!.image).toBe('redis:7.0');
  });

  test('a cycle, a conflict, an unknown key, a file outside the project', () => {
    const message = (extra: Record<string, string>) =>
      inProject({ ...files, ...extra }, (dir) => errorOf(() => loadCompose({ workingDir: dir, env: {} })).message);
    expect(
      message({ 'db/compose.yaml': 'include: [../compose.yaml]\nservices:\n  db:\n    image: postgres:16.4\n' }),
    ).toBe(
      'db/compose.yaml:1:11: include[0]: include cycle detected: compose.yaml → db/compose.yaml → compose.yaml. ' +
        'Fix: remove the include that brings a file back in.',
    );
    expect(message({ 'compose.yaml': `${files['compose.yaml']}  db:\n    image: mysql:8.4\n` })).toBe(
      'compose.yaml:12:5: services.db: services.db conflicts with the one included from db/compose.yaml. ' +
        'Fix: rename one of them; the file defines services.db too.',
    );
    expect(message({ 'compose.yaml': 'include:\n  - path: db/compose.yaml\n    env: x\nservices: {}\n' })).toBe(
      'compose.yaml:3:5: include[0].env: unknown key "env" in an include entry. Allowed: the keys of an include entry in the ' +
        'compose specification, or x- extensions. Fix: remove it, or rename it with an x- prefix to keep it as an extension.',
    );
    expect(message({ 'compose.yaml': 'include: [../elsewhere/compose.yaml]\nservices: {}\n' })).toBe(
      'compose.yaml:1:11: include[0]: include "../elsewhere/compose.yaml" is outside the project folder and was not read. ' +
        'Fix: move it into the project folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
  });
});

describe('COMPOSE_PROJECT_NAME and a compose v1 file', () => {
  test('COMPOSE_PROJECT_NAME is the project name, from the option, the environment, name: or the folder', () => {
    const text =
      'name: shop\nservices:\n  web:\n    image: nginx:1.27.2\n    container_name: ${COMPOSE_PROJECT_NAME}-web\n';
    expect(load(text).model.services[0].containerName).toBe('shop-web');
    expect(load(text, { projectName: 'other' }).model.services[0].containerName).toBe('other-web');
    expect(load(text, { env: { COMPOSE_PROJECT_NAME: 'Env_Name' } }).model.services[0].containerName).toBe(
      'env_name-web',
    );
    expect(load(text).warnings).toEqual([]);
  });

  test('services at the top level: the error says it is a v1 file and shows the fix', () => {
    expect(
      errorOf(() => load('web:\n  image: nginx:1.27.2\n  links: [db]\ndb:\n  image: postgres:16.4\n')).message,
    ).toBe(
      'compose.yaml:2:3: web: this is a compose v1 file: its services (web, db) are at the top level. Allowed: the compose ' +
        'specification: the services under a top-level services: key. Fix: add a first line "services:" and indent every ' +
        'service under it by two spaces ("services:", "  web:", "    image: …"); the service keys stay the same, and the ' +
        'version key is no longer needed.',
    );
  });
});
