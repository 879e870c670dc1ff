/**
 * The data of the Branches panel: a session's branches and the latest commits of each.
 * One query gives the branches (tips, fork points) and the newest page of the whole
 * repo's log; each branch's own commits are walked out of that page by first parents.
 * Only a branch whose commits are older than the page (a long session) costs one more
 * query, for its own latest commits. Refetched on every timeline event of the session
 * and after the live connection comes back.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useClient, useQuery, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { onReconnected } from '../../lib/client';
import { headlineNumber, LANE_LIMIT, walkOwnCommits, type BranchInput, type CommitPoint, type LogCommit } from './lanes';

/** Commits of the whole log read with the branches (enough for every lane of a short session). */
const LOG_PAGE = 200;

export const BranchGraphQuery = graphql(`
  query BranchesPanelGraph($sessionId: String!, $first: Int!) {
    session(sessionId: $sessionId) {
      id
      currentBranch
      branches {
        name
        kind
        isCurrent
        head {
          sha
          headline
          turn {
            number
          }
        }
        forkPoint {
          sha
          headline
          turn {
            number
            branch
          }
        }
      }
      timeline(all: true, first: $first) {
        edges {
          node {
            sha
            headline
            parentShas
          }
        }
      }
    }
  }
`);

export const BranchLaneQuery = graphql(`
  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {
    session(sessionId: $sessionId) {
      id
      timeline(branch: $branch, first: $first) {
        edges {
          node {
            sha
            headline
          }
        }
      }
    }
  }
`);

const TimelineEvents = graphql(`
  subscription BranchesPanelEvents($sessionId: String!) {
    timeline(sessionId: $sessionId) {
      kind
      branch
    }
  }
`);

/** A commit's turn number: its turn's, else the one its headline starts with. */
function numberOf(commit: { headline: string; turn?: { number: number } | null }): number {
  return commit.turn?.number ?? headlineNumber(commit.headline) ?? 0;
}

/** A lane to read on its own: its tip and how many of its commits to draw. */
interface LaneRequest {
  key: string;
  name: string;
  head: CommitPoint;
  want: number;
}

export interface BranchGraphData {
  branches: BranchInput[] | undefined;
  currentBranch: string | undefined;
  /** The session does not exist. */
  missing: boolean;
  error: string | undefined;
  refresh: () => void;
}

export function useBranchGraph(sessionId: string): BranchGraphData {
  const client = useClient();
  const [{ data, error }, refetch] = useQuery({ query: BranchGraphQuery, variables: { sessionId, first: LOG_PAGE } });
  const refresh = useCallback(() => refetch({ requestPolicy: 'network-only' }), [refetch]);
  useSubscription({ query: TimelineEvents, variables: { sessionId } }, (_previous, event) => {
    refresh();
    return event;
  });
  useEffect(() => onReconnected(refresh), [refresh]);

  const session = data?.session;
  // Each branch's own commits from the log page; the lanes the page does not cover are asked for below.
  const { fromPage, requests } = useMemo(() => {
    const fromPage = new Map<string, CommitPoint[]>();
    const requests: LaneRequest[] = [];
    if (!session) return { fromPage, requests };
    const page = new Map<string, LogCommit>(session.timeline.edges.map(({ node }) => [node.sha, node]));
    for (const branch of session.branches) {
      if (!branch.head) continue;
      const head = { sha: branch.head.sha, headline: branch.head.headline, number: numberOf(branch.head) };
      const forkSha = branch.forkPoint?.sha ?? null;
      const total = Math.max(0, head.number - (branch.forkPoint ? numberOf(branch.forkPoint) : 0));
      const want = Math.min(LANE_LIMIT, total);
      const own = head.sha === forkSha ? [] : walkOwnCommits(head, forkSha, want, page);
      if (own) fromPage.set(branch.name, own);
      else requests.push({ key: `${branch.name}@${head.sha}`, name: branch.name, head, want });
    }
    return { fromPage, requests };
  }, [session]);

  const [fetched, setFetched] = useState<ReadonlyMap<string, CommitPoint[]>>(new Map());
  const [laneError, setLaneError] = useState<string>();
  const requestKey = requests.map((r) => `${r.key}:${r.want}`).join(' ');
  useEffect(() => {
    let live = true;
    const pending = requests.filter((r) => !fetched.has(r.key));
    for (const request of pending) {
      client
        .query(BranchLaneQuery, { sessionId, branch: request.name, first: request.want }, { requestPolicy: 'network-only' })
        .toPromise()
        .then((result) => {
          if (!live) return;
          if (result.error) return setLaneError(result.error.message);
          const commits = (result.data?.session?.timeline.edges ?? []).map(({ node }, i) => ({
            sha: node.sha,
            headline: node.headline,
            number: headlineNumber(node.headline) ?? request.head.number - i,
          }));
          setLaneError(undefined);
          // Lanes read for tips that have moved on since are dropped.
          const wanted = new Set(requests.map((r) => r.key));
          setFetched((before) => new Map([...before].filter(([key]) => wanted.has(key))).set(request.key, commits));
        });
    }
    return () => {
      live = false;
    };
    // requestKey stands for requests; fetched is only read, to skip lanes already there.
  }, [client, sessionId, requestKey]);

  const branches = useMemo(() => {
    if (!session) return undefined;
    const laneKey = new Map(requests.map((r) => [r.name, r.key]));
    return session.branches.map((branch): BranchInput => {
      const headNumber = branch.head ? numberOf(branch.head) : 0;
      const forkNumber = branch.forkPoint ? numberOf(branch.forkPoint) : 0;
      const key = laneKey.get(branch.name);
      return {
        name: branch.name,
        kind: branch.kind,
        isCurrent: branch.isCurrent,
        forkPoint: branch.forkPoint
          ? { sha: branch.forkPoint.sha, headline: branch.forkPoint.headline, number: forkNumber, branch: branch.forkPoint.turn?.branch ?? 'main' }
          : null,
        commits: fromPage.get(branch.name) ?? (key ? fetched.get(key) : undefined) ?? [],
        total: Math.max(0, headNumber - forkNumber),
      };
    });
  }, [session, fromPage, requests, fetched]);

  return {
    branches,
    currentBranch: session?.currentBranch,
    missing: data !== undefined && !session,
    error: error?.message ?? laneError,
    refresh,
  };
}
