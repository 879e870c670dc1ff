import type { Deps } from './resolvers/deps.js';

/** The GraphQL context: the same dependencies the plain resolvers take. */
export interface Context {
  deps: Deps;
  requestId: string;
}
