import { ComposeLocation, ComposeModel, ComposeService } from '../../compose/model';
import { SCHEME_PORTS, wellKnownPorts } from '../service/well-known-ports';
import { compare } from '../../util/sort';

/**
 * Reachability as compose gives it: every service answers, on every network it shares with a client, to its name,
 * its aliases on that network, its `hostname` and its `container_name`, on every port its process listens on —
 * whether or not `ports` or `expose` name it. This reads the whole project for the (client, name, port) references
 * that rely on that (env values, env files, command, entrypoint, healthchecks, config and bound files), so the app
 * can give each such port a Service port and each such name a Service, and `verify` can check each one.
 */

/** Where a reference was written. Env values are rewritten to Service names (rule 2); the others are not edited. */
export type ReferenceSource = 'environment' | 'command' | 'entrypoint' | 'healthcheck' | 'config' | 'file';

/** One service naming another as a host, with the port where the text gives one. */
export interface ServiceReference {
  /** The compose service that uses the name. */
  readonly client: string;
  /** The compose service the name resolves to (on a network they share). */
  readonly server: string;
  /** The name as written (a service name, alias, hostname or container name). */
  readonly name: string;
  /** The port, from `host:port`, a URL scheme's default, `upstream … server host;` or a sibling `*_PORT` variable. */
  readonly port?: number;
  readonly source: ReferenceSource;
  /** What refers, for messages: `services.web.environment.API_URL`, `config "nginx_conf"`. */
  readonly what: string;
  readonly at: ComposeLocation;
}

/** A port a service listens on that neither `ports` nor `expose` declares, and why it is known. */
export interface InferredPort {
  readonly port: number;
  /** e.g. `services.web.environment.API_URL reaches "api:8000"`, `the image postgres exposes it`. */
  readonly reason: string;
}

/** One edge of the app's graph: a client reaches a server on a port. */
export interface ReachabilityEdge {
  readonly client: string;
  readonly server: string;
  readonly port: number;
}

const TOKEN = /[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?/g;
const LIST_OF_HOSTS = /^[A-Za-z0-9_.-]+(?::\d{1,5})?(?:\s*,\s*[A-Za-z0-9_.-]+(?::\d{1,5})?)*$/;
const DSN_HOST_KEY = /(?:^|[\s;?&])(?:host|hostname|server|addr|address)\s*=\s*$/i;
const URL_SCHEME = /([a-z][a-z0-9+.-]*):\/\/(?:[^\s/@]*@)?$/i;
const HOST_VARIABLE = /^(.*?)(?:HOST|HOSTNAME|SERVER|ADDR|ADDRESS)$/i;
const IMAGE_REFERENCE = /(?:\bimage\s*[:=]\s*["']?|\bFROM\s+(?:--platform=\S+\s+)?)[\w./-]*$/i;
/** Files of a bound directory that describe how to build or run the project, not how it runs: not read for hosts. */
const PROJECT_FILES = /^(?:(?:docker-)?compose[\w.-]*\.ya?ml|Dockerfile[\w.-]*|[\w.-]*\.dockerfile|\.env[\w.-]*)$/i;
const HOST_LIKE_VARIABLE =
  /HOST|SERVER|ADDR|URL|URI|ENDPOINT|BROKER|UPSTREAM|BACKEND|NODE|PEER|SEED|CLUSTER|SERVICE|DSN|CONN|TARGET|REMOTE/i;
const LOCAL_PORT = /(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::|\s+)(\d{1,5})\b/g;
const LOCAL_URL = /\b([a-z][a-z0-9+.-]*):\/\/(?:localhost|127\.0\.0\.1)(?=[/\s"']|$)/gi;

/** The reachability of one compose project. Build it with `Reachability.of(model)`. */
export class Reachability {
  /** Reads a project. */
  public static of(model: ComposeModel): Reachability {
    return new Reachability(model);
  }

  /** Every reference found, sorted by client, then server, then what refers. */
  public readonly references: readonly ServiceReference[];

  private readonly services: ReadonlyMap<string, ComposeService>;
  private readonly configs: ReadonlyMap<string, ComposeModel['configs'][number]>;
  /** Per network: lower-case name → the services answering to it there. */
  private readonly namesByNetwork = new Map<string, Map<string, Set<string>>>();
  private readonly inferred = new Map<string, InferredPort[]>();
  /** {@link networksOf} of each client, for {@link resolve}, which runs for every word of every text scanned. */
  private readonly networksByService = new Map<ComposeService, readonly string[]>();

  private constructor(model: ComposeModel) {
    this.services = new Map(model.services.map((s) => [s.name, s]));
    this.configs = new Map(model.configs.map((c) => [c.name, c]));
    for (const service of model.services) {
      for (const network of this.networksOf(service)) {
        const aliases = service.networks.find((n) => n.name === network)?.aliases ?? [];
        for (const name of [service.name, service.hostname, service.containerName, ...aliases]) {
          if (name) {
            const names = this.namesByNetwork.get(network) ?? new Map<string, Set<string>>();
            this.namesByNetwork.set(network, names);
            const servers = names.get(name.toLowerCase()) ?? new Set<string>();
            names.set(name.toLowerCase(), servers);
            servers.add(service.name);
          }
        }
      }
    }
    const references: ServiceReference[] = [];
    for (const client of model.services) {
      references.push(...this.referencesOf(client));
    }
    const unique = new Map(
      references.map((r) => [`${r.client}\0${r.server}\0${r.what}\0${r.name}\0${r.port ?? ''}`, r]),
    );
    this.references = [...unique.values()].sort(
      (a, b) =>
        compare(a.client, b.client) ||
        compare(a.server, b.server) ||
        compare(a.what, b.what) ||
        compare(a.name, b.name) ||
        (a.port ?? 0) - (b.port ?? 0),
    );
    // The references with a port, by server, in the order above: each service's inference reads only its own.
    const withPort = new Map<string, ServiceReference[]>();
    for (const ref of this.references) {
      if (ref.port !== undefined) {
        const list = withPort.get(ref.server) ?? [];
        withPort.set(ref.server, list);
        list.push(ref);
      }
    }
    for (const service of model.services) {
      this.inferred.set(service.name, this.inferPorts(service, withPort.get(service.name) ?? []));
    }
  }

  /** The names a service answers to: its name, `hostname`, `container_name` and every alias, sorted, lower case. */
  public namesOf(service: string): string[] {
    const s = this.services.get(service);
    if (!s) {
      return [];
    }
    const names = [s.name, s.hostname, s.containerName, ...s.networks.flatMap((n) => n.aliases)]
      .filter((n): n is string => n !== undefined && n !== '')
      .map((n) => n.toLowerCase());
    return [...new Set(names)].sort();
  }

  /** The TCP ports a service listens on beyond its `ports` and `expose`, sorted, each with the first reason found. */
  public inferredPorts(service: string): readonly InferredPort[] {
    return this.inferred.get(service) ?? [];
  }

  /** The compose networks a service is on; a service under `network_mode: service:X` is on X's. */
  public networksOf(service: ComposeService): string[] {
    const mode = /^(?:service|container):(.+)$/.exec(service.networkMode ?? '');
    const host = mode ? this.services.get(mode[1]) : undefined;
    return (host && host !== service ? host : service).networks.map((n) => n.name);
  }

  /** True when compose lets the two services reach each other: they share a network. */
  public sharesNetwork(a: string, b: string): boolean {
    const x = this.services.get(a);
    const y = this.services.get(b);
    if (!x || !y) {
      return false;
    }
    const theirs = new Set(this.networksOf(y));
    return this.networksOf(x).some((n) => theirs.has(n));
  }

  /** The service a client reaches by a name, or undefined when no service (or several) answers to it. */
  public resolve(client: ComposeService, name: string): string | undefined {
    const found = new Set<string>();
    let networks = this.networksByService.get(client);
    if (networks === undefined) {
      networks = this.networksOf(client);
      this.networksByService.set(client, networks);
    }
    for (const network of networks) {
      for (const server of this.namesByNetwork.get(network)?.get(name.toLowerCase()) ?? []) {
        found.add(server);
      }
    }
    return found.size === 1 ? [...found][0] : undefined;
  }

  /**
   * The (client, server, port) edges: each reference with its port, or, when it names none, the server's declared
   * and inferred TCP ports. Sorted and without duplicates.
   */
  public edges(): ReachabilityEdge[] {
    const edges = new Map<string, ReachabilityEdge>();
    for (const ref of this.references) {
      const ports = ref.port !== undefined ? [ref.port] : this.tcpPortsOf(ref.server);
      for (const port of ports) {
        edges.set(`${ref.client}\0${ref.server}\0${port}`, { client: ref.client, server: ref.server, port });
      }
    }
    return [...edges.values()].sort(
      (a, b) => compare(a.client, b.client) || compare(a.server, b.server) || a.port - b.port,
    );
  }

  /** Declared (`ports`, `expose`) and inferred TCP ports of a service, sorted. */
  public tcpPortsOf(service: string): number[] {
    const s = this.services.get(service);
    if (!s) {
      return [];
    }
    const declared = [...s.ports, ...s.expose].filter((p) => p.protocol === 'tcp').map((p) => p.target);
    return [...new Set([...declared, ...this.inferredPorts(service).map((p) => p.port)])].sort((a, b) => a - b);
  }

  private inferPorts(service: ComposeService, reached: readonly ServiceReference[]): InferredPort[] {
    const declared = new Set(
      [...service.ports, ...service.expose].filter((p) => p.protocol === 'tcp').map((p) => p.target),
    );
    const found = new Map<number, string>();
    const add = (port: number, reason: string) => {
      if (!declared.has(port) && !found.has(port) && port >= 1 && port <= 65535) {
        found.set(port, reason);
      }
    };
    for (const ref of reached) {
      add(ref.port!, `${ref.what} reaches "${ref.name}:${ref.port}"`);
    }
    if (service.healthcheck?.test && !service.healthcheck.disabled) {
      const text = service.healthcheck.test.command.join(' ');
      for (const match of text.matchAll(LOCAL_PORT)) {
        add(Number(match[1]), 'its healthcheck connects to it');
      }
      for (const match of text.matchAll(LOCAL_URL)) {
        const port = SCHEME_PORTS[match[1].toLowerCase()];
        if (port !== undefined) {
          add(port, 'its healthcheck connects to it');
        }
      }
    }
    // The image's documented ports are the last resort: a port the project names is what the process listens on
    // (a redis started with --port 6380 is reached on 6380, and a wait on 6379 would never end).
    if (declared.size === 0 && found.size === 0) {
      for (const port of wellKnownPorts(service.image)) {
        add(port, `the image "${service.image}" exposes it`);
      }
    }
    return [...found.entries()].sort(([a], [b]) => a - b).map(([port, reason]) => ({ port, reason }));
  }

  private referencesOf(client: ComposeService): ServiceReference[] {
    const found: ServiceReference[] = [];
    const base = client.at.path || `services.${client.name}`;
    const env = new Map(client.environment.map((v) => [v.name.toUpperCase(), v.value]));
    for (const variable of client.environment) {
      const what = `${base}.environment.${variable.name}`;
      const bare = this.bareHosts(client, variable.value);
      if (bare.length > 0) {
        const prefix = HOST_VARIABLE.exec(variable.name)?.[1];
        const sibling = prefix !== undefined ? env.get(`${prefix.toUpperCase()}PORT`) : undefined;
        const port = sibling !== undefined && /^\d{1,5}$/.test(sibling.trim()) ? Number(sibling.trim()) : undefined;
        for (const [name, server, own] of bare) {
          // A bare name without a port is a host only where the variable says so (POSTGRES_USER: postgres is not).
          if (own === undefined && port === undefined && !HOST_LIKE_VARIABLE.test(variable.name)) {
            continue;
          }
          found.push({
            client: client.name,
            server,
            name,
            port: own ?? port,
            source: 'environment',
            what,
            at: variable.at,
          });
        }
        continue;
      }
      found.push(...this.scan(client, variable.value, 'environment', what, variable.at, true));
    }
    const argv: Array<[ReferenceSource, readonly string[] | undefined]> = [
      ['entrypoint', client.entrypoint],
      ['command', client.command],
      [
        'healthcheck',
        client.healthcheck && !client.healthcheck.disabled ? client.healthcheck.test?.command : undefined,
      ],
    ];
    for (const [source, words] of argv) {
      if (words && words.length > 0) {
        const at = source === 'healthcheck' ? client.healthcheck!.at : { ...client.at, path: `${base}.${source}` };
        found.push(
          ...this.scan(
            client,
            words.join(' '),
            source,
            `${base}.${source === 'healthcheck' ? 'healthcheck.test' : source}`,
            at,
            false,
          ),
        );
      }
    }
    for (const ref of client.configs) {
      const config = this.configs.get(ref.source);
      if (config && 'content' in config.source && !config.source.content.binary) {
        found.push(
          ...this.scan(client, config.source.content.text, 'config', `config "${config.name}"`, config.at, false),
        );
      }
    }
    for (const mount of client.volumes) {
      const content = mount.bind?.content;
      if (content && !content.binary) {
        found.push(...this.scan(client, content.text, 'file', `the bound file "${mount.source}"`, mount.at, false));
      }
      for (const file of mount.bind?.files ?? []) {
        if (!file.binary && !PROJECT_FILES.test(file.path.split('/').pop() ?? '')) {
          found.push(...this.scan(client, file.text, 'file', `the bound file "${file.path}"`, mount.at, false));
        }
      }
    }
    return found;
  }

  /** An env value that is only a host (or a list of hosts, each with an optional port): [name, server, port]. */
  private bareHosts(client: ComposeService, value: string): Array<[string, string, number | undefined]> {
    const trimmed = value.trim();
    if (!LIST_OF_HOSTS.test(trimmed)) {
      return [];
    }
    const hosts: Array<[string, string, number | undefined]> = [];
    for (const item of trimmed.split(/\s*,\s*/)) {
      const [name, port] = item.split(':');
      const server = this.resolve(client, name);
      if (server !== undefined) {
        hosts.push([name, server, port !== undefined ? Number(port) : undefined]);
      }
    }
    return hosts;
  }

  /**
   * Names of services used as hosts in a text: `name:port`, `scheme://[user@]name[:port]` (the scheme's default port
   * when none is written), `server name;` in an nginx upstream, and in env values a DSN key (`host=name`).
   */
  private scan(
    client: ComposeService,
    text: string,
    source: ReferenceSource,
    what: string,
    at: ComposeLocation,
    isEnv: boolean,
  ): ServiceReference[] {
    const found: ServiceReference[] = [];
    for (const match of text.matchAll(TOKEN)) {
      const token = match[0];
      const server = this.resolve(client, token);
      if (server === undefined) {
        continue;
      }
      const offset = match.index!;
      const before = text.slice(Math.max(0, offset - 200), offset);
      const after = text.slice(offset + token.length, offset + token.length + 8);
      // `name:5432`, but not an image reference (`image: redis:7`, `FROM postgres:16.4`, `redis:7-alpine`).
      const port = /^:(\d{1,5})(?![\w@.-])/.exec(after);
      if (port && IMAGE_REFERENCE.test(before)) {
        continue;
      }
      if (port) {
        found.push({ client: client.name, server, name: token, port: Number(port[1]), source, what, at });
        continue;
      }
      const scheme = URL_SCHEME.exec(before);
      // `scheme://user:password@host`: the user is not a host.
      const isUser =
        scheme !== null && /^(?::[^\s/@]*)?@/.test(text.slice(offset + token.length, offset + token.length + 300));
      if (scheme && !isUser && !/^:\d/.test(after)) {
        const key = scheme[1].toLowerCase().replace(/^jdbc:/, '');
        found.push({ client: client.name, server, name: token, port: SCHEME_PORTS[key], source, what, at });
      } else if (/\bserver\s+$/.test(before) && /^\s*[;\s]/.test(after) && /upstream\s+[^{]*\{[^}]*$/.test(before)) {
        found.push({ client: client.name, server, name: token, port: 80, source, what, at });
      } else if (isEnv && DSN_HOST_KEY.test(before)) {
        // A key=value DSN names its port with port=.
        const dsnPort = /(?:^|[\s;?&])port\s*=\s*(\d{1,5})\b/i.exec(text);
        found.push({
          client: client.name,
          server,
          name: token,
          port: dsnPort ? Number(dsnPort[1]) : undefined,
          source,
          what,
          at,
        });
      }
    }
    return found;
  }
}

/** The (client, server, port) edges of a compose project: who reaches whom on which port, as compose allows it. */
export function reachabilityEdges(model: ComposeModel): ReachabilityEdge[] {
  return Reachability.of(model).edges();
}
