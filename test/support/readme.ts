import * as fs from 'fs';
import * as path from 'path';

/** The README's numbers, so the tests that compute them can hold the README to them. */

const README = path.resolve(__dirname, '../../README.md');

/** The text of a `## ` section of the README. */
export function readmeSection(title: string): string {
  const text = fs.readFileSync(README, 'utf8');
  const start = text.indexOf(`\n## ${title}\n`);
  if (start < 0) {
    throw new Error(`README.md has no "## ${title}" section`);
  }
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The number before `words` in the README's "What is checked" section (commas allowed: `1,097 documents`). */
export function readmeCount(words: string): number {
  const section = readmeSection('What is checked').replace(/\s+/g, ' ');
  const match = new RegExp(`(\\d[\\d,]*) ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).exec(section);
  if (!match) {
    throw new Error(`README.md, "What is checked": no number before "${words}"`);
  }
  return Number(match[1].replace(/,/g, ''));
}
