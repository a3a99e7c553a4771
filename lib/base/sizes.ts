import { Size, SizeRoundingBehavior } from 'cdk8s';

/** Storage and memory sizes: cdk8s `Size` to and from the numbers and quantities claims, disks and Packer take. */

const KIB_PER_MIB = 1024;
const KIB_PER_GIB = 1024 * 1024;

/** Whole kibibytes of a size; sizes below a KiB or with fractions of one cannot be written as a quantity. */
export function sizeToKibibytes(size: Size): number {
  const kib = size.toKibibytes({ rounding: SizeRoundingBehavior.NONE });
  if (!Number.isInteger(kib) || kib <= 0) {
    throw new RangeError(`size ${size.asString()} is not a positive whole number of kibibytes`);
  }
  return kib;
}

/** A Kubernetes quantity in the largest binary unit that divides the size exactly: `20Gi`, `1536Mi`, `100Ki`. */
export function sizeToQuantity(size: Size): string {
  const kib = sizeToKibibytes(size);
  if (kib % KIB_PER_GIB === 0) {
    return `${kib / KIB_PER_GIB}Gi`;
  }
  if (kib % KIB_PER_MIB === 0) {
    return `${kib / KIB_PER_MIB}Mi`;
  }
  return `${kib}Ki`;
}

/** Whole mebibytes, rounded up (Packer's `memory` is in MB). */
export function sizeToMebibytesCeil(size: Size): number {
  return Math.ceil(sizeToKibibytes(size) / KIB_PER_MIB);
}

/** Whole gibibytes, rounded up (Packer's `disk_size` takes a `G` suffix, which qemu-img reads as GiB). */
export function sizeToGibibytesCeil(size: Size): number {
  return Math.ceil(sizeToKibibytes(size) / KIB_PER_GIB);
}

const GIB = 1024 ** 3;

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  'k': 1e3,
  'M': 1e6,
  'G': 1e9,
  'T': 1e12,
  'P': 1e15,
  'Ki': 1024,
  'Mi': 1024 ** 2,
  'Gi': GIB,
  'Ti': GIB * 1024,
  'Pi': GIB * 1024 ** 2,
};

/** What a storage size may look like, for messages. */
export const STORAGE_QUANTITY_FORMAT = 'a positive Kubernetes quantity such as "512Mi", "10Gi" or "1Ti"';

/** Parses a storage quantity (`10Gi`, `500Mi`, `1.5G`, `1073741824`) into bytes; undefined when it is not one. */
export function parseStorageBytes(text: string): number | undefined {
  const match = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2] ?? ''] : undefined;
}

/** Bytes of a cdk8s Size. */
export function storageBytes(size: Size): number {
  return size.toKibibytes({ rounding: SizeRoundingBehavior.NONE }) * 1024;
}

/**
 * A claim size in whole GiB, rounded up: kplus renders claim sizes in `Gi` only. Returns whether it was rounded, so
 * the caller can report it.
 */
export function claimSize(bytes: number): { size: Size; rounded: boolean } {
  const gib = Math.max(1, Math.ceil(bytes / GIB));
  return { size: Size.gibibytes(gib), rounded: gib * GIB !== bytes };
}
