/**
 * Where session repos live, and moving a broken one aside (never deleting it).
 */
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionsDir, type Config } from '../config.js';
import { SessionRepo } from '../git/index.js';

export function sessionRepoPath(config: Pick<Config, 'dataDir'>, sessionId: string): string {
  return join(sessionsDir(config), sessionId);
}

export function openSessionRepo(config: Pick<Config, 'dataDir'>, sessionId: string): SessionRepo {
  return new SessionRepo(sessionRepoPath(config, sessionId));
}

/**
 * Renames a session repo to `<data-dir>/moved-aside/<session>-<time>` so a
 * rebuild can start clean while the old one stays for a person to inspect.
 * @returns the new path, or null when there was nothing to move.
 */
export async function moveAside(config: Pick<Config, 'dataDir'>, sessionId: string, now = new Date()): Promise<string | null> {
  const from = sessionRepoPath(config, sessionId);
  if (!existsSync(from)) return null;
  const dir = join(config.dataDir, 'moved-aside');
  await mkdir(dir, { recursive: true });
  const to = join(dir, `${sessionId}-${now.toISOString().replace(/[:.]/g, '-')}`);
  await rename(from, to);
  return to;
}
