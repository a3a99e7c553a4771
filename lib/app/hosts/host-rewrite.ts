/**
 * Rule 2: a dependency is addressed by its Service name. Compose lets containers reach each other by service name,
 * network alias, `hostname` and `container_name`; in Kubernetes only the Service name resolves. This rewrites those
 * names where env values use them as hosts, and finds them in config files (which are reported, not edited).
 */

/** One host name replaced by a Service name. */
export interface HostRewrite {
  /** The name as written in compose (`plausible_db`, an alias, a container name). */
  readonly from: string;
  /** The Service name it now resolves as (`plausible-db`). */
  readonly to: string;
}

/** The result of rewriting one value. */
export interface RewrittenValue {
  readonly value: string;
  /** Each distinct rewrite, in order of first appearance. */
  readonly rewrites: readonly HostRewrite[];
}

// A host-name-like token. Dots are part of it so that `db.example.com` is never mistaken for `db`.
const TOKEN = /[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?/g;
const LIST_OF_HOSTS = /^[A-Za-z0-9_.-]+(?:\s*,\s*[A-Za-z0-9_.-]+)*$/;
const DSN_HOST_KEY = /(?:^|[\s;?&])(?:host|hostname|server|addr|address)\s*=\s*$/i;

/**
 * Maps the names compose resolves to the Service names Kubernetes resolves. Matching is case-insensitive, as DNS is;
 * a name that already resolves (it equals its Service name, ignoring case) is left alone.
 */
export class HostRewriter {
  private readonly hosts: ReadonlyMap<string, string>;

  private readonly resolvable: ReadonlySet<string>;

  /**
   * @param hosts compose-side name → Service name.
   * @param resolvable names that have a Service of their own (alias Services): env values still name the service's
   * Service, but a file that uses one needs no edit.
   */
  constructor(hosts: ReadonlyMap<string, string>, resolvable: ReadonlySet<string> = new Set()) {
    this.resolvable = new Set([...resolvable].map((n) => n.toLowerCase()));
    const lower = new Map<string, string>();
    for (const [from, to] of hosts) {
      lower.set(from.toLowerCase(), to);
    }
    this.hosts = lower;
  }

  /**
   * Rewrites the hosts in an env value: URL authorities (`scheme://[user:pass@]host[:port]`, several hosts separated
   * by commas), `host:port`, DSN keys (`host=db`), and values that are a bare host or a list of bare hosts.
   */
  public rewrite(value: string): RewrittenValue {
    const bare = LIST_OF_HOSTS.test(value.trim());
    return this.replace(
      value,
      (before, after) =>
        bare || before.endsWith('://') || before.endsWith('@') || /^:\d/.test(after) || DSN_HOST_KEY.test(before),
    );
  }

  /**
   * The names in a config file that need rewriting, wherever they appear as a whole token. The file is not changed:
   * the caller reports each one so the user can edit the file.
   */
  public references(text: string): HostRewrite[] {
    return this.replace(text, () => true).rewrites.filter((r) => !this.resolvable.has(r.from.toLowerCase()));
  }

  private replace(value: string, isHost: (before: string, after: string) => boolean): RewrittenValue {
    const rewrites = new Map<string, HostRewrite>();
    const result = value.replace(TOKEN, (token: string, offset: number) => {
      const target = this.hosts.get(token.toLowerCase());
      if (target === undefined || target === token.toLowerCase()) {
        return token;
      }
      if (!isHost(value.slice(0, offset), value.slice(offset + token.length))) {
        return token;
      }
      if (!rewrites.has(token)) {
        rewrites.set(token, { from: token, to: target });
      }
      return target;
    });
    return { value: result, rewrites: [...rewrites.values()] };
  }
}
