import { Chart, Cron, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-27';
import {
  LabelledCronJob,
  LabelledDaemonSet,
  LabelledDeployment,
  LabelledJob,
  LabelledStatefulSet,
} from '../../lib/base/labelled-workloads';
import { findDoc } from '../support/yaml-docs';

const containers = [{ name: 'c', image: 'nginx:1.25', ports: [{ number: 80 }] }];
const podMetadata = { labels: { app: 'web' } };

function chart(): Chart {
  return new Chart(Testing.app(), 'test', { namespace: 'shop' });
}

test("a Deployment, DaemonSet and StatefulSet select their pods by the pods' labels, without kplus's address label", () => {
  const c = chart();
  new LabelledDeployment(c, 'Deployment', { metadata: { name: 'web' }, podMetadata, containers });
  new LabelledDaemonSet(c, 'DaemonSet', {
    metadata: { name: 'agent' },
    podMetadata: { labels: { app: 'agent' } },
    containers,
  });
  const service = new kplus.Service(c, 'Service', { metadata: { name: 'db' }, ports: [{ port: 80 }] });
  service.selectLabel('app', 'db');
  new LabelledStatefulSet(c, 'StatefulSet', {
    metadata: { name: 'db' },
    podMetadata: { labels: { app: 'db' } },
    containers,
    service,
  });
  const docs = Testing.synth(c);
  expect(JSON.stringify(docs)).not.toContain(kplus.Pod.ADDRESS_LABEL);
  for (const [kind, name] of [
    ['Deployment', 'web'],
    ['DaemonSet', 'agent'],
    ['StatefulSet', 'db'],
  ]) {
    const doc = findDoc(docs, kind, name);
    expect(doc.spec.template.metadata.labels).toEqual({ app: name });
    expect(doc.spec.selector).toEqual({ matchLabels: { app: name } });
  }
  expect(findDoc(docs, 'Service', 'db').spec.selector).toEqual({ app: 'db' });
});

test("a Job's and a CronJob's pods carry exactly the given labels", () => {
  const c = chart();
  new LabelledJob(c, 'Job', { metadata: { name: 'migrate' }, podMetadata: { labels: { app: 'migrate' } }, containers });
  new LabelledCronJob(c, 'CronJob', {
    metadata: { name: 'report' },
    podMetadata: { labels: { app: 'report' } },
    containers,
    schedule: Cron.daily(),
  });
  const docs = Testing.synth(c);
  expect(JSON.stringify(docs)).not.toContain(kplus.Pod.ADDRESS_LABEL);
  expect(findDoc(docs, 'Job', 'migrate').spec.template.metadata.labels).toEqual({ app: 'migrate' });
  expect(findDoc(docs, 'CronJob', 'report').spec.jobTemplate.spec.template.metadata.labels).toEqual({ app: 'report' });
});

test("labels added later reach the pods, and whoever selects the pods gets the workload's selector", () => {
  const c = chart();
  const web = new LabelledDeployment(c, 'Deployment', { metadata: { name: 'web' }, podMetadata, containers });
  web.podMetadata.addLabel('tier', 'front');
  const selector = web.toPodSelectorConfig();
  expect(selector.labelSelector._toKube()).toEqual({ matchLabels: { app: 'web' } });
  expect(selector.namespaces).toEqual({ names: ['shop'] });
  const service = new kplus.Service(c, 'Service', { metadata: { name: 'web' }, ports: [{ port: 80 }] });
  service.select(web);
  const docs = Testing.synth(c);
  expect(findDoc(docs, 'Deployment', 'web').spec.template.metadata.labels).toEqual({ app: 'web', tier: 'front' });
  expect(findDoc(docs, 'Service', 'web').spec.selector).toEqual({ app: 'web' });
});

test("a Service a user adds with kplus's exposeViaService selects the pods by the labels they carry", () => {
  const c = chart();
  const web = new LabelledDeployment(c, 'Deployment', { metadata: { name: 'web' }, podMetadata, containers });
  web.exposeViaService({ name: 'web-extra' });
  const docs = Testing.synth(c);
  expect(findDoc(docs, 'Service', 'web-extra').spec.selector).toEqual({ app: 'web' });
  expect(findDoc(docs, 'Deployment', 'web').spec.template.metadata.labels).toEqual({ app: 'web' });
});
