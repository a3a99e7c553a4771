import { errorOf, load, makeProject, service, web } from './helpers';

const project = makeProject({
  'secret.txt': 's3cr3t',
  'config.txt': 'setting=1\n',
  'a/dir/.keep': '',
});
afterAll(() => project.cleanup());
const inProject = { projectDir: project.dir };

describe('secrets and configs', () => {
  const files = [
    'secrets:',
    '  file_secret: {file: ./secret.txt}',
    '  env_secret: {environment: TOKEN}',
    '  ext_secret: {external: true, name: prod-token}',
    '  outside: {file: /etc/hostname}',
    'configs:',
    '  file_config: {file: config.txt}',
    '  inline: {content: "port=${PORT:-80}"}',
    '  ext_config: {external: true}',
    '',
  ].join('\n');

  test('top-level sources: file, environment, content, external, outside', () => {
    const { model } = load(`services: {}\n${files}`, { ...inProject, env: { TOKEN: 'tok' } });
    expect(model.secrets.map((s) => [s.name, s.source])).toEqual([
      [
        'env_secret',
        { kind: 'environment', variable: 'TOKEN', content: { path: 'env_secret', text: 'tok', binary: false } },
      ],
      ['ext_secret', { kind: 'external', externalName: 'prod-token' }],
      ['file_secret', { kind: 'file', content: { path: './secret.txt', text: 's3cr3t', binary: false } }],
      ['outside', { kind: 'outside', path: '/etc/hostname' }],
    ]);
    expect(model.configs.map((c) => [c.name, c.source])).toEqual([
      ['ext_config', { kind: 'external', externalName: 'ext_config' }],
      ['file_config', { kind: 'file', content: { path: 'config.txt', text: 'setting=1\n', binary: false } }],
      ['inline', { kind: 'content', content: { path: 'inline', text: 'port=80', binary: false } }],
    ]);
  });

  test('secrets and configs that name the same file each get its content, under the path each wrote', () => {
    const { model } = load(
      'services: {}\nsecrets:\n  a: {file: ./secret.txt}\n  b: {file: secret.txt}\n' +
        'configs:\n  c: {file: ./secret.txt}\n',
      inProject,
    );
    expect(model.secrets.map((s) => [s.name, s.source])).toEqual([
      ['a', { kind: 'file', content: { path: './secret.txt', text: 's3cr3t', binary: false } }],
      ['b', { kind: 'file', content: { path: 'secret.txt', text: 's3cr3t', binary: false } }],
    ]);
    expect(model.configs.map((c) => [c.name, c.source])).toEqual([
      // A config is marked when its name says it is secret: the app keeps it in a Secret.
      [
        'c',
        {
          kind: 'file',
          content: { path: './secret.txt', text: 's3cr3t', binary: false, secret: 'a secret file (named *secret*)' },
        },
      ],
    ]);
  });

  test('service references: short and long syntax, targets made absolute, octal modes', () => {
    const svc = service(
      `${web(
        [
          'secrets:',
          '  - file_secret',
          '  - {source: env_secret, target: token, uid: "103", gid: 103, mode: 0440}',
          'configs:',
          '  - file_config',
          '  - {source: inline, target: etc/app.conf, mode: "0644"}',
        ].join('\n'),
      )}${files}`,
      { ...inProject, env: { TOKEN: 'tok' } },
    );
    expect(svc.secrets.map((s) => ({ ...s, at: undefined }))).toEqual([
      { source: 'env_secret', target: '/run/secrets/token', uid: '103', gid: '103', mode: 0o440, at: undefined },
      { source: 'file_secret', target: '/run/secrets/file_secret', at: undefined },
    ]);
    expect(svc.configs.map((c) => [c.source, c.target, c.mode])).toEqual([
      ['file_config', '/file_config', undefined],
      ['inline', '/etc/app.conf', 0o644],
    ]);
  });

  test('an unset environment source is an error that does not quote any value', () => {
    expect(errorOf(() => load(`services: {}\n${files}`, inProject)).message).toBe(
      'compose.yaml:4:29: secrets.env_secret.environment: secret "env_secret" comes from environment variable TOKEN, ' +
        'which is not set (got "TOKEN"). Fix: set TOKEN in the environment or in the .env file.',
    );
  });

  test.each([
    ['secrets:\n  s: {file: missing.txt}', 'secret file "missing.txt" not found'],
    ['secrets:\n  s: {file: a/dir}', 'secret file "a/dir" is a directory'],
    ['secrets:\n  s: {name: x}', 'secret "s" has no source'],
    ['secrets:\n  s: {file: secret.txt, environment: X}', 'secret "s" has more than one source (file, environment)'],
    ['configs:\n  c: {}', 'config "c" has no source'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => load(`services: {}\n${body}\n`, inProject)).problem).toBe(problem);
  });

  test('a name on a secret that is not external is ignored with a warning', () => {
    const { warnings } = load('services: {}\nsecrets:\n  s: {file: secret.txt, name: platform-name}\n', inProject);
    expect(warnings.map((w) => [w.code, w.message, w.at.path])).toEqual([
      ['unsupported-key', 'ignored key "name": the secret is named after its key', 'secrets.s.name'],
    ]);
  });

  test('a service using an undeclared secret is an error', () => {
    expect(errorOf(() => load(web('secrets: [nope]'))).problem).toBe(
      'the service uses secret "nope", which is not declared under the top-level secrets',
    );
  });
});
