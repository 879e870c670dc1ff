/**
 * The session page: header (title, project, mirror state), the replay controls and
 * position, the conversation at the viewed commit (the page's `main`), and beside it the
 * timeline, the branches and the viewed commit's changes.
 *
 * Browsing is this page's own (issue 27): the shown branch and the viewed commit live in the
 * address bar (`?branch=…&at=<sha>`, both left out at the session's latest), so a reload or a
 * copied link opens the same view, and Previous / Next / a timeline row / the graph / the Branch
 * switch move nothing but this page. The session's own position (where the agent's next message
 * goes: Session.currentBranch, and Session.head when a client checked an older commit out) is
 * changed only by "Continue from here", after a confirmation that says what it does, or by
 * "Rewind to here" (code, conversation or both), after a preview of what it writes. Whatever
 * moves the session (the agent, another client) arrives on the timeline subscription; a page at
 * the latest turn follows it, a page on an older turn stays there.
 *
 * Live: the turn being written shows after the committed ones as its messages are stored
 * (LiveTurn, from the turnUpdated subscription), with "Recording" in the header while the agent
 * is live (Session.recording: a turn open, its newest message under 10 minutes old).
 */
import { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { useClient, useQuery, useSubscription } from 'urql';
import type { SessionPageQuery as SessionPageData, ViewedCommitFieldsFragment } from '../../gql/graphql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { markPageSettled } from '../../lib/page-settled';
import { peekArrived } from '../../lib/preloaded';
import { projectPath, replaceSearch, useSearch } from '../../lib/router';
import { Changes } from './Changes';
import { CodeChanges } from './CodeChanges';
import { Conversation } from './Conversation';
import { ArchivedSession } from './ArchivedSession';
import { ExportContext } from './ExportContext';
import { MirrorStatus } from './MirrorStatus';
import { CheckoutMutation, NextTurnQuery, SessionPageQuery, SessionTimelineEvents, SessionTurnUpdates, SwitchBranchMutation, ViewedQuery } from './operations';
import { applyTurnUpdate } from './live';
import { agentName } from '../../lib/agents';
import { JoinProject } from './JoinProject';
import { RewindPanel } from '../../lib/RewindPanel';
import { errorMessage } from '../../lib/errors';
import { LiveTurn, type LiveTurnState } from './LiveTurn';
import { ProjectRoot } from './project-root';
import { arrowKeyStep, positionText, readOnlyText, replaySteps } from './steps';
import { Timeline } from './Timeline';
import { useFetch } from './useFetch';
import './replay.css';

/**
 * Where the page shows the session's branches (beside the timeline, once it has loaded). The
 * shell fills it with the branches feature's panel, so that replay imports no other feature; it
 * gets the commit the page shows (`viewedSha`) and `onView`, which checks a commit out.
 */
export type BranchesSlot = ComponentType<{
  sessionId: string;
  viewedSha?: string;
  shownBranch: string;
  onView: (sha: string, branch: string) => void;
  onBranch: (branch: string) => void;
}>;

/** What the page shows: a commit of the session (ViewedCommitFields). */
type Viewed = ViewedCommitFieldsFragment;

export function SessionPage({ sessionId, Branches }: { sessionId: string; Branches: BranchesSlot }) {
  const client = useClient();
  const [{ data: asked, error }, refetchPage] = useQuery({ query: SessionPageQuery, variables: { sessionId } });
  // On a cold open, the answer the preload script already has, until the query's own (the same) is in.
  const [early] = useState(() => peekArrived<SessionPageData>('SessionPage', { sessionId }));
  const data = asked ?? (error ? undefined : early);
  const view = data?.session ?? null;

  // Where this page is: the address bar's, else the session's latest.
  const search = useSearch();
  const shownBranch = search.get('branch') ?? view?.currentBranch ?? '';
  const at = search.get('at');
  // The mirror state, the branch graph, the session repo's changes and, at the latest, the
  // branches' tips wait until the timeline's first page and the turn's code changes are in: on a
  // long session they are the costlier reads (the graph's alone is 50 ms of git at 10,000
  // turns), and sent with those they held up what the user came to see. So do the messages'
  // markdown (plain text until then), and the sidebar's lists (lib/page-settled.ts). Once settled, they stay.
  const [timelineIn, setTimelineIn] = useState(false);
  const [codeIn, setCodeIn] = useState(false);
  const onTimelineLoaded = useCallback(() => setTimelineIn(true), []);
  const onCodeLoaded = useCallback(() => setCodeIn(true), []);
  const [settled, setSettled] = useState(false);
  // At the session's own latest (no `at`, its current branch, no commit checked out by a client).
  const atLatest = view !== null && at === null && shownBranch === view.currentBranch && !view.detached;
  const [{ data: viewedData, error: viewedError }, refetchViewed] = useQuery({
    query: ViewedQuery,
    variables: { sessionId, branch: shownBranch, sha: at ?? '', hasSha: at !== null },
    pause: shownBranch === '' || (atLatest && !settled),
  });
  const tips = viewedData?.session?.branches;
  const tip = tips?.find((b) => b.name === shownBranch)?.head ?? null;
  // At the latest, the page query's head is the shown tip: the position and the conversation need
  // not wait for the branches' tips (ViewedQuery), which only Previous / Next and the graph use.
  const found: Viewed | null | undefined = atLatest ? view.head : viewedData?.session ? (at !== null ? viewedData.session.commit : tip) : undefined;
  // While a new position is read, the last one stays on the page (no blink to "Loading").
  const lastShown = useRef<{ viewed: Viewed | null; total: number; older: boolean } | null>(null);
  if (found !== undefined) {
    const count = atLatest ? view.turns.totalCount : viewedData!.session!.turns.totalCount;
    lastShown.current = { viewed: found, total: count, older: at !== null && found?.sha !== tip?.sha };
  }
  const shown = lastShown.current;
  const viewed = shown?.viewed ?? null;
  // Settled once the timeline is in and, when the page shows code changes, they are (none without a project or a turn).
  const codeShown = view?.project != null && viewed !== null;
  useEffect(() => {
    if (!timelineIn || !(codeIn || (view !== null && !codeShown))) return;
    setSettled(true);
    markPageSettled();
  }, [timelineIn, codeIn, codeShown, view]);
  // Nothing more is coming: the sidebar need not wait (an error, no such session, an archive).
  const nothingMore = error !== undefined || data?.session === null || view?.archive != null;
  useEffect(() => {
    if (nothingMore) markPageSettled();
  }, [nothingMore]);
  const older = shown?.older ?? false;
  // The session's own count is read again as soon as a turn opens: the fresher one for its branch.
  const total = view && shownBranch === view.currentBranch ? view.turns.totalCount : (shown?.total ?? 0);

  /** Shows `sha` (on `branch`, when known); the tip of a branch is shown as that branch's latest. */
  const viewSha = useCallback(
    (sha: string, branch?: string) => {
      const tipOf = tips?.find((b) => b.head?.sha === sha && (branch === undefined || b.name === branch)) ?? tips?.find((b) => b.head?.sha === sha && b.name === shownBranch);
      const onBranch = tipOf?.name ?? branch ?? shownBranch;
      replaceSearch({ branch: onBranch === view?.currentBranch ? null : onBranch, at: tipOf ? null : sha });
    },
    [tips, shownBranch, view?.currentBranch],
  );
  const showBranch = useCallback((branch: string) => replaceSearch({ branch: branch === view?.currentBranch ? null : branch, at: null }), [view?.currentBranch]);
  // The viewed commit turned out to be the tip (Next up to the latest): the address says latest.
  useEffect(() => {
    if (at !== null && tip?.sha === at) replaceSearch({ at: null });
  }, [at, tip?.sha]);


  // Bumped when the branch's commits or the mirror may have changed.
  const [version, setVersion] = useState(0);
  /** The last committed turn the conversation shows (it lags the head while a new commit's turns are read). */
  const [shownTurn, setShownTurn] = useState(0);
  const refreshAll = useCallback(() => {
    refetchPage({ requestPolicy: 'network-only' });
    refetchViewed({ requestPolicy: 'network-only' });
    setVersion((v) => v + 1);
  }, [refetchPage, refetchViewed]);
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
    if (heard.closed || heard.number !== openNumber || !recording) {
      refetchPage({ requestPolicy: 'network-only' });
      if (heard.closed) refetchViewed({ requestPolicy: 'network-only' });
    }
  }, [heard, openNumber, recording, refetchPage, refetchViewed]);
  // At the latest, while the mirror has not committed every closed turn (the page opened right
  // after an import, or a backlog is catching up), read again until it has, after 1 s, then 2,
  // 4... up to 30 s (a mirror that fails stays behind): its events say so too, but one sent
  // before this page's subscription began is never heard.
  const closedTurns = view ? view.turns.totalCount - (view.openTurn ? 1 : 0) : 0;
  const mirrorBehind = atLatest && (view.head?.turn?.number ?? 0) < closedTurns;
  useEffect(() => {
    if (!mirrorBehind) return;
    let delay = 1_000;
    let timer: ReturnType<typeof setTimeout>;
    const again = () => {
      timer = setTimeout(() => {
        refreshAll();
        delay = Math.min(delay * 2, 30_000);
        again();
      }, delay);
    };
    again();
    return () => clearTimeout(timer);
  }, [mirrorBehind, refreshAll]);
  // Recording ends by itself when nothing arrives for a while: read again each minute while it shows.
  useEffect(() => {
    if (!recording) return;
    const timer = setInterval(() => refetchPage({ requestPolicy: 'network-only' }), 60_000);
    return () => clearInterval(timer);
  }, [recording, refetchPage]);

  const number = viewed?.turn?.number ?? 0;
  const viewedCursor = viewed?.turn?.cursor ?? null;
  const nextVariables = { sessionId, branch: shownBranch, after: viewedCursor ?? '' };
  const { data: nextData, key: nextKey } = useFetch(NextTurnQuery, nextVariables, { pause: !older || viewedCursor === null, requestPolicy: 'cache-first' });
  const nextAnswered = nextData !== null && nextKey === JSON.stringify(nextVariables);
  // Where the conversation's window of turns ends (the server's cursor of the turn after the
  // viewed one): nothing at the latest; at an older turn, known once "Next turn" is.
  const endBefore = !older ? null : nextAnswered ? (nextData.session?.turns.edges[0]?.cursor ?? null) : undefined;
  // The turn after the viewed one: from the query, or, until it answers, from the commits already seen
  // (a turn of the shown branch is its parent's next turn there), so Right right after Left works at once.
  const children = useRef(new Map<string, string>());
  if (viewed?.turn?.branch === shownBranch && viewed.parentShas[0]) children.current.set(`${shownBranch} ${viewed.parentShas[0]}`, viewed.sha);
  const seenChild = viewed ? children.current.get(`${shownBranch} ${viewed.sha}`) : undefined;
  const queriedNext = nextData?.session?.turns.edges[0]?.node.commit ?? null;
  const nextCommit = queriedNext?.parentShas[0] === viewed?.sha ? queriedNext : seenChild && viewed ? { sha: seenChild, parentShas: [viewed.sha] } : null;

  const steps = replaySteps({ detached: older, turnCount: total, head: viewed, nextTurn: nextCommit });

  // Left / Right (or k / j) step through turns when no text field has focus; g then l goes to the latest.
  const stepsRef = useRef(steps);
  stepsRef.current = steps;
  useEffect(() => {
    // The key before (g, for g then l), whenever it was: no timing to get wrong on a busy machine.
    let previousKey: string | null = null;
    const onKey = (keyEvent: KeyboardEvent) => {
      const before = previousKey;
      previousKey = keyEvent.key;
      const step = arrowKeyStep(keyEvent, document.activeElement, before);
      if (step === 'latest') {
        keyEvent.preventDefault();
        replaceSearch({ at: null });
        return;
      }
      const sha = step ? stepsRef.current[step] : null;
      if (!sha) return;
      keyEvent.preventDefault();
      viewSha(sha);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [viewSha]);

  // "Rewind to here": the code, the conversation or both, after a preview (RewindPanel).
  const [rewindTurn, setRewindTurn] = useState<number | null>(null);
  // "Continue from here": the one control that moves the session itself, after a confirmation.
  const [confirming, setConfirming] = useState(false);
  const [continueError, setContinueError] = useState<string | null>(null);
  const [continuing, setContinuing] = useState(false);
  const continueHere = useCallback(async () => {
    if (!view || !viewed) return;
    setContinuing(true);
    try {
      const result = older
        ? await client.mutation(CheckoutMutation, { input: { sessionId, sha: viewed.sha } }).toPromise()
        : await client.mutation(SwitchBranchMutation, { input: { sessionId, branch: shownBranch } }).toPromise();
      if (result.error) {
        setContinueError(errorMessage(result.error));
        return;
      }
      setContinueError(null);
      setConfirming(false);
      replaceSearch({ branch: null, at: older ? viewed.sha : null });
      refreshAll();
    } finally {
      setContinuing(false);
    }
  }, [client, older, refreshAll, sessionId, shownBranch, view, viewed]);

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

  // The page shows another commit than the one the agent's next message grows from (Session.head:
  // the current branch's tip, or the commit a client checked out).
  const elsewhere = viewed !== null && viewed.sha !== view.head?.sha;
  const writesTo = view.detached ? `turn ${view.head?.turn?.number ?? 0}, checked out by a client` : `${view.currentBranch}'s latest turn`;
  const readOnly = readOnlyText({ detached: older, head: viewed, turnCount: total, writesTo });
  const agent = agentName(view);
  // Rewind goes back along the session's current branch: offered for a turn shown on it.
  const canRewind = number > 0 && shownBranch === view.currentBranch && openNumber === null;
  // The live turn belongs to the session's latest: shown when this page is there.
  const atWritePoint = !older && shownBranch === view.currentBranch && !view.detached;
  if (view.archive) {
    return (
      <div className="session-page">
        <header className="session-header">
          <h1>{view.title || view.sessionId}</h1>
        </header>
        <ArchivedSession sessionId={sessionId} archivedAt={view.archive.archivedAt} onBack={refreshAll} />
      </div>
    );
  }
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
        {view.project ? (
          <Link href={projectPath(view.project.projectId)} className="project-link">
            Project: {view.project.name}
          </Link>
        ) : (
          <JoinProject sessionId={sessionId} onJoined={() => refetchPage({ requestPolicy: 'network-only' })} />
        )}
        {settled ? <MirrorStatus sessionId={sessionId} version={version} /> : <p role="status" className="mirror">Mirror …</p>}
      </header>
      <div className="replay-bar">
        <button type="button" disabled={!steps.previous} onClick={() => steps.previous && viewSha(steps.previous)}>
          Previous turn
        </button>
        <span className="position">{positionText({ head: viewed, turnCount: total, detached: !atWritePoint, openTurn: openNumber })}</span>
        <button type="button" disabled={!steps.next} onClick={() => steps.next && viewSha(steps.next)}>
          Next turn
        </button>
        <button type="button" disabled={!steps.backToLatest} onClick={() => replaceSearch({ at: null })}>
          Back to latest
        </button>
        <span className="muted branch-name">on {shownBranch}</span>
        {elsewhere && !confirming && (
          <button type="button" onClick={() => setConfirming(true)}>
            Continue from here
          </button>
        )}
        {canRewind && rewindTurn === null && (
          <button type="button" onClick={() => setRewindTurn(number)}>
            Rewind to here
          </button>
        )}
        {number > 0 && viewed?.turn && <ExportContext key={`${viewed.turn.branch}:${number}`} sessionId={sessionId} turn={number} branch={viewed.turn.branch} />}
      </div>
      {rewindTurn !== null && (
        <RewindPanel
          key={rewindTurn}
          sessionId={sessionId}
          turn={rewindTurn}
          choose
          hasProject={view.project !== null}
          onClose={() => setRewindTurn(null)}
          onDone={refreshAll}
        />
      )}
      {confirming && viewed && (
        <div role="alertdialog" aria-label="Continue from here" className="banner confirm">
          <p>
            {older
              ? `The next message (from the agent or any client) will fork a new branch from turn ${number}, instead of continuing ${view.currentBranch}. Every page and the agent see this; nothing is deleted.`
              : `The next message (from the agent or any client) will continue ${shownBranch} from its latest turn, instead of ${view.currentBranch}. Every page and the agent see this; nothing is deleted.`}
          </p>
          <button type="button" disabled={continuing} onClick={() => void continueHere()}>
            Confirm
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
          {continueError && <p role="alert">{continueError}</p>}
        </div>
      )}
      {readOnly && (
        <p role="status" className="read-only">
          {readOnly}
        </p>
      )}
      {at !== null && viewedData?.session && viewedData.session.commit === null && (
        <p role="alert" className="banner">
          This session has no commit {at}; showing nothing until you go back to latest.
        </p>
      )}
      {viewedError && (
        <p role="alert" className="banner">
          {errorMessage(viewedError)}
        </p>
      )}
      <div className="session-body">
        <ProjectRoot.Provider value={view.project?.workdir ?? null}>
          <Conversation
            sessionId={sessionId}
            head={viewed}
            endBefore={endBefore}
            hasLive={atWritePoint && openNumber !== null}
            onShownTurn={setShownTurn}
            found={search.get('message')}
            formatted={settled}
            live={
              atWritePoint && (
                // The live turn stays until its committed form is on the page, so a closing turn never blinks out.
                <LiveTurn sessionId={sessionId} openTurn={openNumber} heard={heard} latestCommittedTurn={Math.min(viewed?.turn?.number ?? 0, shownTurn)} />
              )
            }
          />
        </ProjectRoot.Provider>
        <aside className="session-side" aria-label="Session history">
          <Timeline
            key={shownBranch}
            sessionId={sessionId}
            branch={shownBranch}
            total={total}
            viewedSha={viewed?.sha ?? null}
            version={version}
            onView={(sha) => viewSha(sha)}
            onLoaded={onTimelineLoaded}
          />
          {/* The turn's code changes before the branch panel, which comes in once the page has settled: nothing the
              reader may be about to click moves down under the pointer when it does. */}
          {view.project && <CodeChanges sessionId={sessionId} sha={viewed?.sha ?? null} projectId={view.project.projectId} version={version} onLoaded={onCodeLoaded} />}
          {settled && <Branches sessionId={sessionId} viewedSha={viewed?.sha} shownBranch={shownBranch} onView={viewSha} onBranch={showBranch} />}
          {settled && <Changes sessionId={sessionId} sha={viewed?.sha ?? null} />}
        </aside>
      </div>
    </div>
  );
}
