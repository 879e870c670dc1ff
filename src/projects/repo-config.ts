/**
 * What a project's effective git config would make git run that the runner's
 * per-call settings (PER_CALL_CONFIG in src/git/run.ts) cannot switch off,
 * and whether the agent's `git add` may run there.
 *
 * Filter drivers are the case: one key per driver name, run by `git add`
 * (clean), `git status` (clean, to compare a changed file with the index) and
 * checkout (smudge). Where they are defined:
 * - the agent's commit is not made until the user trusts the config
 *   (`updateProject(input: { projectId, trustRepoConfig: true })`); the trust
 *   is pinned to a fingerprint of the keys and values, so a filter added or
 *   changed later (by an agent, say) turns auto-commit off again;
 * - our `git status` (turn start and end, session join, `workingTree`) still
 *   runs, with every driver found neutralised per call (empty commands,
 *   `required=false`). A file whose stat changed may then show as modified
 *   when only its filter would have hidden the change: status errs towards
 *   "dirty", which only ever makes us commit less.
 */
import { createHash } from 'node:crypto';
import type { ConfigEntry } from '../git/project-repo.js';

/** Auto-commit in a project: what `Project.autoCommit.state` reports. */
export const AUTO_COMMIT_STATES = ['ENABLED', 'TRUSTED', 'DISABLED_UNSAFE_CONFIG', 'UNAVAILABLE'] as const;
export type AutoCommitState = (typeof AUTO_COMMIT_STATES)[number];

const FILTER_COMMAND = /^filter\.(.+)\.(clean|smudge|process)$/s;

export interface RepoConfigVerdict {
  /** The keys that would run a program and cannot be switched off per call, sorted: `filter.lfs.clean`. */
  unsafeKeys: string[];
  /** `key (origin)` for each unsafe key, for messages. */
  unsafeOrigins: string[];
  /** Per-call settings that neutralise every driver found. */
  neutralisers: Array<[string, string]>;
  /** Stable digest of the unsafe keys and their values: what a user's trust is pinned to. */
  fingerprint: string;
}

/**
 * Judges a repo's effective config (`ProjectRepo.configEntries`). A key
 * given without a value counts too: git would refuse or run it.
 */
export function judgeRepoConfig(entries: readonly ConfigEntry[]): RepoConfigVerdict {
  const unsafe = entries.filter((e) => FILTER_COMMAND.test(e.key));
  const drivers = [...new Set(unsafe.map((e) => FILTER_COMMAND.exec(e.key)![1]!))].sort();
  const neutralisers = drivers.flatMap((name): Array<[string, string]> => [
    [`filter.${name}.clean`, ''],
    [`filter.${name}.smudge`, ''],
    [`filter.${name}.process`, ''],
    // A required driver with no command would make git refuse the file.
    [`filter.${name}.required`, 'false'],
  ]);
  const lines = unsafe.map((e) => `${e.key}\0${e.value ?? ''}`).sort();
  return {
    unsafeKeys: [...new Set(unsafe.map((e) => e.key))].sort(),
    unsafeOrigins: [...new Set(unsafe.map((e) => `${e.key} (${originText(e)})`))].sort(),
    neutralisers,
    fingerprint: createHash('sha256').update(lines.join('\n')).digest('hex'),
  };
}

function originText(entry: ConfigEntry): string {
  const origin = entry.origin.startsWith('file:') ? entry.origin.slice('file:'.length) : entry.origin;
  return `${entry.scope} config ${origin}`;
}

/**
 * The auto-commit state for a verdict and the fingerprint the user trusted
 * (null: never). Trust only holds while the unsafe config is what was trusted.
 */
export function autoCommitState(verdict: RepoConfigVerdict, trusted: string | null): Exclude<AutoCommitState, 'UNAVAILABLE'> {
  if (verdict.unsafeKeys.length === 0) return 'ENABLED';
  return trusted === verdict.fingerprint ? 'TRUSTED' : 'DISABLED_UNSAFE_CONFIG';
}

/** Why auto-commit is off and how to turn it on, for a turn's FAILED message and `Project.autoCommit.message`. */
export function unsafeConfigMessage(projectId: string, verdict: RepoConfigVerdict, trusted: string | null): string {
  const changed = trusted !== null ? ' It has changed since you trusted it.' : '';
  return (
    `Auto-commit is off in this project: its git config defines ${verdict.unsafeOrigins.join(', ')}, ` +
    `which git would run as a program on \`git add\`; nothing was committed.${changed} ` +
    `If you trust this config, turn auto-commit on with updateProject(input: { projectId: "${projectId}", trustRepoConfig: true }).`
  );
}
