/**
 * An archived session opened (`entity-memory archive` kept its repo as a bundle): the page asks
 * the server to bring the repo back at once, says so meanwhile, and shows the session once it is
 * back (`onBack`). Its conversation and turns are in the database all along; only the git-backed
 * views (timeline, commits, changes) wait for the repo.
 */
import { useEffect, useState } from 'react';
import { useMutation } from 'urql';
import { errorMessage } from '../../lib/errors';
import { dateTime } from '../../lib/dates';
import { UnarchiveMutation } from './operations';

export function ArchivedSession({ sessionId, archivedAt, onBack }: { sessionId: string; archivedAt: string; onBack: () => void }) {
  const [, unarchive] = useMutation(UnarchiveMutation);
  const [failed, setFailed] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    void unarchive({ sessionId }).then((result) => {
      if (!current) return;
      if (result.error) setFailed(errorMessage(result.error));
      else onBack();
    });
    return () => {
      current = false;
    };
  }, [sessionId, attempt, unarchive, onBack]);
  return failed === null ? (
    <p role="status" className="banner">
      Archived on {dateTime(new Date(archivedAt))}: bringing its repo back…
    </p>
  ) : (
    <div role="alert" className="banner">
      <p>This archived session could not be brought back: {failed}</p>
      <button type="button" onClick={() => (setFailed(null), setAttempt((n) => n + 1))}>
        Try again
      </button>
    </div>
  );
}
