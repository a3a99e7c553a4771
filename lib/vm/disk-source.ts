import { Size } from 'cdk8s';
import { ComposeError } from '../compose/errors';
import { sizeToKibibytes } from '../base/sizes';

/** A golden image whose published file a DataVolume can import (a `GoldenImageBundle`). */
export interface IGoldenImage {
  /** The file name of the converted QCOW2 image, e.g. `shop.qcow2`. */
  readonly imageFile: string;
  /** The image's virtual disk size. */
  readonly diskSize: Size;
}

/** CDI's default file-system overhead: the share of a file-system PVC that the imported image may not use. */
const CDI_FILESYSTEM_OVERHEAD = 0.055;

/** Options for {@link DiskSource.fromHttp}. */
export interface DiskSourceHttpOptions {
  /**
   * A ConfigMap holding the CA bundle that signs the server's certificate.
   * @default - the importer's default trust store
   */
  readonly certConfigMap?: string;
  /**
   * The image's virtual size, when known; the DataVolume is then made large enough for it.
   * @default - unknown
   */
  readonly virtualSize?: Size;
}

/** Where the VM's root disk image is imported from (the DataVolume's `spec.source`). */
export class DiskSource {
  /**
   * A disk image (QCOW2, raw, ISO, optionally gz/xz compressed) served over HTTP or HTTPS (`source.http.url`).
   */
  public static fromHttp(url: string, options: DiskSourceHttpOptions = {}): DiskSource {
    checkUrl(url, ['http:', 'https:'], 'an http:// or https:// URL of a QCOW2 image');
    return new DiskSource('http', url, options.certConfigMap, minimumStorageFor(options.virtualSize));
  }

  /** A container disk image in a registry (`source.registry.url`), e.g. `docker://quay.io/containerdisks/debian:12`. */
  public static fromRegistry(url: string): DiskSource {
    checkUrl(url, ['docker:', 'oci-archive:'], 'a docker:// or oci-archive:// URL');
    return new DiskSource('registry', url);
  }

  /**
   * The golden image built from a bundle, once the operator has published it under `baseUrl`; the DataVolume is made
   * large enough for the image's virtual size.
   *
   * @param image the bundle
   * @param baseUrl the folder URL the converted image is published in, e.g. `https://images.example.com/vm`
   */
  public static fromGoldenImage(image: IGoldenImage, baseUrl: string): DiskSource {
    const url = `${baseUrl.replace(/\/+$/, '')}/${image.imageFile}`;
    checkUrl(url, ['http:', 'https:'], 'an http:// or https:// folder URL where the image is published');
    return new DiskSource('http', url, undefined, minimumStorageFor(image.diskSize));
  }

  private constructor(
    /** `http` or `registry`. */
    public readonly kind: 'http' | 'registry',
    /** The image URL. */
    public readonly url: string,
    /** The CA bundle ConfigMap, for HTTPS. */
    public readonly certConfigMap?: string,
    /** The smallest DataVolume that holds the image, when its size is known. */
    public readonly minimumStorage?: Size,
  ) {}
}

function checkUrl(url: string, protocols: string[], allowed: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !protocols.includes(parsed.protocol)) {
    throw new ComposeError('the disk image URL is not usable', {
      value: url,
      allowed,
      hint: 'publish the image and give its full URL',
    });
  }
}

/** The smallest whole-GiB PVC that holds an image of this virtual size after CDI's file-system overhead. */
function minimumStorageFor(virtualSize: Size | undefined): Size | undefined {
  if (!virtualSize) {
    return undefined;
  }
  const gib = sizeToKibibytes(virtualSize) / (1024 * 1024);
  return Size.gibibytes(Math.ceil(gib / (1 - CDI_FILESYSTEM_OVERHEAD)));
}
