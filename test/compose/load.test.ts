import * as fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { stringify } from 'yaml';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose, loadComposeFromString } from '../../lib/compose/load';
import { errorOf, load, makeProject } from './helpers';

describe('loadCompose', () => {
  test('discovers compose.yaml before docker-compose.yml and warns about both', () => {
    const project = makeProject({
      'compose.yaml': 'services:\n  a:\n    image: a:1\n',
      'docker-compose.yml': 'services:\n  b:\n    image: b\n',
    });
    try {
      const { model, warnings } = loadCompose({ workingDir: project.dir, env: {} });
      expect(model.services.map((s) => s.name)).toEqual(['a']);
      expect(model.name).toBe(
        path
          .basename(project.dir)
          .toLowerCase()
          .replace(/[^a-z0-9_-]/g, ''),
      );
      expect(warnings.map((w) => [w.code, w.message])).toEqual([
        ['multiple-compose-files', 'found compose.yaml, docker-compose.yml; using compose.yaml'],
      ]);
    } finally {
      project.cleanup();
    }
  });

  test('explicit files merge in order, relative to the working folder; paths resolve from the first file', () => {
    const project = makeProject({
      'app/base.yml': 'services:\n  web:\n    image: web\n    env_file: web.env\n',
      'app/web.env': 'FROM=app-folder\n',
      'prod.yml': 'services:\n  web:\n    image: web:prod\n',
    });
    try {
      const { model } = loadCompose({ workingDir: project.dir, files: ['app/base.yml', 'prod.yml'], env: {} });
      expect(model.files).toEqual(['app/base.yml', 'prod.yml']);
      expect(model.name).toBe('app');
      expect(model.services[0]).toMatchObject({
        image: 'web:prod',
        environment: [{ name: 'FROM', value: 'app-folder' }],
      });
    } finally {
      project.cleanup();
    }
  });

  test('COMPOSE_FILE names the files when none are given', () => {
    const project = makeProject({
      'one.yml': 'services:\n  a:\n    image: a:1\n',
      'two.yml': 'services:\n  b:\n    image: b\n',
    });
    try {
      const { model } = loadCompose({ workingDir: project.dir, env: { COMPOSE_FILE: 'one.yml:two.yml' } });
      expect(model.services.map((s) => s.name)).toEqual(['a', 'b']);
    } finally {
      project.cleanup();
    }
  });

  test('interpolation precedence: shell environment, then --env-file, then .env', () => {
    const project = makeProject({
      'compose.yaml': 'services:\n  web:\n    image: "img:${TAG}"\n    environment: [A=$A, B=$B, C=$C]\n',
      '.env': 'TAG=dotenv\nA=dotenv\nB=dotenv\nC=dotenv\n',
      'custom.env': 'TAG=custom\nA=custom\n',
    });
    try {
      const env = (result: ReturnType<typeof loadCompose>): string[] =>
        result.model.services[0].environment.map((e) => e.value);
      const dotenv = loadCompose({ workingDir: project.dir, env: { A: 'shell' } });
      expect(dotenv.model.services[0].image).toBe('img:dotenv');
      expect(env(dotenv)).toEqual(['shell', 'dotenv', 'dotenv']);
      const custom = loadCompose({ workingDir: project.dir, env: { A: 'shell' }, envFiles: ['custom.env'] });
      expect(custom.model.services[0].image).toBe('img:custom');
      // --env-file replaces .env, so B and C are not set at all.
      expect(env(custom)).toEqual(['shell', '', '']);
      expect(custom.warnings.map((w) => w.message)).toEqual([
        'variable B is not set; an empty string is used',
        'variable C is not set; an empty string is used',
      ]);
      expect(errorOf(() => loadCompose({ workingDir: project.dir, env: {}, envFiles: ['nope.env'] })).message).toBe(
        'nope.env: env file "nope.env" not found. Fix: check the path given to the env file option (--env-file).',
      );
    } finally {
      project.cleanup();
    }
  });

  test('a missing or too large compose file is an error', () => {
    const project = makeProject({ 'compose.yaml': `services: {}\n# ${'x'.repeat(100)}\n` });
    try {
      expect(errorOf(() => loadCompose({ workingDir: project.dir, files: ['nope.yaml'], env: {} })).message).toBe(
        'nope.yaml: compose file "nope.yaml" not found. Fix: check the path; relative paths are taken from the ' +
          'working folder.',
      );
      expect(
        errorOf(() => loadCompose({ workingDir: project.dir, env: {}, limits: { maxFileBytes: 50 } })).message,
      ).toBe(
        "compose.yaml: the compose file is larger than 50 bytes. Fix: raise the loader's limits.maxFileBytes " +
          'if the file is genuine.',
      );
      fs.rmSync(path.join(project.dir, 'compose.yaml'));
      expect(errorOf(() => loadCompose({ workingDir: project.dir, env: {} })).problem).toBe(
        `no compose file found in ${project.dir}`,
      );
    } finally {
      project.cleanup();
    }
  });
});

describe('files that are not text', () => {
  const fix =
    'Allowed: UTF-8 text. Fix: check that "compose.yaml" is the compose file (not an image, archive or other binary file), or save it as UTF-8.';
  const loadBytes = (bytes: Buffer): string => {
    const project = makeProject({ 'compose.yaml': 'services: {}\n' });
    try {
      fs.writeFileSync(path.join(project.dir, 'compose.yaml'), bytes);
      return errorOf(() => loadCompose({ workingDir: project.dir, env: {} })).message;
    } finally {
      project.cleanup();
    }
  };

  test('random bytes, a NUL byte and invalid UTF-8 are each "not a text file", at the first bad byte', () => {
    expect(loadBytes(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(
      `compose.yaml:1:1: compose file "compose.yaml" is not a text file: byte 0x89 is not UTF-8. ${fix}`,
    );
    expect(loadBytes(Buffer.from('services:\n  web:\n    image: nginx\u0000\n'))).toBe(
      `compose.yaml:3:17: compose file "compose.yaml" is not a text file: it holds the control character 0x00. ${fix}`,
    );
    expect(
      loadBytes(
        Buffer.concat([Buffer.from('services:\n  wéb:\n    image: '), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]),
      ),
    ).toBe(`compose.yaml:3:12: compose file "compose.yaml" is not a text file: byte 0xff is not UTF-8. ${fix}`);
  });

  test('UTF-8 text with tabs, CRLF line ends and non-ASCII letters is text', () => {
    const project = makeProject({
      'compose.yaml':
        'services:\r\n  web:\r\n    image: nginx:1.27\r\n    environment: { GREETING: "grüß dich\t!" }\r\n',
    });
    try {
      expect(loadCompose({ workingDir: project.dir, env: {} }).model.services[0].environment[0].value).toBe(
        'grüß dich\t!',
      );
    } finally {
      project.cleanup();
    }
  });

  test('an env_file that is not text is named, with the key that names it and the place in it', () => {
    const project = makeProject({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27\n    env_file: app.env\n',
      'app.env': 'A=1\nB=\u0001\n',
    });
    try {
      expect(errorOf(() => loadCompose({ workingDir: project.dir, env: {} })).message).toBe(
        'compose.yaml:4:15: services.web.env_file: ' +
          'env file "app.env" is not a text file: it holds the control character 0x01 (line 2, column 3). Allowed: UTF-8 text. ' +
          'Fix: check that "app.env" is the env file (not an image, archive or other binary file), or save it as UTF-8.',
      );
    } finally {
      project.cleanup();
    }
  });
});

describe('an unknown key is located at the key, not at its value', () => {
  test('in a service, in a flow map, and through an anchor', () => {
    expect(errorOf(() => load('services:\n  web:\n    image: nginx:1.27\n    imagee:    nginx\n')).message).toMatch(
      /^compose\.yaml:4:5: services\.web\.imagee: unknown key "imagee"/,
    );
    expect(errorOf(() => load('services:\n  web: { image: nginx:1.27, portz: ["80"] }\n')).message).toMatch(
      /^compose\.yaml:2:29: services\.web\.portz: unknown key "portz"/,
    );
    expect(
      errorOf(() => load('x-base: &base\n  image: nginx:1.27\n  restrat: always\nservices:\n  web: *base\n')).message,
    ).toMatch(/^compose\.yaml:3:3: services\.web\.restrat: unknown key "restrat"/);
  });

  test("and so is an ignored key's warning, also after a second file is merged over the first", () => {
    const project = makeProject({
      'compose.yaml': 'services:\n  web:\n    image: nginx:1.27\n    dns: 8.8.8.8\n',
      'override.yaml': 'services:\n  web:\n    environment: [A=1]\n',
    });
    try {
      const { warnings } = loadCompose({ workingDir: project.dir, files: ['compose.yaml', 'override.yaml'], env: {} });
      expect(warnings.find((w) => w.at.path === 'services.web.dns')?.at).toMatchObject({
        file: 'compose.yaml',
        line: 4,
        column: 5,
      });
    } finally {
      project.cleanup();
    }
  });
});

describe('loadComposeFromString', () => {
  test('uses the display name and reads .env from the project folder', () => {
    const project = makeProject({ '.env': 'IMAGE=from-dotenv\n' });
    try {
      const { model } = loadComposeFromString('services:\n  web:\n    image: $IMAGE\n', {
        fileName: 'app/compose.yml',
        projectDir: project.dir,
        env: {},
      });
      expect(model.services[0].image).toBe('from-dotenv');
      expect(model.services[0].at.file).toBe('app/compose.yml');
      expect(model.files).toEqual(['app/compose.yml']);
    } finally {
      project.cleanup();
    }
  });

  test('an empty file or a file that is not a map is an error', () => {
    expect(errorOf(() => load('# nothing\n')).message).toBe(
      'compose.yaml: the compose file is empty. Fix: add a services: map with at least one service.',
    );
    expect(errorOf(() => load('- a\n- b\n')).problem).toBe(
      'a compose file must be a map of top-level keys such as services',
    );
  });

  test('malformed YAML names the line and column', () => {
    expect(errorOf(() => load('services:\n  web:\n    image: "nginx\n')).message).toBe(
      'compose.yaml:4:1: invalid YAML: Missing closing "quote. Fix: fix the YAML syntax at that line ' +
        '(indentation, quotes, a missing ":" or closing bracket); yamllint shows the same spot.',
    );
  });
});

describe('project name', () => {
  test('option, then COMPOSE_PROJECT_NAME, then name:, then the folder, normalised', () => {
    const text = 'name: From_File!\nservices: {}\n';
    expect(load(text, { projectName: 'Opt' }).model.name).toBe('opt');
    expect(load(text, { env: { COMPOSE_PROJECT_NAME: 'env-name' } }).model.name).toBe('env-name');
    expect(load(text).model.name).toBe('from_file');
    expect(errorOf(() => load('name: "!!!"\nservices: {}\n')).problem).toBe(
      'project name "!!!" has no usable characters',
    );
  });
});

describe('profiles', () => {
  const text = [
    'services:',
    '  web: {image: web:1}',
    '  debug: {image: debug, profiles: [debug]}',
    '  tools: {image: tools, profiles: [tools, debug]}',
    '',
  ].join('\n');
  const names = (options: Parameters<typeof load>[1]): string[] =>
    load(text, options).model.services.map((s) => s.name);

  test('services with profiles are left out unless a profile is active', () => {
    expect(names({})).toEqual(['web']);
    expect(names({ profiles: ['tools'] })).toEqual(['tools', 'web']);
    expect(names({ profiles: ['debug'] })).toEqual(['debug', 'tools', 'web']);
    expect(names({ profiles: ['*'] })).toEqual(['debug', 'tools', 'web']);
    expect(names({ env: { COMPOSE_PROFILES: 'tools,other' } })).toEqual(['tools', 'web']);
  });

  test('depending on a disabled service is an error unless the dependency is optional', () => {
    const dependent = `${text}  app:\n    image: app:1\n    depends_on: {debug: {condition: service_started, required: false}}\n`;
    const { model, warnings } = load(dependent);
    expect(model.services.find((s) => s.name === 'app')!.dependsOn).toEqual([]);
    expect(warnings.map((w) => w.code)).toEqual(['disabled-dependency']);
    expect(errorOf(() => load(`${text}  app:\n    image: app\n    depends_on: [debug]\n`)).message).toBe(
      'compose.yaml:7:18: services.app.depends_on[0]: service "app" depends on service "debug", which is not enabled. ' +
        'Allowed: a service without profiles, or one whose profile is active (debug has profiles: debug). ' +
        "Fix: activate one of its profiles (profiles: ['debug'], CLI: --profile debug), or mark the dependency " +
        'required: false.',
    );
  });

  test('unknown keys are errors in disabled services too', () => {
    expect(errorOf(() => load('services:\n  x: {image: x, profiles: [p], imag: y}\n')).problem).toBe(
      'unknown key "imag" in a service',
    );
  });
});

describe('hostile input', () => {
  test('an alias bomb is refused quickly', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i += 1) {
      lines.push(
        `l${i}: &l${i} [${Array(10)
          .fill(i === 1 ? '*a' : `*l${i - 1}`)
          .join(', ')}]`,
      );
    }
    const started = Date.now();
    const err = errorOf(() => load(`${lines.join('\n')}\nservices: {}\n`));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err.problem).toBe('the YAML uses more than 1000 aliases');
  });

  test('a port range flood is bounded', () => {
    const ports = Array(20).fill('"1-65535"').join(', ');
    expect(errorOf(() => load(`services:\n  web: {image: x, ports: [${ports}]}\n`)).problem).toBe(
      'the service publishes more than 10000 ports',
    );
  });
});

describe('any input', () => {
  test('loads or throws a ComposeError, never anything else', () => {
    const names = [
      'image',
      'build',
      'ports',
      'expose',
      'volumes',
      'environment',
      'env_file',
      'depends_on',
      'deploy',
      'resources',
      'limits',
      'reservations',
      'devices',
      'healthcheck',
      'test',
      'command',
      'secrets',
      'configs',
      'networks',
      'labels',
      'ulimits',
      'extra_hosts',
      'tmpfs',
      'restart',
      'target',
      'published',
      'source',
      'type',
      'file',
      'external',
      'x-a',
      'db',
      'web',
    ];
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom(
        '80:80',
        '1-3',
        'db',
        '/data',
        './x:/y:ro',
        '${X:-1}',
        '1m',
        '512m',
        'CMD',
        'all',
        '0440',
        'service:db',
        '$',
      ),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.constantFrom(...names), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const doc = fc.record({
      services: fc.dictionary(
        fc.constantFrom('web', 'db'),
        fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 6 }),
        { maxKeys: 2 },
      ),
      volumes: fc.option(fc.dictionary(fc.constantFrom('data', 'db'), value, { maxKeys: 2 })),
      secrets: fc.option(fc.dictionary(fc.constantFrom('s', 'db'), value, { maxKeys: 2 })),
    });
    fc.assert(
      fc.property(doc, (d) => {
        try {
          load(stringify(d));
        } catch (err) {
          if (!isComposeError(err)) {
            throw err;
          }
        }
      }),
      { numRuns: 400, seed: 42 },
    );
  });
});
