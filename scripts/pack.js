#!/usr/bin/env node
// `npm run package`: the tarball users install, packed from a staging copy whose package.json carries nothing that
// only this repository uses: no `scripts` (npm would otherwise see the dev-only `prepare`, which compiles from
// sources the tarball does not hold, and warn about it on install) and no `devDependencies`. The files are the ones
// `npm pack` takes from here (the `files` field), byte for byte, modes kept. The repository's own package.json is not
// touched, so `npm ci` in a clone still runs `prepare`.
//
// Usage: node scripts/pack.js [--pack-destination DIR] [--json]; `--refuse-publish` (prepublishOnly) only fails.
// Prints what `npm pack` prints (its JSON report with --json). Publish the tarball it writes: `npm publish FILE.tgz`.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
/** The keys of package.json that only matter in this repository. */
const DEV_ONLY_KEYS = ['scripts', 'devDependencies'];

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const options = { destination: ROOT, json: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--refuse-publish') {
      // `prepublishOnly`: `npm publish` from the folder would ship this package.json, scripts and all.
      fail(
        'publish the tarball that `npm run package` writes (`npm publish cdk8s-compose-VERSION.tgz`), not the folder',
      );
    } else if (argv[i] === '--json') {
      options.json = true;
    } else if (argv[i] === '--pack-destination' && i + 1 < argv.length) {
      options.destination = path.resolve(argv[++i]);
    } else {
      fail(`unknown argument "${argv[i]}". Allowed: --pack-destination DIR, --json`);
    }
  }
  return options;
}

/** The package.json users get: this one without its dev-only keys, in the same key order. */
function strippedManifest() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf-8'));
  for (const key of DEV_ONLY_KEYS) {
    delete manifest[key];
  }
  return manifest;
}

/** The files `npm pack` takes from the repository (without running any script). */
function packedFiles() {
  const report = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf-8' }),
  );
  return report[0].files.map((f) => f.path);
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'build', 'lib', 'index.js'))) {
    fail('build/ is missing: run `npm run compile` first');
  }
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-compose-pack-'));
  try {
    for (const file of packedFiles()) {
      if (file === 'package.json') {
        continue;
      }
      const from = path.join(ROOT, file);
      const to = path.join(stage, file);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      fs.chmodSync(to, fs.statSync(from).mode & 0o777);
    }
    fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(strippedManifest(), null, 2)}\n`);
    fs.mkdirSync(options.destination, { recursive: true });
    const args = ['pack', '--ignore-scripts', '--pack-destination', options.destination];
    process.stdout.write(
      execFileSync('npm', options.json ? [...args, '--json'] : args, { cwd: stage, encoding: 'utf-8' }),
    );
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

main();
