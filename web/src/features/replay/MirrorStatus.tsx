/**
 * The session's mirror state (ui.md: status "Mirror" … "in sync" / "pending N" /
 * "failed: <lastError>"). Read again whenever the page says something changed
 * (`version`), and a failure heard on mirrorFailed shows at once.
 */
import { useEffect, useState } from 'react';
import { useQuery, useSubscription } from 'urql';
import { MirrorQuery, SessionMirrorFailed } from './operations';
import { mirrorStatusText } from './steps';

export function MirrorStatus({ sessionId, version }: { sessionId: string; version: number }) {
  const [{ data }, refetch] = useQuery({ query: MirrorQuery, variables: { sessionId } });
  const [liveFailure, setLiveFailure] = useState<string | null>(null);
  useEffect(() => {
    if (version === 0) return;
    setLiveFailure(null);
    refetch({ requestPolicy: 'network-only' });
  }, [version, refetch]);
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
