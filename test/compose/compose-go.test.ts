import * as fs from 'fs';
import * as path from 'path';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose, loadComposeFromString, LoadResult } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';
import { listFiles } from '../support/files';
import { SHARED_DIR } from '../support/shared';
import { errorOf, makeProject } from './helpers';

/**
 * The reference loader's rules, from compose-go's own tests (`../shared/peers/compose-go/loader`, read for facts,
 * no code copied): every compose file of its testdata folder loads here when compose-go loads it and is refused with
 * a one-line error when compose-go refuses it, and each Go test that names a testdata file gives the same model here.
 */

const LOADER = path.join(SHARED_DIR, 'peers', 'compose-go', 'loader');
const TESTDATA = path.join(LOADER, 'testdata');
const present = fs.existsSync(TESTDATA);
const describeShared = present ? describe : describe.skip;
if (!present) {
  test.skip(`compose-go's tests: skipped, ${TESTDATA} is absent`, () => undefined);
}

/**
 * What compose-go does with each file loaded as a project of its own (its folder the project folder), from its Go
 * tests: `loads`, or a part of the error it gives. Files outside the project folder may be read (`include` with
 * `project_directory: ../subdir` needs it).
 */
const OUTCOMES: Readonly<Record<string, string>> = {
  // TestLoadIncludeExtendsCombined.
  'combined/compose.yaml': 'loads',
  'combined/dir/extended.yaml': 'loads',
  'combined/dir/included.yaml': 'loads',
  // TestLoadDependsOnCycle, TestLoadDependsOnSelf: "dependency cycle detected". The "no-cycle" file holds the same
  // cycle and no profile, and no Go test loads it: compose-go refuses it for the same reason.
  'compose-depends-on-cycle.yaml':
    'services depend on each other in a cycle: service1 → service2 → service3 → service1',
  'compose-depends-on-profile-no-cycle.yaml': 'services depend on each other in a cycle',
  'compose-depends-on-self.yaml': 'services depend on each other in a cycle: service1 → service1',
  // TestLoadWithIncludeCycle: "include cycle detected".
  'compose-include-cycle.yaml': 'include cycle detected',
  // TestLoadWithMultipleInclude includes it.
  'compose-include.yaml': 'loads',
  // TestLoadWithExtendsWithContextUrl.
  'compose-test-extends-with-context-url-imported.yaml': 'loads',
  'compose-test-extends-with-context-url.yaml': 'loads',
  // TestLoadWithExtends.
  'compose-test-extends.yaml': 'loads',
  // TestComposeFileWithVersion.
  'compose-test-with-version.yaml': 'loads',
  // TestEmptyFile: "empty compose file".
  'empty.yaml': 'the compose file is empty',
  // A base of the extends tests only: its `nil` service is empty and `with-port` has no image, which compose-go's
  // schema and consistency check refuse (TestExtendsNil loads it with validation skipped).
  'extends/base.yaml': 'services.nil: expected a map',
  // TestExtendsWithServiceRef (with `zot` defined), TestExtendsWithInterpolation, TestIncludeWithExtends,
  // TestExtendsPortOverride, TestExtendsReset, and the withdir files of nested extends.
  'extends/depends_on.yaml': 'loads',
  'extends/interpolated.yaml': 'loads',
  'extends/nested.yaml': 'loads',
  'extends/ports.yaml': 'loads',
  'extends/reset.yaml': 'loads',
  'extends/sibling.yaml': 'loads',
  'extends/withdir/compose.yaml': 'loads',
  'extends/withdir/dir/base.yaml': 'loads',
  'extends/withdir/dir/compose.yaml': 'loads',
  // TestIncludeRelative, TestIncludeWithProjectDirectory. include/dir/compose.yaml is only loaded through an include
  // whose project_directory holds its env file; on its own compose-go does not find extra.env.
  'include/compose.yaml': 'loads',
  'include/dir/compose.yaml': 'env file "extra.env" not found',
  'include/included.yaml': 'loads',
  'include/project-directory.yaml': 'loads',
  // TestLoadWithRemoteResources: `remote:` paths need compose-go's custom resource loader; without one compose-go
  // finds no such file (TestLoadWithMissingResources), and neither does this loader.
  'remote/compose.yaml': 'loads',
  'remote/cycle/compose-cycle.yaml': 'compose file "remote:cycle/compose.yaml" not found',
  'remote/cycle/compose.yaml': 'compose file "remote:cycle/compose-cycle.yaml" not found',
  'remote/nested/compose-nested.yaml': 'loads',
  'remote/nested/compose.yaml': 'compose file "remote:nested/compose-nested.yaml" not found',
  'subdir/compose-test-extends-imported.yaml': 'loads',
};

function loadFile(file: string, env: Record<string, string> = {}): LoadResult {
  return loadCompose({
    workingDir: path.join(TESTDATA, path.dirname(file)),
    files: [path.basename(file)],
    env,
    allowOutsideProject: true,
  });
}

function outcome(file: string): string {
  try {
    loadFile(file);
    return 'loads';
  } catch (err) {
    if (isComposeError(err)) {
      return err.message;
    }
    throw err;
  }
}

/** A snippet of a Go test, loaded with the loader folder as the project folder (its paths name testdata/…). */
function snippet(text: string, env: Record<string, string> = {}): LoadResult {
  return loadComposeFromString(text, { env, projectDir: LOADER, fileName: '(inline)' });
}

function serviceOf(result: LoadResult, name: string): ComposeService {
  const found = result.model.services.find((s) => s.name === name);
  expect(found).toBeDefined();
  return found!;
}

describeShared('compose-go testdata: every file loads or is refused as compose-go does', () => {
  const files = present
    ? listFiles(TESTDATA)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
    : [];

  test('the table covers every compose file of the folder', () => {
    expect(Object.keys(OUTCOMES).sort()).toEqual(files);
  });

  test.each(files)('%s', (file) => {
    const expected = OUTCOMES[file];
    const got = outcome(file);
    if (expected === 'loads') {
      expect(got).toBe('loads');
    } else {
      expect(got).toContain(expected);
      expect(got.split('\n')).toHaveLength(1);
    }
  });
});

describeShared('compose-go extends_test.go', () => {
  test('TestExtends, TestExtendsPort, TestExtendsUlimits: a service of another file, merged under the extending one', () => {
    const result = snippet(`
name: test-extends
services:
  test1:
    extends: {file: testdata/extends/base.yaml, service: base}
    hostname: test1
  test3:
    extends: {file: testdata/extends/base.yaml, service: another}
    hostname: test3
  port:
    image: test
    extends: {file: testdata/extends/base.yaml, service: with-port}
  limits:
    extends: {file: testdata/extends/base.yaml, service: withUlimits}
`);
    expect(serviceOf(result, 'test1')).toMatchObject({ image: 'base', hostname: 'test1' });
    expect(serviceOf(result, 'test3')).toMatchObject({ image: 'base', hostname: 'test3' });
    expect(serviceOf(result, 'port').ports.map((p) => [p.target, p.published])).toEqual([[8000, 8000]]);
    expect(serviceOf(result, 'limits').ulimits).toEqual([
      { name: 'nofile', soft: 20000, hard: 40000 },
      { name: 'nproc', soft: 65535, hard: 65535 },
    ]);
  });

  test("TestExtendsRelativePath, TestIncludeWithExtends: a build context resolves from the extended file's folder", () => {
    const result = snippet(
      'name: t\nservices:\n  test:\n    extends: {file: testdata/extends/base.yaml, service: with-build}\n',
    );
    expect(serviceOf(result, 'test').build?.context).toBe('testdata/extends');
    const included = snippet('name: t\ninclude:\n  - testdata/extends/nested.yaml\n');
    expect(serviceOf(included, 'with-build').build?.context).toBe('testdata/extends');
  });

  test('TestExtendsWihtMissingService: extends.file without service is an error', () => {
    expect(
      errorOf(() =>
        snippet('name: t\nservices:\n  test:\n    image: test\n    extends:\n      file: testdata/extends/base.yaml\n'),
      ).problem,
    ).toBe('invalid extends');
  });

  test('TestExtendsPortOverride: a later file extending the same port keeps one port', () => {
    const project = makeProject({
      'ports.yaml': fs.readFileSync(path.join(TESTDATA, 'extends/ports.yaml'), 'utf8'),
      'override.yaml': 'services:\n  test:\n    extends: {file: ports.yaml, service: test}\n',
    });
    try {
      const result = loadCompose({ workingDir: project.dir, files: ['ports.yaml', 'override.yaml'], env: {} });
      expect(serviceOf(result, 'test').ports.map((p) => [p.target, p.published])).toEqual([[8080, 8080]]);
    } finally {
      project.cleanup();
    }
  });

  test('TestLoadExtendsSameFile: a base extended from another folder keeps its context, and so does its own extender', () => {
    const project = makeProject({
      'sub/compose.yaml':
        'services:\n  base:\n    build:\n      context: ..\n  service:\n    extends: base\n    build:\n      target: target\n',
      'compose.yaml':
        'services:\n  out-base:\n    extends: {file: sub/compose.yaml, service: base}\n' +
        '  out-service:\n    extends: {file: sub/compose.yaml, service: service}\n',
    });
    try {
      const result = loadCompose({ workingDir: project.dir, env: {}, projectName: 'project' });
      expect(result.model.services.map((s) => [s.name, s.build?.context, s.build?.target])).toEqual([
        ['out-base', '.', undefined],
        ['out-service', '.', 'target'],
      ]);
    } finally {
      project.cleanup();
    }
  });

  test.each([
    ['volumes_from', 'with_volumes_from'],
    ['depends_on', 'with_depends_on'],
    ['shared ipc', 'with_ipc'],
    ['shared network_mode', 'with_network_mode'],
  ])('TestExtendsWithServiceRef (%s): a service the extended one names must exist here', (_name, base) => {
    const text = `name: t\nservices:\n  bar:\n    extends: {file: ./testdata/extends/depends_on.yaml, service: ${base}}\n`;
    expect(errorOf(() => snippet(text)).problem).toBe('service "bar" depends on undefined service "zot"');
    expect(snippet(`${text}  zot:\n    image: zot\n`).model.services.map((s) => s.name)).toEqual(['bar', 'zot']);
  });

  test('TestLoadExtendsDependsOn: !override replaces the depends_on of the base', () => {
    const result = snippet(`
name: extends-depends_on
services:
  service_a:
    image: a
    depends_on: [service_c]
  service_b:
    extends: service_a
    depends_on: !override
      - service_a
  service_c:
    image: c
`);
    expect(serviceOf(result, 'service_b').dependsOn.map((d) => [d.service, d.condition, d.required])).toEqual([
      ['service_a', 'service_started', true],
    ]);
  });

  test("TestExtendsReset: !reset in the extended file removes the base's command", () => {
    const result = snippet(
      'name: t\nservices:\n  test:\n    extends: {file: testdata/extends/reset.yaml, service: base}\n',
    );
    expect(serviceOf(result, 'test').command).toBeUndefined();
  });

  test('TestExtendsWithInterpolation: the extended file is interpolated (a default here)', () => {
    const result = loadComposeFromString(
      'name: t\nservices:\n  test:\n    extends: { file: testdata/extends/interpolated.yaml, service: foo }\n',
      { env: {}, projectDir: LOADER, allowOutsideProject: true },
    );
    expect(serviceOf(result, 'test').volumes.map((v) => [v.type, v.source, v.target, v.readOnly])).toEqual([
      ['bind', '/dev/null', '/tmp/foo', true],
    ]);
  });
});

describeShared('compose-go include_test.go and loader_test.go (testdata)', () => {
  test('TestLoadWithExtends: env_file, volumes and interpolation of the extended file', () => {
    const result = loadFile('compose-test-extends.yaml');
    const importer = serviceOf(result, 'importer');
    // The env file sits beside the extended file, not the extending one; it feeds the environment, not interpolation.
    expect(importer).toMatchObject({ image: 'nginx', containerName: 'imported' });
    expect(importer.environment.map((e) => [e.name, e.value])).toEqual([['SOURCE', 'extends']]);
    expect(importer.volumes.map((v) => [v.type, v.source, v.target])).toEqual([
      ['bind', '/opt/data', '/var/lib/mysql'],
    ]);
  });

  test('TestLoadWithExtendsWithContextUrl: a URL context stays as written', () => {
    const result = loadFile('compose-test-extends-with-context-url.yaml');
    expect(serviceOf(result, 'importer-with-https-url').build?.context).toBe('https://github.com/docker/compose.git');
  });

  test('TestComposeFileWithVersion: version 2 files load (the version is reported as obsolete)', () => {
    const result = loadFile('compose-test-with-version.yaml');
    expect(result.model.services.map((s) => s.name)).toEqual(['other', 'web']);
    expect(serviceOf(result, 'web').networks.map((n) => n.name)).toEqual(['default', 'front']);
    expect(serviceOf(result, 'other').volumes.map((v) => [v.type, v.target])).toEqual([['volume', '/data']]);
    expect(result.model.volumes.map((v) => [v.name, v.driver])).toEqual([['data', 'local']]);
  });

  test('TestLoadIncludeExtendsCombined: an included file that extends a file beside it', () => {
    const result = loadFile('combined/compose.yaml');
    expect(serviceOf(result, 'service').build?.context).toBe('dir');
  });

  test("TestIncludeRelative: the included file's paths resolve from its folder", () => {
    const service = serviceOf(loadFile('include/compose.yaml'), 'included');
    expect(service.build?.context).toBe('.');
    // compose-go cleans the path to "."; the model keeps a bind source as written.
    expect(service.volumes.map((v) => [v.source, v.target, v.bind?.kind])).toEqual([['./', '/mnt', 'directory']]);
  });

  test('TestIncludeWithProjectDirectory: project_directory is where the included paths resolve from', () => {
    const service = serviceOf(loadFile('include/project-directory.yaml'), 'service');
    expect(service.build?.context).toBe('../subdir');
    expect(service.volumes.map((v) => v.source)).toEqual(['../subdir/compose-test-extends-imported.yaml']);
    expect(service.environment.map((e) => [e.name, e.value])).toEqual([['SOURCE', 'extends']]);
  });

  test("TestLoadWithInclude: the include's env_file is its interpolation environment; the outer one wins", () => {
    const text = `
name: 'test-include'
include:
  - path: ./testdata/subdir/compose-test-extends-imported.yaml
    env_file: ./testdata/subdir/extra.env
services:
  foo:
    image: busybox
    depends_on:
      - imported
`;
    const imported = serviceOf(snippet(text), 'imported');
    expect(imported).toMatchObject({ image: 'nginx', containerName: 'extends' });
    expect(imported.environment.map((e) => [e.name, e.value])).toEqual([['SOURCE', 'extends']]);
    expect(imported.volumes.map((v) => [v.type, v.source, v.target])).toEqual([
      ['bind', '/opt/data', '/var/lib/mysql'],
    ]);
    expect(serviceOf(snippet(text, { SOURCE: 'override' }), 'imported').containerName).toBe('override');
  });

  test('TestLoadWithMultipleInclude: the same service included twice is one', () => {
    const result = snippet(
      `
name: 'test-multi-include'
include:
  - path: ./testdata/subdir/compose-test-extends-imported.yaml
    env_file: ./testdata/subdir/extra.env
  - path: ./testdata/compose-include.yaml
services:
  foo:
    image: busybox
    depends_on:
      - imported
`,
      { SOURCE: 'override' },
    );
    expect(result.model.services.map((s) => s.name)).toEqual(['bar', 'foo', 'imported']);
    expect(serviceOf(result, 'imported').containerName).toBe('override');
  });

  test('TestLoadWithMultipleIncludeConflict: a service the file and an include both define differently is an error', () => {
    expect(
      errorOf(() =>
        snippet(
          `
name: 'test-multi-include'
include:
  - path: ./testdata/subdir/compose-test-extends-imported.yaml
    env_file: ./testdata/subdir/extra.env
  - path: ./testdata/compose-include.yaml
    env_file: ./testdata/subdir/extra.env
services:
  bar:
    image: busybox
`,
          { SOURCE: 'override' },
        ),
      ).problem,
    ).toBe('services.bar conflicts with the one included from ./testdata/compose-include.yaml');
  });

  test('TestLoadWithIncludeOverride: a later file overrides an included service', () => {
    const project = makeProject({
      'compose.yaml': 'name: test-include-override\ninclude:\n  - ./sub/imported.yaml\n',
      'override.yaml': 'services:\n  imported:\n    image: overridden\n',
      'sub/imported.yaml': fs.readFileSync(path.join(TESTDATA, 'subdir/compose-test-extends-imported.yaml'), 'utf8'),
      'sub/extra.env': fs.readFileSync(path.join(TESTDATA, 'subdir/extra.env'), 'utf8'),
    });
    try {
      const result = loadCompose({ workingDir: project.dir, files: ['compose.yaml', 'override.yaml'], env: {} });
      expect(serviceOf(result, 'imported').image).toBe('overridden');
    } finally {
      project.cleanup();
    }
  });

  test("TestLoadWithIncludeEnv: the include's env_file resolves its services' variables, not the file's", () => {
    const project = makeProject({
      'compose.yml':
        'include:\n  - path:\n    - ./module/compose.yml\n    env_file:\n      - ./custom.env\n' +
        'services:\n  a:\n    image: alpine\n    environment:\n      - VAR_NAME\n',
      'custom.env': 'VAR_NAME=value',
      'module/compose.yml':
        'services:\n  b:\n    image: alpine\n    environment:\n      - VAR_NAME\n' +
        '  c:\n    image: alpine\n    environment:\n      - VAR_NAME\n',
    });
    try {
      const { model } = loadCompose({ workingDir: project.dir, env: {}, projectName: 'project' });
      expect(model.services.map((s) => [s.name, s.environment.map((e) => `${e.name}=${e.value}`)])).toEqual([
        ['a', []],
        ['b', ['VAR_NAME=value']],
        ['c', ['VAR_NAME=value']],
      ]);
    } finally {
      project.cleanup();
    }
  });

  test("TestNestedIncludeAndExtends: an included file extends a file relative to the include's project directory", () => {
    const project = makeProject({
      'compose.yml': 'include:\n  - project_directory: .\n    path: dir/included.yaml\n',
      'dir/included.yaml':
        'services:\n  included:\n    extends:\n      file: dir/extended.yaml\n      service: extended\n',
      'dir/extended.yaml': 'services:\n  extended:\n    image: alpine\n',
    });
    try {
      expect(
        serviceOf(loadCompose({ workingDir: project.dir, env: {}, projectName: 'project' }), 'included').image,
      ).toBe('alpine');
    } finally {
      project.cleanup();
    }
  });

  test("TestLoadWithRemoteResources: a file's env_file and binds resolve from its folder", () => {
    const service = serviceOf(loadFile('remote/compose.yaml'), 'foo');
    expect(service.environment.map((e) => [e.name, e.value])).toEqual([['FOO', 'BAR']]);
    expect(service.volumes.map((v) => [v.source, v.target, v.bind?.kind])).toEqual([['.', '/foo', 'directory']]);
  });
});

describe('compose-go loader_test.go (inline snippets)', () => {
  test('TestV1Unsupported: services at the top level are refused', () => {
    expect(errorOf(() => loadComposeFromString('foo:\n  image: busybox\n', { env: {} })).problem).toBe(
      'this is a compose v1 file: its services (foo) are at the top level',
    );
  });

  test('TestLoadServiceHooks: post_start and pre_stop commands; what else they set is reported', () => {
    const { model, warnings } = loadComposeFromString(
      `
name: load-service-hooks
services:
  test:
    image: busybox:1.36
    post_start:
      - command: echo start
        user: root
        privileged: true
        working_dir: /
        environment:
          - FOO=BAR
    pre_stop:
      - command: echo stop
        user: root
        working_dir: /
        environment:
          FOO: BAR
`,
      { env: {} },
    );
    const test = model.services[0];
    expect(test.postStart?.map((h) => [h.command, h.unsupported])).toEqual([
      [
        ['echo', 'start'],
        ['user', 'privileged', 'working_dir', 'environment'],
      ],
    ]);
    expect(test.preStop?.map((h) => [h.command, h.unsupported])).toEqual([
      [
        ['echo', 'stop'],
        ['user', 'working_dir', 'environment'],
      ],
    ]);
    expect(warnings.filter((w) => w.code === 'unsupported-key')).toHaveLength(7);
  });

  test('TestServiceProvider: a provider service loads (and is reported); a provider without type is refused', () => {
    const { model, warnings } = loadComposeFromString(
      'name: service-provider\nservices:\n  test:\n    provider:\n      type: foo\n' +
        '      options:\n        bar: zot\n        strings: [foo, bar]\n',
      { env: {} },
    );
    expect(model.services).toEqual([]);
    expect(warnings.map((w) => w.code)).toEqual(['provider-service']);
    expect(
      errorOf(() =>
        loadComposeFromString('services:\n  test:\n    provider:\n      options: {bar: zot}\n', { env: {} }),
      ).problem,
    ).toBe('the provider of service "test" has no type');
  });

  test('TestModel: models at the top level and on services load, and are reported', () => {
    const { warnings } = loadComposeFromString(
      `
name: model
services:
  test_array:
    image: busybox:1.36
    models:
      - foo
  test_mapping:
    image: busybox:1.36
    models:
      foo:
        endpoint_var: MODEL_URL
        model_var: MODEL
models:
  foo:
    model: ai/model
    context_size: 1024
    runtime_flags:
      - "--some-flag"
`,
      { env: {} },
    );
    expect(warnings.filter((w) => w.message.includes('Docker Model Runner')).map((w) => w.at.path)).toEqual([
      'services.test_array.models',
      'services.test_mapping.models',
      'models',
    ]);
  });

  (present ? test : test.skip)('TestLoadWithLabelFile: labels from label files', () => {
    const { model } = loadComposeFromString(
      'name: load-label-file\nservices:\n  service_1:\n    image: a:1\n    label_file: ./example1.label\n' +
        '  service_2:\n    image: a:1\n    label_file:\n      - ./example2.label\n',
      { env: {}, projectDir: LOADER },
    );
    expect(model.services.map((s) => s.labels)).toEqual([
      {
        'BAR': 'bar_from_label_file',
        'BAZ': 'baz_from_label_file',
        'FOO': 'foo_from_label_file',
        'LABEL.WITH.DOT': 'ok',
        'LABEL_WITH_UNDERSCORE': 'ok',
      },
      { BAR: 'bar_from_label_file_2', QUX: 'quz_from_label_file_2' },
    ]);
    expect(
      errorOf(() =>
        loadComposeFromString('services:\n  test:\n    image: a:1\n    label_file: test\n', {
          env: {},
          projectDir: LOADER,
        }),
      ).problem,
    ).toBe('label file "test" not found');
  });

  test('TestProjectNameInterpolation: COMPOSE_PROJECT_NAME is the final project name, in every file', () => {
    const project = makeProject({
      'a.yaml':
        'name: interpolated\nservices:\n  web:\n    image: web\n    container_name: ${COMPOSE_PROJECT_NAME}-web\n',
      'b.yaml': 'name: overrided\nservices:\n  db:\n    image: db\n    container_name: ${COMPOSE_PROJECT_NAME}-db\n',
      'c.yaml': 'services:\n  proxy:\n    image: proxy\n    container_name: ${COMPOSE_PROJECT_NAME}-proxy\n',
    });
    try {
      const names = (files: string[], projectName?: string) =>
        loadCompose({ workingDir: project.dir, files, env: {}, projectName }).model.services.map(
          (s) => s.containerName,
        );
      expect(names(['a.yaml'])).toEqual(['interpolated-web']);
      expect(names(['a.yaml', 'b.yaml', 'c.yaml'])).toEqual(['overrided-db', 'overrided-proxy', 'overrided-web']);
      expect(names(['a.yaml'], 'another')).toEqual(['another-web']);
    } finally {
      project.cleanup();
    }
  });

  test('TestLoadTmpfsVolume, TestLoadTmpfsVolumeSizeCanBeZero: sizes are bytes, 1kb is 1024', () => {
    for (const [size, bytes] of [
      ['1kb', 1024],
      ['1024', 1024],
      ['0', 0],
    ] as const) {
      const { model } = loadComposeFromString(
        `services:\n  tmpfs:\n    image: nginx:1.27\n    volumes:\n      - type: tmpfs\n        target: /app\n        tmpfs:\n          size: ${size}\n`,
        { env: {} },
      );
      expect(model.services[0].volumes.map((v) => [v.type, v.target, v.sizeBytes])).toEqual([['tmpfs', '/app', bytes]]);
    }
  });

  test('TestLoadBindMountSourceMustNotBeEmpty', () => {
    expect(
      errorOf(() =>
        loadComposeFromString(
          'services:\n  tmpfs:\n    image: nginx:1.27\n    volumes:\n      - type: bind\n        target: /app\n',
          { env: {} },
        ),
      ).problem,
    ).toBe('a bind mount needs a source');
  });
});
