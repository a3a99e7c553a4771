import { errorOf, service, web } from './helpers';

describe('healthcheck', () => {
  test.each<[string, unknown]>([
    ['{test: [CMD, curl, -f, http://localhost/]}', { kind: 'exec', command: ['curl', '-f', 'http://localhost/'] }],
    [
      '{test: [CMD-SHELL, "curl -f http://localhost/ || exit 1"]}',
      { kind: 'shell', command: ['curl -f http://localhost/ || exit 1'] },
    ],
    ['{test: "pg_isready -U $$USER"}', { kind: 'shell', command: ['pg_isready -U $USER'] }],
  ])('%s', (body, test) => {
    expect(service(web(`healthcheck: ${body}`)).healthcheck?.test).toEqual(test);
  });

  test('timings in every unit, retries and start_interval', () => {
    expect(
      service(
        web(
          'healthcheck:\n  test: [CMD, true]\n  interval: 1m30s\n  timeout: 500ms\n  retries: 3\n' +
            '  start_period: 1h\n  start_interval: 5s',
        ),
      ).healthcheck,
    ).toEqual({
      disabled: false,
      test: { kind: 'exec', command: ['true'] },
      intervalSeconds: 90,
      timeoutSeconds: 0.5,
      retries: 3,
      startPeriodSeconds: 3600,
      startIntervalSeconds: 5,
      at: { file: 'compose.yaml', path: 'services.web.healthcheck', line: 5, column: 7 },
    });
  });

  test("NONE and disable turn it off; timings alone keep the image's test", () => {
    expect(service(web('healthcheck: {test: [NONE]}')).healthcheck).toMatchObject({ disabled: true });
    expect(service(web('healthcheck: {disable: true}')).healthcheck?.disabled).toBe(true);
    expect(service(web('healthcheck: {interval: 10s}')).healthcheck).not.toHaveProperty('test');
  });

  test.each([
    ['{test: [RUN, x]}', 'invalid healthcheck test'],
    ['{interval: 10}', 'invalid duration'],
    ['{interval: 1x}', 'invalid duration'],
    ['{retries: many}', 'expected an integer, got a string'],
  ])('%s is refused: %s', (body, problem) => {
    expect(errorOf(() => service(web(`healthcheck: ${body}`))).problem).toBe(problem);
  });
});
