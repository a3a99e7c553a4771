import { parseDotenv } from '../../lib/compose/dotenv';
import { errorOf } from './helpers';

function values(text: string, env: Record<string, string> = {}): Record<string, string | undefined> {
  return Object.fromEntries(parseDotenv(text, '.env', (name) => env[name]).map((e) => [e.name, e.value]));
}

describe('parseDotenv', () => {
  test('reads NAME=value, export, comments, blank lines and YAML-style NAME: value', () => {
    expect(values('# comment\n\nA=1\nexport B=two\nC: three\n  D = spaced  \n')).toEqual({
      A: '1',
      B: 'two',
      C: 'three',
      D: 'spaced',
    });
  });

  test('strips inline comments only after whitespace', () => {
    expect(values('A=1 # note\nB=x#y\n')).toEqual({ A: '1', B: 'x#y' });
  });

  test('single quotes are literal, double quotes take escapes, both may span lines', () => {
    expect(values('A=\'$HOME \\n\'\nB="line1\\nline2 \\"q\\""\nC="multi\nline"\nD=after\n')).toEqual({
      A: '$HOME \\n',
      B: 'line1\nline2 "q"',
      C: 'multi\nline',
      D: 'after',
    });
  });

  test('interpolates from the environment first, then earlier entries', () => {
    expect(values('A=${A:-fallback}\nB=$A-b\nC=${SHELL_ONLY}\nD="${A}"\n', { SHELL_ONLY: 'sh' })).toEqual({
      A: 'fallback',
      B: 'fallback-b',
      C: 'sh',
      D: 'fallback',
    });
    expect(values('A=${A:-fallback}\n', { A: 'from-shell' })).toEqual({ A: 'from-shell' });
  });

  test('a bare NAME takes its value from the environment, or none', () => {
    expect(parseDotenv('SET\nUNSET\n', '.env', (name) => (name === 'SET' ? 'v' : undefined))).toEqual([
      { name: 'SET', value: 'v', line: 1 },
      { name: 'UNSET', value: undefined, line: 2 },
    ]);
  });

  test('keeps line numbers across multi-line values and CRLF', () => {
    expect(parseDotenv('A="x\ny"\r\nB=2\r\n', '.env').map((e) => [e.name, e.line])).toEqual([
      ['A', 1],
      ['B', 3],
    ]);
  });

  test('an unterminated quote names the file, line and variable but not the value', () => {
    const err = errorOf(() => parseDotenv('OK=1\nPASSWORD="hunter2\n', 'app.env'));
    expect(err.message).toBe(
      'app.env:2: unterminated double quote in the value of PASSWORD. ' +
        'Allowed: NAME=value lines, `export NAME=value`, quoted values, # comments and blank lines. ' +
        'Fix: close the quote with ".',
    );
    expect(err.message).not.toContain('hunter2');
  });

  test('an invalid name is an error', () => {
    expect(errorOf(() => parseDotenv('MY VAR=1\n', '.env')).problem).toBe('invalid variable name in env file');
  });

  test('a bad interpolation in a value never quotes the value', () => {
    const err = errorOf(() => parseDotenv('SECRET=abc${\n', 'app.env'));
    expect(err.problem).toBe('invalid interpolation');
    expect(err.message).not.toContain('abc');
    expect(err.path).toBe('SECRET');
  });
});
