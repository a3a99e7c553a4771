import { argvWithSecretVariables, healthcheckWithSecretVariables } from '../../lib/app/secret-references';
import { Healthcheck } from '../../lib/compose/model';

const SECRETS = [
  { value: 'pa$$word-1', variable: 'DB_PASSWORD' },
  { value: 'pa$$word-1-long', variable: 'LONG' },
];
const at = { file: 'compose.yaml', path: 'services.db.healthcheck' };
const shell = (script: string): Healthcheck => ({ disabled: false, test: { kind: 'shell', command: [script] }, at });

test('command and args: each secret becomes $(VAR), the longest first', () => {
  const used = new Set<string>();
  expect(argvWithSecretVariables(['--password=pa$$word-1', 'pa$$word-1-long', 'plain'], SECRETS, used)).toEqual([
    '--password=$(DB_PASSWORD)',
    '$(LONG)',
    'plain',
  ]);
  expect([...used].sort()).toEqual(['DB_PASSWORD', 'LONG']);
});

test('a shell healthcheck reads the variable, quoted for where the secret stands', () => {
  const used = new Set<string>();
  const script = (text: string) => healthcheckWithSecretVariables(shell(text), SECRETS, used)!.test!.command[0];
  expect(script('check -p pa$$word-1')).toBe('check -p "${DB_PASSWORD}"');
  expect(script('check -p "x pa$$word-1 y"')).toBe('check -p "x ${DB_PASSWORD} y"');
  expect(script("check -p 'x pa$$word-1 y'")).toBe("check -p 'x '\"${DB_PASSWORD}\"' y'");
  expect(script('echo "it\'s" && check pa$$word-1')).toBe('echo "it\'s" && check "${DB_PASSWORD}"');
  expect(healthcheckWithSecretVariables(shell('check -p other'), SECRETS, used)).toBeUndefined();
});

test('an exec healthcheck becomes a shell script of single-quoted words', () => {
  const used = new Set<string>();
  const exec: Healthcheck = {
    disabled: false,
    test: { kind: 'exec', command: ['mysqladmin', 'ping', "-u'root'", '-ppa$$word-1'] },
    at,
  };
  expect(healthcheckWithSecretVariables(exec, SECRETS, used)!.test).toEqual({
    kind: 'shell',
    command: ["'mysqladmin' 'ping' '-u'\\''root'\\''' '-p'\"${DB_PASSWORD}\""],
  });
});
