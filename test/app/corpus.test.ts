import * as fs from 'fs';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { ComposeApp, ComposeAppProps } from '../../lib/app/compose-app';
import { ServiceTarget } from '../../lib/app/settings';
import { VerifyCheck, VerifyExpectation, VerifyStatus } from '../../lib/app/verify/verify';
import { isComposeError } from '../../lib/compose/errors';
import { loadCompose } from '../../lib/compose/load';
import { checkManifests } from '../support/checks';
import { Manifest } from '../support/problems';
import { readmeCount } from '../support/readme';
import { CORPUS_DIR as CORPUS } from '../support/shared';

/**
 * Every file of the shared corpus through the loader and ComposeApp, with its output checked by the schema
 * validator, the Kubernetes rules and the safety rules. The table records each file's outcome: the objects made and
 * the construct's own findings, or the error and why.
 */

const DIRS = fs
  .readdirSync(CORPUS)
  .filter((d) => fs.statSync(path.join(CORPUS, d)).isDirectory())
  .sort();
const ENV = { PATH: '/usr/bin:/bin' };

/**
 * Outcome per file: `<n> objects; <kinds>; findings: <code>×<n>`, or `error: <message>`. "weak" counts secret values
 * that are also part of a project, service or image name (airflow's password "airflow"): they cannot be kept out of
 * the output, the app reports them as `weak-secret`, and the leak scan skips them.
 */
const EXPECTED: Readonly<Record<string, string>> = {
  'airflow':
    '62 objects (ConfigMap×6, CronJob×1, Deployment×7, Ingress×1, Job×1, Namespace×1, NetworkPolicy×11, PersistentVolumeClaim×6, ResourceQuota×1, Role×5, RoleBinding×5, Secret×8, Service×4, ServiceAccount×5); weak secrets: 1; findings: empty-secret×6, engine-default×2, inferred-port×1, placeholder-host×1, shared-volume×4, weak-secret×2',
  'aspnet-mssql':
    '13 objects (ConfigMap×1, Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Secret×1, Service×2); weak secrets: 0; findings: inferred-port×1, placeholder-host×1, secret-reference×1',
  'casaos-unifi-network-application':
    '19 objects (ConfigMap×1, CronJob×1, Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×5, PersistentVolumeClaim×2, ResourceQuota×1, Secret×2, Service×3); weak secrets: 0; findings: database-port-internal×1, directory-bind×1, engine-default×1, file-holds-secret×1, host-path×1, placeholder-host×1',
  'compose-bridge-e2e':
    '14 objects (ConfigMap×1, Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Secret×1, Service×3); weak secrets: 0; findings: placeholder-host×1',
  'elasticsearch-logstash-kibana':
    '20 objects (ConfigMap×2, Deployment×3, Namespace×1, NetworkPolicy×5, PersistentVolumeClaim×2, ResourceQuota×1, Service×6); weak secrets: 0; findings: none',
  'fastapi':
    '9 objects (ConfigMap×1, Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×2); weak secrets: 0; findings: unsupported-key×1',
  'gitea-postgres':
    '20 objects (ConfigMap×1, CronJob×1, Deployment×2, Namespace×1, NetworkPolicy×5, PersistentVolumeClaim×3, ResourceQuota×1, Secret×3, Service×3); weak secrets: 1; findings: copy-up×1, engine-default×1, weak-secret×2',
  'kompose-cronjob':
    '6 objects (CronJob×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1); weak secrets: 0; findings: none',
  'kompose-envfile-interpolation':
    '9 objects (ConfigMap×1, Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×2); weak secrets: 0; findings: unsupported-key×1',
  'kompose-healthcheck':
    '19 objects (Deployment×4, Namespace×1, NetworkPolicy×6, PersistentVolumeClaim×2, ResourceQuota×1, Service×5); weak secrets: 0; findings: database-port-internal×3, engine-default×3, unsupported-label×2',
  'kompose-host-port-protocol':
    '8 objects (Deployment×1, Ingress×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×1); weak secrets: 0; findings: placeholder-host×1, unsupported-label×1',
  'kompose-hpa':
    '8 objects (Deployment×1, HorizontalPodAutoscaler×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×1); weak secrets: 0; findings: inferred-port×1',
  'kompose-secrets-long':
    '8 objects (Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Secret×1, Service×1); weak secrets: 0; findings: engine-default×1, unsupported-key×1',
  'kompose-v2':
    '14 objects (ConfigMap×1, Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Service×4); weak secrets: 0; findings: engine-default×1, local-only-port×12, placeholder-host×1, unsupported-key×1',
  'mailcow':
    '174 objects (ConfigMap×15, CronJob×2, Deployment×18, Ingress×1, Namespace×1, NetworkPolicy×22, PersistentVolumeClaim×59, ResourceQuota×1, Role×11, RoleBinding×11, Secret×13, Service×9, ServiceAccount×11); weak secrets: 0; findings: copy-up×23, directory-bind×8, empty-secret×25, engine-default×2, host-path×3, inferred-port×1, local-only-port×3, placeholder-host×1, shared-volume×16, unsupported-key×14',
  'minecraft':
    '9 objects (ConfigMap×1, Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×2); weak secrets: 0; findings: host-path×1',
  'nextcloud-redis-mariadb':
    '23 objects (ConfigMap×1, CronJob×1, Deployment×3, Ingress×1, Namespace×1, NetworkPolicy×6, PersistentVolumeClaim×3, ResourceQuota×1, Secret×3, Service×3); weak secrets: 1; findings: copy-up×1, engine-default×2, placeholder-host×1, weak-secret×3',
  'nginx-golang-mysql':
    '22 objects (ConfigMap×2, CronJob×1, Deployment×3, Ingress×1, Namespace×1, NetworkPolicy×6, PersistentVolumeClaim×2, ResourceQuota×1, Secret×2, Service×3); weak secrets: 0; findings: engine-default×1, inferred-port×1, placeholder-host×1',
  'nginx-nodejs-redis':
    '20 objects (Deployment×4, Ingress×1, Namespace×1, NetworkPolicy×6, ResourceQuota×1, Service×7); weak secrets: 0; findings: placeholder-host×1, unsupported-key×2',
  'open-webui-gpu':
    '12 objects (Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Service×3); weak secrets: 0; findings: external-volume×2, gpu-count×1, placeholder-host×1, unsupported-key×1',
  'paperless-ngx-postgres-tika':
    '33 objects (ConfigMap×1, CronJob×1, Deployment×5, Namespace×1, NetworkPolicy×8, PersistentVolumeClaim×7, ResourceQuota×1, Secret×3, Service×6); weak secrets: 1; findings: copy-up×3, engine-default×1, inferred-port×3, weak-secret×1',
  'pihole-cloudflared-DoH':
    '16 objects (ConfigMap×2, Deployment×2, Ingress×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Secret×1, Service×4); weak secrets: 0; findings: host-path×2, placeholder-host×1, unsupported-key×1',
  'plausible-ce':
    '27 objects (ConfigMap×1, CronJob×1, Deployment×4, Namespace×1, NetworkPolicy×7, PersistentVolumeClaim×3, ResourceQuota×1, Role×1, RoleBinding×1, Secret×3, Service×3, ServiceAccount×1); weak secrets: 1; findings: copy-up×1, engine-default×1, inferred-port×1, local-only-port×1, unsupported-key×1, weak-secret×1',
  'plex':
    '8 objects (ConfigMap×1, Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×1); weak secrets: 0; findings: host-path×1, inferred-port×1, unsupported-key×1',
  'portainer':
    '9 objects (Deployment×1, Namespace×1, NetworkPolicy×3, PersistentVolumeClaim×1, ResourceQuota×1, Service×2); weak secrets: 0; findings: copy-up×1, host-path×1',
  'prometheus-grafana':
    '19 objects (ConfigMap×3, Deployment×2, Namespace×1, NetworkPolicy×4, PersistentVolumeClaim×3, ResourceQuota×1, Secret×1, Service×4); weak secrets: 1; findings: copy-up×1, weak-secret×1',
  'react-express-mongodb':
    '20 objects (CronJob×1, Deployment×3, Namespace×1, NetworkPolicy×6, PersistentVolumeClaim×4, ResourceQuota×1, Service×4); weak secrets: 0; findings: anonymous-volume×2, engine-default×1, unsupported-key×1',
  'react-java-mysql':
    '25 objects (ConfigMap×2, CronJob×1, Deployment×3, Namespace×1, NetworkPolicy×6, PersistentVolumeClaim×3, ResourceQuota×1, Role×1, RoleBinding×1, Secret×2, Service×3, ServiceAccount×1); weak secrets: 0; findings: anonymous-volume×1, engine-default×1',
  'wasmedge-kafka-mysql':
    '19 objects (ConfigMap×1, Deployment×3, Namespace×1, NetworkPolicy×5, PersistentVolumeClaim×2, ResourceQuota×1, Secret×3, Service×3); weak secrets: 0; findings: engine-default×1, unsupported-key×1',
  'wireguard':
    '9 objects (ConfigMap×1, Deployment×1, Namespace×1, NetworkPolicy×3, ResourceQuota×1, Service×2); weak secrets: 0; findings: host-path×3, unsafe-sysctl×1',
};

interface Outcome {
  readonly summary: string;
  readonly problems: string[];
  /** `verify`'s expectations that do not hold, nor were reported; and how many it checked (0 when no output). */
  readonly broken: string[];
  readonly expectations: number;
  /** `verify`'s data class. */
  readonly data: readonly VerifyExpectation[];
}

function decodedSecrets(docs: readonly Manifest[]): string[] {
  return docs
    .filter((d) => d.kind === 'Secret')
    .flatMap((d) => Object.values(d.data ?? {}) as string[])
    .map((v) => Buffer.from(v, 'base64').toString('utf8'));
}

function migrate(dir: string, props: Omit<ComposeAppProps, 'model' | 'composeFile'> = {}): Outcome {
  try {
    // No images are given: services that only have `build:` run `<project>-<service>`, as docker compose build tags it.
    const { model } = loadCompose({ workingDir: path.join(CORPUS, dir), env: ENV });
    const chart = new Chart(Testing.app(), 'corpus');
    const app = new ComposeApp(chart, 'app', { model, ...props });
    const docs = Testing.synth(chart);
    const names = [model.name, app.namespace, ...model.services.flatMap((s) => [s.name, s.image])].map((n) =>
      n.toLowerCase(),
    );
    const secrets = [...new Set(decodedSecrets(docs))];
    const weak = secrets.filter((s) => s.trim() !== '' && names.some((n) => n.includes(s.trim().toLowerCase())));
    const { problems } = checkManifests(docs, {
      secretValues: secrets.filter((s) => !weak.includes(s)),
      allowServiceAccountToken: app.services.filter((s) => s.serviceAccountName !== undefined).map((s) => s.name),
      allowPrivileged: model.services
        .filter((s) => (s.privileged || s.capAdd.length > 0) && app.services.some((m) => m.composeName === s.name))
        .map((s) => app.service(s.name).name),
    });
    const counts = new Map<string, number>();
    for (const warning of app.warnings) {
      counts.set(warning.code, (counts.get(warning.code) ?? 0) + 1);
    }
    const kinds = new Map<string, number>();
    for (const doc of docs) {
      kinds.set(doc.kind, (kinds.get(doc.kind) ?? 0) + 1);
    }
    const list = (m: Map<string, number>) =>
      [...m]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, n]) => `${k}×${n}`)
        .join(', ') || 'none';
    const vm = app.vmServices.length > 0 ? `; in the VM: ${app.vmServices.map((v) => v.composeName).join(', ')}` : '';
    const report = app.verify();
    return {
      summary: `${docs.length} objects (${list(kinds)}); weak secrets: ${weak.length}; findings: ${list(counts)}${vm}`,
      problems: problems.map((p) => `${p.kind}/${p.name} ${p.path}: ${p.message}`),
      broken: report.expectations
        .filter((e) => e.status === VerifyStatus.BROKEN)
        .map((e) => `${e.service} ${e.check} ${e.subject}: ${e.detail}`),
      expectations: report.expectations.length,
      data: report.expectations.filter((e) => e.check === VerifyCheck.DATA),
    };
  } catch (err) {
    if (isComposeError(err)) {
      return { summary: `error: ${err.message}`, problems: [], broken: [], expectations: 0, data: [] };
    }
    throw err;
  }
}

test('the table lists every corpus folder', () => {
  expect(Object.keys(EXPECTED).sort()).toEqual(DIRS);
});

const outcomes = new Map<string, Outcome>();

describe.each(DIRS)('%s', (dir) => {
  const outcome = migrate(dir);
  outcomes.set(dir, outcome);

  test('synthesizes output that passes every check, or fails with a clear message', () => {
    expect(outcome.problems).toEqual([]);
  });

  test('matches the recorded outcome', () => {
    expect(outcome.summary).toBe(EXPECTED[dir]);
  });

  test('verify finds no broken expectation', () => {
    expect(outcome.broken).toEqual([]);
  });
});

test('verify checks something in most corpus files; the README states how many expectations', () => {
  const checked = DIRS.filter((dir) => outcomes.get(dir)!.expectations > 0);
  expect(checked.length).toBeGreaterThanOrEqual(25);
  expect(readmeCount('expectations in the corpus files')).toBe(
    DIRS.reduce((n, dir) => n + outcomes.get(dir)!.expectations, 0),
  );
});

test("verify's data class holds across the corpus: what compose keeps is on claims, shared and seeded", () => {
  const data = DIRS.flatMap((dir) => outcomes.get(dir)!.data);
  const count = (kind: string, status: VerifyStatus) =>
    data.filter((e) => e.subject.startsWith(`${kind} `) && e.status === status).length;
  expect({
    durable: count('durable', VerifyStatus.OK),
    shared: count('shared', VerifyStatus.OK),
    seeded: count('seeded', VerifyStatus.OK),
    reported: data.filter((e) => e.status === VerifyStatus.REPORTED).map((e) => `${e.service} ${e.subject}`),
    broken: data.filter((e) => e.status === VerifyStatus.BROKEN).length,
  }).toMatchSnapshot();
});

/** The files whose services assessment sends to the VM, migrated with `target: ServiceTarget.AUTO`. */
const EXPECTED_HYBRID: Readonly<Record<string, string>> = {
  mailcow:
    '166 objects (ConfigMap×13, CronJob×2, DataVolume×1, Deployment×15, Ingress×1, Namespace×1, NetworkPolicy×21, PersistentVolumeClaim×59, ResourceQuota×1, Role×10, RoleBinding×10, Secret×12, Service×9, ServiceAccount×10, VirtualMachine×1); weak secrets: 0; findings: copy-up×23, directory-bind×8, empty-secret×25, engine-default×2, host-network-ports×1, inferred-port×1, local-only-port×3, placeholder-host×1, shared-volume×16, unsupported-key×12, vm-dependency×1, vm-dependency-cycle×1, vm-dependency-outside×2, vm-docker-socket×2, vm-target×3; in the VM: dockerapi-mailcow, netfilter-mailcow, ofelia-mailcow',
  plex: '10 objects (DataVolume×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Service×2, VirtualMachine×1); weak secrets: 0; findings: host-network-ports×1, inferred-port×1, vm-target×1; in the VM: plex',
  portainer:
    '11 objects (DataVolume×2, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Service×2, VirtualMachine×1); weak secrets: 0; findings: vm-target×1; in the VM: portainer',
  wireguard:
    '11 objects (DataVolume×1, Namespace×1, NetworkPolicy×4, ResourceQuota×1, Secret×1, Service×2, VirtualMachine×1); weak secrets: 0; findings: vm-target×1; in the VM: wireguard',
};

describe.each(Object.keys(EXPECTED_HYBRID))('%s with target: auto', (dir) => {
  const outcome = migrate(dir, { target: ServiceTarget.AUTO, vm: { imageBaseUrl: 'https://images.example.com/vm' } });

  test('routes the flagged services to the VM; the output passes every check', () => {
    expect(outcome.problems).toEqual([]);
    expect(outcome.summary).toBe(EXPECTED_HYBRID[dir]);
  });

  test("verify finds no broken expectation across the VM's edge", () => {
    expect(outcome.broken).toEqual([]);
  });
});
