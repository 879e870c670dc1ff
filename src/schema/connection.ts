import type { Page } from '../services/page.js';

/**
 * Connection objects are the services' Page values; Pothos types a
 * connection's parent without our extra `totalCount` thunk, so read it here.
 */
export function pageTotalCount(parent: object): Promise<number> {
  return (parent as Page<unknown>).totalCount();
}
