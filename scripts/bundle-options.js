'use strict';
// The esbuild options of the CLI's bundle (scripts/bundle-cli.js), which `npm run bench` bundles its floors with too
// (bench/run.ts), so that they start as the CLI does.
module.exports.CLI_BUNDLE_OPTIONS = Object.freeze({
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Without comments and indentation, and with shorter syntax, but every name kept (identifiers are not minified):
  // messages, stack traces and the source map stay as they were, and the file to read and compile is a third
  // smaller.
  minifyWhitespace: true,
  minifySyntax: true,
  // The licenses are written whole beside the bundle; the bundle itself carries none of the packages' comments.
  legalComments: 'none',
});
