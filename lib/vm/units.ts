import { Size, SizeRoundingBehavior } from 'cdk8s';

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
