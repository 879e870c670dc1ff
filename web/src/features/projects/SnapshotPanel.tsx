/**
 * Taking a skipped turn's snapshot with a preview first, and its undo: the panel reads what
 * applying would write now (projectCommit.snapshotChanges: each path, from what the working tree
 * holds to the snapshot's state, and the paths the user changed since, which refuse it), applies
 * on confirm (applyTurnSnapshot), then offers "Undo apply" (unapplyTurnSnapshot: each path back to
 * what HEAD holds, refused where the user changed or committed it since).
 */
import { useState } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { graphql } from '../../gql';
import { refusal } from '../../lib/errors';
import { InTheWay, PathList, PlannedPaths } from '../../lib/PathList';

const SnapshotChangesQuery = graphql(`
  query ProjectSnapshotChanges($sessionId: String!, $after: String) {
    session(sessionId: $sessionId) {
      id
      turns(after: $after, first: 1) {
        edges {
          node {
            number
            projectCommit {
              snapshotChanges {
                path
                action
                conflict
              }
            }
          }
        }
      }
    }
  }
`);

const ApplyMutation = graphql(`
  mutation ApplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {
    applyTurnSnapshot(input: $input) {
      result
      message
      paths
    }
  }
`);

export const UnapplyMutation = graphql(`
  mutation UnapplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {
    unapplyTurnSnapshot(input: $input) {
      result
      message
      paths
    }
  }
`);

const ACTION_TEXT: Record<string, string> = { CREATE: 'created', MODIFY: 'changed', DELETE: 'deleted' };

type Answer = { kind: 'done' | 'error'; message: string; paths: string[] };

function answerOf(result: { error?: CombinedError; data?: { message: string; paths: string[] } }): Answer {
  if (result.error) return { kind: 'error', ...refusal(result.error) };
  return { kind: 'done', message: result.data?.message ?? '', paths: result.data?.paths ?? [] };
}

/**
 * The preview, the apply and its undo for turn `turn`'s snapshot.
 * @param after the cursor of the turn before it in the list (null for the first), as the server gave it.
 * @param onDone after the apply or its undo ran (the page reloads what it shows).
 */
export function SnapshotPanel({
  sessionId,
  turn,
  after,
  onClose,
  onDone,
}: {
  sessionId: string;
  turn: number;
  after: string | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const [{ data, error, fetching }] = useQuery({ query: SnapshotChangesQuery, variables: { sessionId, after }, requestPolicy: 'network-only' });
  const [, apply] = useMutation(ApplyMutation);
  const [, unapply] = useMutation(UnapplyMutation);
  const [busy, setBusy] = useState(false);
  const [applied, setApplied] = useState<Answer | null>(null);
  const [undone, setUndone] = useState<Answer | null>(null);

  const changes = data?.session?.turns.edges[0]?.node.projectCommit?.snapshotChanges ?? null;
  const conflicts = (changes ?? []).filter((change) => change.conflict).map((change) => change.path);
  const title = `Apply turn ${turn}'s snapshot`;

  const runApply = async () => {
    setBusy(true);
    const result = await apply({ input: { sessionId, turn } });
    setBusy(false);
    const answer = answerOf({ error: result.error, data: result.data?.applyTurnSnapshot });
    setApplied(answer);
    if (answer.kind === 'done') onDone();
  };
  const runUndo = async () => {
    setBusy(true);
    const result = await unapply({ input: { sessionId, turn } });
    setBusy(false);
    const answer = answerOf({ error: result.error, data: result.data?.unapplyTurnSnapshot });
    setUndone(answer);
    if (answer.kind === 'done') onDone();
  };

  const shown = undone ?? applied;
  const done = applied?.kind === 'done';
  return (
    <div role="dialog" aria-label={title} className="rewind">
      <h4>{title}</h4>
      {!done && fetching && !changes && <p role="status">Preparing the preview…</p>}
      {!done && error && <p role="alert">The preview could not be read: {refusal(error).message}</p>}
      {!done && !fetching && !error && changes === null && (
        <p role="alert">The preview could not be read: the project's folder cannot be used now.</p>
      )}
      {!done && changes && (
        <div className="rewind-plan" aria-label="Preview">
          {changes.length > 0 ? (
            <>
              <PlannedPaths changes={changes} actionText={ACTION_TEXT} conflictText="changed by you since the snapshot was taken" />
              <p>
                {changes.length} {changes.length === 1 ? 'path is' : 'paths are'} written into the working tree; nothing is committed or staged.
              </p>
            </>
          ) : (
            <p>The working tree already holds this snapshot: nothing to write.</p>
          )}
          <InTheWay paths={conflicts} />
        </div>
      )}
      {shown && (
        <div role={shown.kind === 'error' ? 'alert' : 'status'}>
          <p>{shown.message}</p>
          {shown.kind === 'error' && <PathList paths={shown.paths} />}
        </div>
      )}
      {done ? (
        <>
          {!undone && applied!.paths.length > 0 && (
            <button type="button" disabled={busy} onClick={() => void runUndo()}>
              Undo apply
            </button>
          )}
          <button type="button" onClick={onClose}>
            Close
          </button>
        </>
      ) : (
        <>
          <button
            type="button"
            className="danger"
            disabled={busy || !changes || changes.length === 0 || conflicts.length > 0}
            onClick={() => void runApply()}
          >
            Apply
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </>
      )}
    </div>
  );
}
