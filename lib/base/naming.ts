import { ComposeError } from '../compose/errors';
import { ComposeLocation } from '../compose/model';
import { isDnsSubdomain } from '../util/dns';

/** Kubernetes allows at most 63 characters in a DNS-1123 label (Service names, label values). */
export const MAX_DNS_LABEL = 63;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** True when `name` is a valid DNS-1123 label (lower case, digits and `-`, 1-63 characters). */
export function isDnsLabel(name: string): boolean {
  return DNS_LABEL.test(name);
}

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** True when `key` is a label key Kubernetes accepts: an optional DNS-subdomain prefix and `/`, then a name. */
export function isLabelKey(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  return (
    LABEL_NAME.test(key.slice(slash + 1)) && (prefix === undefined || (prefix.length <= 253 && isDnsSubdomain(prefix)))
  );
}

/** True when `value` is a label value Kubernetes accepts (at most 63 characters, possibly empty). */
export function isLabelValue(value: string): boolean {
  return LABEL_VALUE.test(value);
}

/**
 * The DNS-1123 label for a compose name: lower case, every run of other characters (`_`, `.`, spaces) becomes one
 * `-`, leading and trailing `-` removed, cut to 63 characters. `plausible_db` → `plausible-db`, `openWebUI` →
 * `openwebui`. Returns an empty string when nothing usable is left; callers turn that into an error.
 */
export function toDnsLabel(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_DNS_LABEL)
    .replace(/-+$/, '');
}

/**
 * A Service name for a compose name: its DNS-1123 label, which Kubernetes further requires to start with a letter
 * (DNS-1035): `2fa` becomes `s-2fa`.
 */
export function toServiceName(name: string): string {
  const label = toDnsLabel(name);
  return /^[0-9]/.test(label) ? toDnsLabel(`s-${label}`) : label;
}

/** True when `name` is a valid Service name: a DNS-1035 label (a DNS-1123 label that starts with a letter). */
export function isServiceName(name: string): boolean {
  return isDnsLabel(name) && /^[a-z]/.test(name);
}

/**
 * The Kubernetes name of a compose service's Service (`name`, else the compose name made a DNS-1035 label), checked
 * and claimed in the registry, or an error naming the service and the `name` override that fixes it.
 */
export function claimServiceName(
  service: { readonly name: string; readonly at: ComposeLocation },
  name: string | undefined,
  names: NameRegistry,
): string {
  const chosen = name ?? toServiceName(service.name);
  if (!isServiceName(chosen)) {
    throw new ComposeError(`service "${service.name}" has no usable Kubernetes name`, {
      at: service.at,
      value: chosen,
      allowed: 'a DNS-1035 label: lower case letters, digits and "-", 1-63 characters, starting with a letter',
      hint: `set services["${service.name}"].name`,
    });
  }
  names.claim('Service', chosen, {
    owner: `service "${service.name}"`,
    at: service.at,
    hint: `rename one of them, or set services["${service.name}"].name in the ComposeApp props`,
  });
  return chosen;
}

/**
 * Joins parts into one DNS-1123 label, shortening the first part when the result would pass 63 characters, so a
 * suffix such as `-env` or `-backup` is never cut off.
 */
export function joinDnsLabel(base: string, ...suffixes: string[]): string {
  const suffix = suffixes.map((s) => `-${s}`).join('');
  const room = MAX_DNS_LABEL - suffix.length;
  return `${base.slice(0, room).replace(/-+$/, '')}${suffix}`;
}

/**
 * The name of a container port: at most 15 characters, lower case letters, digits and `-`, with a letter
 * (IANA_SVC_NAME). `tcp-8080`, `udp-53`.
 */
export function portName(protocol: string, port: number): string {
  return `${protocol.toLowerCase()}-${port}`;
}

/** Who claimed a name, for the message when a second claim collides. */
export interface NameClaim {
  /** What wants the name, e.g. `service "web_app"`. */
  readonly owner: string;
  readonly at?: ComposeLocation;
  /**
   * How to resolve a collision.
   * @default - rename one of them in the compose file
   */
  readonly hint?: string;
}

/**
 * Hands out Kubernetes names per kind within one namespace and rejects a second, different owner of the same
 * name, naming both owners. Kinds are independent (a ConfigMap and a Secret may share a name).
 */
export class NameRegistry {
  private readonly claims = new Map<string, NameClaim>();

  /**
   * Claims `name` for `kind`. The same owner may claim a name twice (idempotent); a different owner gets a
   * `ComposeError` that names both.
   */
  public claim(kind: string, name: string, claim: NameClaim): string {
    const key = `${kind}/${name}`;
    const existing = this.claims.get(key);
    if (existing && existing.owner !== claim.owner) {
      throw new ComposeError(`${claim.owner} and ${existing.owner} both map to the ${kind} name "${name}"`, {
        at: claim.at,
        allowed: `one ${kind} per name; Kubernetes names are lower case with "-" instead of "_" or "."`,
        hint: claim.hint ?? 'rename one of them in the compose file',
      });
    }
    this.claims.set(key, claim);
    return name;
  }

  /** True when some owner has claimed `name` for `kind`. */
  public has(kind: string, name: string): boolean {
    return this.claims.has(`${kind}/${name}`);
  }
}
