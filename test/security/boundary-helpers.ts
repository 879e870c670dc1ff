/**
 * Requests as a browser or an attacker would send them: any Host, Origin, content type and
 * body, through node:http (fetch will not let a test choose Host).
 */
import { readdirSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join, relative } from 'node:path';
import { print } from 'graphql';
import { CreateSession } from '../api/operations.js';
import type { TestServer } from '../helpers/server.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json: { errors?: { message: string; extensions?: { code?: string } }[]; data?: unknown } | undefined;
}

/** One HTTP request to `url` (a full URL) with exactly these headers and body. */
export function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        let json: RawResponse['json'];
        try {
          json = JSON.parse(body) as RawResponse['json'];
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A createSession mutation as JSON: what an attacker would like to run. */
export function createSessionBody(sessionId: string): string {
  return JSON.stringify({ query: print(CreateSession), variables: { input: { sessionId } } });
}

/** Every path under the data dir, relative, sorted: compared before and after a refused request. */
export function dataDirListing(dataDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // SQLite's WAL side files come and go with reads; the row count below covers the database.
      if (/entity-memory\.db-(wal|shm|journal)$/.test(entry.name)) continue;
      out.push(relative(dataDir, path));
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dataDir);
  return out.sort();
}

/** Asserts-by-return: how many sessions the database holds and what the data dir contains. */
export async function writtenState(api: TestServer): Promise<{ sessions: number; files: string[] }> {
  return { sessions: await api.server.app.db.session.count(), files: dataDirListing(api.dataDir) };
}

/** The response's Access-Control-* header names. */
export function corsHeaders(response: RawResponse): string[] {
  return Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));
}
