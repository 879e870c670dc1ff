/**
 * "Export context" for the viewed turn: writes what the model saw for the turn's first call into
 * the session repo (exportContext: from the last compaction on), then says where to read it.
 * Optional and on request only, as the design has it.
 */
import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import { errorMessage } from '../../lib/errors';

const ExportContextMutation = graphql(`
  mutation ExportContext($sessionId: String!, $turn: Int!, $branch: String) {
    exportContext(input: { sessionId: $sessionId, turn: $turn, branch: $branch }) {
      ref
      path
      messages {
        id
      }
      compaction {
        id
      }
    }
  }
`);

export function ExportContext({ sessionId, turn, branch }: { sessionId: string; turn: number; branch: string }) {
  const [{ fetching }, exportContext] = useMutation(ExportContextMutation);
  const [said, setSaid] = useState<{ text: string; failed: boolean } | null>(null);
  const run = async () => {
    const result = await exportContext({ sessionId, turn, branch });
    const done = result.data?.exportContext;
    if (!done) {
      setSaid({ text: `The context could not be exported: ${result.error ? errorMessage(result.error) : 'no answer'}`, failed: true });
      return;
    }
    const from = done.compaction ? ', from the last compaction' : '';
    setSaid({ text: `Context of turn ${turn} written (${done.messages.length} messages${from}): git show ${done.ref}:${done.path}`, failed: false });
  };
  return (
    <>
      <button type="button" disabled={fetching} onClick={() => void run()}>
        Export context
      </button>
      {said && (
        <span role={said.failed ? 'alert' : 'status'} className="muted context-export">
          {said.text}
        </span>
      )}
    </>
  );
}
