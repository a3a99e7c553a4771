import * as fs from 'fs';
import * as path from 'path';
import { goldenImageBuildSteps, renderStepsMarkdown, vmInstallSteps } from '../../lib/vm/install-steps';

const VM_GUIDE = fs.readFileSync(path.join(__dirname, '../../docs/vm.md'), 'utf-8');

/** The generic build steps the README shows (the bundle README renders them for its own app). */
const README_BUILD_STEPS = goldenImageBuildSteps({
  bundleDir: 'dist/golden-image/<app>',
  outputDirectory: 'output',
  vmName: '<app>.qcow2',
  imageFile: '<app>.qcow2',
});

describe('install steps', () => {
  test('install KubeVirt v0.59.0 and CDI v1.56.0, wait for Available, check virtctl, the version and KVM', () => {
    const commands = vmInstallSteps().flatMap((s) => s.commands);
    expect(commands).toEqual([
      'kubectl get --raw /version',
      'kubectl apply -f https://github.com/kubevirt/kubevirt/releases/download/v0.59.0/kubevirt-operator.yaml',
      'kubectl apply -f https://github.com/kubevirt/kubevirt/releases/download/v0.59.0/kubevirt-cr.yaml',
      'kubectl -n kubevirt wait kv kubevirt --for condition=Available --timeout=300s',
      'kubectl get nodes -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\t"}{.status.allocatable.devices\\.kubevirt\\.io/kvm}{"\\n"}{end}\'',
      'kubectl apply -f https://github.com/kubevirt/containerized-data-importer/releases/download/v1.56.0/cdi-operator.yaml',
      'kubectl apply -f https://github.com/kubevirt/containerized-data-importer/releases/download/v1.56.0/cdi-cr.yaml',
      'kubectl wait cdi cdi --for condition=Available --timeout=300s',
      'curl -fL -o virtctl https://github.com/kubevirt/kubevirt/releases/download/v0.59.0/virtctl-v0.59.0-linux-amd64',
      'install -m 0755 virtctl /usr/local/bin/virtctl',
      "kubectl -n kubevirt get kv kubevirt -o jsonpath='{.status.observedKubeVirtVersion}'",
      'virtctl version',
    ]);
  });

  test('the version variable changes every release URL', () => {
    const text = JSON.stringify(vmInstallSteps({ kubevirtVersion: 'v1.0.0', cdiVersion: 'v1.57.0' }));
    expect(text).not.toContain('v0.59.0');
    expect(text).toContain('/v1.0.0/kubevirt-operator.yaml');
    expect(text).toContain('/v1.57.0/cdi-operator.yaml');
  });

  test('build steps: packer with the password from the shell, qemu-img convert -O qcow2, publish', () => {
    const commands = README_BUILD_STEPS.flatMap((s) => s.commands);
    expect(commands).toContain('packer build -var "ssh_password=$PACKER_SSH_PASSWORD" packer.json');
    expect(commands).toContain('qemu-img convert -O qcow2 output/<app>.qcow2 <app>.qcow2');
    expect(commands).toContain('curl -fsSI <IMAGE_URL>');
  });

  test('renders Markdown', () => {
    expect(renderStepsMarkdown([{ title: 'Say hi', commands: ['echo hi'], expect: 'hi.' }])).toBe(
      '1. Say hi:\n\n   ```sh\n   echo hi\n   ```\n\n   Expect: hi.\n',
    );
  });

  test('the VM guide shows exactly these steps, so the two cannot drift apart', () => {
    expect(VM_GUIDE).toContain('# VM workflow');
    expect(VM_GUIDE).toContain(renderStepsMarkdown(vmInstallSteps()));
    expect(VM_GUIDE).toContain(renderStepsMarkdown(README_BUILD_STEPS));
  });
});
