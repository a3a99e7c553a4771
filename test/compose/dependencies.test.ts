import { errorOf, load, web } from './helpers';

describe('depends_on, links and network_mode', () => {
  test.each([
    ['itself', 'services:\n  a: {image: x, depends_on: [a]}\n', 'compose.yaml:2:30: services.a.depends_on[0]', 'a → a'],
    [
      'three services',
      'services:\n  a: {image: x, depends_on: [b]}\n  b: {image: x, depends_on: [c]}\n  c: {image: x, depends_on: [a]}\n',
      'compose.yaml:4:30: services.c.depends_on[0]',
      'a → b → c → a',
    ],
    [
      'links and network_mode',
      'services:\n  a: {image: x, links: [b]}\n  b: {image: x, network_mode: "service:a"}\n',
      'compose.yaml:3:31: services.b.network_mode',
      'a → b → a',
    ],
  ])('a dependency cycle through %s is an error, as in compose', (_how, text, at, cycle) => {
    expect(errorOf(() => load(text)).message).toBe(
      `${at}: services depend on each other in a cycle: ${cycle}. ` +
        'Fix: remove one of these dependencies; compose refuses the cycle too.',
    );
  });

  test('a long dependency chain is no cycle and does not overflow the stack', () => {
    const text = `services:\n${Array.from({ length: 3000 }, (_, i) => `  s${i}: {image: x${i ? `, depends_on: [s${i - 1}]` : ''}}`).join('\n')}\n`;
    expect(load(text).model.services).toHaveLength(3000);
  });

  const two = (body: string): string =>
    `${web(body)}  db:\n    image: postgres:16\n    healthcheck: {test: [CMD, pg_isready]}\n`;

  test('map form keeps every field', () => {
    const { model } = load(two('depends_on:\n  db: {condition: service_healthy, restart: true, required: false}'));
    const web1 = model.services.find((s) => s.name === 'web')!;
    expect(web1.dependsOn).toEqual([
      {
        service: 'db',
        condition: 'service_healthy',
        required: false,
        restart: true,
        at: { file: 'compose.yaml', path: 'services.web.depends_on.db', line: 5, column: 11 },
      },
    ]);
    const list = load(two('depends_on: [db]')).model.services.find((s) => s.name === 'web')!;
    expect(list.dependsOn.map((d) => [d.service, d.condition, d.required, d.restart])).toEqual([
      ['db', 'service_started', true, false],
    ]);
  });

  test('links and network_mode service: add started dependencies', () => {
    const { model, warnings } = load(two('links: ["db:database"]'));
    expect(model.services.find((s) => s.name === 'web')!.dependsOn.map((d) => d.service)).toEqual(['db']);
    expect(warnings.map((w) => w.message)).toEqual([
      'ignored link alias "database": reach the service by its name "db"',
    ]);
    const shared = load(two('network_mode: service:db')).model.services.find((s) => s.name === 'web')!;
    expect(shared).toMatchObject({ networkMode: 'service:db', networks: [] });
    expect(shared.dependsOn.map((d) => d.service)).toEqual(['db']);
  });

  test('an unknown dependency is an error that lists the services', () => {
    expect(errorOf(() => load(two('depends_on: [dbb]'))).message).toBe(
      'compose.yaml:4:18: services.web.depends_on[0]: service "web" depends on undefined service "dbb". ' +
        'Allowed: one of the services: db. Fix: define service "dbb", or fix the name.',
    );
  });

  test('an optional dependency on an unknown service is left out with a warning', () => {
    const { model, warnings } = load(two('depends_on: {ghost: {condition: service_started, required: false}}'));
    expect(model.services.find((s) => s.name === 'web')!.dependsOn).toEqual([]);
    expect(warnings.map((w) => [w.code, w.message])).toEqual([
      ['missing-dependency', 'optional dependency "ghost" is not a service of the project; it is left out'],
    ]);
  });

  test('an invalid condition is an error', () => {
    expect(errorOf(() => load(two('depends_on: {db: {condition: healthy}}'))).problem).toBe(
      'invalid dependency condition',
    );
  });
});
