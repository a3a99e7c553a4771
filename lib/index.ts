export * from './compose/model';
export * from './compose/errors';
export * from './app/quantities';
export * from './app/network-policy';
export * from './app/autoscaler';
export * from './app/quota';
export * from './compose/load';
export * as composeKeys from './compose/keys';
export * from './vm';
