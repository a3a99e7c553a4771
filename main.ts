import { App } from 'cdk8s';

const app = new App();
app.synth();
