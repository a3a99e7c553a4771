import { ComposeError } from './errors';
import { ComposeLocation } from './model';

/** What a ConfigMap or Secret key may hold (the API server's rule). */
export const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
/** The longest ConfigMap or Secret key the API server accepts. */
export const MAX_CONFIG_KEY_LENGTH = 253;

/** The key a file name becomes: characters a key cannot hold (`/` of a nested path, spaces, …) become `_`. */
export function configKeyOf(text: string): string {
  return CONFIG_KEY.test(text) ? text : text.replace(/[^-._a-zA-Z0-9]/g, '_');
}

/**
 * Throws when the key a file becomes is one the API server refuses: `.`, `..`, a key starting with `..` (the kubelet
 * keeps its own `..data` links there) or one longer than 253 characters. `what` and `written` name the file.
 */
export function checkConfigKey(text: string, what: string, written: string, at: ComposeLocation): void {
  const key = configKeyOf(text);
  const why =
    key === '.' || key.startsWith('..')
      ? `"${key}" starts with ".." (or is "."), which the kubelet keeps for its own links`
      : key.length > MAX_CONFIG_KEY_LENGTH
        ? `it is ${key.length} characters long`
        : undefined;
  if (why !== undefined) {
    throw new ComposeError(`${what} "${written}" cannot be a ConfigMap or Secret key: ${why}`, {
      at,
      allowed: `a key of letters, digits, "-", "_" and ".", not starting with "..", at most ${MAX_CONFIG_KEY_LENGTH} characters`,
      hint: 'rename the file (or the folder it is in), or leave it out of the bound folder',
    });
  }
}
