/**
 * Fixtures for the git layer's tests: temp repos removed after each test, a
 * plain git CLI to assert on real state, and turn fixtures shaped like the
 * on-disk contract (5 message files of ~350 bytes, bucketed by 1000).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Identity, RepoFile } from '../../src/git/commit-input.js';
import { gitEnv } from '../../src/git/run.js';

const folders: string[] = [];

afterEach(() => {
  while (folders.length > 0) rmSync(folders.pop()!, { recursive: true, force: true });
});

/** A new empty folder (real path), deleted after the test. */
export function tempDir(prefix = 'em-git-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  folders.push(dir);
  return dir;
}

/** Runs the git CLI in `dir` like a user would (no global config), returns trimmed stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv(), encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trimEnd();
}

/**
 * `update-ref` as compare-and-swap: fails unless the ref is at `oldSha` (all
 * zeros: must not exist). The server moves refs through fast-import only.
 */
export function updateRefArgv(ref: string, newSha: string, oldSha: string, reason: string): string[] {
  return ['update-ref', '-m', reason, ref, newSha, oldSha];
}

/** The all-zero id meaning "must not exist" in `update-ref`, sized like `like`. */
export function zeroSha(like?: string): string {
  return '0'.repeat(like?.length === 64 ? 64 : 40);
}

export const ALICE: Identity = { name: 'Agent Smith', email: 'agent@openprogram.invalid', date: new Date('2026-05-01T12:00:00Z') };

const ROLES = ['u', 'a', 't', 't', 'a'] as const;
const ROLE_NAMES = { u: 'user', a: 'assistant', t: 'tool', s: 'system' } as const;

/** The repo path of message `seq` (1-based), bucketed by thousands. */
export function messagePath(seq: number, role: string, id: string): string {
  const bucket = String(Math.floor(seq / 1000)).padStart(3, '0');
  return `messages/${bucket}/${String(seq).padStart(6, '0')}-${role}-${id}.json`;
}

/** Turn `n` (1-based): 5 message files of ~350 bytes and a contract-shaped message with trailers. */
export function turn(n: number, opts: { session?: string; salt?: string } = {}): { files: RepoFile[]; message: string; ids: string[] } {
  const session = opts.session ?? 'sess-1';
  const salt = opts.salt ?? '';
  const files: RepoFile[] = [];
  const ids: string[] = [];
  for (let k = 0; k < 5; k++) {
    const seq = (n - 1) * 5 + k + 1;
    const role = ROLES[k]!;
    const id = `m${seq}${salt}`;
    ids.push(id);
    const body = {
      id,
      role: ROLE_NAMES[role],
      content: `message ${seq} of turn ${n}${salt}: ${'lorem ipsum dolor sit amet '.repeat(8)}`,
      predecessor: seq > 1 ? `m${seq - 1}` : null,
      caller: null,
      created_at: 1779500000 + seq,
      metadata: {},
    };
    files.push({ path: messagePath(seq, role, id), content: `${JSON.stringify(body, null, 2)}\n` });
  }
  const message =
    `turn ${n}: question number ${n}${salt}\n\n` +
    `assistant: answer number ${n}\ntools: read, grep × 2\n\n[meta: turn took 1.5s, 2 tools]\n\n` +
    `Session-Id: ${session}\nTurn: ${n}\nMessage-Ids: ${ids.join(',')}\n`;
  return { files, message, ids };
}

/** An identity at `2026-05-01T12:00:00Z + n seconds`. */
export function at(n: number, who: Identity = ALICE): Identity {
  return { ...who, date: new Date(who.date.getTime() + n * 1000) };
}
