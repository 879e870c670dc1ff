/**
 * Telling the agent's commits in a project repo from the user's. The server writes
 * every agent commit (end-of-turn and restore, src/projects/committer.ts and
 * src/services/projects/project-restore.ts) with the author agent@openprogram.invalid,
 * a message starting `[agent <session_id>]` and a `Session-Id:` trailer; any one of
 * them marks it, so a commit rewritten by the user (amend, rebase) that kept the
 * message still counts.
 */

export const AGENT_EMAIL = 'agent@openprogram.invalid';

export interface CommitIdentity {
  message: string;
  author: { email: string };
  committer: { email: string };
}

/** The session whose agent made the commit, or null for the user's own commit. */
export function agentSessionOf(commit: CommitIdentity): string | null {
  const trailer = /^Session-Id:\s*(\S+)\s*$/m.exec(commit.message);
  if (trailer) return trailer[1]!;
  const prefix = /^\[agent ([^\]\s]+)\]/.exec(commit.message);
  if (prefix) return prefix[1]!;
  return null;
}

export function isAgentCommit(commit: CommitIdentity): boolean {
  return commit.author.email === AGENT_EMAIL || commit.committer.email === AGENT_EMAIL || agentSessionOf(commit) !== null;
}
