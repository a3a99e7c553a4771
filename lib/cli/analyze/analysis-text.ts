import { ProjectAnalysis } from './analysis';

/** The assessment as text: one block per service. */
export function analysisText(analysis: ProjectAnalysis): string {
  const lines = [
    `Project ${analysis.project} (${analysis.files.join(', ')}): ${analysis.services.length} service${analysis.services.length === 1 ? '' : 's'} ` +
      `→ namespace ${analysis.namespace}`,
    '',
  ];
  const row = (label: string, value: string) => lines.push(`  ${`${label}:`.padEnd(12)}${value}`.trimEnd());
  for (const s of analysis.services) {
    lines.push(s.name === s.service ? s.service : `${s.service} (${s.name})`);
    row(
      'target',
      s.target === 'container'
        ? 'container'
        : s.runsIn === 'vm'
          ? 'VM, because:'
          : 'VM recommended (it runs in a container: convert with --target auto to move it), because:',
    );
    s.reasons.forEach((r) => lines.push(`      - ${r}`));
    if (s.weakReasons.length > 0) {
      row('not moved', 'what was found is no reason to run it in the VM:');
      s.weakReasons.forEach((r) => lines.push(`      - ${r}`));
    }
    row(
      'runs as',
      s.workload === 'Job'
        ? 'Job (run to completion)'
        : s.workload === 'CronJob'
          ? 'CronJob (on a schedule)'
          : s.workload.startsWith('VirtualMachine ')
            ? `docker compose in the ${s.workload}`
            : s.workload === 'DaemonSet'
              ? 'DaemonSet, one pod on every node'
              : `${s.workload}, ${s.replicas} replica${s.replicas === 1 ? '' : 's'}`,
    );
    row('stateful', s.stateful ? `yes, ${s.engine}` : 'no');
    const external = s.exposure.external.map((e) => {
      const port = `${e.port}/${e.protocol}${e.port !== e.targetPort ? ` → ${e.targetPort}` : ''}`;
      return e.via === 'Ingress' ? `Ingress ${e.host}${e.path} → ${e.targetPort}` : `${e.via} ${port}`;
    });
    const forwarded = s.exposure.portForward.map(
      (f) =>
        `${f.port}/${f.protocol}${f.port !== f.targetPort ? ` → ${f.targetPort}` : ''} ` +
        `${f.hostIp ? `bound to ${f.hostIp} in compose` : 'published in compose'}, not outside the cluster${f.command ? ` (${f.command})` : ''}`,
    );
    row(
      'exposure',
      [
        s.exposure.internal ? `internal (Service ${s.exposure.internal})` : 'none (no ports)',
        ...external,
        ...forwarded,
      ].join('; '),
    );
    row('volumes', s.volumes.length === 0 ? 'none' : '');
    s.volumes.forEach((v) =>
      lines.push(`      - ${v.type} ${v.source ?? '(anonymous)'} at ${v.target} → ${v.becomes}`),
    );
    const secrets = s.secrets.filter((x) => x.kind !== 'copy');
    const copies = s.secrets.filter((x) => x.kind === 'copy');
    row(
      'secrets',
      secrets.length === 0 ? 'none' : secrets.map((x) => `${x.kind} ${x.name}${x.empty ? ' (EMPTY)' : ''}`).join(', '),
    );
    if (copies.length > 0) {
      row('in Secrets', `${copies.map((x) => x.name).join(', ')} (no secrets, but their values contain one)`);
    }
    row(
      'depends_on',
      s.dependsOn.length === 0
        ? 'none'
        : s.dependsOn.map((d) => `${d.service} (${d.condition}${d.required ? '' : ', optional'})`).join(', '),
    );
    if (s.build) {
      row(
        'build',
        `${s.build.image}${s.build.argsFromEnvironment.length > 0 ? ` (${s.build.argsWithLineBreaks.length > 0 ? 'secret or multi-line' : 'secret'} build arguments from the environment: ${s.build.argsFromEnvironment.join(', ')})` : ''}`,
      );
      s.build.commands.forEach((c) => lines.push(`      $ ${c}`));
    }
    row('warnings', s.warnings.length === 0 ? 'none' : '');
    s.warnings.forEach((w) => lines.push(`      - ${w.message.replace(/\s*\n\s*/g, ' ')}`));
    lines.push('');
  }
  if (analysis.leftOutByProfiles.length > 0) {
    lines.push(
      'Left out by profiles (--profile NAME brings a service in):',
      ...analysis.leftOutByProfiles.map(
        (s) => `  - ${s.service} (profile${s.profiles.length === 1 ? '' : 's'} ${s.profiles.join(', ')})`,
      ),
      '',
    );
  }
  if (analysis.imageBaseUrlNeededBy !== null) {
    lines.push(
      `The VM ${analysis.imageBaseUrlNeededBy} boots from a golden image that you publish: convert and deploy need ` +
        '--image-base-url URL, the folder URL it will be published at (RUNBOOK.md shows how to build and publish it).',
      '',
    );
  }
  if (analysis.buildAll) {
    lines.push(
      'Build and push every image built from source at once (from the folder of the compose file):',
      `  $ ${analysis.buildAll}`,
      '',
    );
  }
  if (analysis.warnings.length > 0) {
    lines.push('Project warnings:', ...analysis.warnings.map((w) => `  - ${w.message.replace(/\s*\n\s*/g, ' ')}`), '');
  }
  return lines.join('\n');
}
