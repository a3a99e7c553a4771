#!/usr/bin/env node
// `npm run compile` (and `prepare`) run this after tsc: the CLI's compiled modules (build/lib/cli/main.js and what it
// requires, cdk8s, cdk8s-plus-27, constructs and yaml included) as one file, build/bin/cdk8s-compose.js, which
// bin/cdk8s-compose loads. It is the same compiled code, bundled: Node then resolves and reads one file instead of
// about 250, which was a fifth of a small convert's CPU time. The source map leads back to build/lib/… for --debug;
// the licenses of the packages bundled go beside it (build/bin/THIRD-PARTY-LICENSES.txt). Then V8's code cache of the
// bundle (build/bin/cdk8s-compose.js.cache), made by a conversion of a small app in a child process, so that it holds
// the functions a conversion compiles; bin/cdk8s-compose uses it when it matches the bundle and the Node version.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const esbuild = require('esbuild');
const { CLI_BUNDLE_OPTIONS } = require('./bundle-options');

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'build', 'bin');
const BUNDLE = path.join(OUT, 'cdk8s-compose.js');

/**
 * esbuild escapes the non-ASCII characters of strings, templates and identifiers, not those of regular expression
 * literals; one such character makes V8 hold the whole bundle as a two-byte string, twice the memory to decode, hash
 * and compile. In a regular expression `\\uXXXX` means the same character (a pair of them, the same code point), so
 * they are written so in the compiled modules before bundling; any other non-ASCII character fails the build below.
 */
const asciiRegExps = {
  name: 'ascii-regexps',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf-8');
      if (!/[^\0-\x7f]/.test(text)) {
        return undefined;
      }
      // A regular expression literal (after a character that cannot end an operand) holding non-ASCII characters.
      const literal =
        /([(,=:[!&|?;{}]\s*|^\s*)\/((?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])*[^\0-\x7f](?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n[])*)\/([dgimsuvy]*)/gm;
      const contents = text.replace(literal, (_, before, body, flags) => {
        // An escaped character (`\µ`) is left as it is, and fails the build below.
        const escaped = body.replace(/\\[^]|[^\0-\x7f]/g, (c) =>
          c.length === 2 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        return `${before}/${escaped}/${flags}`;
      });
      return { contents, loader: 'js' };
    });
  },
};

/** Writes a file by renaming a complete copy over it. */
function writeWhole(file, contents) {
  const staged = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(staged, contents);
  fs.renameSync(staged, file);
}

async function bundle() {
  const result = await esbuild.build({
    ...CLI_BUNDLE_OPTIONS,
    entryPoints: [path.join(ROOT, 'build', 'lib', 'cli', 'main.js')],
    outfile: BUNDLE,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [asciiRegExps],
    // Written below, each file whole: a CLI started meanwhile (say by a test beside `npm pack`'s prepare) reads the
    // old bundle or the new one, never half of one.
    write: false,
  });
  fs.mkdirSync(OUT, { recursive: true });
  for (const file of result.outputFiles) {
    writeWhole(file.path, file.contents);
  }
  const nonAscii = /[^\0-\x7f]/.exec(fs.readFileSync(BUNDLE, 'utf-8'));
  if (nonAscii !== null) {
    throw new Error(
      `bundle-cli: the bundle holds a non-ASCII character (${JSON.stringify(nonAscii[0])} at offset ${nonAscii.index}) ` +
        'that esbuild did not escape: escape it in its source',
    );
  }
  return result;
}

/** build/bin/THIRD-PARTY-LICENSES.txt: the license texts of the packages bundled. */
function writeLicenses(result) {
  /** The package folder (under node_modules) of each bundled input, sorted. */
  const packages = [
    ...new Set(
      Object.keys(result.metafile.inputs)
        .map((input) => /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input))
        .filter((match) => match !== null)
        .map((match) => match[1]),
    ),
  ].sort();

  const sections = packages.map((folder) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, folder, 'package.json'), 'utf-8'));
    const texts = fs
      .readdirSync(path.join(ROOT, folder))
      .filter((name) => /^(licen[cs]e|notice|copying)(\.(md|txt))?$/i.test(name))
      .sort()
      .map((name) => fs.readFileSync(path.join(ROOT, folder, name), 'utf-8').trim());
    if (texts.length === 0) {
      throw new Error(
        `bundle-cli: ${pkg.name} has no LICENSE file; its license (${pkg.license}) must be reproduced by hand`,
      );
    }
    return `${pkg.name}@${pkg.version} (${pkg.license})\n\n${texts.join('\n\n')}\n`;
  });
  fs.writeFileSync(
    path.join(OUT, 'THIRD-PARTY-LICENSES.txt'),
    `The CLI bundle (build/bin/cdk8s-compose.js) includes these packages, under their own licenses:\n\n${sections.join(`\n${'-'.repeat(80)}\n\n`)}`,
  );
}

/** A small app of each kind of service the converter makes: a web front end, an API, a worker, a job, a database. */
const TRAINING_APP = `name: shop
services:
  web:
    image: nginx:1.27.2
    ports: ["8080:80"]
    depends_on: [api]
    healthcheck: { test: ["CMD", "curl", "-f", "http://localhost/"], interval: 10s }
  api:
    image: ghcr.io/example/api:1.0
    expose: ["8000"]
    environment: { DATABASE_URL: "postgresql://shop:\${DB_PASSWORD:-pw-4d2a91}@db:5432/shop", LOG_LEVEL: info }
    depends_on: { db: { condition: service_healthy } }
    networks: [frontend, backend]
  worker:
    image: ghcr.io/example/worker:1.0
    volumes: ["reports:/reports"]
    depends_on: [db]
    networks: [backend]
  migrate:
    image: ghcr.io/example/api:1.0
    command: ["migrate"]
    restart: "no"
    depends_on: [db]
    networks: [backend]
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: "\${DB_PASSWORD:-pw-4d2a91}" }
    volumes: ["db-data:/var/lib/postgresql/data"]
    healthcheck: { test: ["CMD", "pg_isready"], interval: 5s }
    networks: [backend]
networks: { frontend: {}, backend: {} }
volumes: { db-data: {}, reports: {} }
`;

/** V8's code cache of the bundle, made by a conversion of {@link TRAINING_APP} in a child process. */
function writeCodeCache() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-bundle-'));
  try {
    fs.writeFileSync(path.join(scratch, 'compose.yaml'), TRAINING_APP);
    const trainer = `
      const fs = require('fs');
      const { load, CACHE } = require(${JSON.stringify(path.join(ROOT, 'bin', 'cdk8s-compose'))});
      const bundle = load();
      const io = { cwd: process.cwd(), env: {}, stdout: () => undefined, stderr: () => undefined };
      const code = bundle.exports.main(['convert', '-o', 'k8s'], io);
      if (code !== 0) {
        throw new Error('the conversion of the training app failed with exit code ' + code);
      }
      const staged = CACHE + '.' + process.pid + '.tmp';
      fs.writeFileSync(staged, bundle.codeCache());
      fs.renameSync(staged, CACHE);
    `;
    execFileSync(process.execPath, ['-e', trainer], { cwd: scratch, stdio: ['ignore', 'inherit', 'inherit'] });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// An error fails the build with its stack, as a throw at the top level would.
bundle().then((result) => {
  writeLicenses(result);
  writeCodeCache();
});
