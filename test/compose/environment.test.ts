import { errorOf, load, makeProject, service, web } from './helpers';

const project = makeProject({
  'app.env': 'FROM_FILE=1\nSHARED=file\nexport QUOTED="a b"\nREF=${SHELL_VAR:-none}\n',
  'second.env': 'SHARED=second\n',
});
afterAll(() => project.cleanup());
const inProject = { projectDir: project.dir };

describe('environment and env_file', () => {
  test.each([
    ['environment: ["MY VAR=1"]', 'services.web.environment[0]', '4:19', '"MY VAR"'],
    ['environment: {"A=B": 1}', 'services.web.environment.A=B', '4:26', '"A=B"'],
    ['environment: ["=secret"]', 'services.web.environment[0]', '4:19', '""'],
    ['environment: ["1ABC=x"]', 'services.web.environment[0]', '4:19', '"1ABC"'],
    ['environment: ["\\u001b[2JA=1"]', 'services.web.environment[0]', '4:19', '"\\u001b[2JA"'],
  ])(
    'an environment variable name Kubernetes refuses is an error (%s), the value never quoted',
    (body, at, pos, name) => {
      expect(errorOf(() => load(web(body))).message).toBe(
        `compose.yaml:${pos}: ${at}: invalid environment variable name ${name}. ` +
          'Allowed: a letter or "_", then letters, digits, "_", "." and "-" (what Kubernetes accepts). ' +
          'Fix: rename the variable in the compose file and in the image that reads it.',
      );
    },
  );

  test('a value keeps its written text when it names variables, and the model the variables it read', () => {
    const env = { DBPASS: 'pw-1', HOST: 'db' };
    const list = load(
      web('environment:\n  - URL=mysql://u:${DBPASS}@${HOST}\n  - LITERAL=x\n  - HOST\n  - DEF=${NOPE:-d}'),
      {
        env,
      },
    );
    const byName = Object.fromEntries(list.model.services[0].environment.map((e) => [e.name, e]));
    expect(byName.URL).toMatchObject({ value: 'mysql://u:pw-1@db', written: 'mysql://u:${DBPASS}@${HOST}' });
    expect(byName.LITERAL.written).toBeUndefined();
    expect(byName.HOST).toMatchObject({ value: 'db', written: '${HOST}' });
    expect(byName.DEF).toMatchObject({ value: 'd', written: '${NOPE:-d}' });
    expect(list.model.variables).toEqual({ DBPASS: 'pw-1', HOST: 'db' });
    const map = service(web('environment:\n  PASS: ${DBPASS}'), { env });
    expect(map.environment[0]).toMatchObject({ value: 'pw-1', written: '${DBPASS}' });
  });

  test('list and map forms, null values from the environment, numbers and booleans as text', () => {
    const list = service(web('environment:\n  - A=1\n  - B=x=y\n  - FROM_SHELL\n  - UNSET'), {
      env: { FROM_SHELL: 'sh' },
    });
    expect(list.environment.map((e) => [e.name, e.value, e.origin])).toEqual([
      ['A', '1', 'environment'],
      ['B', 'x=y', 'environment'],
      ['FROM_SHELL', 'sh', 'environment'],
    ]);
    const map = service(web('environment:\n  NUM: 1\n  BOOL: true\n  EMPTY: ""\n  NULL:\n  Z: z'), {
      env: { NULL: 'n' },
    });
    expect(map.environment.map((e) => [e.name, e.value])).toEqual([
      ['BOOL', 'true'],
      ['EMPTY', ''],
      ['NULL', 'n'],
      ['NUM', '1'],
      ['Z', 'z'],
    ]);
  });

  test('a variable without a value that is not set is left out with a warning', () => {
    const { warnings } = load(web('environment: [UNSET]'));
    expect(warnings).toEqual([
      {
        code: 'unset-variable',
        message: 'environment variable UNSET has no value and is not set in the environment; it is left out',
        at: { file: 'compose.yaml', path: 'services.web.environment[0]', line: 4, column: 19 },
      },
    ]);
  });

  test('env_file as a string, a list and the long syntax; later files and environment win', () => {
    const svc = service(
      web(
        [
          'env_file:',
          '  - app.env',
          '  - path: ./second.env',
          '  - {path: optional.env, required: false}',
          'environment:',
          '  FROM_FILE: overridden',
        ].join('\n'),
      ),
      { ...inProject, env: { SHELL_VAR: 'shell' } },
    );
    expect(svc.environment.map((e) => [e.name, e.value, e.origin])).toEqual([
      ['FROM_FILE', 'overridden', 'environment'],
      ['QUOTED', 'a b', 'env_file'],
      ['REF', 'shell', 'env_file'],
      ['SHARED', 'second', 'env_file'],
    ]);
    expect(svc.environment[1].at.path).toBe('services.web.env_file[0]');
    expect(service(web('env_file: app.env'), inProject).environment.map((e) => e.name)).toEqual([
      'FROM_FILE',
      'QUOTED',
      'REF',
      'SHARED',
    ]);
  });

  test('a missing optional env_file is a warning', () => {
    const { warnings } = load(web('env_file: [{path: nope.env, required: false}]'), inProject);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['missing-env-file', 'optional env file "nope.env" not found; no variables read from it'],
    ]);
  });

  test('a missing required env_file is an error', () => {
    expect(errorOf(() => load(web('env_file: missing.env'), inProject)).message).toBe(
      'compose.yaml:4:15: services.web.env_file: env file "missing.env" not found. ' +
        'Fix: create missing.env, or mark it optional: env_file: [{path: missing.env, required: false}].',
    );
  });

  test('an env_file outside the project is refused unless allowed', () => {
    expect(errorOf(() => load(web('env_file: ../../etc/hostname'), inProject)).message).toBe(
      'compose.yaml:4:15: services.web.env_file: env file "../../etc/hostname" is outside the project folder and ' +
        'was not read. Allowed: a path inside the folder of the compose file. Fix: move the file into the project ' +
        'folder, or allow it with allowOutsideProject: true (CLI: --allow-outside-project).',
    );
    expect(
      errorOf(() => load(web('env_file: /nonexistent/x.env'), { ...inProject, allowOutsideProject: true })).problem,
    ).toBe('env file "/nonexistent/x.env" not found');
  });

  test('a wrong type in environment never quotes the value', () => {
    const err = errorOf(() => load(web('environment:\n  PASSWORD: [hunter2]')));
    expect(err.message).toBe(
      'compose.yaml:5:17: services.web.environment.PASSWORD: expected a string, number or ' + 'boolean, got a list.',
    );
  });
});
