/**
 * What the agent's commits in a user's repo say about themselves: who made
 * them, their messages, the private refs a commit that could not go on the
 * user's branch is kept on, and the reflog reasons of every ref we move. The
 * end-of-turn commit (committer.ts) and the restores (restore.ts) both write
 * these; the messages' trailers (Session-Id, Turn, Restore-To) are how a
 * commit is traced back to its session, so they are spelled in one place.
 */
import { excerpt } from '../text.js';

export const AGENT_EMAIL = 'agent@openprogram.invalid';

export function agentName(model: string | null): string {
  return `agent (${model ?? 'unknown model'} via OpenProgram)`;
}

/** Author and committer of every commit the agent makes, for the session's model (null: unknown). */
export function agentIdentity(model: string | null): { name: string; email: string } {
  return { name: agentName(model), email: AGENT_EMAIL };
}

export function projectCommitMessage(sessionId: string, turn: number, userContent: string): string {
  return `[agent ${sessionId}] turn ${turn}: ${excerpt(userContent, 60)}\n\nSession-Id: ${sessionId}\nTurn: ${turn}\n`;
}

export function restoreCommitMessage(sessionId: string, turn: number): string {
  return `[agent ${sessionId}] restore to turn ${turn}\n\nSession-Id: ${sessionId}\nRestore-To: ${turn}\n`;
}

/** A commit message kept as a snapshot instead: the reason it did not go on the branch, as a last trailer. */
export function snapshotMessage(message: string, reason: string): string {
  return `${message}Snapshot: ${reason}\n`;
}

/** Up to five of `paths`, then how many more: a list that keeps a warning, an error or a Snapshot trailer short. */
export function listedPaths(paths: readonly string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');
}

/** The private ref a skipped turn's state is kept on. */
export function snapshotRef(sessionId: string, branch: string, turn: number): string {
  return branch === 'main' ? `refs/entity-memory/snapshots/${sessionId}/turn-${turn}` : `refs/entity-memory/snapshots/${sessionId}/${branch}/turn-${turn}`;
}

/** The private ref a restore that could not be committed is kept on. */
export function restoreSnapshotRef(sessionId: string, restoreId: string): string {
  return `refs/entity-memory/snapshots/${sessionId}/restore-${restoreId}`;
}

/** The reflog reasons of the refs the agent moves (`git reflog` shows them to the user). */
export const REFLOG = {
  turnSnapshot: 'entity-memory: snapshot of a skipped turn',
  restoreSnapshot: 'entity-memory: snapshot of a restore',
  turn: (turn: number) => `entity-memory: agent turn ${turn}`,
  restore: (turn: number) => `entity-memory: restore to turn ${turn}`,
} as const;
