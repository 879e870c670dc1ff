import type { Deps } from './services/deps.js';

/** The GraphQL context: the same dependencies the services take. */
export interface Context {
  deps: Deps;
  requestId: string;
}
