import { ComposeError, formatWarning, isComposeError } from '../../lib/compose/errors';

describe('ComposeError', () => {
  test('names the file, line, key path and value, what is allowed and how to fix it', () => {
    const err = new ComposeError('invalid port', {
      at: { file: 'compose.yaml', path: 'services.web.ports[1]', line: 12, column: 7 },
      value: '80:abc',
      allowed: 'a port number 1-65535',
      hint: 'write the container port as a number, for example "8080:80"',
    });
    expect(err.message).toBe(
      'compose.yaml:12:7: services.web.ports[1]: invalid port (got "80:abc"). ' +
        'Allowed: a port number 1-65535. Fix: write the container port as a number, for example "8080:80".',
    );
    expect(err.path).toBe('services.web.ports[1]');
    expect(isComposeError(err)).toBe(true);
    expect(isComposeError(new TypeError('x'))).toBe(false);
  });

  test('shortens long values and leaves out what is unknown', () => {
    const err = new ComposeError('bad value', { at: { file: 'a.yml', path: 'x' }, value: 'y'.repeat(200) });
    expect(err.message).toMatch(/^a\.yml: x: bad value \(got "y+…\)\.$/);
    expect(err.message.length).toBeLessThan(120);
  });

  test('writes control characters from hostile input as escapes, so a message cannot drive the terminal', () => {
    const err = new ComposeError('unknown key "\u001b[2J\u009b\nx"', {
      at: { file: 'compose.yaml', path: 'services.\u0000' },
    });
    expect(err.message).toBe('compose.yaml: services.\\u0000: unknown key "\\u001b[2J\\u009b\\u000ax".');
    expect(err.problem).toBe('unknown key "\\u001b[2J\\u009b\\u000ax"');
    expect(formatWarning({ code: 'x', message: 'bell \u0007', at: { file: 'c.yaml', path: 'a' } })).toBe(
      'c.yaml: a: bell \\u0007',
    );
  });

  test('formats a warning as one line', () => {
    expect(
      formatWarning({ code: 'unsupported-key', message: 'ignored', at: { file: 'c.yaml', path: 'services.a.x' } }),
    ).toBe('c.yaml: services.a.x: ignored');
  });
});
