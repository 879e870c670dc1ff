import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEFAULT_MAX_CONTENT_BYTES, type Config } from '../src/config.js';

/** Small helpers for the benchmark scripts: percentiles and a table row. */
export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function summary(label: string, samples: number[]): { label: string; p50: number; p99: number } {
  return { label, p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

export function row(label: string, p50: number, p99: number, extra = ''): string {
  return `${label.padEnd(44)} p50 ${p50.toFixed(2).padStart(8)} ms   p99 ${p99.toFixed(2).padStart(8)} ms ${extra}`;
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** `n` random base64 characters: message text that neither git nor SQLite can compress away. */
export const randomText = (n: number) => randomBytes(n).toString('base64').slice(0, n);

/**
 * The `RecordTurnInput` the benchmarks send: a 200-character prompt, a
 * 300-character reply and `tools` tool results of 300 (read, grep, list, ...).
 */
export function benchTurnInput(sessionId: string, tools: number) {
  const names = ['read', 'grep', 'list', 'edit', 'bash'];
  return {
    sessionId,
    user: { content: randomText(200) },
    assistant: { content: randomText(300) },
    toolResults: Array.from({ length: tools }, (_, i) => ({ content: randomText(300), toolName: names[i % names.length]! })),
    durationMs: 1200,
    tokens: 400,
  };
}

/** 12,345.6: numbers as the tables print them. */
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * The environment of a bare baseline: no inherited GIT_* variables; with
 * `isolated`, no user or system git config either (as the server runs git on
 * its own repos), else the user's config applies (as on a project).
 */
export function bareGitEnv(isolated: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_') && v !== undefined) env[k] = v;
  env.LC_ALL = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  if (isolated) {
    env.GIT_CONFIG_NOSYSTEM = '1';
    env.GIT_CONFIG_GLOBAL = '/dev/null';
  }
  return env;
}

/**
 * Runs a command directly (no wrapper of ours) and resolves with its stdout;
 * rejects with its stderr on a non-zero exit.
 * @param stdin text to write, a file descriptor to read from, or nothing.
 */
export function command(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string | Buffer; stdinFd?: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = opts.stdinFd ?? (opts.input !== undefined ? 'pipe' : 'ignore');
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: [stdin, 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8')}`));
    });
    if (opts.input !== undefined) child.stdin!.end(opts.input);
  });
}

/** A quiet server configuration over `dataDir` on a free port, as the benchmarks start it. */
export function benchConfig(dataDir: string): Config {
  return { dataDir, port: 0, host: '127.0.0.1', allowedRoots: [dataDir], maxContentBytes: DEFAULT_MAX_CONTENT_BYTES, logLevel: 'silent' };
}

/**
 * One GraphQL request to the server at `url`, over HTTP like any client: its data.
 * @throws Error naming the operation when the answer has errors or no data.
 */
export async function postGraphQL<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: unknown };
  if (result.errors || !result.data) throw new Error(`${query.slice(0, 60)}…: ${JSON.stringify(result.errors ?? result)}`);
  return result.data;
}
