/**
 * The ports well-known images listen on without being told, from the `EXPOSE` lines of their official images, and
 * the default ports of URL schemes. Compose services reach each other on any port the process listens on, so a
 * compose file often declares none; these tables let the app give such a service its Service port anyway.
 *
 * Sources (each image's Dockerfile as published by its maintainers, read 2024–2025):
 * - Docker official images, https://github.com/docker-library/<name> (postgres, mysql, mariadb, redis, rabbitmq,
 *   mongo, memcached, nginx, httpd, zookeeper, cassandra, couchdb, neo4j, influxdb, nats, traefik, caddy, registry,
 *   adminer, ghost, wordpress, nextcloud, phpmyadmin, solr, tomcat, eclipse-mosquitto); kibana, elasticsearch and
 *   logstash are built from https://github.com/elastic/dockerfiles;
 * - clickhouse/clickhouse-server: https://github.com/ClickHouse/ClickHouse/blob/master/docker/server/Dockerfile.ubuntu;
 * - minio/minio: https://github.com/minio/minio/blob/master/Dockerfile.release (EXPOSE 9000; the console's 9001 is
 *   the port its documentation starts it on with `--console-address ":9001"`);
 * - apache/kafka: https://github.com/apache/kafka/blob/trunk/docker/jvm/Dockerfile; confluentinc/cp-kafka and
 *   bitnami/kafka document 9092 as their listener;
 * - grafana/grafana: https://github.com/grafana/grafana/blob/main/Dockerfile; prom/prometheus:
 *   https://github.com/prometheus/prometheus/blob/main/Dockerfile; apache/tika: https://github.com/apache/tika-docker;
 *   gotenberg/gotenberg: https://github.com/gotenberg/gotenberg/blob/main/build/Dockerfile;
 *   mcr.microsoft.com/mssql/server: port 1433 as documented by Microsoft;
 *   hashicorp/consul, hashicorp/vault: their Dockerfiles (8500, 8200); quay.io/coreos/etcd: 2379;
 *   mailhog/mailhog: https://github.com/mailhog/MailHog/blob/master/Dockerfile; quay.io/keycloak/keycloak: 8080;
 * - linuxserver/plex: https://github.com/linuxserver/docker-plex/blob/master/Dockerfile and plexinc/pms-docker:
 *   https://github.com/plexinc/pms-docker/blob/master/Dockerfile (EXPOSE 32400, the web app and API; the UDP
 *   discovery ports are left out, as the table holds TCP).
 */

import { imageRepository } from '../../stateful/engine';

/** One image family and the ports its official image exposes. */
export interface WellKnownImage {
  /** Repository paths that name it, as `imageRepository` gives them: no registry host, tag or `library/`. */
  readonly repositories: readonly string[];
  /** TCP ports, in the order the image documents them. */
  readonly ports: readonly number[];
}

/** The table, one entry per image family. */
export const WELL_KNOWN_IMAGES: readonly WellKnownImage[] = [
  { repositories: ['postgres', 'bitnami/postgresql', 'postgis/postgis', 'timescale/timescaledb'], ports: [5432] },
  { repositories: ['mysql', 'bitnami/mysql', 'mysql/mysql-server'], ports: [3306] },
  { repositories: ['mariadb', 'bitnami/mariadb', 'linuxserver/mariadb'], ports: [3306] },
  {
    repositories: ['redis', 'bitnami/redis', 'redis/redis-stack-server', 'valkey/valkey', 'eqalpha/keydb'],
    ports: [6379],
  },
  { repositories: ['rabbitmq', 'bitnami/rabbitmq'], ports: [5672, 15672] },
  { repositories: ['mongo', 'bitnami/mongodb', 'mongodb/mongodb-community-server'], ports: [27017] },
  { repositories: ['memcached', 'bitnami/memcached'], ports: [11211] },
  { repositories: ['elasticsearch', 'elasticsearch/elasticsearch', 'bitnami/elasticsearch'], ports: [9200, 9300] },
  { repositories: ['opensearchproject/opensearch'], ports: [9200, 9600] },
  { repositories: ['kibana', 'kibana/kibana'], ports: [5601] },
  { repositories: ['logstash', 'logstash/logstash'], ports: [5044, 9600] },
  { repositories: ['apache/kafka', 'confluentinc/cp-kafka', 'bitnami/kafka', 'wurstmeister/kafka'], ports: [9092] },
  {
    repositories: ['zookeeper', 'confluentinc/cp-zookeeper', 'bitnami/zookeeper', 'wurstmeister/zookeeper'],
    ports: [2181],
  },
  { repositories: ['clickhouse/clickhouse-server', 'yandex/clickhouse-server'], ports: [8123, 9000, 9009] },
  { repositories: ['minio/minio', 'bitnami/minio'], ports: [9000, 9001] },
  {
    repositories: [
      'nginx',
      'nginxinc/nginx-unprivileged',
      'httpd',
      'caddy',
      'traefik',
      'phpmyadmin',
      'wordpress',
      'nextcloud',
      'ghost',
    ],
    ports: [80],
  },
  { repositories: ['adminer', 'keycloak/keycloak', 'jboss/keycloak', 'tomcat'], ports: [8080] },
  { repositories: ['linuxserver/plex', 'plexinc/pms-docker'], ports: [32400] },
  { repositories: ['grafana/grafana', 'grafana/grafana-oss', 'gotenberg/gotenberg'], ports: [3000] },
  { repositories: ['prom/prometheus'], ports: [9090] },
  { repositories: ['nats'], ports: [4222, 6222, 8222] },
  { repositories: ['influxdb'], ports: [8086] },
  { repositories: ['cassandra'], ports: [9042] },
  { repositories: ['couchdb'], ports: [5984] },
  { repositories: ['neo4j'], ports: [7474, 7687] },
  { repositories: ['solr'], ports: [8983] },
  { repositories: ['eclipse-mosquitto'], ports: [1883] },
  { repositories: ['registry'], ports: [5000] },
  { repositories: ['apache/tika'], ports: [9998] },
  { repositories: ['mssql/server', 'azure-sql-edge'], ports: [1433] },
  { repositories: ['hashicorp/consul', 'consul'], ports: [8500] },
  { repositories: ['hashicorp/vault', 'vault'], ports: [8200] },
  { repositories: ['coreos/etcd', 'bitnami/etcd'], ports: [2379] },
  { repositories: ['mailhog/mailhog', 'axllent/mailpit'], ports: [1025, 8025] },
];

/** Default ports of URL schemes, for `scheme://host/…` without a port. */
export const SCHEME_PORTS: Readonly<Record<string, number>> = {
  amqp: 5672,
  amqps: 5671,
  ftp: 21,
  http: 80,
  https: 443,
  jdbc_mysql: 3306,
  jdbc_postgresql: 5432,
  mariadb: 3306,
  memcached: 11211,
  mongodb: 27017,
  mqtt: 1883,
  mysql: 3306,
  mysqlx: 33060,
  nats: 4222,
  postgres: 5432,
  postgresql: 5432,
  redis: 6379,
  rediss: 6379,
  smtp: 25,
  ws: 80,
  wss: 443,
};

const BY_REPOSITORY = new Map<string, WellKnownImage>(
  WELL_KNOWN_IMAGES.flatMap((entry) => entry.repositories.map((repo) => [repo, entry] as [string, WellKnownImage])),
);

/** The TCP ports the image's maintainers document (its `EXPOSE`), or none for an image not in the table. */
export function wellKnownPorts(image: string): readonly number[] {
  return BY_REPOSITORY.get(imageRepository(image))?.ports ?? [];
}
