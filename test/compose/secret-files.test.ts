import { markedContentOf as contentOf } from '../../lib/compose/files';
import {
  SecretFileScanner,
  base64Forms,
  secretFileKind,
  secretFileName,
  secretFileReason,
} from '../../lib/compose/secret-files';
import { SecretValues } from '../../lib/compose/sensitive';

const RSA_KEY =
  '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n-----END RSA PRIVATE KEY-----\n';
const OPENSSH_KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n';
const CERTIFICATE = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----\n';

describe('secretFileKind: files secret by content', () => {
  test.each([
    ['server.pem', RSA_KEY, 'a PEM private key'],
    ['tls.txt', '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n', 'a PEM private key'],
    ['ec.pem', '-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n', 'a PEM private key'],
    [
      'enc.pem',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n-----END ENCRYPTED PRIVATE KEY-----\n',
      'a PEM private key',
    ],
    ['bundle.pem', `${CERTIFICATE}${RSA_KEY}`, 'a PEM private key'],
    ['deploy', OPENSSH_KEY, 'an OpenSSH private key'],
    ['gpg.asc', '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF\n', 'a PGP private key'],
    ['auth', 'admin:$apr1$ZjTqBB3f$IF9gdYAGlMrs2fuINjHsz.\nbob:$2y$05$H6Pf\n', 'an htpasswd file'],
    ['users', '# users\nalice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n', 'an htpasswd file'],
  ])('%s is secret by its content', (name, text, kind) => {
    expect(secretFileKind(name, Buffer.from(text))).toBe(kind);
  });

  test('a PKCS#12 store is known by its DER header, whatever its name', () => {
    // SEQUENCE (long form, 2 length bytes) { INTEGER 3, SEQUENCE … }: what openssl pkcs12 -export writes.
    const p12 = Buffer.from([0x30, 0x82, 0x0a, 0x51, 0x02, 0x01, 0x03, 0x30, 0x82, 0x0a, 0x17, 0x06]);
    expect(secretFileKind('store.bin', p12)).toBe('a PKCS#12 key store');
    expect(secretFileKind('store.bin', Buffer.from([0x30, 0x80, 0x02, 0x01, 0x03, 0x30, 0x80, 0x06]))).toBe(
      'a PKCS#12 key store',
    );
    // A certificate in DER is a SEQUENCE too, but its first element is a SEQUENCE, not the INTEGER 3.
    expect(secretFileKind('cert.der', Buffer.from([0x30, 0x82, 0x01, 0xb3, 0x30, 0x82, 0x01, 0x59, 0xa0]))).toBe(
      undefined,
    );
  });

  test('public material and ordinary files are not secret', () => {
    expect(secretFileKind('server.crt', Buffer.from(CERTIFICATE))).toBeUndefined();
    expect(secretFileKind('id_rsa.pub', Buffer.from('ssh-rsa AAAAB3Nza user@host\n'))).toBeUndefined();
    expect(secretFileKind('nginx.conf', Buffer.from('server { listen 80; }\n'))).toBeUndefined();
    expect(secretFileKind('notes.txt', Buffer.from('a: b\n'))).toBeUndefined();
    expect(secretFileKind('empty', Buffer.alloc(0))).toBeUndefined();
  });
});

describe('secretFileKind: files secret by name', () => {
  test.each([
    ['./ssh/id_rsa', 'an SSH private key (by its name)'],
    ['id_ed25519', 'an SSH private key (by its name)'],
    ['conf/.htpasswd', 'an htpasswd file (by its name)'],
    ['certs/server.key', 'a key file (named *.key)'],
    ['TLS.KEY', 'a key file (named *.key)'],
    ['client.p12', 'a key store (named *.p12)'],
    ['client.pfx', 'a key store (named *.pfx)'],
    ['app/db_password.txt', 'a password file (named *password*)'],
    ['client-secret.json', 'a secret file (named *secret*)'],
  ])('%s: %s', (name, kind) => {
    expect(secretFileName(name)).toBe(kind);
    expect(secretFileKind(name, Buffer.from('anything\n'))).toBe(kind);
  });

  test('only the last part of the path counts', () => {
    expect(secretFileName('./secrets/nginx.conf')).toBeUndefined();
    expect(secretFileName('./keys.d/app.conf')).toBeUndefined();
  });

  test('the loader marks what it reads: markedContentOf carries the kind', () => {
    expect(contentOf('certs/server.key', Buffer.from('x')).secret).toBe('a key file (named *.key)');
    expect(contentOf('nginx.conf', Buffer.from('x')).secret).toBeUndefined();
    expect(contentOf('blob', Buffer.from([0, 1, 2, ...Buffer.from(RSA_KEY)])).secret).toBe('a PEM private key');
  });
});

describe('SecretFileScanner: known secret values, raw and in base64', () => {
  const SECRET = 's3cr3t-Pa55word';

  test('base64Forms give the value at each alignment inside a longer base64 text', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd']) {
      const encoded = Buffer.from(`${prefix}${SECRET}-and-more`).toString('base64');
      expect(base64Forms(SECRET).some((form) => encoded.includes(form))).toBe(true);
    }
  });

  test('a text file with the value, or its base64 (a Secret manifest), holds it', () => {
    const scanner = new SecretFileScanner([SECRET]);
    expect(scanner.holds(contentOf('a.conf', Buffer.from(`password=${SECRET}\n`)))).toBe(true);
    const manifest = `kind: Secret\ndata:\n  PASSWORD: ${Buffer.from(SECRET).toString('base64')}\n`;
    expect(scanner.holds(contentOf('app-secret.yaml', Buffer.from(manifest)))).toBe(true);
    expect(scanner.holds(contentOf('b.conf', Buffer.from('nothing here\n')))).toBe(false);
  });

  test('a binary file with the value in its bytes holds it', () => {
    const scanner = new SecretFileScanner([SECRET]);
    const blob = contentOf(
      'data.bin',
      Buffer.concat([Buffer.from([0, 0xff, 0xfe]), Buffer.from(SECRET), Buffer.from([0])]),
    );
    expect(blob.binary).toBe(true);
    expect(scanner.holds(blob)).toBe(true);
    expect(scanner.holds(contentOf('other.bin', Buffer.from([0, 0xff, 1, 2, 3])))).toBe(false);
  });

  test('secretFileReason: the kind first, then the values; none for a plain file', () => {
    const values = new SecretValues();
    values.add(SECRET);
    expect(secretFileReason(contentOf('server.key', Buffer.from('x')), values)).toBe('is a key file (named *.key)');
    expect(secretFileReason(contentOf('app.conf', Buffer.from(SECRET)), values)).toBe('contains a secret value');
    expect(secretFileReason(contentOf('app.conf', Buffer.from('plain')), values)).toBeUndefined();
    // A value added later is searched for too.
    values.add('later-added-value');
    expect(secretFileReason(contentOf('app.conf', Buffer.from('later-added-value')), values)).toBe(
      'contains a secret value',
    );
  });
});
