/**
 * /health as a readiness probe: 200 with each part ok, 503 "degraded" naming the part this
 * instance cannot reach (here its sessions folder, gone), and ok again once it is back; never an
 * address or a path.
 */
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';

async function health(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/health`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Asks until `accept` holds (the probe re-checks at most once a second), or fails after 15 s. */
async function until(url: string, accept: (h: { status: number; body: Record<string, unknown> }) => boolean) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const h = await health(url);
    if (accept(h)) return h;
    if (Date.now() > deadline) throw new Error(`/health never became what was expected; last: ${JSON.stringify(h)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('/health', () => {
  it('says which part is unreachable with 503, and ok again once it is back', async () => {
    const api = await startTestServer();
    const first = await health(api.url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'ok', database: 'ok', sessionsFolder: 'ok', leases: 0 });

    const sessions = join(api.dataDir, 'sessions');
    renameSync(sessions, `${sessions}.away`);
    const degraded = await until(api.url, (h) => h.status === 503);
    expect(degraded.body).toMatchObject({ status: 'degraded', database: 'ok', sessionsFolder: 'unreachable' });
    expect(JSON.stringify(degraded.body)).not.toContain(api.dataDir);

    renameSync(`${sessions}.away`, sessions);
    const back = await until(api.url, (h) => h.status === 200);
    expect(back.body).toMatchObject({ status: 'ok', sessionsFolder: 'ok' });
  });
});
