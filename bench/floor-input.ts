import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { KindCounts, Manifest } from './stack-floor';

/**
 * What the floors take from one conversion: every document of every YAML file `convert` wrote into `dir`, but the
 * kustomizations (kustomize's own files, not objects of the app), in the order of the sorted paths.
 */
export function convertedManifests(dir: string): Manifest[] {
  const manifests: Manifest[] = [];
  const visit = (folder: string) => {
    const entries = fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        visit(file);
      } else if (entry.name.endsWith('.yaml') && entry.name !== 'kustomization.yaml') {
        for (const doc of parseAllDocuments(fs.readFileSync(file, 'utf-8'))) {
          manifests.push(doc.toJS() as Manifest);
        }
      }
    }
  };
  visit(dir);
  return manifests;
}

/** How many manifests there are of each kind, by kind name. */
export function kindCounts(manifests: readonly Manifest[]): KindCounts {
  const counts: Record<string, number> = {};
  for (const { kind } of manifests) {
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}
