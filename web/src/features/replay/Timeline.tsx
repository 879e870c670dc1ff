/**
 * The current branch's commits, newest first (ui.md: list "Timeline", a listitem per
 * commit with "turn N" and the headline; activating one views it). Read in pages of
 * PAGE_SIZE as the list is scrolled and rendered through a virtualiser, so a 10,000-turn
 * branch never has more than a screenful of rows in the DOM. New commits are put on top
 * when the page signals them (`version`), without reloading what is there.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient } from 'urql';
import type { ReplayTimelinePageQuery } from '../../gql/graphql';
import { takeArrived } from '../../lib/preloaded';
import { TimelinePageQuery } from './operations';
import { TIMELINE_PAGE } from './window';

export const PAGE_SIZE = TIMELINE_PAGE;
/** Commits read to see what is new on top. */
const TOP_SIZE = 20;
const ROW_HEIGHT = 44;

export interface TimelineItem {
  sha: string;
  headline: string;
  number: number | null;
}

interface State {
  /** The newest commits of the branch, without a gap. */
  items: TimelineItem[];
  hasMore: boolean;
  /** The server's cursor after the last page read: where the next one starts. */
  endCursor: string | null;
}

/** The commits of `top` not yet in `items`, put before them; null when `top` does not reach them (a reset is needed). */
export function mergeTop(items: TimelineItem[], top: TimelineItem[]): TimelineItem[] | null {
  if (items.length === 0) return top;
  const known = top.findIndex((item) => item.sha === items[0]!.sha);
  if (known < 0) return null;
  return [...top.slice(0, known), ...items];
}

/** The text of a row: the headline, with "turn N" before it unless it already starts so. */
export function rowText(item: TimelineItem): string {
  if (item.number === null || item.headline.toLowerCase().startsWith(`turn ${item.number}`)) return item.headline;
  return `turn ${item.number}: ${item.headline}`;
}

/** A TimelinePageQuery answer's page as the list keeps it. */
function pageOf(page: NonNullable<ReplayTimelinePageQuery['session']>['timeline']): State {
  return {
    items: page.edges.map(({ node }) => ({ sha: node.sha, headline: node.headline, number: node.turn?.number ?? null })),
    hasMore: page.pageInfo.hasNextPage,
    endCursor: page.pageInfo.endCursor ?? null,
  };
}

export function Timeline({
  sessionId,
  branch,
  viewedSha,
  total,
  version,
  onView,
  onLoaded,
}: {
  sessionId: string;
  branch: string;
  /** Turns on the branch (the page knows it; counting the branch's commits in git costs more). */
  total: number;
  viewedSha: string | null;
  /** Changes when the branch may have new commits. */
  version: number;
  onView: (sha: string) => void;
  /** Called once the first page is shown (or failed). */
  onLoaded?: () => void;
}) {
  const client = useClient();
  // On a cold open, the first page the preload script has already read.
  const [preloaded] = useState(() => {
    const data = takeArrived<ReplayTimelinePageQuery>('ReplayTimelinePage', { sessionId, branch, after: null, first: PAGE_SIZE });
    return data?.session ? pageOf(data.session.timeline) : null;
  });
  const [state, setState] = useState<State>(preloaded ?? { items: [], hasMore: true, endCursor: null });
  const [error, setError] = useState<string | null>(null);
  const loading = useRef(false);
  const scrollRef = useRef<HTMLDivElement>(null);

  const fetchPage = useCallback(
    async (after: string | null, first: number) => {
      const result = await client.query(TimelinePageQuery, { sessionId, branch, after, first }, { requestPolicy: 'network-only' }).toPromise();
      if (result.error) throw result.error;
      const page = result.data?.session?.timeline;
      if (!page) throw new Error(`No session ${sessionId}`);
      return pageOf(page);
    },
    [client, sessionId, branch],
  );

  const loadMore = useCallback(() => {
    if (loading.current || !state.hasMore) return;
    loading.current = true;
    fetchPage(state.items.length > 0 ? state.endCursor : null, PAGE_SIZE)
      .then((page) => {
        setError(null);
        setState((current) => {
          // The cursor is a position from the top: commits added on top since the last page was
          // read shift the list down, so this page starts with some already listed. Skip those.
          const seen = new Set(current.items.map((item) => item.sha));
          return { items: [...current.items, ...page.items.filter((item) => !seen.has(item.sha))], hasMore: page.hasMore, endCursor: page.endCursor };
        });
      })
      .catch((reason: unknown) => setError(reason instanceof Error ? reason.message : String(reason)))
      .finally(() => {
        loading.current = false;
        onLoaded?.();
      });
  }, [fetchPage, state.items.length, state.hasMore, state.endCursor, onLoaded]);

  // New commits on top: read the newest few and put those not yet listed before the rest.
  useEffect(() => {
    if (version === 0) return;
    let cancelled = false;
    fetchPage(null, TOP_SIZE)
      .then((top) => {
        if (cancelled) return;
        setState((current) => {
          const merged = mergeTop(current.items, top.items);
          if (merged === null) return { items: top.items, hasMore: top.hasMore, endCursor: top.endCursor };
          return { ...current, items: merged };
        });
      })
      .catch((reason: unknown) => !cancelled && setError(reason instanceof Error ? reason.message : String(reason)));
    return () => {
      cancelled = true;
    };
  }, [version, fetchPage]);

  const virtualizer = useVirtualizer({
    count: state.items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const rows = virtualizer.getVirtualItems();
  const lastRow = rows[rows.length - 1]?.index ?? -1;

  // A first page from the preload script is shown from the first render.
  useEffect(() => {
    if (preloaded) onLoaded?.();
    // Once, for the first render's page.
  }, []);

  // The first page, and the next one whenever the end of the list comes near.
  useEffect(() => {
    if (state.hasMore && (state.items.length === 0 || lastRow >= state.items.length - 10)) loadMore();
  }, [lastRow, state.items.length, state.hasMore, loadMore]);

  // Keep the viewed commit in sight as the replay steps.
  const viewedIndex = viewedSha ? state.items.findIndex((item) => item.sha === viewedSha) : -1;
  useEffect(() => {
    if (viewedIndex >= 0) virtualizer.scrollToIndex(viewedIndex, { align: 'auto' });
  }, [viewedIndex, virtualizer]);

  return (
    <div className="timeline panel">
      <h2>
        Timeline <span className="muted">({total} turns on {branch})</span>
      </h2>
      {error && <p role="alert">The timeline could not be loaded: {error}</p>}
      <div ref={scrollRef} className="timeline-scroll">
        <ol aria-label="Timeline" style={{ height: virtualizer.getTotalSize() }}>
          {rows.map((row) => {
            const item = state.items[row.index]!;
            const viewed = item.sha === viewedSha;
            return (
              <li
                key={item.sha}
                aria-current={viewed ? 'true' : undefined}
                aria-setsize={total}
                aria-posinset={row.index + 1}
                style={{ transform: `translateY(${row.start}px)`, height: row.size }}
              >
                <button type="button" onClick={() => onView(item.sha)} title={item.sha}>
                  {rowText(item)}
                </button>
              </li>
            );
          })}
        </ol>
      </div>
    </div>
  );
}
