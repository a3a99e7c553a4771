import * as fs from 'fs';
import * as path from 'path';

/** The guides' numbers and sections, so the tests that compute them can hold the documentation to them. */

const ROOT = path.resolve(__dirname, '../..');

/** The text of a documentation file (`README.md`, `docs/cli.md`, …). */
export function docText(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** The text of a `# ` or `## ` section of a documentation file, up to the next heading of the same level. */
export function docSection(file: string, title: string): string {
  const text = `\n${docText(file)}`;
  for (const level of ['#', '##']) {
    const start = text.indexOf(`\n${level} ${title}\n`);
    if (start >= 0) {
      const end = text.indexOf(`\n${level} `, start + 1);
      return text.slice(start, end < 0 ? undefined : end);
    }
  }
  throw new Error(`${file} has no "# ${title}" or "## ${title}" section`);
}

/** The number before `words` in docs/testing.md ("What is checked"; commas allowed: `1,097 documents`). */
export function readmeCount(words: string): number {
  const section = docText('docs/testing.md').replace(/\s+/g, ' ');
  const match = new RegExp(`(\\d[\\d,]*) ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).exec(section);
  if (!match) {
    throw new Error(`docs/testing.md: no number before "${words}"`);
  }
  return Number(match[1].replace(/,/g, ''));
}
