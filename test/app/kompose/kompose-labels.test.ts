import * as path from 'path';
import * as kplus from 'cdk8s-plus-27';
import {
  HONOURED_KOMPOSE_LABELS,
  KomposeControllerType,
  isHonouredKomposeLabel,
  readKomposeLabels,
} from '../../../lib/app/kompose/kompose-labels';
import { loadCompose } from '../../../lib/compose/load';
import { port, service } from '../../support/model-builder';
import { CORPUS_DIR as CORPUS } from '../../support/shared';

const labelled = (labels: Record<string, string>, ports = [port(80, { service: 'web' })]) =>
  service('web', { labels, ports });

describe('the honoured labels', () => {
  test('list every label ComposeApp reads, the healthcheck labels of both probes included', () => {
    for (const label of [
      'kompose.service.type',
      'kompose.service.nodeport.port',
      'kompose.service.expose',
      'kompose.service.expose.tls-secret',
      'kompose.service.expose.ingress-class-name',
      'kompose.volume.size',
      'kompose.volume.storage-class-name',
      'kompose.hpa.cpu',
      'kompose.hpa.memory',
      'kompose.hpa.replicas.min',
      'kompose.hpa.replicas.max',
      'kompose.controller.type',
      'kompose.cronjob.schedule',
      'kompose.cronjob.concurrency_policy',
      'kompose.cronjob.backoff_limit',
      'kompose.service.healthcheck.readiness.test',
      'kompose.service.healthcheck.readiness.http_get_path',
      'kompose.service.healthcheck.readiness.http_get_port',
      'kompose.service.healthcheck.readiness.tcp_port',
      'kompose.service.healthcheck.readiness.interval',
      'kompose.service.healthcheck.readiness.timeout',
      'kompose.service.healthcheck.readiness.retries',
      'kompose.service.healthcheck.readiness.start_period',
      'kompose.service.healthcheck.readiness.disable',
      'kompose.service.healthcheck.liveness.http_get_path',
      'kompose.service.healthcheck.liveness.tcp_port',
      'kompose.image-pull-policy',
      'kompose.image-pull-secret',
      'kompose.security-context.fsgroup',
      'kompose.service.external-traffic-policy',
      'kompose.init.containers.name',
      'kompose.init.containers.image',
      'kompose.init.containers.command',
      'kompose.serviceaccount-name',
    ]) {
      expect(`${label}: ${isHonouredKomposeLabel(label)}`).toBe(`${label}: true`);
    }
    expect(HONOURED_KOMPOSE_LABELS).toEqual([...HONOURED_KOMPOSE_LABELS].sort());
  });

  test('leave out the labels ComposeApp does not read', () => {
    for (const label of [
      'kompose.service.group',
      'kompose.controller.port.expose',
      'kompose.volume.type',
      'kompose.volume.sub-path',
    ]) {
      expect(`${label}: ${isHonouredKomposeLabel(label)}`).toBe(`${label}: false`);
    }
  });
});

describe('readKomposeLabels', () => {
  test("reads kompose's healthcheck fixture: checks from the labels, timings in seconds", () => {
    const { model } = loadCompose({ workingDir: path.join(CORPUS, 'kompose-healthcheck'), env: {} });
    const byName = Object.fromEntries(model.services.map((s) => [s.name, readKomposeLabels(s)]));
    expect(byName.postgresql.readiness).toMatchObject({
      disabled: false,
      check: { kind: 'http', path: '/ready', port: 8080 },
      periodSeconds: 10,
      timeoutSeconds: 1,
      failureThreshold: 5,
    });
    expect(byName.postgresql.liveness).toMatchObject({ check: { kind: 'http', path: '/health', port: 8080 } });
    expect(byName.mongo.readiness?.check).toEqual({ kind: 'tcp', port: 9090 });
    expect(byName.redis.readiness?.check).toEqual({ kind: 'exec', command: ['sh', '-c', 'echo "liveness"'] });
    expect(byName.redis.liveness).toBeUndefined();
  });

  test("reads kompose's cronjob fixture", () => {
    const { model } = loadCompose({ workingDir: path.join(CORPUS, 'kompose-cronjob'), env: {} });
    const cron = readKomposeLabels(model.services[0]).cronJob!;
    expect(cron.schedule.expressionString).toBe('* * * * *');
    expect(cron.concurrencyPolicy).toBe(kplus.ConcurrencyPolicy.FORBID);
    expect(cron.backoffLimit).toBe(0);
  });

  test('reads the test forms compose knows: CMD argv, CMD-SHELL, a plain string, a JSON list, NONE', () => {
    const test = (value: string) =>
      readKomposeLabels(labelled({ 'kompose.service.healthcheck.readiness.test': value })).readiness;
    expect(test('CMD curl -f "http://localhost/a b"')?.check).toEqual({
      kind: 'exec',
      command: ['curl', '-f', 'http://localhost/a b'],
    });
    expect(test('CMD-SHELL pg_isready -U app')?.check).toEqual({
      kind: 'exec',
      command: ['sh', '-c', 'pg_isready -U app'],
    });
    expect(test('["CMD", "wget", "-q", "--spider", "http://127.0.0.1/"]')?.check).toEqual({
      kind: 'exec',
      command: ['wget', '-q', '--spider', 'http://127.0.0.1/'],
    });
    expect(test('NONE')).toMatchObject({ disabled: true, check: undefined });
  });

  test('expose: true, a host list with paths, lower-cased; false is no exposure', () => {
    expect(readKomposeLabels(labelled({ 'kompose.service.expose': ' Shop.Example.com/api, true ,' })).expose).toEqual([
      { host: 'shop.example.com', path: '/api' },
      {},
    ]);
    expect(readKomposeLabels(labelled({ 'kompose.service.expose': 'false' })).expose).toBeUndefined();
  });

  test('controller types and pull policies are read case-insensitively, as kompose does', () => {
    const labels = readKomposeLabels(
      labelled({ 'kompose.controller.type': 'StatefulSet', 'kompose.image-pull-policy': 'never' }),
    );
    expect(labels.controller).toBe(KomposeControllerType.STATEFUL_SET);
    expect(labels.imagePullPolicy).toBe(kplus.ImagePullPolicy.NEVER);
  });

  test("external traffic policy and the init container, with kompose's two command forms", () => {
    expect(
      readKomposeLabels(labelled({ 'kompose.service.external-traffic-policy': 'LOCAL' })).externalTrafficPolicy,
    ).toBe('Local');
    expect(
      readKomposeLabels(labelled({ 'kompose.service.external-traffic-policy': 'cluster' })).externalTrafficPolicy,
    ).toBe('Cluster');
    const json = readKomposeLabels(
      labelled({
        'kompose.init.containers.name': 'init-mydb',
        'kompose.init.containers.image': 'busybox:1.36',
        'kompose.init.containers.command': '[ "bundle", "exec", "thin", "-p", "3000" ]',
      }),
    ).initContainer;
    expect(json).toMatchObject({
      name: 'init-mydb',
      image: 'busybox:1.36',
      command: ['bundle', 'exec', 'thin', '-p', '3000'],
    });
    const words = readKomposeLabels(
      labelled({
        'kompose.init.containers.image': 'busybox:1.36',
        'kompose.init.containers.command': 'sh -c \'echo "ready: yes"\'',
      }),
    ).initContainer;
    expect(words).toMatchObject({ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'echo "ready: yes"'] });
    expect(
      readKomposeLabels(labelled({ 'kompose.init.containers.image': 'busybox:1.36' })).initContainer?.command,
    ).toBeUndefined();
  });

  test.each([
    [
      { 'kompose.service.external-traffic-policy': 'nearest' },
      'compose.yaml: services.web.labels["kompose.service.external-traffic-policy"]: invalid external traffic policy (got "nearest"). Allowed: cluster, local.',
    ],
    [
      { 'kompose.init.containers.name': 'setup' },
      'compose.yaml: services.web.labels["kompose.init.containers.name"]: kompose.init.containers.name needs kompose.init.containers.image. ' +
        'Allowed: an image reference such as busybox:1.36. Fix: add the label kompose.init.containers.image with the image the init container runs.',
    ],
    [
      { 'kompose.init.containers.image': 'busybox:1.36', 'kompose.init.containers.name': 'Setup_Step' },
      'compose.yaml: services.web.labels["kompose.init.containers.name"]: invalid init container name (got "Setup_Step"). ' +
        'Allowed: a container name: at most 63 lower case letters, digits and "-", not starting with "wait-" (the dependency waits\' names).',
    ],
    [
      { 'kompose.init.containers.image': 'busybox:1.36', 'kompose.init.containers.command': '["echo", 1]' },
      'compose.yaml: services.web.labels["kompose.init.containers.command"]: invalid init container command (got "[\\"echo\\", 1]"). ' +
        'Allowed: a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them.',
    ],
    [
      { 'kompose.init.containers.image': 'busybox:1.36', 'kompose.init.containers.command': 'echo "unclosed' },
      'compose.yaml: services.web.labels["kompose.init.containers.command"]: invalid init container command (got "echo \\"unclosed"). ' +
        'Allowed: a JSON list of strings, ["sh", "-c", "…"], or words as a shell splits them. Fix: close the quotes, or write the command as a JSON list.',
    ],
    [
      { 'kompose.service.type': 'external' },
      'compose.yaml: services.web.labels["kompose.service.type"]: invalid Service type (got "external"). Allowed: clusterip, headless, loadbalancer, nodeport.',
    ],
    [
      { 'kompose.service.nodeport.port': '30080' },
      'compose.yaml: services.web.labels["kompose.service.nodeport.port"]: kompose.service.nodeport.port needs kompose.service.type: nodeport (got "30080"). ' +
        'Fix: add the label kompose.service.type: nodeport, or remove kompose.service.nodeport.port.',
    ],
    [
      { 'kompose.service.type': 'nodeport', 'kompose.service.nodeport.port': 'high' },
      'compose.yaml: services.web.labels["kompose.service.nodeport.port"]: invalid port (got "high"). Allowed: a port number 1-65535 (the cluster\'s NodePort range is usually 30000-32767).',
    ],
    [
      { 'kompose.service.expose': 'shop_example.com' },
      'compose.yaml: services.web.labels["kompose.service.expose"]: invalid Ingress host (got "shop_example.com"). ' +
        'Allowed: true, or host names such as "shop.example.com" or "shop.example.com/api", separated by ",".',
    ],
    [
      { 'kompose.service.expose': ' , ' },
      'compose.yaml: services.web.labels["kompose.service.expose"]: empty exposure (got " , "). Allowed: true, false, or host names separated by ",".',
    ],
    [
      { 'kompose.service.expose.tls-secret': 'My_Cert' },
      'compose.yaml: services.web.labels["kompose.service.expose.tls-secret"]: invalid TLS Secret name (got "My_Cert"). Allowed: a Secret name: lower case letters, digits, "-" and ".".',
    ],
    [
      { 'kompose.controller.type': 'pod' },
      'compose.yaml: services.web.labels["kompose.controller.type"]: invalid controller type (got "pod"). Allowed: deployment, statefulset, daemonset, replicationcontroller.',
    ],
    [
      { 'kompose.image-pull-policy': 'sometimes' },
      'compose.yaml: services.web.labels["kompose.image-pull-policy"]: invalid image pull policy (got "sometimes"). Allowed: Always, IfNotPresent, Never.',
    ],
    [
      { 'kompose.security-context.fsgroup': '-1' },
      'compose.yaml: services.web.labels["kompose.security-context.fsgroup"]: invalid fsGroup (got "-1"). Allowed: a group id, 0 or more.',
    ],
    [
      { 'kompose.service.healthcheck.readiness.http_path': '/ready' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.readiness.http_path"]: unknown readiness label "kompose.service.healthcheck.readiness.http_path". ' +
        'Allowed: kompose.service.healthcheck.readiness.disable, kompose.service.healthcheck.readiness.http_get_path, ' +
        'kompose.service.healthcheck.readiness.http_get_port, kompose.service.healthcheck.readiness.interval, ' +
        'kompose.service.healthcheck.readiness.retries, kompose.service.healthcheck.readiness.start_period, ' +
        'kompose.service.healthcheck.readiness.tcp_port, kompose.service.healthcheck.readiness.test, ' +
        'kompose.service.healthcheck.readiness.timeout. Fix: fix the spelling or remove the label.',
    ],
    [
      { 'kompose.service.healthcheck.liveness.disable': 'maybe' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.liveness.disable"]: invalid flag (got "maybe"). Allowed: true or false.',
    ],
    [
      { 'kompose.service.healthcheck.liveness.http_get_path': 'health' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.liveness.http_get_path"]: invalid HTTP path (got "health"). Allowed: a path starting with "/".',
    ],
    [
      { 'kompose.service.healthcheck.liveness.http_get_port': '8080' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.liveness.http_get_port"]: kompose.service.healthcheck.liveness.http_get_port needs ' +
        'kompose.service.healthcheck.liveness.http_get_path (got "8080"). Fix: add kompose.service.healthcheck.liveness.http_get_path, e.g. /health.',
    ],
    [
      {
        'kompose.service.healthcheck.readiness.tcp_port': '5432',
        'kompose.service.healthcheck.readiness.http_get_path': '/ready',
      },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.readiness.tcp_port"]: the readiness labels name 2 checks. ' +
        'Allowed: one of kompose.service.healthcheck.readiness.test, kompose.service.healthcheck.readiness.http_get_path or ' +
        'kompose.service.healthcheck.readiness.tcp_port. Fix: remove all but one.',
    ],
    [
      { 'kompose.service.healthcheck.readiness.interval': 'often' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.readiness.interval"]: invalid duration (got "often"). Allowed: a duration such as 10s, 1m30s or 500ms.',
    ],
    [
      { 'kompose.service.healthcheck.readiness.retries': '0' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.readiness.retries"]: invalid retries (got "0"). Allowed: a whole number, 1 or more.',
    ],
    [
      { 'kompose.service.healthcheck.readiness.test': '["CMD", 1]' },
      'compose.yaml: services.web.labels["kompose.service.healthcheck.readiness.test"]: invalid probe test (got "[\\"CMD\\", 1]"). ' +
        'Allowed: a command, or a JSON list of strings such as ["CMD", "curl", "-f", "http://localhost/"].',
    ],
    [
      { 'kompose.cronjob.schedule': '61 * * * *' },
      'compose.yaml: services.web.labels["kompose.cronjob.schedule"]: invalid schedule: 61 is out of range for the minute (0-59) (got "61 * * * *"). ' +
        'Allowed: five fields (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *", or @hourly, @daily, @weekly, @monthly, @yearly.',
    ],
    [
      { 'kompose.cronjob.schedule': '@daily', 'kompose.cronjob.concurrency_policy': 'Never' },
      'compose.yaml: services.web.labels["kompose.cronjob.concurrency_policy"]: invalid concurrency policy (got "Never"). Allowed: Allow, Forbid, Replace.',
    ],
    [
      { 'kompose.cronjob.schedule': '@daily', 'kompose.cronjob.backoff_limit': 'three' },
      'compose.yaml: services.web.labels["kompose.cronjob.backoff_limit"]: invalid backoff limit (got "three"). Allowed: a whole number of retries, 0 or more.',
    ],
    [
      { 'kompose.cronjob.backoff_limit': '3' },
      'compose.yaml: services.web.labels["kompose.cronjob.backoff_limit"]: kompose.cronjob.backoff_limit needs kompose.cronjob.schedule. ' +
        'Fix: add kompose.cronjob.schedule (e.g. "0 3 * * *") to run the service as a CronJob, or remove kompose.cronjob.backoff_limit.',
    ],
  ])('rejects %j', (labels, message) => {
    expect(() => readKomposeLabels(labelled(labels))).toThrow(message);
  });

  test('nodeport.port names one port: a service that publishes two is an error', () => {
    const two = service('web', {
      labels: { 'kompose.service.type': 'nodeport', 'kompose.service.nodeport.port': '30080' },
      ports: [port(80, { service: 'web' }), port(443, { service: 'web', index: 1 })],
    });
    expect(() => readKomposeLabels(two)).toThrow(
      'compose.yaml: services.web.labels["kompose.service.nodeport.port"]: kompose.service.nodeport.port ' +
        'names one node port, and the service publishes 2 ports (got "30080"). Allowed: a service that publishes exactly one port. ' +
        'Fix: remove kompose.service.nodeport.port: each published port then gets its own node port.',
    );
  });
});
