/** Kubernetes' DNS-1123 name rules, written once. Length limits are the caller's: they differ by field. */

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_HOST = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Lower-case alphanumerics and `-`, in dot-separated parts that start and end alphanumeric (`db.example-1`). */
export function isDnsSubdomain(name: string): boolean {
  return DNS_SUBDOMAIN.test(name);
}

/** A host an Ingress rule accepts: a DNS-1123 subdomain, optionally with a `*.` wildcard in front. */
export function isIngressHost(host: string): boolean {
  return WILDCARD_HOST.test(host);
}
