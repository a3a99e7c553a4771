import { Chart, Testing } from 'cdk8s';
import { ComposeApp, ComposeAppProps } from '../../lib/app/compose-app';
import { ServiceTarget } from '../../lib/app/settings';
import { loadComposeFromString } from '../../lib/compose/load';
import { ComposeModel } from '../../lib/compose/model';
import { expectConformance } from '../support/k8s-rules';
import { Manifest } from '../support/problems';
import { expectValidManifests } from '../support/validate';

/** One synthesized app: the construct, its chart and its documents. */
export interface SynthesizedApp {
  readonly app: ComposeApp;
  readonly chart: Chart;
  readonly docs: Manifest[];
}

/** Loads compose text (no shell environment; project `test` unless the text names one) into a model. */
export function modelOf(text: string, projectDir?: string): ComposeModel {
  return loadComposeFromString(text, { env: {}, projectDir, projectName: /^name:/m.test(text) ? undefined : 'test' })
    .model;
}

/**
 * A fresh chart with a ComposeApp from compose text or a model, synthesized. Every output is checked against the
 * schemas (unknown fields rejected) and the Kubernetes rules before a test sees it.
 */
export function synthApp(
  input: string | ComposeModel,
  props: Omit<ComposeAppProps, 'model' | 'composeFile'> = {},
): SynthesizedApp {
  const model = typeof input === 'string' ? modelOf(input) : input;
  const chart = new Chart(Testing.app(), 'test');
  const app = new ComposeApp(chart, 'app', { model, ...props });
  const docs = Testing.synth(chart);
  expectValidManifests(docs);
  expectConformance(docs);
  return { app, chart, docs };
}

/** The pod spec of a workload document (Deployment, StatefulSet, Job, or CronJob). */
export function podSpec(doc: Manifest): any {
  return doc.kind === 'CronJob' ? doc.spec.jobTemplate.spec.template.spec : doc.spec.template.spec;
}

/** The first (main) container of a workload document. */
export function mainContainer(doc: Manifest): any {
  return podSpec(doc).containers[0];
}

/** The decoded `data` of a Secret document. */
export function secretData(doc: Manifest): Record<string, string> {
  return Object.fromEntries(
    Object.entries(doc.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString('utf8')]),
  );
}

/**
 * A hybrid app: an agent that drives the Docker engine runs in the VM and needs the database (a pod); the web front end
 * reaches the agent on a port only its URL names (9001) and waits for it, and a report job waits for the web front
 * end. Migrated with {@link HYBRID_PROPS}.
 */
export const HYBRID = `
name: hub
services:
  web:
    image: nginx:1.27
    ports: ["8080:80"]
    environment: { AGENT_URL: "http://agent:9001/api" }
    depends_on: [agent]
  reports:
    image: busybox:1.36
    command: ["sleep", "3600"]
    environment: { WEB: "http://web:80" }
    depends_on: [web, db]
  agent:
    image: portainer/agent:2.21.4
    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]
    environment: { DATABASE_URL: "postgres://hub:hub-pw-4e1a@db:5432/hub" }
    depends_on: [db]
  db:
    image: postgres:16.4
    environment: { POSTGRES_PASSWORD: hub-pw-4e1a }
    volumes: [db-data:/var/lib/postgresql/data]
volumes:
  db-data: {}
`;

/** {@link HYBRID}'s props: what assessment flags goes to the VM. */
export const HYBRID_PROPS: ComposeAppProps = {
  target: ServiceTarget.AUTO,
  vm: { imageBaseUrl: 'https://images.example.com/vm' },
};
