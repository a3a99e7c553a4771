import { inlineCode, shellQuote } from '../util/shell-words';
import { VirtualMachineSnapshot } from '../../imports/kubevirt-snapshot-snapshot.kubevirt.io';
import { renderStepsMarkdown, vmInstallSteps } from '../vm/install-steps';
import { manifestYaml } from '../base/manifest-yaml';
import type { Rendered } from './rendered';
import { Markdown } from './runbook-text';
import { WaveKind } from '../app/deploy-waves';

/** Without a user of cloud-init's, the SSH key goes to root, whose login sshd allows by key only (`prohibit-password`). */
const ROOT_USER = 'root';

/** Before the deploy: install KubeVirt and CDI, then build, convert and publish the golden image. */
export function renderVmPrerequisites(md: Markdown, rendered: Rendered): void {
  const app = rendered.project.composeApp;
  const composeVm = app.vm!;
  const objects = rendered.waves.flatMap((w) => w.objects);
  const imageUrl: string | undefined = objects.find((o) => o.kind === 'DataVolume')?.manifest.spec?.source?.http?.url;
  md.line(
    `${app.vmServices.map((s) => s.composeName).join(', ')} run${app.vmServices.length === 1 ? 's' : ''} in the VirtualMachine ` +
      `\`${composeVm.vm.name}\`, booted from a golden image whose compose project runs ${app.vmServices.length === 1 ? 'it' : 'them'}:`,
    '',
  );
  for (const service of app.vmServices) {
    md.line(`- ${service.composeName}: ${service.reasons.join('; ')}`);
  }
  md.line('');
  md.para('Do this before the deploy: the VM wave needs KubeVirt and CDI in the cluster and the image at its URL.');
  md.heading(3, 'Install KubeVirt and CDI (once per cluster)');
  md.line(renderStepsMarkdown(vmInstallSteps()).trimEnd(), '');
  md.heading(3, 'Build and publish the golden image');
  md.para(`The bundle is in \`golden-image/${composeVm.bundle.name}/\`; run the steps from this folder.`);
  md.line(renderStepsMarkdown(composeVm.bundle.buildSteps('.', imageUrl)).trimEnd(), '');
  const inputs = composeVm.bundle.operatorInputs;
  if (inputs.length > 0) {
    md.para(
      "The app's secret values are not in the bundle: cloud-init writes them into the VM at boot from a Secret",
      `(${inputs.map((i) => `\`${i.name}\``).join(', ')}).`,
    );
  }
}

/**
 * Operating the VM with KubeVirt v0.59.0: each operation of the spec's VM client table, with the command that does it
 * in that release where the spec's shape does not exist there.
 */
export function renderVmOperations(md: Markdown, rendered: Rendered, singleFile?: string): void {
  const app = rendered.project.composeApp;
  const composeVm = app.vm!;
  const ns = app.namespace;
  const name = composeVm.vm.name;
  const objects = rendered.waves.flatMap((w) => w.objects);
  const dataVolume = objects.find((o) => o.kind === 'DataVolume');
  const vmObject = objects.find((o) => o.kind === 'VirtualMachine' && o.name === name);
  const vmFile =
    singleFile ??
    rendered.waves.find((w) => w.wave.kind === WaveKind.VM)?.objects.find((o) => o.kind === 'VirtualMachine')?.file;
  const unit = `${composeVm.bundle.name}.service`;
  const user = composeVm.users[0]?.name ?? ROOT_USER;
  const sudo = user !== ROOT_USER && composeVm.users[0]?.sudo !== undefined ? 'sudo ' : '';

  md.heading(3, 'Start, stop, watch');
  md.para(
    '`kubectl get dv` shows the image import; `describe` shows why a VM does not start (no KVM on the nodes, the',
    'image URL unreachable, the quota). `virtctl console` shows the boot messages (leave it with `Ctrl+]`).',
  );
  md.sh([
    `kubectl get dv,vm,vmi -n ${ns}`,
    `kubectl describe vm ${name} -n ${ns}`,
    `kubectl describe vmi ${name} -n ${ns}`,
    `virtctl start ${name} -n ${ns}`,
    `virtctl stop ${name} -n ${ns}`,
    `virtctl restart ${name} -n ${ns}`,
    `virtctl console ${name} -n ${ns}`,
    `virtctl vnc ${name} -n ${ns}`,
  ]);

  md.heading(3, "Log in, and read the app's logs");
  md.para(
    user === ROOT_USER
      ? 'The image has no login anyone knows: the build user is locked when the build ends, and cloud-init adds no user.'
      : `The image has no login anyone knows: the build user is locked when the build ends. cloud-init creates \`${user}\`` +
          ' (in the `docker` and `systemd-journal` groups, with sudo) without a password or a key.',
    `Give ${user} your SSH public key from a Secret: KubeVirt hands it to the qemu guest agent in the VM`,
    `(\`accessCredentials\`, \`propagationMethod.qemuGuestAgent\`), which writes it to ~${user}/.ssh/authorized_keys`,
    `while the VM runs${user === ROOT_USER ? '; sshd admits root by key only' : ''}. \`virtctl ssh\` reaches the VM through the`,
    'API server, not through a Service. The app runs as the systemd unit',
    `\`${unit}\` (\`docker compose up -d\` in \`${composeVm.bundle.appDirectory}\`).`,
  );
  const credential = {
    sshPublicKey: {
      source: { secret: { secretName: `${name}-ssh-key` } },
      propagationMethod: { qemuGuestAgent: { users: [user] } },
    },
  };
  const hasCredentials = (vmObject?.manifest.spec?.template?.spec?.accessCredentials ?? []).length > 0;
  const patch = hasCredentials
    ? [{ op: 'add', path: '/spec/template/spec/accessCredentials/-', value: credential }]
    : [{ op: 'add', path: '/spec/template/spec/accessCredentials', value: [credential] }];
  const ssh = `virtctl ssh ${user}@vm/${name} -n ${ns} --identity-file=<PRIVATE_KEY_FILE>`;
  md.sh([
    `kubectl create secret generic ${name}-ssh-key --from-file=key1=<PUBLIC_KEY_FILE> -n ${ns}`,
    `kubectl patch vm ${name} -n ${ns} --type=json -p ${shellQuote(JSON.stringify(patch))}`,
    `virtctl restart ${name} -n ${ns}`,
    ssh,
    `${ssh} --command=${shellQuote(`journalctl -u ${unit} --no-pager -n 200`)}`,
    `${ssh} --command=${shellQuote(`cd ${composeVm.bundle.appDirectory} && ${sudo}docker compose ps && ${sudo}docker compose logs --tail=200`)}`,
  ]);
  md.para(
    "The restart makes the new `accessCredentials` part of the running VM. `kubectl apply` of the VM's file later",
    `keeps the patched field (it was not applied from the file). To take the key away, remove that entry (\`kubectl edit vm ${name} -n ${ns}\`),`,
    'restart the VM, then delete the Secret: a VM whose credential Secret is missing does not start.',
  );

  md.heading(3, 'Metrics');
  md.para(
    'The spec reads VM metrics at `/apis/metrics.kubevirt.io/v1alpha1/…`; KubeVirt v0.59.0 has no such API. The VM',
    "runs in a `virt-launcher` pod, whose cpu and memory the metrics server reports like any pod's; KubeVirt's own",
    '`kubevirt_vmi_*` metrics (guest cpu, memory, disk and network) are served in Prometheus format by the',
    '`kubevirt-prometheus-metrics` Service in the `kubevirt` namespace.',
  );
  md.sh([
    `kubectl top pod -l vm.kubevirt.io/name=${name} -n ${ns}`,
    `kubectl get --raw /api/v1/namespaces/kubevirt/services/https:kubevirt-prometheus-metrics:443/proxy/metrics | grep 'name="${name}"'`,
  ]);

  md.heading(3, 'Snapshot, export, restore and delete');
  md.para(
    "The spec's `virtctl snapshot create` and `virtctl export vm … --output` do not exist in KubeVirt v0.59.0. There,",
    'a snapshot is a `VirtualMachineSnapshot` object (snapshot.kubevirt.io/v1alpha1, the class `VirtualMachineSnapshot` in',
    '`imports/`), applied with kubectl: it needs a storage class with CSI snapshots; `kubectl get vmsnapshot` shows',
    '`readyToUse`. The export of the definition is `kubectl get vm … -o yaml`; `virtctl vmexport download` exports the',
    "disk (of a stopped VM). The restore applies the definition; the VM's own file in this folder is the same definition",
    "without the cluster's fields.",
  );
  const snapshot = VirtualMachineSnapshot.manifest({
    metadata: { name: `${name}-<SNAPSHOT_NAME>`, namespace: ns },
    spec: { source: { apiGroup: 'kubevirt.io', kind: 'VirtualMachine', name } },
  });
  md.sh([
    `kubectl apply -n ${ns} -f - <<'EOF'`,
    ...manifestYaml(snapshot).trimEnd().split('\n'),
    'EOF',
    `kubectl get vmsnapshot -n ${ns}`,
    `kubectl get vm ${name} -n ${ns} -o yaml > ${name}.yaml`,
    `virtctl stop ${name} -n ${ns}`,
    `virtctl vmexport download ${name}-export --vm=${name} --output=${name}-disk.img.gz -n ${ns}`,
    `virtctl start ${name} -n ${ns}`,
    `kubectl apply -f ${shellQuote(vmFile ?? `${name}.yaml`)}`,
    `kubectl delete vm ${name} -n ${ns}`,
  ]);
  md.para(
    `Deleting the VM keeps its disk (the DataVolume \`${dataVolume?.name ?? `${name}-rootdisk`}\`); applying`,
    `${singleFile ? `${inlineCode(singleFile)} again` : 'its file'} brings the VM back on it.`,
  );
}
