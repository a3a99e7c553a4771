import * as fs from 'fs';
import * as path from 'path';
import { loadComposeFromString } from '../../lib/compose/load';
import { CORPUS, CORPUS_DIRS, corpusLoadOptions } from '../support/outputs';
import { permuteCompose } from './permute';

/**
 * The reordering that the determinism test applies (test/conformance/every-output): it keeps a file as it is when
 * nothing moves, really moves entries, and keeps what the file means, so the converter's output must not change.
 */

const texts = CORPUS_DIRS.map((dir) => [dir, fs.readFileSync(path.join(CORPUS, dir, 'compose.yaml'), 'utf8')] as const);

/**
 * The model as JSON, without locations (they move with the text) and `x-` extensions (opaque to compose: a list in
 * one is kept as written, though services that merge it read it as a set).
 */
function meaning(dir: string, text: string): string {
  const { workingDir, ...options } = corpusLoadOptions(dir);
  const { model } = loadComposeFromString(text, { ...options, projectDir: workingDir });
  return JSON.stringify(model, (key, value) => (key === 'at' || key === 'extensions' ? undefined : value));
}

function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

test('keeps every corpus file as it is when nothing moves (a final newline aside)', () => {
  for (const [, text] of texts) {
    expect(permuteCompose(text, () => 0)).toBe(text.endsWith('\n') ? text : `${text}\n`);
  }
});

test('moves entries of every corpus file, and the file means the same', () => {
  for (const [dir, text] of texts) {
    const permuted = permuteCompose(text, seeded(6));
    expect(`${dir}: ${permuted !== text}`).toBe(`${dir}: true`);
    expect(meaning(dir, permuted)).toBe(meaning(dir, text));
  }
});

test("reorders the services, a service's keys and its unordered lists, and keeps ordered lists", () => {
  const text = [
    'services:',
    '  web:',
    '    image: nginx:1',
    '    command: [a, b]',
    '    ports:',
    '      - "80:80"',
    '      - "443:443"',
    '    entrypoint:',
    '      - first',
    '      - second',
    '  db:',
    '    image: postgres:16',
    '',
  ].join('\n');
  const reversed = permuteCompose(text, (n) => n - 1);
  expect(reversed).toBe(
    [
      'services:',
      '  db:',
      '    image: postgres:16',
      '  web:',
      '    entrypoint:',
      '      - first',
      '      - second',
      '    ports:',
      '      - "443:443"',
      '      - "80:80"',
      '    command: [a, b]',
      '    image: nginx:1',
      '',
    ].join('\n'),
  );
});
