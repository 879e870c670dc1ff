/**
 * The request body limit (src/http/body-limit.ts): a body declared larger than
 * it is refused before it is read, a chunked body (no Content-Length) is
 * refused once it has passed the limit, and a chunked body under it is served.
 * Nothing is written by a refused one.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../../src/http/body-limit.js';
import { startTestServer } from '../helpers/server.js';
import { createSessionBody, send, writtenState } from './boundary-helpers.js';

/**
 * A POST whose body is written in `chunks` (so sent chunked, with no Content-Length); resolves
 * with the status and body, or status 0 when the server closed the connection while the body
 * was still being sent (its 413 may not have been read then).
 */
function sendChunked(url: string, chunks: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time: one the server closed after refusing is never reused.
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    let answered = false;
    req.on('response', () => (answered = true));
    // The server may answer and close before the rest is sent.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) return;
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve({ status: 0, body: '' });
      else reject(error);
    });
    let next = 0;
    const pump = (): void => {
      while (next < chunks.length) {
        if (answered) return;
        if (!req.write(chunks[next++]!)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

describe('the request body limit', () => {
  it('refuses a body declared over the limit with 413, before reading it', async () => {
    const api = await startTestServer();
    const before = await writtenState(api);
    const declared = await send(`${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(MAX_REQUEST_BODY_BYTES + 1) },
      body: createSessionBody('too-big'),
    });
    expect(declared.status).toBe(413);
    expect(declared.json?.errors?.[0]?.message).toBe('Request body too large');
    expect(await writtenState(api)).toEqual(before);
  });

  it('counts a chunked body as it is read: over the limit is refused (413, or the connection closed while it was sent), under it is served', async () => {
    const api = await startTestServer();
    const before = await writtenState(api);
    const body = createSessionBody('chunked');
    // A valid start, then padding inside a string value, past the limit.
    const pad = 'x'.repeat(1024 * 1024);
    const chunks = [body.slice(0, -2), ',"extensions":{"pad":"', ...Array.from({ length: Math.ceil(MAX_REQUEST_BODY_BYTES / pad.length) + 1 }, () => pad), '"}}'];
    const refused = await sendChunked(`${api.url}/graphql`, chunks);
    if (refused.status !== 0) {
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body).errors[0].message).toBe('Request body too large');
    }
    expect(await writtenState(api)).toEqual(before);

    const served = await sendChunked(`${api.url}/graphql`, [body.slice(0, 20), body.slice(20)]);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({ data: { createSession: { sessionId: 'chunked' } } });
  });
});
