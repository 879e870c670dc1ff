/**
 * The branch graph's layout, as a pure function: a session's branches and the commits
 * of each (newest first) in, lanes (columns), dots (one per commit shown, placed on a
 * row per turn number, newest on top) and edges (the lines between them) out.
 * Also the walk that picks a branch's own commits out of a page of the whole repo's log.
 */

/** Commits drawn per lane at most. */
export const LANE_LIMIT = 50;

export type BranchKind = 'MAIN' | 'RETRY' | 'FORK';

/** A commit as the graph needs it: its turn number is its row. */
export interface CommitPoint {
  sha: string;
  headline: string;
  number: number;
}

export interface BranchInput {
  name: string;
  kind: BranchKind;
  isCurrent: boolean;
  /** The commit this branch grew from, and the branch that commit is on (null for main and a retry of turn 1). */
  forkPoint: (CommitPoint & { branch: string }) | null;
  /** The branch's own commits, newest first: from its tip down to the one after its fork point (maybe cut short). */
  commits: CommitPoint[];
  /** How many own commits the branch has, shown or not. */
  total: number;
}

export interface Lane {
  name: string;
  kind: BranchKind;
  isCurrent: boolean;
  column: number;
  /** The lane's own commits, and how many of them are drawn. */
  total: number;
  shown: number;
}

export interface Dot {
  sha: string;
  number: number;
  /** The headline without its "turn N: " prefix. */
  text: string;
  lane: string;
  column: number;
  row: number;
  /** The newest commit of its lane. */
  isHead: boolean;
}

export interface Edge {
  lane: string;
  /** A line along a lane, or the connector from a fork point to the lane that grew from it. */
  kind: 'lane' | 'fork';
  from: { column: number; row: number };
  to: { column: number; row: number };
  /** Commits between its two ends are left out of the drawing. */
  elided: boolean;
}

export interface Layout {
  lanes: Lane[];
  dots: Dot[];
  edges: Edge[];
  /** The turn number of each row, top (newest) first. */
  rows: number[];
}

/** "turn 3: fix the test" → "fix the test" (the number is drawn from the turn). */
export function headlineText(headline: string): string {
  return headline.replace(/^turn \d+:\s*/, '');
}

/** The turn number a headline starts with ("turn 3: …"), or null. */
export function headlineNumber(headline: string): number | null {
  const match = /^turn (\d+)\b/.exec(headline);
  return match ? Number(match[1]) : null;
}

/** main first, then the others in the order given (the API gives creation order). */
function laneOrder(branches: BranchInput[]): BranchInput[] {
  const isMain = (b: BranchInput) => b.kind === 'MAIN';
  return [...branches.filter(isMain), ...branches.filter((b) => !isMain(b))];
}

export function layoutLanes(branches: BranchInput[]): Layout {
  const ordered = laneOrder(branches);
  const column = new Map(ordered.map((b, i) => [b.name, i]));
  const mainName = ordered[0]?.name;
  const parentOf = (b: BranchInput) => (b.forkPoint && column.has(b.forkPoint.branch) ? b.forkPoint.branch : mainName);

  // The commits drawn on each lane: its own shown ones, and the fork points other lanes grew from.
  const onLane = new Map<string, Map<string, CommitPoint>>(ordered.map((b) => [b.name, new Map(b.commits.map((c) => [c.sha, c]))]));
  for (const branch of ordered) {
    const parent = parentOf(branch);
    if (!branch.forkPoint || parent === undefined || parent === branch.name) continue;
    const commits = onLane.get(parent)!;
    if (!commits.has(branch.forkPoint.sha)) commits.set(branch.forkPoint.sha, branch.forkPoint);
  }

  const rows = [...new Set([...onLane.values()].flatMap((commits) => [...commits.values()].map((c) => c.number)))].sort((a, b) => b - a);
  const rowOf = new Map(rows.map((n, i) => [n, i]));

  const dots: Dot[] = [];
  const edges: Edge[] = [];
  const oldest = new Map<string, Dot>();
  for (const branch of ordered) {
    const col = column.get(branch.name)!;
    const laneDots = [...onLane.get(branch.name)!.values()]
      .sort((a, b) => b.number - a.number)
      .map((c, i): Dot => ({ sha: c.sha, number: c.number, text: headlineText(c.headline), lane: branch.name, column: col, row: rowOf.get(c.number)!, isHead: i === 0 && branch.commits.length > 0 }));
    dots.push(...laneDots);
    for (let i = 1; i < laneDots.length; i++) {
      const newer = laneDots[i - 1]!;
      const older = laneDots[i]!;
      edges.push({ lane: branch.name, kind: 'lane', from: { column: col, row: older.row }, to: { column: col, row: newer.row }, elided: newer.number - older.number > 1 });
    }
    const last = laneDots.at(-1);
    if (last) oldest.set(branch.name, last);
  }
  // Connectors: from the fork point on the parent lane to the oldest commit drawn of the lane.
  for (const branch of ordered) {
    const parent = parentOf(branch);
    const start = oldest.get(branch.name);
    if (!branch.forkPoint || parent === undefined || parent === branch.name || !start || branch.commits.length === 0) continue;
    edges.push({
      lane: branch.name,
      kind: 'fork',
      from: { column: column.get(parent)!, row: rowOf.get(branch.forkPoint.number)! },
      to: { column: start.column, row: start.row },
      elided: start.number - branch.forkPoint.number > 1,
    });
  }

  const lanes = ordered.map((b): Lane => ({ name: b.name, kind: b.kind, isCurrent: b.isCurrent, column: column.get(b.name)!, total: b.total, shown: b.commits.length }));
  return { lanes, dots, edges, rows };
}

/** A commit of a page of the repo's log (every branch, newest first). */
export interface LogCommit {
  sha: string;
  headline: string;
  parentShas: string[];
}

/**
 * A branch's own commits, newest first, taken from `page` by walking first parents
 * from its tip: `want` of them, or fewer when the fork point (or the root) comes first.
 * @param head the branch tip and its turn number.
 * @param stopSha the fork point (not included), or null.
 * @returns null when the walk leaves the page before it is done.
 */
export function walkOwnCommits(
  head: CommitPoint,
  stopSha: string | null,
  want: number,
  page: ReadonlyMap<string, LogCommit>,
): CommitPoint[] | null {
  const own: CommitPoint[] = [];
  let sha: string | undefined = head.sha;
  while (own.length < want && sha !== undefined && sha !== stopSha) {
    const commit = page.get(sha);
    if (!commit) return null;
    own.push({ sha, headline: commit.headline, number: head.number - own.length });
    sha = commit.parentShas[0];
  }
  return own;
}
