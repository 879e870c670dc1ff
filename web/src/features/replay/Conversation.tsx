/**
 * The conversation as it stood at the viewed commit (ui.md: `main`, each message an
 * `article`, oldest first). Only a window of turns up to the viewed one is loaded
 * (WINDOW turns, "Load earlier messages" adds more), so a 10,000-turn session never loads
 * whole. Stepping back within the loaded window needs no request at all: the window is
 * cut at the viewed commit.
 */
import { lazy, Suspense, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { useClient } from 'urql';
import type { ReplayConversationQuery, ReplayMessageFieldsFragment } from '../../gql/graphql';
import { loadedOr } from '../../lib/lazy';
import { takeArrived } from '../../lib/preloaded';
import { ConversationQuery } from './operations';
import { ProjectRoot } from './project-root';
import { WINDOW } from './window';
import { redactionSummary, type RedactedMessage } from './redactions';
import { ToolCallView } from './ToolCallView';
import { callSummary, leadingTag, plainText, thinkingOf, toolCallsOf, toolOutput, type ToolCall } from './tools';

/** A message's text as it was written, while the markdown parser loads, or for good if it cannot. */
function PlainText({ text }: { text: string }) {
  return <p className="plain-text">{text}</p>;
}

// The markdown parser, loaded when a message is first shown formatted (the plain text shows
// meanwhile). A load that fails (the server restarted or was updated while the page loaded it)
// leaves the plain text: a lazy component that throws would take the whole page down with it.
const MarkdownText = lazy(() => loadedOr<ComponentType<{ text: string }>>(() => import('./MarkdownText'), PlainText));

export interface ViewedHead {
  sha: string;
  turn: { number: number; branch: string; cursor: string } | null;
}

interface LoadedTurn {
  number: number;
  /** Its cursor in the turns of its branch, as the server gave it. */
  cursor: string;
  sha: string | null;
  messages: ReplayMessageFieldsFragment[];
}

interface Loaded {
  /** The branch whose path the turns were read along. */
  branch: string;
  /** Consecutive turns, oldest first. */
  turns: LoadedTurn[];
}

/** The turns of a ConversationQuery answer, oldest first. */
function turnsOf(data: ReplayConversationQuery | undefined): LoadedTurn[] {
  return (data?.session?.turns.edges ?? []).map(({ cursor, node }) => ({ number: node.number, cursor, sha: node.commit?.sha ?? null, messages: node.messages }));
}

const ROLE_LABELS: Record<string, string> = { USER: 'User', ASSISTANT: 'Assistant', TOOL: 'Tool result', SYSTEM: 'System' };

export const messageAnchor = (messageId: string) => `message-${messageId}`;

/**
 * @param live what follows the committed turns at the tip (the turn being written, LiveTurn);
 *   `hasLive` says the session has one, so an empty session with an open turn is not "No turns yet".
 */
export function Conversation({
  sessionId,
  head,
  endBefore,
  live,
  hasLive = false,
  onShownTurn,
  found = null,
  formatted = true,
}: {
  sessionId: string;
  /**
   * Messages as markdown; false shows them as plain text (the session page's cold open: the
   * markdown parser loads once the page has settled, not in the way of its first content).
   */
  formatted?: boolean;
  /** A message to scroll into view and mark (a search hit opened: ?message=), when on the page. */
  found?: string | null;
  head: ViewedHead | null;
  /**
   * The server's cursor of the turn after the viewed one, where the window of turns read ends:
   * null when the viewed turn is its branch's latest, undefined while it is not known yet.
   */
  endBefore: string | null | undefined;
  live?: ReactNode;
  hasLive?: boolean;
  /** Told the number of the last committed turn on the page (0 for none) whenever it changes, before paint. */
  onShownTurn?: (number: number) => void;
}) {
  const client = useClient();
  // On a cold open at the latest turn, the window the preload script has already read.
  const [loaded, setLoaded] = useState<Loaded | null>(() => {
    const branch = head?.turn?.branch;
    if (!head || !branch || endBefore !== null) return null;
    const data = takeArrived<ReplayConversationQuery>('ReplayConversation', { sessionId, branch, before: null, last: WINDOW });
    return data ? { branch, turns: turnsOf(data) } : null;
  });
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const request = useRef(0);
  const mainRef = useRef<HTMLElement>(null);
  const stickToEnd = useRef(true);

  /** Reads the `count` turns along `branch` before the server's cursor `before` (the last ones when null). */
  const fetchTurns = useCallback(
    async (branch: string, before: string | null, count: number): Promise<LoadedTurn[]> => {
      const result = await client.query(ConversationQuery, { sessionId, branch, before, last: count }, { requestPolicy: 'network-only' }).toPromise();
      if (result.error) throw result.error;
      return turnsOf(result.data);
    },
    [client, sessionId],
  );

  const sha = head?.sha ?? null;
  const branch = head?.turn?.branch ?? null;
  const inWindow = sha !== null && loaded?.turns.some((turn) => turn.sha === sha);

  useEffect(() => {
    if (!sha || !branch || inWindow || endBefore === undefined) return;
    const ticket = ++request.current;
    setLoading(true);
    fetchTurns(branch, endBefore, WINDOW)
      .then((turns) => {
        if (ticket !== request.current) return;
        stickToEnd.current = true;
        setLoaded({ branch, turns });
        setError(null);
      })
      .catch((reason: unknown) => ticket === request.current && setError(reason instanceof Error ? reason.message : String(reason)))
      .finally(() => ticket === request.current && setLoading(false));
  }, [sha, branch, inWindow, endBefore, fetchTurns]);

  // The turns shown: the loaded ones up to the viewed commit. While a newly viewed commit's turns
  // are read (a live turn just committed, a branch switched), the page keeps what it showed rather
  // than going blank.
  const end = loaded && sha ? loaded.turns.findIndex((turn) => turn.sha === sha) : -1;
  const previous = useRef<LoadedTurn[]>([]);
  const shown = loaded && end >= 0 ? loaded.turns.slice(0, end + 1) : sha ? previous.current : [];
  previous.current = shown;
  const first = shown[0]?.number ?? 1;
  const lastShown = shown.at(-1)?.number ?? 0;
  useLayoutEffect(() => onShownTurn?.(lastShown), [onShownTurn, lastShown]);

  const loadEarlier = () => {
    if (!loaded || first <= 1) return;
    const ticket = ++request.current;
    setLoading(true);
    fetchTurns(loaded.branch, loaded.turns[0]!.cursor, WINDOW)
      .then((turns) => {
        if (ticket !== request.current) return;
        stickToEnd.current = false;
        setLoaded((current) => (current ? { ...current, turns: [...turns, ...current.turns] } : current));
      })
      .catch((reason: unknown) => ticket === request.current && setError(reason instanceof Error ? reason.message : String(reason)))
      .finally(() => ticket === request.current && setLoading(false));
  };

  // A newly viewed turn is scrolled into view (its end); loading earlier messages keeps the place.
  useLayoutEffect(() => {
    const main = mainRef.current;
    if (main && stickToEnd.current) main.scrollTop = main.scrollHeight;
  }, [sha, loaded]);
  useEffect(() => {
    stickToEnd.current = true;
  }, [sha]);
  // A message asked for is scrolled to instead, once it is on the page.
  const foundShown = found !== null && shown.some((turn) => turn.messages.some((message) => message.messageId === found));
  useLayoutEffect(() => {
    if (!foundShown || found === null) return;
    stickToEnd.current = false;
    document.getElementById(messageAnchor(found))?.scrollIntoView({ block: 'center' });
  }, [foundShown, found]);

  return (
    <main ref={mainRef} className="conversation" aria-busy={loading}>
      {error && <p role="alert">The conversation could not be loaded: {error}</p>}
      {!head && !hasLive && <p className="muted">No turns yet.</p>}
      {first > 1 && shown.length > 0 && (
        <button type="button" className="load-earlier" onClick={loadEarlier} disabled={loading}>
          Load earlier messages
        </button>
      )}
      {shown.map((turn) => {
        const callOf = callFinder(turn.messages);
        const failedCall = failedCallFinder(turn.messages);
        return (
          <section key={turn.number} className="turn" aria-label={`Turn ${turn.number}`}>
            <h2 className="turn-marker">Turn {turn.number}</h2>
            <TurnRedactions messages={turn.messages} />
            {turn.messages.map((message) => (
              <MessageView key={message.id} message={message} callOf={callOf} failedCall={failedCall} found={message.messageId === found} formatted={formatted} />
            ))}
          </section>
        );
      })}
      {live}
    </main>
  );
}

/** What was taken out of a turn's messages before they were stored (kinds and counts), when anything was. */
export function TurnRedactions({ messages }: { messages: readonly RedactedMessage[] }) {
  const summary = redactionSummary(messages);
  return summary === null ? null : (
    <p className="redactions" role="note">
      {summary}
    </p>
  );
}

/**
 * A tool output's JSON as the hook sent it, under the text shown for it: put in the page only once
 * opened (a Read's answer holds the whole file; the text above already shows it once).
 */
function RecordedJson({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="tool-output-raw" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="muted">As recorded (JSON)</summary>
      {open && <pre className="plain">{text}</pre>}
    </details>
  );
}

/**
 * Finds the call a tool result answers among `messages` (its caller's metadata.toolCalls, by the
 * result's toolCallId, or the caller's only call when the agent gives no ids).
 */
export function callFinder(messages: readonly ReplayMessageFieldsFragment[]): (result: ReplayMessageFieldsFragment) => ToolCall | null {
  const byMessageId = new Map(messages.map((m) => [m.messageId, m]));
  return (result) => {
    const caller = result.caller ? byMessageId.get(result.caller.messageId) : undefined;
    if (!caller) return null;
    const calls = toolCallsOf(caller.metadata);
    return calls.find((c) => c.id !== null && c.id === result.toolCallId) ?? (calls.length === 1 ? calls[0]! : null);
  };
}

function isError(message: Pick<ReplayMessageFieldsFragment, 'metadata'>): boolean {
  return (message.metadata as { isError?: unknown } | null)?.isError === true;
}

/**
 * Tells whether a call among `messages` failed: a result marked isError answers it (by its
 * caller and the call's id, or the caller's only call when the agent gives no ids).
 */
export function failedCallFinder(messages: readonly ReplayMessageFieldsFragment[]): (caller: ReplayMessageFieldsFragment, call: ToolCall) => boolean {
  const failed = new Set(messages.filter((m) => m.role === 'TOOL' && m.caller && isError(m)).map((m) => `${m.caller!.messageId}\0${m.toolCallId ?? ''}`));
  return (caller, call) => failed.size > 0 && (failed.has(`${caller.messageId}\0${call.id ?? ''}`) || (toolCallsOf(caller.metadata).length === 1 && failed.has(`${caller.messageId}\0`)));
}

/** Why a failed result failed, in a few words: its command's exit code, else its first line of text. */
function failureReason(message: ReplayMessageFieldsFragment, readable: string | null): string {
  const exitCode = (message.metadata as { exitCode?: unknown } | null)?.exitCode;
  if (typeof exitCode === 'number') return `exit code ${exitCode}`;
  const line = plainText(readable ?? message.content)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !/^<\/?[\w-]+>$/.test(l));
  return line === undefined ? '' : line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/**
 * One message as the agent's own UI shows it: an assistant message's thinking (collapsed), its
 * text (GitHub-flavoured markdown, raw HTML never rendered) and its tool calls by kind
 * (ToolCallView), never an empty box; a tool result collapsed under what its call did; system
 * text and a message that starts with a tag (`<task-notification>`) collapsed as plain text;
 * terminal colour codes taken out.
 * @param callOf finds the call a tool result answers (callFinder over the turn's messages).
 * A failed result says so and why in its summary (its exit code, or its first line), and its
 * call is marked failed where it is shown.
 */
export function MessageView({
  message,
  callOf,
  failedCall,
  found = false,
  formatted = true,
}: {
  message: ReplayMessageFieldsFragment;
  callOf?: (result: ReplayMessageFieldsFragment) => ToolCall | null;
  /** Whether a call of this message failed (failedCallFinder over the turn's messages): marked so. */
  failedCall?: (caller: ReplayMessageFieldsFragment, call: ToolCall) => boolean;
  /** The message a search hit opened: marked, and a collapsed one opened. */
  found?: boolean;
  /** Its text as markdown (false: as plain text, for now). */
  formatted?: boolean;
}) {
  const root = useContext(ProjectRoot);
  // A hooked agent's tool output sent as an object: shown as its text, the JSON kept under it.
  const readable = useMemo(() => (message.role === 'TOOL' ? toolOutput(message.content, root) : null), [message.role, message.content, root]);
  const mark = found ? ' message-found' : '';
  const role = ROLE_LABELS[message.role] ?? message.role;
  const labelId = `${messageAnchor(message.messageId)}-role`;
  if (message.role === 'TOOL') {
    const call = callOf?.(message) ?? null;
    const what = call ? callSummary(call, root) : '';
    const failure = isError(message) ? failureReason(message, readable) : null;
    return (
      <article id={messageAnchor(message.messageId)} className={`message message-tool${mark}`} aria-labelledby={labelId} aria-current={found || undefined}>
        <details open={found || undefined}>
          <summary>
            <span id={labelId} className="role">
              {role}: {message.toolName ?? call?.name ?? 'tool'}
            </span>
            {what && <code className="muted call-summary"> {what}</code>}
            {failure !== null && <span className="tool-failed"> failed</span>}
            {failure && <span className="tool-failure">: {failure}</span>}
          </summary>
          <pre className="tool-output">{plainText(readable ?? message.content)}</pre>
          {readable !== null && <RecordedJson text={message.content} />}
        </details>
        {/* Beside the summary, not in it: a link inside a summary is a control inside a control. */}
        {message.caller && (
          <a className="muted caller" href={`#${messageAnchor(message.caller.messageId)}`}>
            the call
          </a>
        )}
      </article>
    );
  }
  const tag = leadingTag(message.content);
  if (message.role === 'SYSTEM' || tag !== null) {
    const text = plainText(message.content);
    const first = text.trim().split('\n')[0] ?? '';
    return (
      <article
        id={messageAnchor(message.messageId)}
        className={`message message-${message.role.toLowerCase()} message-collapsed${mark}`}
        aria-labelledby={labelId}
        aria-current={found || undefined}
      >
        <details open={found || undefined}>
          <summary>
            <span id={labelId} className="role">
              {role}
              {tag !== null && <code className="muted"> &lt;{tag}&gt;</code>}
            </span>
            {tag === null && <span className="muted"> {first.length > 100 ? `${first.slice(0, 99)}…` : first}</span>}
          </summary>
          <pre className="plain">{text}</pre>
        </details>
      </article>
    );
  }
  const thinking = thinkingOf(message.metadata);
  const calls = toolCallsOf(message.metadata);
  return (
    <article id={messageAnchor(message.messageId)} className={`message message-${message.role.toLowerCase()}${mark}`} aria-labelledby={labelId} aria-current={found || undefined}>
      <header id={labelId} className="role">
        {role}
      </header>
      {thinking.length > 0 && (
        <details className="thinking">
          <summary>Thinking</summary>
          {thinking.map((text, i) => (
            <p key={i} className="muted">
              {text}
            </p>
          ))}
        </details>
      )}
      {message.content.trim() !== '' && (
        <div className="markdown">
          {formatted ? (
            <Suspense fallback={<PlainText text={message.content} />}>
              <MarkdownText text={message.content} />
            </Suspense>
          ) : (
            <PlainText text={message.content} />
          )}
        </div>
      )}
      {calls.map((call, i) => (
        <ToolCallView key={call.id ?? i} call={call} failed={failedCall?.(message, call) ?? false} />
      ))}
    </article>
  );
}
