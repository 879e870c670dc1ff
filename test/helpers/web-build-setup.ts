/**
 * Vitest global setup: builds web/dist once before the suite when the UI's sources changed
 * since the last build (a few milliseconds when they did not), so the tests that load the UI
 * from a real server find it fresh. A UI that does not build fails the run here, with Vite's error.
 */
import { ensureWebBuild } from '../../scripts/build-web.mjs';

export default async function setup(): Promise<void> {
  await ensureWebBuild({ log: (message) => console.log(message) });
}
