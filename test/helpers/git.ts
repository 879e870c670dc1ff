/** The plain git CLI, as a user would run it in a repo (no config of ours). */
import { execFileSync } from 'node:child_process';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C' },
  });
}

/**
 * What `probe` answers once it answers something (not undefined or false), polled every 50 ms for
 * up to `ms`: long enough for a loaded machine (a wait that holds returns at once).
 * @throws when it does not within `ms`.
 */
export async function eventually<T>(probe: () => Promise<T | undefined | false>, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
