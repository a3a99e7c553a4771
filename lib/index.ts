export * from './compose/model';
export * from './compose/errors';
