/**
 * What tests do to a mirror worker that a server never does.
 */
import type { MirrorWorker } from '../../src/mirror/worker.js';

/**
 * Stops the worker as a killed process would, leaving its leases in the database to expire (a
 * drain in flight stops before its next git write; call it while idle for a clean death). Without
 * sharing, the same as `stop()`.
 */
export async function abandonMirror(mirror: MirrorWorker): Promise<void> {
  mirror.leaseHolder?.leases.forget();
  await mirror.stop();
}
