import { findDoc } from '../../support/yaml-docs';
import { secretData, synthApp } from '../app-fixture';

describe('rule 2: dependencies are addressed by their Service name', () => {
  const { app, docs } = synthApp(`
services:
  app:
    image: a:1
    environment:
      DATABASE_URL: postgres://u:rw-pass-9@plausible_db:5432/app
      CACHE: redis://my-cache:6379
      SEARCH_HOST: search_engine
      BROKERS: events_kafka:9092,events_kafka:9093
      UNRELATED: the plausible_db_backup job
  plausible_db:
    image: postgres:16
    environment: { POSTGRES_PASSWORD: rw-pass-9 }
  cache:
    image: redis:7
    container_name: my-cache
  search:
    image: elasticsearch:8.15.0
    hostname: search_engine
    expose: ["9200"]
  kafka:
    image: bitnami/kafka:3.8
    expose: ["9092"]
    networks: { default: { aliases: [events_kafka] } }
`);

  test('URLs, DSNs, host:port and bare hosts are rewritten, for service names, container names, hostnames and aliases', () => {
    expect(secretData(findDoc(docs, 'Secret', 'app-env')).DATABASE_URL).toBe(
      'postgres://u:rw-pass-9@plausible-db:5432/app',
    );
    expect(findDoc(docs, 'ConfigMap', 'app-env').data).toEqual({
      BROKERS: 'kafka:9092,kafka:9093',
      CACHE: 'redis://cache:6379',
      SEARCH_HOST: 'search',
      UNRELATED: 'the plausible_db_backup job',
    });
  });

  test('each rewrite is reported', () => {
    expect(app.warnings.filter((w) => w.code === 'host-rewrite').map((w) => w.message)).toEqual([
      'host "events_kafka" in BROKERS rewritten to the Service name "kafka"',
      'host "my-cache" in CACHE rewritten to the Service name "cache"',
      'host "plausible_db" in DATABASE_URL rewritten to the Service name "plausible-db"',
      'host "search_engine" in SEARCH_HOST rewritten to the Service name "search"',
    ]);
  });
});
