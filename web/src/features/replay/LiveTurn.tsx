/**
 * The turn being written, after the committed ones (issue 25: live means live): its messages
 * as they are stored, marked in progress, before it has a commit. The page hears the events
 * (SessionTurnUpdates) and hands them here as `heard`; the turn's messages from before the
 * page listened are read once per open turn.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useClient } from 'urql';
import type { ReplayMessageFieldsFragment } from '../../gql/graphql';
import { callFinder, failedCallFinder, MessageView, TurnRedactions } from './Conversation';
import { combineLive, showsLive, type LiveTurn as LiveTurnShape } from './live';
import { OpenTurnQuery } from './operations';

export type LiveTurnState = LiveTurnShape<ReplayMessageFieldsFragment>;

export function LiveTurn({
  sessionId,
  openTurn,
  heard,
  latestCommittedTurn,
}: {
  sessionId: string;
  /** The open turn's number as the page last read it, or null when none was open. */
  openTurn: number | null;
  /** What the events said since the page listened. */
  heard: LiveTurnState | undefined;
  /** The turn of the page's latest commit (0 before the first). */
  latestCommittedTurn: number;
}) {
  const client = useClient();
  const [read, setRead] = useState<LiveTurnState | null>(null);
  useEffect(() => {
    if (openTurn === null) return;
    let current = true;
    void client
      .query(OpenTurnQuery, { sessionId }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        const turn = result.data?.session?.openTurn;
        if (current && turn) setRead({ number: turn.number, messages: turn.messages, closed: false });
      });
    return () => {
      current = false;
    };
  }, [client, sessionId, openTurn]);

  const live = combineLive(read, heard);
  const shown = showsLive(live, latestCommittedTurn) ? live : null;

  // New messages scroll into view while the reader is at the end.
  const section = useRef<HTMLElement>(null);
  const count = shown?.messages.length ?? 0;
  useLayoutEffect(() => {
    const main = section.current?.closest('main');
    if (main && main.scrollHeight - main.scrollTop - main.clientHeight < 200 + (section.current?.lastElementChild?.clientHeight ?? 0)) {
      main.scrollTop = main.scrollHeight;
    }
  }, [count]);

  if (!shown) return null;
  const callOf = callFinder(shown.messages);
  const failedCall = failedCallFinder(shown.messages);
  return (
    <section ref={section} className="turn turn-live" aria-label={`Turn ${shown.number}`} aria-busy={!shown.closed}>
      <h2 className="turn-marker">
        Turn {shown.number} <span className="in-progress">{shown.closed ? 'closed, committing…' : 'in progress'}</span>
      </h2>
      <TurnRedactions messages={shown.messages} />
      {shown.messages.map((message) => (
        <MessageView key={message.id} message={message} callOf={callOf} failedCall={failedCall} />
      ))}
    </section>
  );
}
