#!/usr/bin/env node
// `npm run compile` (and `prepare`) run this after tsc: the CLI's compiled modules (build/lib/cli/main.js and what it
// requires, cdk8s, cdk8s-plus-27, constructs and yaml included) as one file, build/bin/cdk8s-compose.js, which
// bin/cdk8s-compose loads. It is the same compiled code, bundled: Node then resolves and reads one file instead of
// about 250, which was a fifth of a small convert's CPU time. The source map leads back to build/lib/… for --debug;
// the licenses of the packages bundled go beside it (build/bin/THIRD-PARTY-LICENSES.txt).
'use strict';
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'build', 'bin');

const result = esbuild.buildSync({
  entryPoints: [path.join(ROOT, 'build', 'lib', 'cli', 'main.js')],
  outfile: path.join(OUT, 'cdk8s-compose.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  // The licenses are written whole below; the bundle itself carries none of the packages' comments.
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

/** The package folder (under node_modules) of each bundled input, sorted. */
const packages = [...new Set(Object.keys(result.metafile.inputs)
  .map((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input))
  .filter((match) => match !== null)
  .map((match) => match[1]))].sort();

const sections = packages.map((folder) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, folder, 'package.json'), 'utf-8'));
  const texts = fs.readdirSync(path.join(ROOT, folder))
    .filter((name) => /^(licen[cs]e|notice|copying)(\.(md|txt))?$/i.test(name))
    .sort()
    .map((name) => fs.readFileSync(path.join(ROOT, folder, name), 'utf-8').trim());
  if (texts.length === 0) {
    throw new Error(`bundle-cli: ${pkg.name} has no LICENSE file; its license (${pkg.license}) must be reproduced by hand`);
  }
  return `${pkg.name}@${pkg.version} (${pkg.license})\n\n${texts.join('\n\n')}\n`;
});
fs.writeFileSync(path.join(OUT, 'THIRD-PARTY-LICENSES.txt'),
  `The CLI bundle (build/bin/cdk8s-compose.js) includes these packages, under their own licenses:\n\n${sections.join(`\n${'-'.repeat(80)}\n\n`)}`);
