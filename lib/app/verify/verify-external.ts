import { isIP } from 'net';
import { ComposeLocation } from '../../compose/model';
import { CidrEgress } from '../../base/network-policy';
import { ExternalEndpoint } from '../external-service';

// `verify` of the references to a service replaced by a managed endpoint (`ExternalService`).

/** What `verify` needs of an external service. */
export interface VerifiedExternal {
  readonly composeName: string;
  readonly name: string;
  readonly endpoint: ExternalEndpoint;
  readonly egress?: CidrEgress;
  readonly at: ComposeLocation;
}

/** The parts of a rendered Service that `verifyExternalReference` reads. */
export interface ServiceManifest {
  readonly metadata: { readonly name?: string };
  readonly spec?: {
    readonly ports?: readonly {
      readonly port: number;
      readonly targetPort?: number | string;
      readonly protocol?: string;
    }[];
  };
}

/** The parts of a rendered NetworkPolicy that `verifyExternalReference` reads. */
export interface PolicyManifest {
  readonly spec?: {
    readonly podSelector?: { readonly matchLabels?: Readonly<Record<string, string>> };
    readonly policyTypes?: readonly string[];
    readonly egress?: readonly {
      readonly ports?: readonly { readonly port?: number | string }[];
      readonly to?: readonly { readonly ipBlock?: { readonly cidr: string; readonly except?: readonly string[] } }[];
    }[];
  };
}

/**
 * `verify` of one reference to an external service: the name resolves to its Service with the port, and the client's
 * NetworkPolicies let it out to the endpoint. Returns the status word and the detail.
 */
export function verifyExternalReference(
  external: VerifiedExternal,
  reference: { readonly name: string; readonly port?: number },
  service: ServiceManifest | undefined,
  clientLabels: Readonly<Record<string, string>> | undefined,
  policies: readonly PolicyManifest[],
): { readonly ok: boolean; readonly reported?: boolean; readonly detail: string } {
  if (!service) {
    return {
      ok: false,
      detail: `no Service "${reference.name.toLowerCase()}" for the external service "${external.composeName}"`,
    };
  }
  const ports = service.spec?.ports ?? [];
  const port =
    reference.port !== undefined
      ? ports.find((p) => p.port === reference.port)
      : ports.find((p) => (p.protocol ?? 'TCP') === 'TCP');
  if (!port) {
    return {
      ok: false,
      detail: `the Service "${service.metadata.name}" has no port ${reference.port ?? '(TCP)'}: it has ${ports.map((p) => p.port).join(', ') || 'none'}`,
    };
  }
  const target = typeof port.targetPort === 'number' ? port.targetPort : port.port;
  const subject = `Service "${service.metadata.name}" port ${port.port} → external endpoint ${external.endpoint.host}:${target}`;
  if (clientLabels === undefined) {
    return { ok: true, detail: subject };
  }
  const selecting = policies.filter(
    (p) =>
      (p.spec?.policyTypes ?? []).includes('Egress') &&
      Object.entries(p.spec?.podSelector?.matchLabels ?? {}).every(([k, v]) => clientLabels[k] === v),
  );
  if (selecting.length === 0) {
    return { ok: true, detail: subject };
  }
  const address = isIP(external.endpoint.host) !== 0 ? external.endpoint.host : undefined;
  const admitted = selecting.some((p) =>
    (p.spec?.egress ?? []).some(
      (rule) =>
        (rule.ports === undefined || rule.ports.some((q) => q.port === target)) &&
        (rule.to === undefined ||
          rule.to.some((peer) => {
            const block = peer.ipBlock;
            if (!block) {
              return false;
            }
            if (address !== undefined) {
              return cidrContains(block.cidr, address) && !(block.except ?? []).some((e) => cidrContains(e, address));
            }
            return external.egress !== undefined && block.cidr === external.egress.cidr;
          })),
    ),
  );
  if (admitted) {
    return { ok: true, detail: subject };
  }
  if (address === undefined && external.egress === undefined) {
    return {
      ok: false,
      reported: true,
      detail: `${subject}, but default-deny egress blocks the host name until services["${external.composeName}"].external.egressCidr gives its addresses`,
    };
  }
  return { ok: false, detail: `${subject}, but no NetworkPolicy lets the client out to it` };
}

/** Whether an IP address lies in a CIDR block (IPv4 by its bits; IPv6 by the exact address). */
function cidrContains(cidr: string, address: string): boolean {
  const [base, bitsText] = cidr.split('/');
  if (isIP(address) === 4 && isIP(base) === 4) {
    const bits = Number(bitsText);
    const value = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
    const size = 2 ** (32 - bits);
    return Math.floor(value(address) / size) === Math.floor(value(base) / size);
  }
  return base === address || bitsText === '0';
}
