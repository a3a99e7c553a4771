import { CloudInitPassword } from '../../lib/vm/cloud-init-password';

describe('CloudInitPassword', () => {
  test('a password is never shown by inspecting the password object', () => {
    const password = CloudInitPassword.fromEnvironment('VM_PASSWORD', { VM_PASSWORD: 'hunter2-secret' });
    expect(JSON.stringify(password)).not.toContain('hunter2-secret');
    expect(String(Object.values(password))).not.toContain('hunter2-secret');
    expect(password.source).toBe('VM_PASSWORD');
  });

  describe('fails when', () => {
    test('the password variable is not set', () => {
      expect(() => CloudInitPassword.fromEnvironment('VM_PASSWORD', {})).toThrow(
        'the password variable VM_PASSWORD is not set. Allowed: a password the operator exports before synth. ' +
          'Fix: export VM_PASSWORD in the shell that runs the synth, or use CloudInitPassword.fromSecret() with an existing Secret.',
      );
    });

    test('the password variable name is not an environment variable name', () => {
      expect(() => CloudInitPassword.fromEnvironment('VM-PASSWORD', { 'VM-PASSWORD': 'x' })).toThrow(
        'the password variable name is not an environment variable name',
      );
    });

    test('the password Secret is not a Kubernetes name', () => {
      expect(() => CloudInitPassword.fromSecret('VM_Passwords')).toThrow(
        'the password Secret name is not a valid Kubernetes name',
      );
    });
  });
});
