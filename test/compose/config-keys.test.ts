import { checkConfigKey, configKeyOf } from '../../lib/compose/config-keys';

const AT = { file: 'compose.yaml', path: 'services.app.volumes[0]' };

describe('configKeyOf', () => {
  test('keeps a valid key, and writes _ for what a key cannot hold', () => {
    expect(configKeyOf('nginx.conf')).toBe('nginx.conf');
    expect(configKeyOf('sub/dir/file.pem')).toBe('sub_dir_file.pem');
    expect(configKeyOf('my file é.txt')).toBe('my_file__.txt');
  });
});

describe('checkConfigKey', () => {
  test.each(['a.conf', '.env', '.hidden/x', 'a..b', 'x'.repeat(253)])('accepts %s', (name) => {
    expect(() => checkConfigKey(name, 'bound file', `./conf/${name}`, AT)).not.toThrow();
  });

  test.each([
    ['..data', '"..data" starts with ".." (or is "."), which the kubelet keeps for its own links'],
    ['..2024_01_01/x', '"..2024_01_01_x" starts with ".." (or is "."), which the kubelet keeps for its own links'],
    ['x'.repeat(254), 'it is 254 characters long'],
  ])('refuses %s, naming the file', (name, why) => {
    expect(() => checkConfigKey(name, 'bound file', `./conf/${name}`, AT)).toThrow(
      `bound file "./conf/${name}" cannot be a ConfigMap or Secret key: ${why}`,
    );
  });
});
