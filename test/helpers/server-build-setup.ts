/**
 * Vitest global setup: compiles src/ into dist/ once before the suite when the sources changed
 * since the last build (a few milliseconds when they did not), so the tests that spawn
 * bin/entity-memory.js run the compiled server, as users do, not the tsx fallback. A build that
 * fails fails the run here, with tsc's error.
 */
import { ensureServerBuild } from '../../scripts/build-server.mjs';

export default async function setup(): Promise<void> {
  await ensureServerBuild({ log: (message) => console.log(message) });
}
