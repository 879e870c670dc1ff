/**
 * The session's mirror state (ui.md: status "Mirror" … "in sync" / "pending N" /
 * "failed: <lastError>"). Read again whenever the page says something changed
 * (`version`), and a failure heard on mirrorFailed shows at once.
 */
import { useEffect, useState } from 'react';
import { useSubscription } from 'urql';
import { MirrorQuery, SessionMirrorFailed } from './operations';
import { mirrorStatusText } from './steps';
import { useFetch } from './useFetch';

export function MirrorStatus({ sessionId, version }: { sessionId: string; version: number }) {
  // Counting the mirror's commits costs a git process: read only when something happened.
  const { data } = useFetch(MirrorQuery, { sessionId }, { version });
  const [liveFailure, setLiveFailure] = useState<string | null>(null);
  useEffect(() => setLiveFailure(null), [version]);
  const [{ data: failed }] = useSubscription({ query: SessionMirrorFailed, variables: { sessionId } });
  useEffect(() => {
    if (failed) setLiveFailure(failed.mirrorFailed.error);
  }, [failed]);
  const mirror = data?.session?.mirror;
  const text = mirrorStatusText(mirror, liveFailure);
  const state = text.startsWith('Mirror failed') ? 'failed' : text.startsWith('Mirror pending') ? 'pending' : 'ok';
  return (
    <p role="status" className={`mirror mirror-${state}`} title={mirror ? `${mirror.gitCommits} of ${mirror.dagTurns} turns in git` : undefined}>
      {text}
    </p>
  );
}
