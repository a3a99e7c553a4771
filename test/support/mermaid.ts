import * as fs from 'fs';
import * as path from 'path';

/**
 * Renders mermaid diagrams with mermaid-cli's own mermaid and puppeteer (the global install
 * scripts/install-tools.sh makes) in Debian's chromium: one browser, one page, `mermaid.render` once per diagram, as
 * `mmdc` calls it. `mmdc` itself opens a new page and loads mermaid again for every diagram of a markdown file, which
 * made the runbook test spend a minute and a half in chromium for 34 diagrams.
 */

/** What rendering one diagram gave: the SVG, or mermaid's error (a syntax error names the line). */
export interface DiagramRender {
  readonly svg?: string;
  readonly error?: string;
}

/** The folder of the mermaid-cli package that `mmdc` runs, or undefined when mmdc or chromium is missing. */
export function mermaidCliDir(): string | undefined {
  const mmdc = onPath('mmdc');
  if (!mmdc || !onPath('chromium')) {
    return undefined;
  }
  // mmdc is a link to <package>/src/cli.js.
  return path.dirname(path.dirname(fs.realpathSync(mmdc)));
}

function onPath(tool: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir) => path.join(dir, tool))
    .find((file) => fs.existsSync(file));
}

/**
 * Renders each diagram in one chromium page. `puppeteerConfig` is the JSON file mmdc takes with `-p` (the browser
 * to run and its arguments).
 */
export async function renderDiagrams(
  cliDir: string,
  puppeteerConfig: string,
  diagrams: readonly string[],
): Promise<DiagramRender[]> {
  const puppeteer = require(require.resolve('puppeteer', { paths: [cliDir] }));
  const mermaidPackage = require.resolve('mermaid/package.json', { paths: [cliDir] });
  const mermaidScript = path.join(path.dirname(mermaidPackage), 'dist', 'mermaid.min.js');
  const browser = await puppeteer.launch(JSON.parse(fs.readFileSync(puppeteerConfig, 'utf-8')));
  try {
    const page = await browser.newPage();
    // mmdc's own page: an empty #container.
    await page.goto(`file://${path.join(cliDir, 'dist', 'index.html')}`);
    await page.addScriptTag({ path: mermaidScript });
    return await page.evaluate(async (texts: readonly string[]) => {
      const mermaid = (globalThis as any).mermaid;
      mermaid.initialize({ startOnLoad: false });
      const container = (globalThis as any).document.getElementById('container');
      const results: DiagramRender[] = [];
      for (let i = 0; i < texts.length; i++) {
        try {
          results.push({ svg: (await mermaid.render(`diagram-${i}`, texts[i], container)).svg });
        } catch (e) {
          results.push({ error: e instanceof Error ? e.message : String(e) });
        }
      }
      return results;
    }, diagrams);
  } finally {
    await browser.close();
  }
}
