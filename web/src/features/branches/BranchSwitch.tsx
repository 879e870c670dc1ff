/**
 * The branch switch (ui.md: combobox "Branch"): every branch of the session, the current
 * one selected; choosing another runs switchBranch, and a refusal (CONFLICT while a turn
 * is open, …) is shown in an alert.
 */
import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../gql';

export const SwitchBranchMutation = graphql(`
  mutation BranchesPanelSwitch($input: SwitchBranchInput!) {
    switchBranch(input: $input) {
      id
      currentBranch
      detached
    }
  }
`);

/** The message of a failed operation, without urql's "[GraphQL] " prefix. */
function messageOf(error: { graphQLErrors: { message: string }[]; message: string }): string {
  return error.graphQLErrors[0]?.message ?? error.message;
}

export function BranchSwitch({ sessionId, names, current, onSwitched }: { sessionId: string; names: string[]; current: string; onSwitched: () => void }) {
  const [{ fetching }, switchBranch] = useMutation(SwitchBranchMutation);
  const [error, setError] = useState<string>();
  const choose = async (branch: string) => {
    if (branch === current) return;
    setError(undefined);
    const result = await switchBranch({ input: { sessionId, branch } });
    if (result.error) setError(`Could not switch to ${branch}: ${messageOf(result.error)}`);
    else onSwitched();
  };
  return (
    <div className="branch-switch">
      <label>
        <span>Branch</span>{' '}
        <select aria-label="Branch" value={current} disabled={fetching} onChange={(event) => void choose(event.target.value)}>
          {names.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {error && (
        <p role="alert" className="branch-switch-error">
          {error}
        </p>
      )}
    </div>
  );
}
