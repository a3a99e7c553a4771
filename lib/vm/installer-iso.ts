import { ComposeError } from '../compose/errors';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The Debian installer ISO a golden image is installed from. The bundle drives the installer with a preseed file
 * served by Packer, so only Debian netinst images (Debian 12 and its point releases) fit.
 */
export class InstallerIso {
  /**
   * Debian 12.0.0 netinst for amd64 from Debian's archive, a URL that never changes. The installer takes the
   * current bookworm packages from the network mirror, so the image is up to date all the same.
   */
  public static debian12(): InstallerIso {
    return new InstallerIso(
      'https://cdimage.debian.org/cdimage/archive/12.0.0/amd64/iso-cd/debian-12.0.0-amd64-netinst.iso',
      '3b0e9718e3653435f20d8c2124de6d363a51a1fd7f911b9ca0c6db6b3d30d53e',
    );
  }

  /**
   * Another Debian 12 netinst ISO, e.g. a later point release or a local mirror.
   * @param url http(s) or file URL of the ISO
   * @param sha256 its SHA-256, 64 hex digits (from the release's SHA256SUMS)
   */
  public static debian(url: string, sha256: string): InstallerIso {
    if (!/^(https?|file):\/\/\S+$/.test(url)) {
      throw new ComposeError('the installer ISO URL is not usable', {
        value: url,
        allowed: 'an http://, https:// or file:// URL',
        hint: 'give the full URL of the netinst ISO',
      });
    }
    const checksum = sha256.toLowerCase().replace(/^sha256:/, '');
    if (!SHA256.test(checksum)) {
      throw new ComposeError('the installer ISO checksum is not a SHA-256', {
        value: sha256,
        allowed: '64 hexadecimal digits',
        hint: "copy the line for the ISO from the release's SHA256SUMS",
      });
    }
    return new InstallerIso(url, checksum);
  }

  private constructor(
    /** The ISO's URL. */
    public readonly url: string,
    /** Its SHA-256 in hex. */
    public readonly sha256: string,
  ) {}

  /** Packer's `iso_checksum`: `sha256:<hex>`. */
  public get packerChecksum(): string {
    return `sha256:${this.sha256}`;
  }
}
