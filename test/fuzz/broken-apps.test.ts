import * as fc from 'fast-check';
import { isComposeError } from '../../lib/compose/errors';
import { runBounded } from '../support/bounded';
import { GeneratedApp, composeText, validApp, writeProjectFiles } from './compose-arbitraries';
import { fuzzAssert, runsOf } from './fuzz-settings';
import { HANG_MS, migrate, scratchDir } from './fuzz-target';

/**
 * Random valid apps broken in one known place: the result is always a ComposeError whose key path points at the
 * broken key, whose message quotes no secret value; never another exception, never a hang.
 */

const project = scratchDir('broken-apps');
const outdir = scratchDir('broken-apps-out');
writeProjectFiles(project);

/** A secret value planted in the broken key itself: the message must not quote it. */
const PLANTED = 'planted-secret-Zm9vYmFyYmF6';

interface Breakage {
  readonly name: string;
  /** Breaks service `s` of the compose document in place; returns the key path the error must point at. */
  readonly apply: (compose: any, s: string) => string;
}

const BREAKAGES: readonly Breakage[] = [
  { name: 'a port that is not a number', apply: (c, s) => at(c, s, 'ports', (svc) => append(svc, 'ports', '80:http')) },
  { name: 'a port out of range', apply: (c, s) => at(c, s, 'ports', (svc) => append(svc, 'ports', '70000:80')) },
  {
    name: 'an expose entry that is a map',
    apply: (c, s) => at(c, s, 'expose', (svc) => append(svc, 'expose', { port: 80 })),
  },
  {
    name: 'a memory size in words',
    apply: (c, s) =>
      at(c, s, 'deploy.resources.limits.memory', (svc) => {
        svc.deploy = { resources: { limits: { memory: 'lots' } } };
      }),
  },
  {
    name: 'negative cpus',
    apply: (c, s) =>
      at(c, s, 'deploy.resources.limits.cpus', (svc) => {
        svc.deploy = { resources: { limits: { cpus: '-1' } } };
      }),
  },
  {
    name: 'a duration in words',
    apply: (c, s) =>
      at(c, s, 'healthcheck.interval', (svc) => {
        svc.healthcheck = { test: ['CMD', 'true'], interval: 'forever' };
      }),
  },
  {
    name: 'a dependency on an unknown service',
    apply: (c, s) =>
      at(c, s, 'depends_on', (svc) => {
        svc.depends_on = ['no-such-service'];
      }),
  },
  {
    name: 'a misspelt key',
    apply: (c, s) =>
      at(c, s, 'imagee', (svc) => {
        svc.imagee = 'nginx:1';
      }),
  },
  {
    name: 'an image that is a list',
    apply: (c, s) =>
      at(c, s, 'image', (svc) => {
        svc.image = ['nginx'];
      }),
  },
  {
    name: 'an environment value that is a map',
    apply: (c, s) =>
      at(c, s, 'environment', (svc) => {
        svc.environment = { API_KEY: { value: PLANTED } };
      }),
  },
  {
    name: 'an environment value that is a list',
    apply: (c, s) =>
      at(c, s, 'environment', (svc) => {
        svc.environment = { DB_PASSWORD: [PLANTED] };
      }),
  },
  {
    name: 'an undeclared network',
    apply: (c, s) =>
      at(c, s, 'networks', (svc) => {
        svc.networks = ['no-such-network'];
      }),
  },
  {
    name: 'an undeclared named volume',
    apply: (c, s) =>
      at(c, s, 'volumes', (svc) => {
        svc.volumes = ['no-such-volume:/data'];
      }),
  },
  {
    name: 'an undeclared secret',
    apply: (c, s) =>
      at(c, s, 'secrets', (svc) => {
        svc.secrets = ['no-such-secret'];
      }),
  },
  {
    name: 'a dependency on itself',
    apply: (c, s) =>
      at(c, s, 'depends_on', (svc) => {
        svc.depends_on = [s];
      }),
  },
  {
    name: 'an unknown restart policy',
    apply: (c, s) =>
      at(c, s, 'restart', (svc) => {
        svc.restart = 'sometimes';
      }),
  },
  {
    name: 'a required variable that is not set',
    apply: (c, s) =>
      at(c, s, 'command', (svc) => {
        svc.command = ['${NOT_SET_ANYWHERE:?set it}'];
      }),
  },
  {
    name: 'an unclosed interpolation',
    apply: (c, s) =>
      at(c, s, 'environment', (svc) => {
        svc.environment = { SMTP_PASSWORD: `${PLANTED}\${OOPS` };
      }),
  },
];

function append(service: any, key: string, value: unknown): void {
  service[key] = [...(service[key] ?? []), value];
}

/** Applies `change` to service `s` and returns the path under it that the error must name. */
function at(compose: any, s: string, key: string, change: (service: any) => void): string {
  change(compose.services[s]);
  return `services.${s}.${key}`;
}

test('a valid app broken in one place yields a ComposeError naming that place, quoting no secret', () => {
  const details = fuzzAssert(
    fc.property(validApp, fc.nat(), fc.constantFrom(...BREAKAGES), (app: GeneratedApp, pick, breakage) => {
      const compose = structuredClone(app.compose);
      const names = Object.keys(compose.services);
      const expected = breakage.apply(compose, names[pick % names.length]);
      const text = composeText({ ...app, compose });
      const outcome = runBounded(() => migrate(text, { projectDir: project, env: app.env }, outdir), HANG_MS);
      const context = `${breakage.name}\n--- compose.yaml\n${text}`;
      if (outcome.kind === 'timeout') {
        throw new Error(`no result within ${HANG_MS} ms: ${context}`);
      }
      if (outcome.kind === 'value') {
        throw new Error(`the broken app was accepted: ${context}`);
      }
      const err = outcome.error;
      if (!isComposeError(err)) {
        throw new Error(`threw ${err instanceof Error ? err.stack : String(err)}: ${context}`);
      }
      if (err.file !== 'compose.yaml' || !(err.path ?? '').startsWith(expected)) {
        throw new Error(`the error names ${err.file}: ${err.path}, not ${expected}: ${err.message}\n${context}`);
      }
      const leaked = [...app.secrets, PLANTED].filter((secret) => err.message.includes(secret));
      if (leaked.length > 0) {
        throw new Error(`the message quotes a secret value: ${err.message}\n${context}`);
      }
    }),
    runsOf('broken apps name the broken key'),
  );
  expect(details.numRuns).toBe(runsOf('broken apps name the broken key'));
});
