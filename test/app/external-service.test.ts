import { ComposeApp } from '../../lib/app/compose-app';
import { VerifyCheck, VerifyStatus } from '../../lib/app/verify/verify';
import { mainContainer, podSpec, secretData, synthApp } from './app-fixture';

const SHOP = `
services:
  web:
    image: shop/web:1
    ports: ["8080:8080"]
    environment:
      DATABASE_URL: postgres://shop:hunter2@db:5432/shop
      POSTGRES_PASSWORD: hunter2
    depends_on:
      db:
        condition: service_healthy
  db:
    image: postgres:16
    environment:
      POSTGRES_USER: shop
      POSTGRES_PASSWORD: hunter2
    volumes: [data:/var/lib/postgresql/data]
volumes:
  data: {}
`;

const kinds = (docs: any[]) => docs.map((d) => `${d.kind}/${d.metadata.name}`);
const find = (docs: any[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

describe('ExternalService', () => {
  test('a host name: an ExternalName Service of the compose name, and no workload, claim, backup or wait', () => {
    const { app, docs } = synthApp(SHOP, {
      services: { db: { external: { host: 'shop.abc123.eu-west-1.rds.amazonaws.com' } } },
    });
    const service = find(docs, 'Service', 'db');
    expect(service.spec).toEqual({
      type: 'ExternalName',
      externalName: 'shop.abc123.eu-west-1.rds.amazonaws.com',
      ports: [{ name: 'tcp-5432', port: 5432, protocol: 'TCP' }],
    });
    expect(kinds(docs).filter((k) => /db|data|backup/.test(k) && k !== 'Service/db')).toEqual([]);
    expect(kinds(docs)).not.toContain('PersistentVolumeClaim/data');
    const web = find(docs, 'Deployment', 'web');
    expect(podSpec(web).initContainers ?? []).toEqual([]);
    // The app keeps `db:5432` as compose wrote it.
    const secret = docs.find((d) => d.kind === 'Secret' && secretData(d).DATABASE_URL !== undefined);
    expect(secretData(secret).DATABASE_URL).toBe('postgres://shop:hunter2@db:5432/shop');
    expect(mainContainer(web).env.map((e: any) => e.name)).toContain('DATABASE_URL');
    expect(app.externalServices.db.service.name).toBe('db');
    expect(() => app.service('db')).toThrow(/service "db" is external, not in a container/);
  });

  test('a host name: the warning names the credentials to set and the egress CIDR prop and flag', () => {
    const { app } = synthApp(SHOP, { services: { db: { external: { host: 'db.example.com' } } } });
    const text = ComposeApp.warningsOf(app).join('\n');
    expect(text).toContain(
      'service "db" is external at db.example.com: its workload, claims, backup and the waits on it are not rendered; ' +
        "web reaches it as db:5432 through a Service of type ExternalName. Put the endpoint's credentials into " +
        'web.DATABASE_URL, web.POSTGRES_PASSWORD',
    );
    expect(text).toContain('services["db"].external.egressCidr (--external-cidr db=CIDR)');
    expect(text).not.toContain('hunter2');
  });

  test('a host name with another port: the ExternalName cannot remap it, and a warning says so', () => {
    const { app, docs } = synthApp(SHOP, { services: { db: { external: { host: 'db.example.com', port: 6543 } } } });
    expect(find(docs, 'Service', 'db').spec.ports).toEqual([{ name: 'tcp-5432', port: 5432, protocol: 'TCP' }]);
    expect(ComposeApp.warningsOf(app).join('\n')).toMatch(/an ExternalName Service cannot map ports/);
  });

  test('an IP: a selector-less Service and an EndpointSlice mapping the compose port to the endpoint port', () => {
    const { docs } = synthApp(SHOP, { services: { db: { external: { host: '10.20.0.7', port: 6543 } } } });
    const service = find(docs, 'Service', 'db');
    expect(service.spec.selector).toBeUndefined();
    expect(service.spec.ports).toEqual([{ name: 'tcp-5432', port: 5432, targetPort: 6543, protocol: 'TCP' }]);
    const slice = find(docs, 'EndpointSlice', 'db-external');
    expect(slice.apiVersion).toBe('discovery.k8s.io/v1');
    expect(slice.metadata.labels['kubernetes.io/service-name']).toBe('db');
    expect(slice.addressType).toBe('IPv4');
    expect(slice.endpoints).toEqual([{ addresses: ['10.20.0.7'], conditions: { ready: true } }]);
    expect(slice.ports).toEqual([{ name: 'tcp-5432', port: 6543, protocol: 'TCP' }]);
  });

  test('an IP: the client may leave through default-deny to the endpoint, and only the client', () => {
    const { docs } = synthApp(SHOP, { services: { db: { external: { host: '10.20.0.7', port: 6543 } } } });
    const policy = find(docs, 'NetworkPolicy', 'allow-web');
    expect(policy.spec.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '10.20.0.7/32' } }],
      ports: [{ protocol: 'TCP', port: 6543 }],
    });
    const others = docs.filter((d) => d.kind === 'NetworkPolicy' && d.metadata.name !== 'allow-web');
    expect(JSON.stringify(others)).not.toContain('10.20.0.7');
  });

  test('a host name with egressCidr: the egress goes to that block', () => {
    const { app, docs } = synthApp(SHOP, {
      services: { db: { external: { host: 'db.example.com', egressCidr: '10.9.0.0/16' } } },
    });
    expect(find(docs, 'NetworkPolicy', 'allow-web').spec.egress).toContainEqual({
      to: [{ ipBlock: { cidr: '10.9.0.0/16' } }],
      ports: [{ protocol: 'TCP', port: 5432 }],
    });
    expect(ComposeApp.warningsOf(app).join('\n')).not.toContain('egressCidr');
  });

  test('verify treats the external service as reachable', () => {
    const { app } = synthApp(SHOP, { services: { db: { external: { host: '10.20.0.7' } } } });
    const reach = app.verify().expectations.filter((e) => e.check === VerifyCheck.REACH && e.service === 'web');
    expect(reach.length).toBeGreaterThan(0);
    expect(reach.map((e) => [e.status, e.detail])).toEqual(
      reach.map(() => [VerifyStatus.OK, 'Service "db" port 5432 → external endpoint 10.20.0.7:5432']),
    );
  });

  test('verify reports a host name whose egress is not open', () => {
    const { app } = synthApp(SHOP, { services: { db: { external: { host: 'db.example.com' } } } });
    const reach = app.verify().expectations.filter((e) => e.check === VerifyCheck.REACH && e.service === 'web');
    expect(reach.map((e) => e.status)).toEqual(reach.map(() => VerifyStatus.REPORTED));
    expect(reach[0].detail).toContain('egressCidr');
  });

  test('a renamed compose service: clients are rewritten to the Service name', () => {
    const { docs } = synthApp(SHOP.replace(/\bdb\b/g, 'main_db'), {
      services: { main_db: { external: { host: 'db.example.com' } } },
    });
    expect(find(docs, 'Service', 'main-db').spec.type).toBe('ExternalName');
    const secret = docs.find((d) => d.kind === 'Secret' && secretData(d).DATABASE_URL !== undefined);
    expect(secretData(secret).DATABASE_URL).toBe('postgres://shop:hunter2@main-db:5432/shop');
  });

  test('throws for an endpoint wrong on its face', () => {
    expect(() => synthApp(SHOP, { services: { db: { external: { host: 'not a host' } } } })).toThrow(
      /services\["db"\]\.external\.host is not a host name or an IP address/,
    );
    expect(() => synthApp(SHOP, { services: { db: { external: { host: 'db.example.com', port: 0 } } } })).toThrow(
      /external\.port is not a port/,
    );
    expect(() =>
      synthApp(SHOP, { services: { db: { external: { host: 'db.example.com', egressCidr: '10.0.0.0' } } } }),
    ).toThrow(/invalid CIDR/);
  });

  test('throws when another service runs in the pod of the external one', () => {
    const text =
      `${SHOP}
  exporter:
    image: prometheuscommunity/postgres-exporter
    network_mode: "service:db"
`.replace('volumes:\n  data: {}\n', '') + 'volumes:\n  data: {}\n';
    expect(() => synthApp(text, { services: { db: { external: { host: 'db.example.com' } } } })).toThrow(
      /service "exporter" runs in the pod of "db"/,
    );
  });
});
