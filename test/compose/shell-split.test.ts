import { shellSplit } from '../../lib/compose/shell-split';

describe('shellSplit', () => {
  test.each<[string, string[]]>([
    ['server --console-address ":9001" /data', ['server', '--console-address', ':9001', '/data']],
    ['  a   b\tc\n', ['a', 'b', 'c']],
    ['sh -c \'echo "$HOME"; exit 1\'', ['sh', '-c', 'echo "$HOME"; exit 1']],
    ['echo "a \\"b\\" \\\\ \\$x \\n"', ['echo', 'a "b" \\ $x \\n']],
    ['a\\ b c', ['a b', 'c']],
    ['pre"mid"\'post\'', ['premidpost']],
    ['""', ['']],
    ['', []],
    ['mysqld --character-set-server=utf8mb4', ['mysqld', '--character-set-server=utf8mb4']],
  ])('%j', (text, words) => {
    expect(shellSplit(text)).toEqual(words);
  });

  test.each(['"open', "'open", 'trailing\\'])('%j has unbalanced quoting', (text) => {
    expect(shellSplit(text)).toBeUndefined();
  });
});
