import { joinDnsLabel, toDnsLabel } from '../base/naming';

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** Unique keys (ConfigMap and Secret keys, or DNS-1123 volume names) derived from arbitrary text. */
export class KeyNames {
  private readonly used = new Set<string>();

  /**
   * @param dnsLabel make DNS-1123 labels (volume names) instead of ConfigMap keys
   * @param prefix put before every key: a sidecar's volumes must not take its host's volume names
   */
  constructor(
    private readonly dnsLabel = false,
    private readonly prefix?: string,
  ) {}

  public key(text: string): string {
    const base = this.dnsLabel
      ? toDnsLabel(this.prefix !== undefined ? `${this.prefix}-${text}` : text) || 'volume'
      : CONFIG_KEY.test(text)
        ? text
        : text.replace(/[^-._a-zA-Z0-9]/g, '_');
    let candidate = base;
    for (let i = 2; this.used.has(candidate); i++) {
      candidate = this.dnsLabel ? joinDnsLabel(base, String(i)) : `${base}_${i}`;
    }
    this.used.add(candidate);
    return candidate;
  }
}

/** A Secret's `data` value: the text's UTF-8 bytes in base64. */
export function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
