/**
 * Going back to a turn with a preview first (the `rewind` mutation): the dry run lists each path
 * the agent's files change and what it becomes, marks the paths the user changed since (the
 * rewind is refused while there are any: nothing is written), and says where the conversation
 * forks; the run happens on confirm, and its answer offers the undo (a rewind to the turn the
 * server names). On the session page the user picks code, conversation or both; on the project
 * page it is the code alone ("Restore files"). In lib/: both features use it.
 */
import { useCallback, useEffect, useState } from 'react';
import { useClient } from 'urql';
import { graphql } from '../gql';
import type { RewindFromUiMutation } from '../gql/graphql';
import { refusal } from './errors';
import { InTheWay, PathList, PlannedPaths } from './PathList';

const RewindMutation = graphql(`
  mutation RewindFromUi($input: RewindInput!) {
    rewind(input: $input) {
      turn
      dryRun
      undoTurn
      message
      code {
        changes {
          path
          action
          conflict
        }
        conflicts
      }
      conversation {
        fromTurn {
          number
        }
        branch
        laterTurns
      }
    }
  }
`);

type Plan = RewindFromUiMutation['rewind'];
export type RewindChoice = 'both' | 'code' | 'conversation';

const CHOICES: { value: RewindChoice; label: string }[] = [
  { value: 'both', label: 'Code and conversation' },
  { value: 'code', label: 'Code only' },
  { value: 'conversation', label: 'Conversation only' },
];

const ACTION_TEXT: Record<string, string> = { CREATE: 'written back', MODIFY: 'restored', DELETE: 'deleted' };

function flags(choice: RewindChoice): { code: boolean; conversation: boolean } {
  return { code: choice !== 'conversation', conversation: choice !== 'code' };
}

/**
 * The preview and the confirmation, for turn `turn` of the session.
 * @param choose offer code / conversation / both (else the code alone, for "Restore files").
 * @param hasProject the session is in a project (else the conversation alone can be rewound).
 * @param onDone after a rewind or its undo ran (the page reloads what it shows).
 */
export function RewindPanel({
  sessionId,
  turn,
  choose,
  hasProject,
  onClose,
  onDone,
}: {
  sessionId: string;
  turn: number;
  choose: boolean;
  hasProject: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const client = useClient();
  const [choice, setChoice] = useState<RewindChoice>(!choose ? 'code' : hasProject ? 'both' : 'conversation');
  const [plan, setPlan] = useState<Plan | null>(null);
  const [done, setDone] = useState<{ result: Plan; choice: RewindChoice; undone: boolean } | null>(null);
  const [problem, setProblem] = useState<{ message: string; paths: string[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const label = choose ? 'Rewind' : 'Restore';

  const send = useCallback(
    async (to: number, which: RewindChoice, dryRun: boolean) => {
      const result = await client.mutation(RewindMutation, { input: { sessionId, turn: to, ...flags(which), dryRun } }, { requestPolicy: 'network-only' }).toPromise();
      if (result.error) return { error: refusal(result.error) };
      return { plan: result.data!.rewind };
    },
    [client, sessionId],
  );

  // The dry run, again whenever the choice changes.
  useEffect(() => {
    if (done) return;
    let stale = false;
    setPlan(null);
    setProblem(null);
    void send(turn, choice, true).then((answer) => {
      if (stale) return;
      if (answer.error) setProblem(answer.error);
      else setPlan(answer.plan);
    });
    return () => {
      stale = true;
    };
  }, [choice, done, send, turn]);

  const run = async (to: number, which: RewindChoice, undo = false) => {
    setBusy(true);
    setProblem(null);
    const answer = await send(to, which, false);
    setBusy(false);
    if (answer.error) {
      setProblem(answer.error);
      return;
    }
    setDone({ result: answer.plan, choice: which, undone: undo });
    onDone();
  };

  const title = `${label} to ${turn === 0 ? 'before the first turn' : `turn ${turn}`}`;
  const conflicts = plan?.code?.conflicts ?? [];
  return (
    <div role="dialog" aria-label={title} className="rewind">
      <h4>{title}</h4>
      {choose && !done && (
        <fieldset className="rewind-choice">
          <legend>What to rewind</legend>
          {CHOICES.map((option) => (
            <label key={option.value}>
              <input
                type="radio"
                name={`rewind-${sessionId}`}
                value={option.value}
                checked={choice === option.value}
                disabled={busy || (!hasProject && option.value !== 'conversation') || (turn === 0 && option.value !== 'code')}
                onChange={() => setChoice(option.value)}
              />{' '}
              {option.label}
            </label>
          ))}
        </fieldset>
      )}
      {!done && !plan && !problem && <p role="status">Preparing the preview…</p>}
      {!done && plan && (
        <div className="rewind-plan" aria-label="Preview">
          {plan.code && <PlannedPaths changes={plan.code.changes} actionText={ACTION_TEXT} conflictText="changed by you since the agent left it" />}
          <p>{plan.message}</p>
          <InTheWay paths={conflicts} />
        </div>
      )}
      {problem && (
        <div role="alert">
          <p>{problem.message}</p>
          <PathList paths={problem.paths} />
        </div>
      )}
      {done ? (
        <>
          <p role="status">{done.result.message}</p>
          {!done.undone && typeof done.result.undoTurn === 'number' && (
            <button type="button" disabled={busy} onClick={() => void run(done.result.undoTurn!, done.choice, true)}>
              Undo {label.toLowerCase()}
            </button>
          )}
          <button type="button" onClick={onClose}>
            Close
          </button>
        </>
      ) : (
        <>
          <button type="button" className="danger" disabled={busy || !plan || conflicts.length > 0} onClick={() => void run(turn, choice)}>
            {label}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </>
      )}
    </div>
  );
}
