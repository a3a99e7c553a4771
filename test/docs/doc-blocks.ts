import * as fs from 'fs';
import * as path from 'path';
import { ROOT, documentationFiles } from '../../scripts/docs-generated';

/** One fenced code block of a documentation file. */
export interface DocBlock {
  readonly file: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
}

/** Every fenced code block of the README and the guides, in order. */
export function docBlocks(): DocBlock[] {
  const blocks: DocBlock[] = [];
  for (const file of documentationFiles()) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf-8').split('\n');
    let open: { fence: string; lang: string; line: number; body: string[] } | undefined;
    lines.forEach((text, index) => {
      const fence = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
      if (!open) {
        if (fence) {
          open = { fence: fence[1], lang: fence[2], line: index + 1, body: [] };
        }
      } else if (text.startsWith(open.fence) && text.trim() === text.trim().replace(/[^`~]/g, '')) {
        blocks.push({ file, line: open.line, lang: open.lang, code: open.body.join('\n') + '\n' });
        open = undefined;
      } else {
        open.body.push(text);
      }
    });
  }
  return blocks;
}

/** The links of a Markdown text: `[text](target)`, outside code blocks and code spans. */
export function markdownLinks(text: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      fence = fence === undefined ? f[1] : line.startsWith(fence) ? undefined : fence;
      return;
    }
    if (fence !== undefined) {
      return;
    }
    const plain = line.replace(/`[^`]*`/g, '');
    for (const m of plain.matchAll(/\]\(([^)\s]+)\)/g)) {
      links.push({ target: m[1], line: index + 1 });
    }
  });
  return links;
}

/** The anchors GitHub gives a Markdown file's headings. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const f = /^(`{3,}|~{3,})/.exec(line);
    if (f) {
      fence = fence === undefined ? f[1] : line.startsWith(fence) ? undefined : fence;
      continue;
    }
    const h = fence === undefined ? /^#{1,6} (.*)$/.exec(line) : null;
    if (h) {
      const slug = h[1]
        .trim()
        .toLowerCase()
        .replace(/[`*_~]/g, '')
        .replace(/[^\p{L}\p{N}\- ]/gu, '')
        .replace(/ /g, '-');
      let anchor = slug;
      for (let n = 1; anchors.has(anchor); n++) {
        anchor = `${slug}-${n}`;
      }
      anchors.add(anchor);
    }
  }
  return anchors;
}
