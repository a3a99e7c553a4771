import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ComposeError, isComposeError } from '../../lib/compose/errors';
import { loadComposeFromString, LoadComposeFromStringOptions, LoadResult } from '../../lib/compose/load';
import { ComposeService } from '../../lib/compose/model';

/** A temporary project folder with the given files; removed by the returned cleanup. */
export function makeProject(files: Record<string, string> = {}): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'compose-test-')));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A project folder that does not exist, so no stray `.env` or file of the machine is read. */
const NO_PROJECT = path.join(os.tmpdir(), `compose-test-none-${process.pid}`);

/** Loads compose text with an empty environment (tests never depend on the machine's variables). */
export function load(text: string, options: LoadComposeFromStringOptions = {}): LoadResult {
  return loadComposeFromString(text, { env: {}, projectDir: NO_PROJECT, ...options });
}

/** The one service of a loaded text. */
export function service(text: string, options: LoadComposeFromStringOptions = {}): ComposeService {
  const { model } = load(text, options);
  expect(model.services).toHaveLength(1);
  return model.services[0];
}

/** The `ComposeError` a call throws (fails the test when it throws anything else or nothing). */
export function errorOf(fn: () => unknown): ComposeError {
  try {
    fn();
  } catch (err) {
    if (isComposeError(err)) {
      return err;
    }
    throw err;
  }
  throw new Error('expected a ComposeError');
}

/** Indents a block of YAML under `services.web` with the given image. */
export function web(body: string, image = 'nginx:1.25'): string {
  const lines = body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `    ${l}`);
  return ['services:', '  web:', `    image: ${image}`, ...lines, ''].join('\n');
}
