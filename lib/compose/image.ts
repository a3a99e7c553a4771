/**
 * True when an image reference names no fixed version: no digest, and no tag or the `latest` tag. Such an image may
 * change between pulls, and Kubernetes pulls it on every pod start.
 */
export function isUnpinnedImage(image: string): boolean {
  if (image.includes('@')) {
    return false;
  }
  const lastSlash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  const tag = colon > lastSlash ? image.slice(colon + 1) : undefined;
  return tag === undefined || tag === 'latest';
}
