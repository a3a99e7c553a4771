import { KeyNames, base64 } from '../../lib/app/key-names';

test('ConfigMap keys keep allowed text, replace other characters with _, and number repeats', () => {
  const keys = new KeyNames();
  expect(['app.ini', 'my file.txt', 'app.ini', 'app.ini'].map((t) => keys.key(t))).toEqual([
    'app.ini',
    'my_file.txt',
    'app.ini_2',
    'app.ini_3',
  ]);
});

test('volume names are DNS-1123 labels, with the prefix a sidecar gives them, numbered with a dash', () => {
  const names = new KeyNames(true);
  expect(['tmpfs-/run/cache', 'Data_Dir', 'data-dir', '///'].map((t) => names.key(t))).toEqual([
    'tmpfs-run-cache',
    'data-dir',
    'data-dir-2',
    'volume',
  ]);
  expect(new KeyNames(true, 'metrics').key('files')).toBe('metrics-files');
});

test('base64 of the UTF-8 bytes', () => {
  expect(base64('päss\n')).toBe(Buffer.from('päss\n', 'utf8').toString('base64'));
});
