import { KUBEVIRT_VERSION, cdiVersionFor, checkReleaseVersion } from './versions';

/** One step of a procedure: what it does, the commands to run in order, and what to look for. */
export interface RunbookStep {
  readonly title: string;
  readonly commands: readonly string[];
  /** What the output should show, or what to do when it does not. */
  readonly expect?: string;
}

/** Options for {@link vmInstallSteps}. */
export interface VmInstallStepsOptions {
  /**
   * The KubeVirt release.
   * @default KUBEVIRT_VERSION (v0.59.0)
   */
  readonly kubevirtVersion?: string;
  /**
   * The CDI release.
   * @default - the release known to pair with `kubevirtVersion` (v1.56.0 for v0.59.0)
   */
  readonly cdiVersion?: string;
  /**
   * A synthesized manifest holding the KubeVirt and CDI custom resources (from `KubeVirtPlatform`), applied instead of
   * the releases' default `kubevirt-cr.yaml` and `cdi-cr.yaml` so that the feature gates the VMs need are on.
   * @default - the releases' default custom resources
   */
  readonly platformManifest?: string;
}

const KUBEVIRT_RELEASES = 'https://github.com/kubevirt/kubevirt/releases/download';
const CDI_RELEASES = 'https://github.com/kubevirt/containerized-data-importer/releases/download';

/**
 * The steps that install the VM extension (KubeVirt) and its disk importer (CDI) into a cluster and check them.
 * The VM guide's "VM workflow" (docs/vm.md) and the CLI's runbook both render these, so the two cannot drift apart.
 */
export function vmInstallSteps(options: VmInstallStepsOptions = {}): RunbookStep[] {
  const kv = checkReleaseVersion(options.kubevirtVersion ?? KUBEVIRT_VERSION, 'KubeVirt');
  const cdi = cdiVersionFor(kv, options.cdiVersion);
  const kvCr = options.platformManifest ?? `${KUBEVIRT_RELEASES}/${kv}/kubevirt-cr.yaml`;
  const cdiCr = options.platformManifest ?? `${CDI_RELEASES}/${cdi}/cdi-cr.yaml`;
  return [
    {
      title: 'Check that the cluster runs Kubernetes 1.20 or later',
      commands: ['kubectl get --raw /version'],
      expect: '"major": "1" and a "minor" of 20 or more.',
    },
    {
      title: `Install the KubeVirt ${kv} operator, then its custom resource`,
      commands: [
        `kubectl apply -f ${KUBEVIRT_RELEASES}/${kv}/kubevirt-operator.yaml`,
        `kubectl apply -f ${kvCr}`,
        'kubectl -n kubevirt wait kv kubevirt --for condition=Available --timeout=300s',
      ],
      expect:
        'kubevirt.kubevirt.io/kubevirt condition met. A time-out means the install did not finish: read `kubectl -n kubevirt get pods` and the virt-operator logs.',
    },
    {
      title: 'Check that every node advertises the KVM device resource',
      commands: [
        'kubectl get nodes -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\t"}{.status.allocatable.devices\\.kubevirt\\.io/kvm}{"\\n"}{end}\'',
      ],
      expect:
        'A count (for example 1k) after every node that should run VMs. An empty count means the node has no usable /dev/kvm: enable hardware virtualization (or nested virtualization) on it; VMs are not scheduled there.',
    },
    {
      title: `Install the CDI ${cdi} operator, then its custom resource`,
      commands: [
        `kubectl apply -f ${CDI_RELEASES}/${cdi}/cdi-operator.yaml`,
        `kubectl apply -f ${cdiCr}`,
        'kubectl wait cdi cdi --for condition=Available --timeout=300s',
      ],
      expect: 'cdi.cdi.kubevirt.io/cdi condition met.',
    },
    {
      title: `Install virtctl ${kv} and check it against the installed KubeVirt`,
      commands: [
        `curl -fL -o virtctl ${KUBEVIRT_RELEASES}/${kv}/virtctl-${kv}-linux-amd64`,
        'install -m 0755 virtctl /usr/local/bin/virtctl',
        "kubectl -n kubevirt get kv kubevirt -o jsonpath='{.status.observedKubeVirtVersion}'",
        'virtctl version',
      ],
      expect: `The jsonpath query prints ${kv}, and virtctl's client version is ${kv} too. Download the virtctl of the installed release when they differ.`,
    },
  ];
}

/** The KubeVirt v0.59 feature gates the runbook's VirtualMachineSnapshot and `virtctl vmexport` need. */
export const RUNBOOK_FEATURE_GATES: readonly string[] = ['Snapshot', 'VMExport'];

/**
 * The step that turns on the feature gates the runbook's snapshot and export need, on a KubeVirt installed from the
 * release's `kubevirt-cr.yaml` (which sets none). `KubeVirtPlatform`'s manifest sets them already.
 */
export function featureGateSteps(gates: readonly string[] = RUNBOOK_FEATURE_GATES): RunbookStep[] {
  const patch = JSON.stringify({ spec: { configuration: { developerConfiguration: { featureGates: [...gates] } } } });
  return [
    {
      title: `Turn on the feature gates ${gates.join(' and ')} (snapshots and disk exports; the release's custom resource sets none)`,
      commands: [
        `kubectl patch kv kubevirt -n kubevirt --type merge -p '${patch}'`,
        "kubectl get kv kubevirt -n kubevirt -o jsonpath='{.spec.configuration.developerConfiguration.featureGates}'",
      ],
      expect: `The list holds ${gates.map((g) => `"${g}"`).join(' and ')}. The patch replaces the list: add any gate you had set before.`,
    },
  ];
}

/**
 * Packer 1.10 and later no longer bundle the QEMU builder that the JSON template uses: the step that installs it.
 */
export function packerPluginStep(): RunbookStep {
  return {
    title: 'With Packer 1.10 or later, install the QEMU plugin (earlier releases bundle it)',
    commands: ['packer version', 'packer plugins install github.com/hashicorp/qemu'],
    expect:
      '`packer plugins installed` lists github.com/hashicorp/qemu. Without it, Packer 1.10 and later refuse the template: "The builder qemu is unknown by Packer".',
  };
}

/** Options for {@link goldenImageBuildSteps}. */
export interface GoldenImageBuildStepsOptions {
  /** The bundle folder as the operator reaches it, e.g. `dist/golden-image/shop`, or `.` from inside it. */
  readonly bundleDir: string;
  /** The Packer output folder inside the bundle. */
  readonly outputDirectory: string;
  /** The image file Packer writes into the output folder (its `vm_name`). */
  readonly vmName: string;
  /** The file name of the converted image that gets published. */
  readonly imageFile: string;
  /**
   * Where the image is published; the DataVolume imports it from there.
   * @default - a placeholder the operator replaces
   */
  readonly imageUrl?: string;
}

/**
 * The steps that build a golden image from a bundle, convert it to QCOW2 and publish it for a DataVolume.
 * The password of the build user comes from the operator's shell, never from a file.
 */
export function goldenImageBuildSteps(options: GoldenImageBuildStepsOptions): RunbookStep[] {
  const url = options.imageUrl ?? '<IMAGE_URL>';
  return [
    {
      title: 'Choose the password of the build user (it is only used while Packer builds the image, then locked)',
      commands: ['read -rs PACKER_SSH_PASSWORD && export PACKER_SSH_PASSWORD'],
      expect: 'Any password without spaces; it is never written to a file.',
    },
    {
      title: 'Build the image with Packer (QEMU with KVM; run it from the bundle folder, its paths are relative)',
      commands: [
        ...(options.bundleDir === '.' ? [] : [`cd ${options.bundleDir}`]),
        'packer validate -var "ssh_password=$PACKER_SSH_PASSWORD" packer.json',
        'packer build -var "ssh_password=$PACKER_SSH_PASSWORD" packer.json',
      ],
      expect: `${options.outputDirectory}/${options.vmName} exists. The build installs Debian, Docker with the compose plugin, cloud-init and the qemu guest agent, the app and its systemd unit.`,
    },
    {
      title: 'Convert the image to a compact QCOW2 and check its virtual size',
      commands: [
        `qemu-img convert -O qcow2 ${options.outputDirectory}/${options.vmName} ${options.imageFile}`,
        `qemu-img info ${options.imageFile}`,
      ],
      expect: "The virtual size is below the DataVolume's storage request (CDI needs room for file-system overhead).",
    },
    {
      title: 'Publish the image at a URL the cluster can reach, for the DataVolume to import',
      commands: [`curl -fsSI ${url}`],
      expect: `HTTP 200 with the image's length, after copying ${options.imageFile} to a web server or object store at that URL.`,
    },
  ];
}

/** Markdown for a list of steps: a numbered list, each with its commands in a shell block. */
export function renderStepsMarkdown(steps: readonly RunbookStep[]): string {
  return (
    steps
      .map((step, index) => {
        const lines = [
          `${index + 1}. ${step.title}:`,
          '',
          '   ```sh',
          ...step.commands.map((c) => `   ${c}`),
          '   ```',
        ];
        if (step.expect) {
          lines.push('', `   Expect: ${step.expect}`);
        }
        return lines.join('\n');
      })
      .join('\n\n') + '\n'
  );
}
