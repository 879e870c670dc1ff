/**
 * The branch graph (ui.md: figure "Branches"), drawn as inline SVG from a lane layout:
 * a column per branch (main first), a row per turn number (newest on top), a dot per
 * commit that is a button viewing it, lines along lanes, connectors from fork points,
 * dashed where commits are left out. The current branch is drawn heavier, the viewed
 * commit ringed.
 */
import type { KeyboardEvent } from 'react';
import { LANE_LIMIT, layoutLanes, type BranchInput, type Dot, type Edge, type Layout } from './lanes';
import './branches.css';

const COLUMN = 28;
const ROW = 24;
/** Room on the left for the turn numbers, above for the slanted branch names, right for the last name. */
const GUTTER = 44;
const HEADER = 92;
const RIGHT = 120;
const LABEL_CHARS = 18;

/** Extra room where turns are left out between two rows. */
const GAP = ROW / 2;

const x = (column: number) => GUTTER + column * COLUMN + COLUMN / 2;

/** The y of each row's centre: a row per turn, a little more room where turn numbers jump. */
function rowCentres(rows: number[]): number[] {
  let gaps = 0;
  return rows.map((number, row) => {
    if (row > 0 && rows[row - 1]! - number > 1) gaps++;
    return HEADER + row * ROW + gaps * GAP + ROW / 2;
  });
}

function shortName(name: string): string {
  return name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name;
}

function edgePath(edge: Edge, y: number[]): string {
  const x1 = x(edge.from.column);
  const y1 = y[edge.from.row]!;
  const x2 = x(edge.to.column);
  const y2 = y[edge.to.row]!;
  if (x1 === x2) return `M${x1} ${y1}V${y2}`;
  // Out of the fork point sideways, then up the new lane.
  const bend = y1 - ROW * 0.75;
  return `M${x1} ${y1}C${x1} ${bend} ${x2} ${y1} ${x2} ${bend}V${y2}`;
}

function CommitDot({ dot, cy, viewed, onView }: { dot: Dot; cy: number; viewed: boolean; onView: (sha: string, branch: string) => void }) {
  const view = () => onView(dot.sha, dot.lane);
  const key = (event: KeyboardEvent) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      view();
    }
  };
  const cx = x(dot.column);
  return (
    <g
      role="button"
      tabIndex={0}
      className={`commit-dot lane-color-${dot.column % 6}${viewed ? ' viewed' : ''}`}
      aria-label={`turn ${dot.number}: ${dot.text} (${dot.lane})`}
      aria-current={viewed ? 'true' : undefined}
      data-sha={dot.sha}
      data-lane={dot.lane}
      onClick={view}
      onKeyDown={key}
    >
      <title>{`turn ${dot.number} on ${dot.lane}: ${dot.text}`}</title>
      <circle className="hit" cx={cx} cy={cy} r={ROW / 2} />
      {viewed && <circle className="ring" cx={cx} cy={cy} r={9} />}
      <circle className="dot" cx={cx} cy={cy} r={dot.isHead ? 6 : 4.5} />
    </g>
  );
}

/** The graph of the branches given (their own commits newest first, as useBranchGraph gives). */
export function BranchGraph({ branches, viewedSha, onView }: { branches: BranchInput[]; viewedSha?: string; onView: (sha: string, branch: string) => void }) {
  const layout: Layout = layoutLanes(branches);
  const current = new Set(layout.lanes.filter((lane) => lane.isCurrent).map((lane) => lane.name));
  const width = GUTTER + layout.lanes.length * COLUMN + RIGHT;
  const y = rowCentres(layout.rows);
  const height = (y.at(-1) ?? HEADER) + ROW;
  const cut = layout.lanes.filter((lane) => lane.shown < lane.total);
  return (
    <figure aria-label="Branches" className="branch-graph">
      <div className="branch-graph-scroll">
        <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} className="branch-graph-svg">
          {layout.lanes.map((lane) => (
            <text
              key={lane.name}
              className={`lane-label${lane.isCurrent ? ' current' : ''}`}
              data-lane={lane.name}
              transform={`translate(${x(lane.column) - 3} ${HEADER - 8}) rotate(-45)`}
            >
              <title>{lane.isCurrent ? `${lane.name} (current branch)` : lane.name}</title>
              {shortName(lane.name)}
            </text>
          ))}
          {layout.rows.map((number, row) => (
            <text key={number} className="row-label" x={GUTTER - 8} y={y[row]! + 4} textAnchor="end">
              {number}
            </text>
          ))}
          {layout.edges.map((edge) => (
            <path
              key={`${edge.kind}:${edge.lane}:${edge.from.row}:${edge.to.row}`}
              d={edgePath(edge, y)}
              className={`edge lane-color-${edge.kind === 'fork' ? edge.to.column % 6 : edge.from.column % 6}${current.has(edge.lane) ? ' current' : ''}${edge.elided ? ' elided' : ''}`}
              data-kind={edge.kind}
              data-lane={edge.lane}
            />
          ))}
          {layout.dots.map((dot) => (
            <CommitDot key={`${dot.lane}:${dot.sha}`} dot={dot} cy={y[dot.row]!} viewed={dot.sha === viewedSha} onView={onView} />
          ))}
        </svg>
      </div>
      {layout.dots.length === 0 && <figcaption className="muted">No turns yet.</figcaption>}
      {cut.length > 0 && (
        <figcaption className="muted">
          {cut.map((lane) => (
            <span key={lane.name} className="lane-note">
              {lane.name}: showing the last {lane.shown} of {lane.total} turns
              {lane.shown < Math.min(LANE_LIMIT, lane.total) ? ' (loading)' : ''}
            </span>
          ))}
        </figcaption>
      )}
    </figure>
  );
}
