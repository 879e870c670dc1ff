/**
 * One session of a project, on the project page: what each of its turns did in the
 * project's repo. A turn skipped because the tree was dirty or busy keeps a snapshot of
 * the agent's edits, offered with "Apply snapshot" (a preview, then applyTurnSnapshot, then
 * "Undo apply": SnapshotPanel); any turn can be
 * the target of "Restore files to turn N": a preview first (each path and what it becomes, the
 * paths the user changed, which refuse it), then the restore on confirm, then its undo
 * (RewindPanel, the code alone). The server's answer, or its CONFLICT with the paths in the way, is shown.
 */
import { useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { graphql } from '../../gql';
import { refusal } from '../../lib/errors';
import { Link } from '../../lib/Link';
import { sessionPath } from '../../lib/router';
import { RewindPanel } from '../../lib/RewindPanel';
import { useRefetchOn } from './useRefetchOn';
import { PathList } from '../../lib/PathList';
import { SnapshotPanel, UnapplyMutation } from './SnapshotPanel';

const TURNS_PAGE = 50;
// The largest page the server gives (first: at most 500).
const MAX_TURNS = 500;

// Turns oldest first (lists page forward only). projectCommit is read from the turn's row (cost 1); its commit and snapshot fields, which reach git, are left out.
const SessionTurnsQuery = graphql(`
  query ProjectSessionTurns($sessionId: String!, $first: Int!) {
    session(sessionId: $sessionId) {
      id
      sessionId
      currentBranch
      turns(first: $first) {
        totalCount
        edges {
          cursor
          node {
            number
            open
            userMessage {
              content
            }
            projectCommit {
              result
              message
              reason
              dirtyPaths
              paths
            }
          }
        }
      }
    }
  }
`);

/** Whether the working tree holds one skipped turn's snapshot now: git-backed, so asked for one turn at a time. */
const SnapshotAppliedQuery = graphql(`
  query ProjectSnapshotApplied($sessionId: String!, $after: String) {
    session(sessionId: $sessionId) {
      id
      turns(after: $after, first: 1) {
        edges {
          node {
            number
            projectCommit {
              snapshotApplied
              snapshotConflicts
            }
          }
        }
      }
    }
  }
`);

/**
 * "Apply snapshot" (its preview and confirmation open in SnapshotPanel), or, when the working tree
 * already holds the snapshot's files (applied here or by hand), a note saying so and "Undo apply";
 * the paths you changed since, which would refuse it (snapshotConflicts), are named first and the
 * button waits for them.
 * @param after the cursor of the turn before it in the list (null for the first), as the server gave it.
 */
function ApplySnapshot({
  sessionId,
  after,
  version,
  busy,
  onPreview,
  onUndo,
}: {
  sessionId: string;
  after: string | null;
  version: number;
  busy: boolean;
  onPreview: () => void;
  onUndo: () => void;
}) {
  const [{ data }, refetch] = useQuery({ query: SnapshotAppliedQuery, variables: { sessionId, after } });
  useRefetchOn(version, refetch);
  const outcome = data?.session?.turns.edges[0]?.node.projectCommit;
  const applied = outcome?.snapshotApplied ?? false;
  const inTheWay = outcome?.snapshotConflicts ?? [];
  if (applied) {
    return (
      <>
        <p role="status" className="snapshot-applied">
          Applied: the working tree holds this snapshot.
        </p>
        <button type="button" disabled={busy} onClick={onUndo}>
          Undo apply
        </button>
      </>
    );
  }
  return (
    <>
      {inTheWay.length > 0 && (
        <p role="alert" className="snapshot-conflicts">
          Not possible now: you changed {inTheWay.join(', ')} since the snapshot was taken. Commit or stash {inTheWay.length === 1 ? 'it' : 'them'} first.
        </p>
      )}
      <button type="button" disabled={busy || inTheWay.length > 0} onClick={onPreview}>
        Apply snapshot
      </button>
    </>
  );
}

type Outcome = { kind: 'done'; message: string; paths: string[] } | { kind: 'error'; message: string; paths: string[] };

function errorOutcome(error: CombinedError): Outcome {
  return { kind: 'error', ...refusal(error) };
}

const SKIP_BADGE: Record<string, string> = { SKIPPED_BUSY: 'busy', SKIPPED_DIRTY: 'dirty', SKIPPED_UNATTRIBUTED: 'unattributed' };
const SKIPPED = new Set(['SKIPPED_DIRTY', 'SKIPPED_BUSY', 'SKIPPED_UNATTRIBUTED']);

export function SessionTurns({
  sessionId,
  title,
  version,
  onChanged,
}: {
  sessionId: string;
  title: string | null;
  version: number;
  onChanged: () => void;
}) {
  const [first, setFirst] = useState(TURNS_PAGE);
  const [{ data, error }, refetch] = useQuery({ query: SessionTurnsQuery, variables: { sessionId, first } });
  useRefetchOn(version, refetch);
  const [, unapplySnapshot] = useMutation(UnapplyMutation);
  const [confirming, setConfirming] = useState<number>();
  const [previewing, setPreviewing] = useState<number>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ turn: number; what: string; outcome: Outcome }>();

  const run = async (turn: number, what: string, action: () => Promise<{ error?: CombinedError; data?: { message: string; paths: string[] } }>) => {
    setBusy(true);
    setConfirming(undefined);
    const answer = await action();
    setBusy(false);
    setOutcome({
      turn,
      what,
      outcome: answer.error ? errorOutcome(answer.error) : { kind: 'done', message: answer.data?.message ?? '', paths: answer.data?.paths ?? [] },
    });
    if (!answer.error) onChanged();
  };
  const undoApply = (turn: number) =>
    run(turn, 'Undo apply', async () => {
      const r = await unapplySnapshot({ input: { sessionId, turn } });
      return { error: r.error, data: r.data?.unapplyTurnSnapshot };
    });

  const name = title || sessionId;
  const headingId = `session-${sessionId}`;
  const session = data?.session;
  const edges = session?.turns.edges ?? [];
  const turns = edges.map((edge) => edge.node);
  /** The cursor the server gave the turn before `number` in the list (null for the first). */
  const cursorBefore = (number: number) => {
    const at = edges.findIndex((edge) => edge.node.number === number);
    return at > 0 ? edges[at - 1]!.cursor : null;
  };
  const skipped = turns.filter((turn) => turn.projectCommit && SKIPPED.has(turn.projectCommit.result));

  const restoreControls = (turn: number, label: string) =>
    confirming === turn ? (
      <RewindPanel sessionId={sessionId} turn={turn} choose={false} hasProject onClose={() => setConfirming(undefined)} onDone={onChanged} />
    ) : (
      <button type="button" disabled={busy} onClick={() => setConfirming(turn)}>
        {label}
      </button>
    );

  return (
    <section aria-labelledby={headingId} className="session-turns">
      <h3 id={headingId}>
        <Link href={sessionPath(sessionId)}>{name}</Link>
        {session && (
          <span className="muted">
            {' '}
            · {session.turns.totalCount} {session.turns.totalCount === 1 ? 'turn' : 'turns'} on {session.currentBranch}
          </span>
        )}
      </h3>
      {error && <p role="alert">The turns could not be loaded: {error.graphQLErrors[0]?.message ?? error.message}</p>}

      {outcome && (
        <div role={outcome.outcome.kind === 'error' ? 'alert' : 'status'} className={`outcome outcome-${outcome.outcome.kind}`}>
          <p>
            {outcome.what} (turn {outcome.turn}): {outcome.outcome.message}
          </p>
          {outcome.outcome.paths.length > 0 && <p className="muted">{outcome.outcome.kind === 'error' ? 'In the way:' : 'Written:'}</p>}
          <PathList paths={outcome.outcome.paths} />
          <button type="button" onClick={() => setOutcome(undefined)}>
            Close
          </button>
        </div>
      )}

      {skipped.length > 0 && (
        <div className="snapshots">
          <h4>Skipped turns with a snapshot</h4>
          <ul>
            {skipped.map((turn) => (
              <li key={turn.number} className="snapshot">
                <p>
                  <strong>Turn {turn.number}</strong> <span className="badge badge-warn">{SKIP_BADGE[turn.projectCommit!.result] ?? 'dirty'}</span>{' '}
                  {turn.projectCommit!.message ?? turn.projectCommit!.reason}
                </p>
                {turn.projectCommit!.dirtyPaths.length > 0 && (
                  <p className="muted">
                    In the way:{' '}
                    {turn.projectCommit!.dirtyPaths.map((path, i) => (
                      <span key={path}>
                        {i > 0 && ', '}
                        <code>{path}</code>
                      </span>
                    ))}
                  </p>
                )}
                {turn.projectCommit!.paths.length > 0 && (
                  <p className="muted">
                    The agent's edits:{' '}
                    {turn.projectCommit!.paths.map((path, i) => (
                      <span key={path}>
                        {i > 0 && ', '}
                        <code>{path}</code>
                      </span>
                    ))}
                  </p>
                )}
                {previewing === turn.number ? (
                  <SnapshotPanel
                    sessionId={sessionId}
                    turn={turn.number}
                    after={cursorBefore(turn.number)}
                    onClose={() => setPreviewing(undefined)}
                    onDone={onChanged}
                  />
                ) : (
                  <ApplySnapshot
                    sessionId={sessionId}
                    after={cursorBefore(turn.number)}
                    version={version}
                    busy={busy}
                    onPreview={() => {
                      setOutcome(undefined);
                      setPreviewing(turn.number);
                    }}
                    onUndo={() => void undoApply(turn.number)}
                  />
                )}
              </li>
            ))}
          </ul>
        </div>
      )}

      {turns.length > 0 && (
        <div className="turns">
          <h4>Turns and restore points</h4>
          <ol>
            <li>
              <span className="turn-label">Before the first turn</span>
              {restoreControls(0, 'Restore files to turn 0')}
            </li>
            {turns.map((turn) => (
              <li key={turn.number}>
                <span className="turn-label">
                  Turn {turn.number}
                  {turn.projectCommit && <span className={`badge result-${turn.projectCommit.result.toLowerCase()}`}>{turn.projectCommit.result.toLowerCase().replace(/_/g, ' ')}</span>}
                  <span className="muted"> {turn.userMessage.content.slice(0, 80)}</span>
                </span>
                {!turn.open && restoreControls(turn.number, `Restore files to turn ${turn.number}`)}
              </li>
            ))}
          </ol>
          {session && session.turns.totalCount > turns.length && first < MAX_TURNS && (
            <button type="button" onClick={() => setFirst((n) => Math.min(n + TURNS_PAGE, MAX_TURNS))}>
              Load more turns
            </button>
          )}
        </div>
      )}
    </section>
  );
}
