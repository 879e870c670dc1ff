/**
 * The session page: header (title, project, mirror state), the replay controls and
 * position, the conversation at the viewed commit (the page's `main`), and beside it the
 * timeline, the branches and the viewed commit's changes.
 *
 * The viewed commit is the server's: `session.head`. The page never keeps a turn of its
 * own; Previous / Next / a timeline row check a commit out, Back to latest switches to the
 * current branch (which leaves replay), and the page shows what those mutations answer.
 * Whatever else moves the session (another client, the agent) arrives on the timeline
 * subscription, and everything is read again after a dropped connection comes back.
 *
 * Live: the turn being written shows after the committed ones as its messages are stored
 * (LiveTurn, from the turnUpdated subscription), with "Recording" in the header while the agent
 * is live (Session.recording: a turn open, its newest message under 10 minutes old).
 */
import { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { useClient, useQuery, useSubscription, type CombinedError } from 'urql';
import type { SessionViewFieldsFragment } from '../../gql/graphql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { projectPath } from '../../lib/router';
import { Changes } from './Changes';
import { Conversation } from './Conversation';
import { MirrorStatus } from './MirrorStatus';
import { CheckoutMutation, NextTurnQuery, SessionPageQuery, SessionTimelineEvents, SessionTurnUpdates, SwitchBranchMutation } from './operations';
import { agentName, applyTurnUpdate } from './live';
import { LiveTurn, type LiveTurnState } from './LiveTurn';
import { arrowKeyStep, positionText, readOnlyText, replaySteps, turnCursor } from './steps';
import { Timeline } from './Timeline';
import { useFetch } from './useFetch';
import './replay.css';

/** The server's own words for a failed request. */
export function errorMessage(error: CombinedError): string {
  return error.graphQLErrors[0]?.message ?? error.networkError?.message ?? error.message;
}

/**
 * Where the page shows the session's branches (beside the timeline, once it has loaded). The
 * shell fills it with the branches feature's panel, so that replay imports no other feature; it
 * gets the commit the page shows (`viewedSha`) and `onView`, which checks a commit out.
 */
export type BranchesSlot = ComponentType<{ sessionId: string; viewedSha?: string; onView: (sha: string) => void }>;

export function SessionPage({ sessionId, Branches }: { sessionId: string; Branches: BranchesSlot }) {
  const client = useClient();
  const [{ data, error }, refetchPage] = useQuery({ query: SessionPageQuery, variables: { sessionId } });
  // The latest view of the session, from the page query or from a mutation's answer.
  const [view, setView] = useState<SessionViewFieldsFragment | null>(null);
  useEffect(() => {
    if (data?.session) setView(data.session);
  }, [data]);

  // The mirror state, the branch graph and the changes wait until the timeline's first page is
  // in: on a long session they are the costlier reads, and the latest turn comes first.
  const [settled, setSettled] = useState(false);
  const onTimelineLoaded = useCallback(() => setSettled(true), []);

  // Bumped when the branch's commits or the mirror may have changed.
  const [version, setVersion] = useState(0);
  /** The last committed turn the conversation shows (it lags the head while a new commit's turns are read). */
  const [shownTurn, setShownTurn] = useState(0);
  const refreshAll = useCallback(() => {
    refetchPage({ requestPolicy: 'network-only' });
    setVersion((v) => v + 1);
  }, [refetchPage]);
  const [{ data: event }] = useSubscription({ query: SessionTimelineEvents, variables: { sessionId } });
  useEffect(() => {
    if (!event) return;
    if (event.timeline.kind === 'CHECKED_OUT') refetchPage({ requestPolicy: 'network-only' });
    else refreshAll();
  }, [event, refetchPage, refreshAll]);
  useEffect(() => onReconnected(refreshAll), [refreshAll]);

  // The turn being written, as its events tell it (every event kept: the reducer sees each one).
  const [{ data: heard }] = useSubscription({ query: SessionTurnUpdates, variables: { sessionId } }, (live: LiveTurnState | undefined, event) =>
    applyTurnUpdate(live, event.turnUpdated),
  );
  // A turn opened or closed, or an agent heard again: the position, the counts and Recording are read again.
  const openNumber = view?.openTurn?.number ?? null;
  const recording = view?.recording ?? false;
  useEffect(() => {
    if (!heard) return;
    if (heard.closed || heard.number !== openNumber || !recording) refetchPage({ requestPolicy: 'network-only' });
  }, [heard, openNumber, recording, refetchPage]);
  // Recording ends by itself when nothing arrives for a while: read again each minute while it shows.
  useEffect(() => {
    if (!recording) return;
    const timer = setInterval(() => refetchPage({ requestPolicy: 'network-only' }), 60_000);
    return () => clearInterval(timer);
  }, [recording, refetchPage]);

  const number = view?.head?.turn?.number ?? 0;
  const { data: nextData } = useFetch(
    NextTurnQuery,
    { sessionId, branch: view?.currentBranch ?? '', after: turnCursor(number) },
    { pause: !view?.detached || number === 0, requestPolicy: 'cache-first' },
  );
  // The turn after the viewed one: from the query, or, until it answers, from the views already seen
  // (a turn of the current branch is its parent's next turn there), so Right right after Left works at once.
  const children = useRef(new Map<string, string>());
  const head = view?.head;
  if (view && head?.turn?.branch === view.currentBranch && head.parentShas[0]) children.current.set(`${view.currentBranch} ${head.parentShas[0]}`, head.sha);
  const seenChild = view && head ? children.current.get(`${view.currentBranch} ${head.sha}`) : undefined;
  const queriedNext = nextData?.session?.turns.edges[0]?.node.commit ?? null;
  const nextCommit = queriedNext?.parentShas[0] === head?.sha ? queriedNext : seenChild && head ? { sha: seenChild, parentShas: [head.sha] } : null;

  const [moveError, setMoveError] = useState<string | null>(null);
  const [moving, setMoving] = useState(false);
  const busy = useRef(false);
  const move = useCallback(
    async (run: () => Promise<{ error?: CombinedError; view: SessionViewFieldsFragment | null | undefined }>) => {
      if (busy.current) return;
      busy.current = true;
      setMoving(true);
      try {
        const result = await run();
        if (result.error) setMoveError(errorMessage(result.error));
        else {
          setMoveError(null);
          if (result.view) setView(result.view);
        }
      } finally {
        busy.current = false;
        setMoving(false);
      }
    },
    [],
  );
  const checkout = useCallback(
    (sha: string) =>
      move(async () => {
        const result = await client.mutation(CheckoutMutation, { input: { sessionId, sha } }).toPromise();
        return { error: result.error, view: result.data?.checkout };
      }),
    [client, move, sessionId],
  );
  const backToLatest = useCallback(
    (branch: string) =>
      move(async () => {
        const result = await client.mutation(SwitchBranchMutation, { input: { sessionId, branch } }).toPromise();
        return { error: result.error, view: result.data?.switchBranch };
      }),
    [client, move, sessionId],
  );

  const steps = view
    ? replaySteps({ detached: view.detached, turnCount: view.turns.totalCount, head: view.head, nextTurn: nextCommit })
    : { previous: null, next: null, backToLatest: false };

  // Left / Right step through turns when no text field has focus.
  const stepsRef = useRef(steps);
  stepsRef.current = steps;
  useEffect(() => {
    const onKey = (keyEvent: KeyboardEvent) => {
      const step = arrowKeyStep(keyEvent, document.activeElement);
      const sha = step ? stepsRef.current[step] : null;
      if (!sha) return;
      keyEvent.preventDefault();
      void checkout(sha);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [checkout]);

  if (data && data.session === null) {
    return (
      <main className="empty">
        <h1>No session {sessionId}</h1>
      </main>
    );
  }
  if (!view) {
    return (
      <main className="empty" aria-busy={!error}>
        {error ? <p role="alert">The session could not be loaded: {errorMessage(error)}</p> : <p>Loading…</p>}
      </main>
    );
  }

  const readOnly = readOnlyText({ detached: view.detached, head: view.head, turnCount: view.turns.totalCount });
  const agent = agentName(view);
  return (
    <div className="session-page">
      <header className="session-header">
        <h1>{view.title || view.sessionId}</h1>
        {agent && (
          <span className="agent" title={view.source ? `imported (${view.source})` : undefined}>
            {agent}
          </span>
        )}
        {view.recording && (
          <span role="status" className="recording">
            Recording
          </span>
        )}
        {view.project && (
          <Link href={projectPath(view.project.projectId)} className="project-link">
            Project: {view.project.name}
          </Link>
        )}
        {settled ? <MirrorStatus sessionId={sessionId} version={version} /> : <p role="status" className="mirror">Mirror …</p>}
      </header>
      <div className="replay-bar" aria-busy={moving}>
        <button type="button" disabled={!steps.previous} onClick={() => steps.previous && void checkout(steps.previous)}>
          Previous turn
        </button>
        <span className="position">{positionText({ head: view.head, turnCount: view.turns.totalCount, detached: view.detached, openTurn: openNumber })}</span>
        <button type="button" disabled={!steps.next} onClick={() => steps.next && void checkout(steps.next)}>
          Next turn
        </button>
        <button type="button" disabled={!steps.backToLatest} onClick={() => void backToLatest(view.currentBranch)}>
          Back to latest
        </button>
        <span className="muted branch-name">on {view.currentBranch}</span>
      </div>
      {readOnly && (
        <p role="status" className="read-only">
          {readOnly}
        </p>
      )}
      {moveError && (
        <p role="alert" className="banner">
          {moveError}
        </p>
      )}
      <div className="session-body">
        <Conversation
          sessionId={sessionId}
          head={view.head}
          hasLive={!view.detached && openNumber !== null}
          onShownTurn={setShownTurn}
          live={
            !view.detached && (
              // The live turn stays until its committed form is on the page, so a closing turn never blinks out.
              <LiveTurn sessionId={sessionId} openTurn={openNumber} heard={heard} latestCommittedTurn={Math.min(view.head?.turn?.number ?? 0, shownTurn)} />
            )
          }
        />
        <aside className="session-side" aria-label="Session history">
          <Timeline
            key={view.currentBranch}
            sessionId={sessionId}
            branch={view.currentBranch}
            total={view.turns.totalCount}
            viewedSha={view.head?.sha ?? null}
            version={version}
            onView={(sha) => void checkout(sha)}
            onLoaded={onTimelineLoaded}
          />
          {settled && <Branches sessionId={sessionId} viewedSha={view.head?.sha} onView={(sha) => void checkout(sha)} />}
          {settled && <Changes sessionId={sessionId} sha={view.head?.sha ?? null} />}
        </aside>
      </div>
    </div>
  );
}
