import { inlineCode, shellQuote } from '../../util/shell-words';
import type { Rendered, RenderedObject } from '../rendered';
import { renderBackups } from './runbook-backups';
import { DEFAULT_WAIT_SECONDS, Markdown, podSpec, waitCommand } from './runbook-text';
import { compare } from '../../util/sort';

const ROLLOUT_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'];

/**
 * Day-2 operations of a converted app: upgrade and re-apply, rollback, re-running a one-shot Job, the backups the
 * converter schedules (list, copy off, restore), reading and rotating a generated Secret, and `kubectl port-forward`
 * for the ports compose kept on 127.0.0.1. Every command names this app's objects; no value of a Secret appears.
 */
export function renderDay2(md: Markdown, rendered: Rendered, singleFile?: string): void {
  const app = rendered.project.composeApp;
  const ns = app.namespace;
  const objects = rendered.waves.flatMap((w) => w.objects);
  const ofKind = (...kinds: string[]) =>
    objects.filter((o) => kinds.includes(o.kind)).sort((a, b) => compare(a.name, b.name));
  const jobs = ofKind('Job');
  const applyAll = singleFile
    ? [`kubectl apply -f ${shellQuote(singleFile)}`]
    : rendered.waves.map((w) => `kubectl apply -f ${w.wave.folder}/`);

  md.heading(3, 'Upgrade and re-apply');
  md.para(
    'Change the compose file (or the options), convert again into this folder, and look at what would change',
    "before applying it. A Job's pod template cannot be changed in place: delete each Job first (its pods and their",
    'logs go with it), or the apply of its wave fails with `field is immutable`. Objects the new conversion no longer',
    'makes stay in the cluster: delete them by name.',
  );
  md.sh([
    ...(singleFile
      ? [`kubectl diff -f ${shellQuote(singleFile)}`]
      : rendered.waves.map((w) => `kubectl diff -f ${w.wave.folder}/`)),
    ...jobs.map((j) => `kubectl delete job ${j.name} -n ${ns} --ignore-not-found`),
    ...applyAll,
    ...ofKind(...ROLLOUT_KINDS).map(
      (o) => `kubectl rollout status ${o.kind.toLowerCase()}/${o.name} -n ${ns} --timeout=${DEFAULT_WAIT_SECONDS}s`,
    ),
  ]);
  md.para(
    '`kubectl diff` exits with 1 when something would change. A rollout that does not finish leaves the old pods',
    "running: read the new pod's events and logs ([pod start-up](#pod-start-up)), then roll back.",
  );

  const rollouts = ofKind(...ROLLOUT_KINDS);
  if (rollouts.length > 0) {
    md.heading(3, 'Roll back');
    md.para(
      'Each Deployment, StatefulSet and DaemonSet keeps its earlier pod templates; `rollout undo` goes back one',
      '(`--to-revision=<REVISION>` to a given one from `rollout history`). The next apply of these files rolls forward',
      'again. A rollback does not undo what the new version wrote to a database: restore a backup for that.',
    );
    md.sh(
      rollouts.flatMap((o) => [
        `kubectl rollout history ${o.kind.toLowerCase()}/${o.name} -n ${ns}`,
        `kubectl rollout undo ${o.kind.toLowerCase()}/${o.name} -n ${ns}`,
      ]),
    );
  }

  if (jobs.length > 0) {
    md.heading(3, 'Re-run a one-shot Job');
    md.para(
      'A Job that failed stays failed: the services that wait for it (their `wait-*` init containers) keep',
      'waiting. Read its logs, fix the cause, then delete it and apply it again; the waiting pods go on by themselves.',
    );
    // Who waits for each Job, found once: a thousand services each read for every Job is quadratic.
    const waitersOf = new Map<string, string[]>();
    for (const s of app.services) {
      for (const target of new Set(s.waits.map((w) => w.target))) {
        const waiters = waitersOf.get(target);
        if (waiters) {
          waiters.push(s.name);
        } else {
          waitersOf.set(target, [s.name]);
        }
      }
    }
    for (const job of jobs) {
      const waiting = [...(waitersOf.get(job.name) ?? [])].sort(compare);
      md.line(`${job.name}${waiting.length > 0 ? `, awaited by ${waiting.join(', ')}` : ''}:`);
      md.line('');
      md.sh([
        `kubectl logs job/${job.name} -n ${ns}`,
        `kubectl delete job ${job.name} -n ${ns}`,
        `kubectl apply -f ${shellQuote(singleFile ?? job.file)}`,
        waitCommand(
          { condition: 'complete', name: job.name, composeName: job.name, what: 'Job' },
          ns,
          DEFAULT_WAIT_SECONDS,
        ).join(' '),
      ]);
    }
    if (singleFile) {
      md.para(`Applying ${inlineCode(singleFile)} again changes nothing else that is unchanged.`);
    }
  }

  renderBackups(md, rendered, objects);
  renderSecrets(md, rendered, objects);
  renderPortForward(md, rendered);
}

/** Reading a generated Secret's key, and the keys that hold the same password (rotate them together). */
function renderSecrets(md: Markdown, rendered: Rendered, objects: readonly RenderedObject[]): void {
  const ns = rendered.project.composeApp.namespace;
  const secrets = objects
    .filter((o) => o.kind === 'Secret' && o.manifest.data && Object.keys(o.manifest.data).length > 0)
    .sort((a, b) => compare(a.name, b.name));
  if (secrets.length === 0) {
    return;
  }
  md.heading(3, 'Read and rotate a secret');
  const first = secrets[0];
  const firstKey = Object.keys(first.manifest.data).sort(compare)[0];
  md.para('A key of a generated Secret, decoded (it prints the value: run it where nobody reads over your shoulder):');
  md.sh([`kubectl get secret ${first.name} -n ${ns} -o jsonpath='{.data.${jsonPathKey(firstKey)}}' | base64 -d`]);
  const groups = sharedValues(secrets);
  md.para(
    'To rotate a credential, change it where it is checked first (the database: `ALTER USER`, `CONFIG SET`,',
    '`db.changeUserPassword`), then in every Secret key that holds it, then restart what reads those keys: a pod reads',
    'its environment once, at start. A database image reads its `*_PASSWORD` variable only on its first start, so',
    'changing the Secret alone changes nothing there. `read -rs` keeps each new value out of the shell history; a key',
    'that holds the credential inside a longer value (a URL) takes that whole value, with the new credential in it.',
  );
  // Which workloads read which Secret, once: env and envFrom references, secret volumes, a VM's user data.
  const readers = new Map<string, RenderedObject[]>();
  for (const o of objects.filter((x) =>
    ['Deployment', 'StatefulSet', 'DaemonSet', 'VirtualMachine'].includes(x.kind),
  )) {
    const spec = podSpec(o.manifest) ?? o.manifest.spec?.template?.spec ?? {};
    const names = new Set<string>();
    for (const container of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      (container.env ?? []).forEach(
        (e: any) => e.valueFrom?.secretKeyRef?.name && names.add(e.valueFrom.secretKeyRef.name),
      );
      (container.envFrom ?? []).forEach((e: any) => e.secretRef?.name && names.add(e.secretRef.name));
    }
    for (const volume of spec.volumes ?? []) {
      [
        volume.secret?.secretName,
        volume.cloudInitNoCloud?.secretRef?.name,
        volume.cloudInitNoCloud?.networkDataSecretRef?.name,
      ]
        .filter((n): n is string => typeof n === 'string')
        .forEach((n) => names.add(n));
    }
    names.forEach((n) => readers.set(n, [...(readers.get(n) ?? []), o]));
  }
  const rotation =
    groups.length > 0 ? groups : [[{ secret: first.name, key: firstKey, whole: true, multiline: false, value: '' }]];
  for (const group of rotation) {
    if (groups.length > 0) {
      md.line(
        `These keys hold the same credential, and change together: ${group
          .map((k) => `\`${k.secret}\` key \`${k.key}\`` + `${k.whole ? '' : ' (inside its value)'}`)
          .join(', ')}.`,
        '',
      );
    }
    const commands: string[] = [];
    // One variable per distinct value (keys that hold the same URL take the same new URL), named after its first key.
    const variables = new Map<string, string>();
    for (const ref of group.filter((k) => !k.multiline)) {
      let variable = variables.get(ref.value);
      if (variable === undefined) {
        const base = ref.whole ? 'NEW_VALUE' : `NEW_${ref.key.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
        const taken = new Set(variables.values());
        variable = base;
        for (let n = 2; taken.has(variable); n++) {
          variable = `${base}_${n}`;
        }
        variables.set(ref.value, variable);
        commands.push(`read -rs ${variable}`);
      }
      commands.push(
        `kubectl patch secret ${ref.secret} -n ${ns} --type=merge -p "{\\"stringData\\":{\\"${ref.key}\\":\\"$${variable}\\"}}"`,
      );
    }
    const restarted = [...new Set(group.flatMap((k) => readers.get(k.secret) ?? []))].sort((a, b) =>
      compare(a.name, b.name),
    );
    for (const o of restarted) {
      commands.push(
        o.kind === 'VirtualMachine'
          ? `virtctl restart ${o.name} -n ${ns}`
          : `kubectl rollout restart ${o.kind.toLowerCase()}/${o.name} -n ${ns}`,
      );
    }
    md.sh(commands);
    const documents = group.filter((k) => k.multiline);
    if (documents.length > 0) {
      md.para(
        `${documents.map((k) => `\`${k.secret}\` key \`${k.key}\``).join(', ')} ${documents.length === 1 ? 'is a whole file' : 'are whole files'}`,
        'with the credential inside: convert again with the new value and apply that file before the restarts above.',
      );
    }
  }
}

interface SecretKeyRef {
  readonly secret: string;
  readonly key: string;
  /** True when the key's value is the credential itself, false when it contains it. */
  readonly whole: boolean;
  /** True when the value is a document of several lines (a file, cloud-init user data). */
  readonly multiline: boolean;
  /** The value, to tell keys that hold the same one; never printed. */
  readonly value: string;
}

/** Groups of Secret keys that share one value (of 4 characters or more), named by Secret and key only. */
function sharedValues(secrets: readonly RenderedObject[]): SecretKeyRef[][] {
  const entries = secrets.flatMap((s) =>
    Object.entries(s.manifest.data as Record<string, string>).map(([key, value]) => ({
      secret: s.name,
      key,
      value: Buffer.from(value, 'base64').toString('utf-8'),
    })),
  );
  const groups = new Map<string, SecretKeyRef[]>();
  const holdersOf = valueIndex(entries.map((e) => e.value));
  for (const candidate of entries.filter((e) => e.value.trim().length >= 4 && !e.value.includes('\n'))) {
    if (groups.has(candidate.value)) {
      continue;
    }
    const holders = holdersOf(candidate.value).map((index) => entries[index]);
    if (holders.length > 1 && !groups.has(candidate.value)) {
      groups.set(
        candidate.value,
        holders.map((h) => ({
          secret: h.secret,
          key: h.key,
          whole: h.value.trim() === candidate.value.trim(),
          multiline: h.value.trimEnd().includes('\n'),
          value: h.value.trim(),
        })),
      );
    }
  }
  // A value inside another value of the group (a URL holding the password) makes one group, led by the shortest.
  const values = [...groups.keys()].sort((a, b) => a.length - b.length || compare(a, b));
  const kept: SecretKeyRef[][] = [];
  const covered = new Set<string>();
  for (const value of values) {
    const group = groups.get(value)!.filter((k) => !covered.has(`${k.secret}/${k.key}`) || k.whole);
    if (group.length > 1 && group.some((k) => !covered.has(`${k.secret}/${k.key}`))) {
      group.forEach((k) => covered.add(`${k.secret}/${k.key}`));
      kept.push(group.sort((a, b) => compare(`${a.secret}/${a.key}`, `${b.secret}/${b.key}`)));
    }
  }
  return kept.sort((a, b) => compare(`${a[0].secret}/${a[0].key}`, `${b[0].secret}/${b[0].key}`));
}

/** Values longer than this (secret files, few) are not indexed by their runs: each search reads them whole. */
const INDEXED_VALUE_CHARS = 1024;

/** The length of the runs of characters the values are indexed by: the shortest value looked for. */
const RUN = 4;

/**
 * A search over `values`: for a value, the indexes (in order) of the values that
 * contain it. Each value is indexed by its runs of {@link RUN} characters; a search reads only the values that hold
 * the rarest run of the value looked for (any value that contains it holds all its runs), so finding the values
 * shared by several Secret keys is linear in their length, not in their number times their length.
 */
function valueIndex(values: readonly string[]): (value: string) => number[] {
  const byRun = new Map<string, number[]>();
  const long: number[] = [];
  values.forEach((value, index) => {
    if (value.length > INDEXED_VALUE_CHARS) {
      long.push(index);
      return;
    }
    for (let at = 0; at + RUN <= value.length; at++) {
      const run = value.slice(at, at + RUN);
      const holders = byRun.get(run);
      if (holders === undefined) {
        byRun.set(run, [index]);
      } else if (holders[holders.length - 1] !== index) {
        holders.push(index);
      }
    }
  });
  return (value) => {
    if (value.length < RUN) {
      return values.flatMap((v, index) => (v.includes(value) ? [index] : []));
    }
    let rarest: readonly number[] = [];
    for (let at = 0; at + RUN <= value.length && (at === 0 || rarest.length > 1); at++) {
      const holders = byRun.get(value.slice(at, at + RUN)) ?? [];
      if (at === 0 || holders.length < rarest.length) {
        rarest = holders;
      }
    }
    const candidates = long.length === 0 ? rarest : [...rarest, ...long].sort((a, b) => a - b);
    return candidates.filter((index) => values[index].includes(value));
  };
}

/** `kubectl port-forward` for each port compose bound to 127.0.0.1 (or kept inside for another reason). */
function renderPortForward(md: Markdown, rendered: Rendered): void {
  const app = rendered.project.composeApp;
  const ns = app.namespace;
  const forwards = [...app.services, ...app.vmServices].flatMap((s) =>
    s.publishedPorts
      .filter((p) => p.access === 'Internal' && p.mapping.protocol === 'tcp' && s.service !== undefined)
      .map((p) => ({
        service: s.service!.name,
        local: p.mapping.published ?? p.mapping.target,
        remote: p.mapping.target,
        hostIp: p.mapping.hostIp,
      })),
  );
  const unique = [...new Map(forwards.map((f) => [`${f.service}:${f.local}`, f])).values()].sort(
    (a, b) => compare(a.service, b.service) || a.local - b.local,
  );
  if (unique.length === 0) {
    return;
  }
  md.heading(3, 'Reach the ports kept inside the cluster');
  md.para(
    'Compose published these ports on the host only (`127.0.0.1`), or they belong to a database; in the cluster',
    'they have no way in from outside. `kubectl port-forward` opens each on your machine while it runs (then',
    '`127.0.0.1:<port>`); ports below 1024 need another local port, e.g. `8443:443`.',
  );
  md.sh(
    unique.map(
      (f) =>
        `kubectl port-forward service/${f.service} ${f.local === f.remote ? f.local : `${f.local}:${f.remote}`} -n ${ns}`,
    ),
  );
}

/** A Secret key inside a kubectl JSONPath (dots escaped). */
function jsonPathKey(key: string): string {
  return key.replace(/\./g, '\\.');
}
