import { inlineCode, shellQuote } from '../../util/shell-words';
import { VirtualMachineSnapshot } from '../../../imports/kubevirt-snapshot-snapshot.kubevirt.io';
import { featureGateSteps, renderStepsMarkdown, vmInstallSteps } from '../../vm/install-steps';
import { manifestYaml } from '../../base/manifest-yaml';
import type { Rendered, RenderedObject } from '../rendered';
import { Markdown } from './runbook-text';
import { WaveKind } from '../../app/deploy-waves';

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
  md.para(
    'The snapshot and the disk export under "Operate the VM" need two of KubeVirt\'s feature gates, which the',
    "release's custom resource leaves off:",
  );
  md.line(renderStepsMarkdown(featureGateSteps()).trimEnd(), '');
  md.heading(3, 'Build and publish the golden image');
  md.para(`The bundle is in \`golden-image/${composeVm.bundle.name}/\`; run the steps from this folder.`);
  md.line(renderStepsMarkdown(composeVm.bundle.buildSteps('.', imageUrl)).trimEnd(), '');
  const inputs = composeVm.bundle.operatorInputs;
  if (inputs.length > 0 && composeVm.appSecret) {
    md.para(
      "The values of the app's `${VAR}` references and its secret values are not in the bundle: they are in the",
      `Secret \`${composeVm.appSecret.name}\` (${inputs.map((i) => `\`${i.name}\``).join(', ')}), which the VM reads as a`,
      `disk at every start; the unit \`${composeVm.bundle.name}.service\` writes them into`,
      `\`${composeVm.bundle.appDirectory}\` before \`docker compose up\`. A changed Secret reaches the app on the next`,
      '`virtctl restart` (see "Read and rotate a secret").',
    );
  }
  const dataDisk = composeVm.vm.dataDisk;
  if (dataDisk) {
    md.para(
      `Docker keeps the named volumes of the VM's services on the data disk \`${dataDisk.name}\`, mounted at`,
      '`/var/lib/docker/volumes` and formatted on its first boot only: a new golden image (a new root disk) keeps the',
      'data. Its size is `--vm-data-size`, its class `--storage-class-name`. Folders the compose file binds',
      `(\`./data:/…\`) stay in \`${composeVm.bundle.appDirectory}\` on the root disk, which a new image replaces.`,
    );
  }
  const vmObject = objects.find((o) => o.kind === 'VirtualMachine' && o.name === composeVm.vm.name);
  const keySecret = sshKeySecretOf(vmObject?.manifest);
  if (keySecret) {
    md.heading(3, 'Create the SSH key Secret');
    md.para(
      `The VM takes the maintenance user's SSH public keys from the Secret \`${keySecret}\` (\`--vm-ssh-key-secret\`),`,
      'which you create before the deploy: a VM whose credential Secret is missing does not start.',
    );
    md.sh([`kubectl create secret generic ${keySecret} --from-file=key1=<PUBLIC_KEY_FILE> -n ${app.namespace}`]);
  }
  md.para(
    "The VM's pod is ready only once the app is: a readiness probe runs in the guest, through the qemu guest agent,",
    `and passes while \`${composeVm.bundle.name}.service\` is active and no container of the project is unhealthy or`,
    'still starting. Until then its Services send no traffic, and waits on it keep waiting.',
  );
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
  const credentials: readonly unknown[] = vmObject?.manifest.spec?.template?.spec?.accessCredentials ?? [];
  const keySecret = sshKeySecretOf(vmObject?.manifest);
  const ssh = `virtctl ssh ${user}@vm/${name} -n ${ns} --identity-file=<PRIVATE_KEY_FILE>`;
  const logs = [
    ssh,
    `${ssh} --command=${shellQuote(`journalctl -u ${unit} --no-pager -n 200`)}`,
    `${ssh} --command=${shellQuote(`cd ${composeVm.bundle.appDirectory} && ${sudo}docker compose ps && ${sudo}docker compose logs --tail=200`)}`,
  ];
  if (keySecret) {
    md.para(
      `The VM takes the keys from the Secret \`${keySecret}\` (\`--vm-ssh-key-secret\`, created before the deploy);`,
      'each of its keys holds public keys. A changed Secret reaches the guest on the next restart.',
    );
    md.sh([...logs, `virtctl restart ${name} -n ${ns}`]);
  } else {
    const credential = {
      sshPublicKey: {
        source: { secret: { secretName: `${name}-ssh-key` } },
        propagationMethod: { qemuGuestAgent: { users: [user] } },
      },
    };
    const patch =
      credentials.length > 0
        ? [{ op: 'add', path: '/spec/template/spec/accessCredentials/-', value: credential }]
        : [{ op: 'add', path: '/spec/template/spec/accessCredentials', value: [credential] }];
    md.para('Convert with `--vm-ssh-key-secret NAME` to have the VM take them from the start; or add them now:');
    md.sh([
      `kubectl create secret generic ${name}-ssh-key --from-file=key1=<PUBLIC_KEY_FILE> -n ${ns}`,
      `kubectl patch vm ${name} -n ${ns} --type=json -p ${shellQuote(JSON.stringify(patch))}`,
      `virtctl restart ${name} -n ${ns}`,
      ...logs,
    ]);
    md.para(
      "The restart makes the new `accessCredentials` part of the running VM. `kubectl apply` of the VM's file later",
      `keeps the patched field (it was not applied from the file). To take the key away, remove that entry (\`kubectl edit vm ${name} -n ${ns}\`),`,
      'restart the VM, then delete the Secret: a VM whose credential Secret is missing does not start.',
    );
  }

  const evictionStrategy: string | undefined = vmObject?.manifest.spec?.template?.spec?.evictionStrategy;
  md.heading(3, 'Node drains');
  md.para(
    evictionStrategy === 'LiveMigrate'
      ? "The VM's disks are ReadWriteMany, so `evictionStrategy: LiveMigrate` moves the running VM to another node when its node drains."
      : `The VM's disks are ReadWriteOnce: they cannot follow a running VM to another node, so \`evictionStrategy: ${evictionStrategy ?? 'None'}\`` +
          ' lets a drain stop the VM (the guest shuts down, `docker compose down` runs) and KubeVirt starts it again on another node.' +
          " Plan drains as a short outage of the VM's services; on ReadWriteMany storage set `accessMode: VmAccessMode.READ_WRITE_MANY`" +
          " (the library's `vm` option) for live migration.",
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

  const disks = objects
    .filter((o) => o.kind === 'DataVolume')
    .map((o) => o.name)
    .sort();
  const rootDisk = dataVolume?.name ?? `${name}-rootdisk`;
  md.heading(3, 'Snapshot, export, restore and delete');
  md.para(
    "The spec's `virtctl snapshot create` and `virtctl export vm … --output` do not exist in KubeVirt v0.59.0. There,",
    'a snapshot is a `VirtualMachineSnapshot` object (snapshot.kubevirt.io/v1alpha1, the class `VirtualMachineSnapshot` in',
    '`imports/`), applied with kubectl: it takes every disk of the VM',
    `(${disks.map((d) => `\`${d}\``).join(', ')}), needs the \`Snapshot\` feature gate and a storage class with CSI`,
    'snapshots; `kubectl get vmsnapshot` shows `readyToUse`. A `VirtualMachineRestore` of a stopped VM puts every disk',
    'back as the snapshot had it.',
  );
  const snapshot = VirtualMachineSnapshot.manifest({
    metadata: { name: `${name}-<SNAPSHOT_NAME>`, namespace: ns },
    spec: { source: { apiGroup: 'kubevirt.io', kind: 'VirtualMachine', name } },
  });
  // v0.59 has no class for VirtualMachineRestore in imports/: its two fields, as the release's CRD names them.
  const restore = {
    apiVersion: 'snapshot.kubevirt.io/v1alpha1',
    kind: 'VirtualMachineRestore',
    metadata: { name: `${name}-restore-<SNAPSHOT_NAME>`, namespace: ns },
    spec: {
      target: { apiGroup: 'kubevirt.io', kind: 'VirtualMachine', name },
      virtualMachineSnapshotName: `${name}-<SNAPSHOT_NAME>`,
    },
  };
  md.sh([
    `kubectl apply -n ${ns} -f - <<'EOF'`,
    ...manifestYaml(snapshot).trimEnd().split('\n'),
    'EOF',
    `kubectl get vmsnapshot -n ${ns}`,
    `virtctl stop ${name} -n ${ns}`,
    `kubectl apply -n ${ns} -f - <<'EOF'`,
    ...manifestYaml(restore).trimEnd().split('\n'),
    'EOF',
    `kubectl get vmrestore -n ${ns}`,
    `virtctl start ${name} -n ${ns}`,
  ]);
  md.para(
    'The export copies the disks out of the cluster (of a stopped VM; it needs the `VMExport` feature gate).',
    '`virtctl vmexport download` of v0.59.0 needs an external link (an Ingress to `virt-exportproxy`) and has no',
    '`--port-forward` yet: without an Ingress, create the export, forward a local port to its Service, and download each',
    "disk's internal link with the export's token. The definition is `kubectl get vm … -o yaml`; the VM's own file in",
    "this folder is the same definition without the cluster's fields.",
  );
  const linkOf = (disk: string) =>
    `kubectl get vmexport ${name}-export -n ${ns} -o jsonpath='{.status.links.internal.volumes[?(@.name=="${disk}")].formats[?(@.format=="gzip")].url}' | sed 's#^https://[^/]*#https://localhost:8443#'`;
  md.sh([
    `kubectl get vm ${name} -n ${ns} -o yaml > ${name}.yaml`,
    `virtctl stop ${name} -n ${ns}`,
    `virtctl vmexport create ${name}-export --vm=${name} -n ${ns}`,
    `kubectl wait vmexport/${name}-export --for=condition=Ready --timeout=300s -n ${ns}`,
    `kubectl port-forward service/virt-export-${name}-export 8443:443 -n ${ns} &`,
    `TOKEN=$(kubectl get secret export-token-${name}-export -n ${ns} -o jsonpath='{.data.token}' | base64 -d)`,
    ...disks.map((disk) => `curl -fk -H "x-kubevirt-export-token: $TOKEN" -o ${disk}.img.gz "$(${linkOf(disk)})"`),
    'kill %1',
    `virtctl vmexport delete ${name}-export -n ${ns}`,
    `virtctl start ${name} -n ${ns}`,
    `kubectl apply -f ${shellQuote(vmFile ?? `${name}.yaml`)}`,
    `kubectl delete vm ${name} -n ${ns}`,
  ]);
  md.para(
    `Deleting the VM keeps its disks (the DataVolumes ${disks.map((d) => `\`${d}\``).join(', ')}, which carry`,
    '`cdi.kubevirt.io/storage.deleteAfterCompletion: "false"`, so CDI does not delete them after the import and a',
    `GitOps sync does not create them again); applying ${singleFile ? `${inlineCode(singleFile)} again` : 'its file'} brings the VM back on them.`,
    `A new golden image means deleting \`${rootDisk}\` (the root disk) before applying: the data disk stays.`,
  );
}

/** The Secret of the first SSH key credential of a rendered VirtualMachine, when it has one. */
function sshKeySecretOf(manifest: RenderedObject['manifest']): string | undefined {
  const credentials: readonly { sshPublicKey?: { source: { secret: { secretName: string } } } }[] =
    manifest?.spec?.template?.spec?.accessCredentials ?? [];
  return credentials.find((c) => c.sshPublicKey)?.sshPublicKey?.source.secret.secretName;
}
