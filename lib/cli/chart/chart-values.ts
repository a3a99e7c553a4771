import { compare } from '../../util/sort';
import type { RenderedObject } from '../rendered';
import { Slot, SlotKind, getAt, valuesExpr } from './chart-slots';

/**
 * What `values.yaml` holds and where each value goes: the slots of every object of the chart, and the values with
 * their JSON schema. The paths are the ones a user changes per environment (SPEC: replicas, image, resources, env,
 * Ingress, claims; app-wide namespace, network policies and quota); everything else stays as converted.
 */

/** The top-level keys of `values.yaml` that are not services. */
export const APP_KEYS = [
  'createNamespace',
  'namespace',
  'networkPolicies',
  'quota',
  'secrets',
  'ingresses',
  'claims',
] as const;

const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];
const QUANTITY =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/** A JSON schema, as `values.schema.json` holds it. */
type Schema = Record<string, unknown>;
/** A leaf's schema, or the children of a map of values (`__children`) while they are collected. */
type SchemaNode = Schema & { readonly __children?: Record<string, SchemaNode> };

/** The parts of a container that values.yaml sets. */
interface Container {
  readonly name?: string;
  readonly image: string;
  readonly imagePullPolicy?: string;
  readonly resources?: Readonly<Record<string, Readonly<Record<string, string | number>>>>;
  readonly env?: ReadonlyArray<{
    readonly name: string;
    readonly value?: unknown;
    readonly valueFrom?: { readonly configMapKeyRef?: { readonly name: string; readonly key: string } };
  }>;
}

/** The values and slots of a chart, built object by object. */
export class ChartValues {
  /** The values, by top-level key. */
  public readonly values: Record<string, unknown> = {};
  private readonly schemas: Record<string, SchemaNode> = {};
  private readonly slots = new Map<RenderedObject, Slot[]>();

  constructor(
    private readonly objects: readonly RenderedObject[],
    namespace: string,
    /** The names of the app's Secrets, whose references read `secrets.<name>.existingSecret`. */
    private readonly secretNames: ReadonlySet<string>,
    /** inline: the Secrets' data is in `secrets.<name>.data`. */
    private readonly secretData: boolean,
  ) {
    const reserved = new Set<string>(APP_KEYS);
    for (const workload of objects.filter((o) => WORKLOAD_KINDS.includes(o.kind))) {
      if (reserved.has(workload.name)) {
        throw new Error(
          `the workload "${workload.name}" has the name of an app-wide key of values.yaml (${APP_KEYS.join(', ')}); ` +
            'rename its compose service to write a chart',
        );
      }
    }
    this.set(['createNamespace'], true, { type: 'boolean' });
    this.set(['namespace'], namespace, { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' });
    this.set(['networkPolicies', 'enabled'], true, { type: 'boolean' });
    this.set(['quota', 'enabled'], true, { type: 'boolean' });
    for (const name of [...secretNames].sort()) {
      this.set(['secrets', name, 'existingSecret'], '', { type: 'string' });
    }
    for (const object of objects) {
      this.collect(object, namespace);
    }
  }

  /** values.yaml's content: the app-wide keys first, then the workloads by name. */
  public sortedValues(): Record<string, unknown> {
    const app = APP_KEYS.filter((k) => k in this.values);
    const workloads = Object.keys(this.values)
      .filter((k) => !(APP_KEYS as readonly string[]).includes(k))
      .sort(compare);
    return Object.fromEntries([...app, ...workloads].map((k) => [k, this.values[k]]));
  }

  /** The slots of one object. */
  public slotsOf(object: RenderedObject): readonly Slot[] {
    return this.slots.get(object) ?? [];
  }

  /** `values.schema.json`: every value typed, no key that values.yaml does not have. */
  public schema(): Schema {
    return {
      $schema: 'https://json-schema.org/draft-07/schema#',
      ...this.objectSchema(this.schemas),
    };
  }

  private collect(object: RenderedObject, namespace: string): void {
    const m = object.manifest;
    const slot = (path: (string | number)[], valuePath: (string | number)[], kind: SlotKind) =>
      this.add(object, { path, expr: valuesExpr(valuePath), kind });
    this.namespaceFields(object, m, [], namespace);
    if (object.kind === 'Namespace') {
      slot(['metadata', 'name'], ['namespace'], SlotKind.STRING);
      for (const [key, value] of Object.entries(m.metadata?.labels ?? {})) {
        if (value === object.name) {
          slot(['metadata', 'labels', key], ['namespace'], SlotKind.STRING);
        }
      }
    }
    if (object.kind === 'ResourceQuota') {
      for (const [key, value] of Object.entries(m.spec?.hard ?? {})) {
        this.set(['quota', 'hard', key], value, quantitySchema(value));
        slot(['spec', 'hard', key], ['quota', 'hard', key], SlotKind.STRING);
      }
    }
    if (object.kind === 'Secret' && this.secretData) {
      this.set(['secrets', object.name, 'data'], m.data ?? {}, {
        type: 'object',
        additionalProperties: { type: 'string', pattern: '^[A-Za-z0-9+/]*={0,2}$' },
      });
      slot(['data'], ['secrets', object.name, 'data'], SlotKind.BLOCK);
    }
    if (WORKLOAD_KINDS.includes(object.kind)) {
      this.workload(object);
    }
    if (object.kind === 'Ingress') {
      this.ingress(object);
    }
    if (object.kind === 'PersistentVolumeClaim') {
      this.claim(object, [], this.ownerOfClaim(object.name), object.name);
    }
    this.secretReferences(object, m, []);
  }

  private workload(object: RenderedObject): void {
    const m = object.manifest;
    const key = object.name;
    const podPath =
      object.kind === 'CronJob' ? ['spec', 'jobTemplate', 'spec', 'template', 'spec'] : ['spec', 'template', 'spec'];
    if (['Deployment', 'StatefulSet'].includes(object.kind) && typeof m.spec?.replicas === 'number') {
      this.set([key, 'replicas'], m.spec.replicas, { type: 'integer', minimum: 0 });
      this.add(object, { path: ['spec', 'replicas'], expr: valuesExpr([key, 'replicas']), kind: SlotKind.INTEGER });
    }
    const containers = (getAt(m, [...podPath, 'containers']) ?? []) as readonly Container[];
    const index = Math.max(
      0,
      containers.findIndex((c) => c.name === key),
    );
    const main = containers[index];
    if (main) {
      const at = [...podPath, 'containers', index];
      const { repository, tag } = splitImage(main.image);
      this.set([key, 'image', 'repository'], repository, { type: 'string', minLength: 1 });
      this.set([key, 'image', 'tag'], tag, { type: ['string', 'integer'] });
      this.add(object, {
        path: [...at, 'image'],
        expr:
          `printf "%s%s%s" (${valuesExpr([key, 'image', 'repository'])}) ` +
          `(ternary "" (ternary "@" ":" (hasPrefix "sha256:" (toString (${valuesExpr([key, 'image', 'tag'])})))) ` +
          `(eq (toString (${valuesExpr([key, 'image', 'tag'])})) "")) (toString (${valuesExpr([key, 'image', 'tag'])}))`,
        kind: SlotKind.STRING,
      });
      if (main.imagePullPolicy !== undefined) {
        this.set([key, 'image', 'pullPolicy'], main.imagePullPolicy, {
          type: 'string',
          enum: ['Always', 'IfNotPresent', 'Never'],
        });
        this.add(object, {
          path: [...at, 'imagePullPolicy'],
          expr: valuesExpr([key, 'image', 'pullPolicy']),
          kind: SlotKind.STRING,
        });
      }
      for (const bound of ['requests', 'limits']) {
        for (const [resource, amount] of Object.entries(main.resources?.[bound] ?? {})) {
          this.set([key, 'resources', bound, resource], amount, quantitySchema(amount));
          this.add(object, {
            path: [...at, 'resources', bound, resource],
            expr: valuesExpr([key, 'resources', bound, resource]),
            // A device count (nvidia.com/gpu: 1) is a number in the manifest, and stays one.
            kind: typeof amount === 'number' ? SlotKind.INTEGER : SlotKind.STRING,
          });
        }
      }
      (main.env ?? []).forEach((entry, i) => {
        if (typeof entry.value === 'string') {
          this.env(key, entry.name, entry.value);
          this.add(object, {
            path: [...at, 'env', i, 'value'],
            expr: valuesExpr([key, 'env', entry.name]),
            kind: SlotKind.STRING,
          });
        }
        const ref = entry.valueFrom?.configMapKeyRef;
        if (ref) {
          const configMap = this.objects.find((o) => o.kind === 'ConfigMap' && o.name === ref.name);
          const value = configMap?.manifest.data?.[ref.key];
          if (configMap && typeof value === 'string' && !this.slotsOf(configMap).some((s) => s.path[1] === ref.key)) {
            this.env(key, entry.name, value);
            this.add(configMap, {
              path: ['data', ref.key],
              expr: valuesExpr([key, 'env', entry.name]),
              kind: SlotKind.STRING,
            });
          }
        }
      });
    }
    (m.spec?.volumeClaimTemplates ?? []).forEach((template: { metadata?: { name?: string } }, i: number) => {
      this.claim(object, ['spec', 'volumeClaimTemplates', i], key, template.metadata?.name ?? String(i));
    });
  }

  private env(key: string, name: string, value: string): void {
    this.set([key, 'env', name], value, { type: ['string', 'number', 'integer', 'boolean'] });
  }

  private claim(object: RenderedObject, at: (string | number)[], owner: string | undefined, claim: string): void {
    const spec = getAt(object.manifest, [...at, 'spec']) as
      { resources?: { requests?: { storage?: string } }; storageClassName?: string } | undefined;
    const size = spec?.resources?.requests?.storage;
    const base = owner === undefined ? ['claims', claim] : [owner, 'claims', claim];
    if (size !== undefined) {
      this.set([...base, 'size'], size, quantitySchema(size));
      this.add(object, {
        path: [...at, 'spec', 'resources', 'requests', 'storage'],
        expr: valuesExpr([...base, 'size']),
        kind: SlotKind.STRING,
      });
    }
    this.set([...base, 'storageClassName'], spec?.storageClassName ?? '', { type: 'string' });
    this.add(object, {
      path: [...at, 'spec', 'storageClassName'],
      expr: valuesExpr([...base, 'storageClassName']),
      kind: SlotKind.OPTIONAL_STRING,
    });
  }

  /** The first workload (in output order) whose pods mount the claim. */
  private ownerOfClaim(claim: string): string | undefined {
    for (const o of this.objects.filter((x) => WORKLOAD_KINDS.includes(x.kind))) {
      if (JSON.stringify(o.manifest).includes(`"claimName":${JSON.stringify(claim)}`)) {
        return o.name;
      }
    }
    return undefined;
  }

  private ingress(object: RenderedObject): void {
    const m = object.manifest;
    const key = this.ingressKey(object);
    if (m.spec?.ingressClassName !== undefined) {
      this.set([...key, 'className'], m.spec.ingressClassName, { type: 'string' });
      this.add(object, {
        path: ['spec', 'ingressClassName'],
        expr: valuesExpr([...key, 'className']),
        kind: SlotKind.STRING,
      });
    }
    (m.spec?.rules ?? []).forEach((rule: { host?: string }, i: number) => {
      if (rule.host !== undefined) {
        this.set([...key, 'hosts', i], rule.host, { type: 'string', minLength: 1 });
        this.add(object, {
          path: ['spec', 'rules', i, 'host'],
          expr: valuesExpr([...key, 'hosts', i]),
          kind: SlotKind.STRING,
        });
      }
    });
    if (m.spec?.tls !== undefined) {
      this.set([...key, 'tls'], m.spec.tls, {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { hosts: { type: 'array', items: { type: 'string' } }, secretName: { type: 'string' } },
        },
      });
      this.add(object, { path: ['spec', 'tls'], expr: valuesExpr([...key, 'tls']), kind: SlotKind.BLOCK });
    }
  }

  /** Every `namespace` field that holds the app's namespace (metadata, a RoleBinding's subjects) reads `namespace`. */
  private namespaceFields(object: RenderedObject, value: unknown, path: (string | number)[], namespace: string): void {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.namespaceFields(object, v, [...path, i], namespace));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'namespace' && child === namespace) {
          this.add(object, { path: [...path, key], expr: valuesExpr(['namespace']), kind: SlotKind.STRING });
        } else {
          this.namespaceFields(object, child, [...path, key], namespace);
        }
      }
    }
  }

  /** Where an Ingress's values are: under its workload's key when it has the workload's name, else `ingresses`. */
  public ingressKey(object: RenderedObject): string[] {
    return this.objects.some((o) => WORKLOAD_KINDS.includes(o.kind) && o.name === object.name)
      ? [object.name, 'ingress']
      : ['ingresses', object.name];
  }

  /** Each reference to a Secret of the app reads `secrets.<name>.existingSecret`, the made Secret's name by default. */
  private secretReferences(object: RenderedObject, value: unknown, path: (string | number)[]): void {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.secretReferences(object, v, [...path, i]));
      return;
    }
    if (value === null || typeof value !== 'object') {
      return;
    }
    const last = path[path.length - 1];
    const fields = value as { name?: unknown; secretName?: unknown };
    const name =
      (last === 'secretKeyRef' || last === 'secretRef') && typeof fields.name === 'string'
        ? ['name', fields.name]
        : last === 'secret' && typeof fields.secretName === 'string'
          ? ['secretName', fields.secretName]
          : undefined;
    if (name && this.secretNames.has(name[1])) {
      this.add(object, {
        path: [...path, name[0]],
        expr: `default ${JSON.stringify(name[1])} (${valuesExpr(['secrets', name[1], 'existingSecret'])})`,
        kind: SlotKind.STRING,
      });
    }
    for (const [key, child] of Object.entries(value)) {
      if (!(path.length === 0 && (key === 'apiVersion' || key === 'kind'))) {
        this.secretReferences(object, child, [...path, key]);
      }
    }
  }

  private add(object: RenderedObject, slot: Slot): void {
    const slots = this.slots.get(object) ?? [];
    if (!slots.some((s) => s.path.join('\0') === slot.path.join('\0'))) {
      slots.push(slot);
    }
    this.slots.set(object, slots);
  }

  private set(path: readonly (string | number)[], value: unknown, schema: Schema): void {
    let values = this.values as Record<string, unknown>;
    let schemas = this.schemas as Record<string, SchemaNode>;
    path.forEach((key, i) => {
      const lastKey = i === path.length - 1;
      if (typeof key === 'number') {
        return;
      }
      const next = path[i + 1];
      if (lastKey || (typeof next === 'number' && i === path.length - 2)) {
        if (typeof next === 'number') {
          values[key] ??= [];
          (values[key] as unknown[])[next] = value;
          // As many items as the object has places for: another one would be read by nothing.
          schemas[key] = { type: 'array', items: schema, minItems: next + 1, maxItems: next + 1 };
        } else {
          values[key] ??= value;
          schemas[key] ??= schema;
        }
        return;
      }
      values[key] ??= {};
      schemas[key] ??= { __children: {} };
      values = values[key] as Record<string, unknown>;
      schemas = schemas[key].__children as Record<string, SchemaNode>;
    });
  }

  private objectSchema(children: Record<string, SchemaNode>): Schema {
    const properties: Record<string, Schema> = {};
    for (const [key, child] of Object.entries(children)) {
      properties[key] = child.__children ? this.objectSchema(child.__children as Record<string, SchemaNode>) : child;
    }
    return { type: 'object', additionalProperties: false, required: Object.keys(children), properties };
  }
}

function quantitySchema(value: unknown): Schema {
  return typeof value === 'string'
    ? { type: ['string', 'integer', 'number'], pattern: QUANTITY }
    : { type: ['integer', 'number'] };
}

/** `repo[:tag]` or `repo@digest`: the repository, and the tag or digest (empty without either). */
export function splitImage(image: string): { repository: string; tag: string } {
  const at = image.indexOf('@');
  if (at >= 0) {
    return { repository: image.slice(0, at), tag: image.slice(at + 1) };
  }
  const colon = image.lastIndexOf(':');
  if (colon > image.lastIndexOf('/')) {
    return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
  }
  return { repository: image, tag: '' };
}
