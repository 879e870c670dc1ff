/**
 * What the viewed turn did to the project's code, beside its conversation (issue 27 item 1), for
 * a session in a project (region "Code changes"): the turn's outcome in words, and the files of
 * the agent's commit, or of its private snapshot when the turn was skipped (with the reason and
 * the user's paths that were in the way), each with its +/- counts and its patch coloured line
 * by line, unified or side by side ("Diff view", kept in localStorage); large patches start
 * collapsed, binary files are named. The session repo's own files stay in "Changes".
 */
import type { CodeDiffFieldsFragment, ProjectCommitResult } from '../../gql/graphql';
import { Link } from '../../lib/Link';
import { blamePath, projectPath } from '../../lib/router';
import { MAX_HIGHLIGHTED_LINES, useHighlight } from '../../lib/highlight';
import { memo, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useSubscription } from 'urql';
import { CodeChangesQuery, CodeOutcomeCommitted, CodeOutcomeSkipped } from './operations';
import { splitRows, type SplitCell, type SplitRow } from './split-diff';
import { useFetch } from './useFetch';

/** Patch lines past which a file starts collapsed. */
const LONG = 80;

/** Where the unified / split choice is kept between pages. */
const LAYOUT_KEY = 'entity-memory.diff-layout';

function savedLayout(): DiffLayout {
  try {
    return localStorage.getItem(LAYOUT_KEY) === 'split' ? 'split' : 'unified';
  } catch {
    return 'unified';
  }
}

/** Every result the server can give, in words (typed by the schema: a new result cannot be left out). */
const RESULT_TEXT: Record<ProjectCommitResult, string> = {
  COMMITTED: 'Committed',
  PENDING: 'Committing…',
  SKIPPED_DIRTY: 'Not committed: your uncommitted changes were in the way',
  SKIPPED_BUSY: 'Not committed: a git operation was in progress',
  SKIPPED_UNATTRIBUTED: 'Not committed: the changes could not be told apart from yours',
  NOTHING_TO_COMMIT: 'No file changed in this turn',
  FAILED: 'Failed',
};

/** A line of a patch: its sign as it is, the code after it in colour when there is a highlighter. */
function patchLine(line: string, highlight: ((text: string) => ReactNode) | null): ReactNode {
  if (!highlight || line.startsWith('@@') || line.startsWith('+++') || line.startsWith('---') || line.startsWith('\\')) return line;
  return (
    <>
      {line.slice(0, 1)}
      {highlight(line.slice(1))}
    </>
  );
}

/**
 * Lines of a patch put on the page per task: a long patch is added in steps, each in a task of
 * its own, so that no step holds input up for long (5,000 lines at once took 100-500 ms).
 */
const LINES_PER_STEP = 400;
/** Rows of the side-by-side table per step: a row is four cells, a unified line one. */
const ROWS_PER_STEP = 150;

/**
 * How many of `count` items to render now: one step at first, then one more step per task
 * (setTimeout 0, so input is handled between steps) until all are; back to one step when `key`
 * (the text) changes.
 */
function useStepped(count: number, key: unknown, step: number = LINES_PER_STEP): number {
  const first = Math.min(count, step);
  const [at, setAt] = useState({ key, shown: first });
  const shown = at.key === key ? Math.min(at.shown, count) : first;
  useEffect(() => {
    if (at.key !== key) {
      setAt({ key, shown: first });
      return;
    }
    if (at.shown >= count) return;
    const timer = setTimeout(() => setAt((now) => (now.key === key ? { key, shown: Math.min(count, now.shown + step) } : now)), 0);
    return () => clearTimeout(timer);
  }, [at, key, count, first, step]);
  return shown;
}

/** The starts of the steps that hold the first `shown` items. */
function stepStarts(shown: number, step: number = LINES_PER_STEP): number[] {
  const starts: number[] = [];
  for (let start = 0; start < shown; start += step) starts.push(start);
  return starts;
}

function lineClass(line: string): string {
  return line.startsWith('+') && !line.startsWith('+++') ? 'diff-add' : line.startsWith('-') && !line.startsWith('---') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : 'diff-ctx';
}

/** lines[start, end) of a unified patch; memoised, so a step already on the page is not rendered again. */
const PatchLines = memo(function PatchLines({ lines, start, end, highlight }: { lines: string[]; start: number; end: number; highlight: ((text: string) => ReactNode) | null }) {
  const out: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    out.push(
      <span key={i} className={lineClass(lines[i]!)}>
        {patchLine(lines[i]!, highlight)}
        {'\n'}
      </span>,
    );
  }
  return <>{out}</>;
});

function Patch({ text, path }: { text: string; path: string | null }) {
  const lines = useMemo(() => text.split('\n'), [text]);
  const highlight = useHighlight(path, lines.length);
  const shown = useStepped(lines.length, text);
  return (
    <pre className="diff patch">
      {stepStarts(shown).map((start) => (
        <PatchLines key={start} lines={lines} start={start} end={Math.min(shown, start + LINES_PER_STEP)} highlight={highlight} />
      ))}
    </pre>
  );
}

/** rows[start, end) of a side-by-side patch, memoised as PatchLines. */
const SplitRows = memo(function SplitRows({ rows, start, end, highlight }: { rows: SplitRow[]; start: number; end: number; highlight: ((text: string) => ReactNode) | null }) {
  const cellOf = (cell: SplitCell | null, side: string) =>
    cell === null
      ? [<td key={`${side}n`} className="diff-num" />, <td key={`${side}t`} className="diff-empty" />]
      : [
          <td key={`${side}n`} className="diff-num">
            {cell.number}
          </td>,
          <td key={`${side}t`} className={`diff-${cell.kind}`}>
            {highlight ? highlight(cell.text) : cell.text}
          </td>,
        ];
  const out: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const row = rows[i]!;
    out.push(
      row.left?.kind === 'hunk' ? (
        <tr key={i}>
          <td colSpan={4} className="diff-hunk">
            {row.left.text}
          </td>
        </tr>
      ) : (
        <tr key={i}>
          {cellOf(row.left, 'l')}
          {cellOf(row.right, 'r')}
        </tr>
      ),
    );
  }
  return <>{out}</>;
});

/** The patch side by side: the old file's lines left, the new file's right (splitRows). */
function SplitPatch({ text, path }: { text: string; path: string | null }) {
  const rows = useMemo(() => splitRows(text), [text]);
  const highlight = useHighlight(path, rows.length);
  const shown = useStepped(rows.length, text, ROWS_PER_STEP);
  return (
    <div className="patch">
      <table className="diff split">
        <tbody>
          {stepStarts(shown, ROWS_PER_STEP).map((start) => (
            <SplitRows key={start} rows={rows} start={start} end={Math.min(shown, start + ROWS_PER_STEP)} highlight={highlight} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

export type DiffLayout = 'unified' | 'split';

function Files({ commit, label, layout, projectId }: { commit: CodeDiffFieldsFragment; label: string; layout: DiffLayout; projectId: string | null }) {
  // The files are coloured together, in one task: only when all of them are short enough.
  const lines = commit.diff.files.reduce((sum, file) => sum + (file.patch?.split('\n').length ?? 0), 0);
  const colour = lines <= MAX_HIGHLIGHTED_LINES;
  return (
    <>
      <p className="muted">
        {label} <code title={commit.sha}>{commit.sha.slice(0, 7)}</code>: {commit.diff.files.length} {commit.diff.files.length === 1 ? 'file' : 'files'},{' '}
        <span className="added">+{commit.diff.additions}</span> <span className="deleted">−{commit.diff.deletions}</span>
      </p>
      <ul className="change-list">
        {commit.diff.files.map((file) => (
          <FileDiff key={`${commit.sha} ${file.path}`} file={file} colour={colour} layout={layout} blame={projectId && file.status !== 'DELETED' ? blamePath(projectId, file.path, commit.sha) : null} />
        ))}
      </ul>
    </>
  );
}

export type DiffFile = CodeDiffFieldsFragment['diff']['files'][number];

/**
 * One file of the diff; a long patch starts collapsed, and a collapsed patch is not rendered until
 * opened. `blame`: where "Blame" opens which turn wrote each of its lines (a project's commit).
 */
export function FileDiff({ file, colour, layout, blame = null }: { file: DiffFile; colour: boolean; layout: DiffLayout; blame?: string | null }) {
  const [open, setOpen] = useState(() => (file.patch?.split('\n').length ?? 0) <= LONG);
  return (
    <li className="change-file">
      {/* Beside the summary, not in it: a link inside a summary would nest two controls. */}
      {blame && (
        <Link href={blame} className="blame-link" aria-label={`Blame ${file.path}`}>
          Blame
        </Link>
      )}
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          <span className={`change-status change-${file.status.toLowerCase()}`}>{file.status.toLowerCase()}</span>{' '}
          <code>{file.oldPath && file.oldPath !== file.path ? `${file.oldPath} → ${file.path}` : file.path}</code>{' '}
          <span className="added">+{file.additions}</span> <span className="deleted">−{file.deletions}</span>
        </summary>
        {!open ? null : file.patch == null ? (
          <p className="muted">Binary file: no patch.</p>
        ) : layout === 'split' ? (
          <SplitPatch text={file.patch} path={colour ? file.path : null} />
        ) : (
          <Patch text={file.patch} path={colour ? file.path : null} />
        )}
        {open && file.truncated && <p className="muted">The patch is cut at 256 KiB.</p>}
      </details>
    </li>
  );
}

export function CodeChanges({
  sessionId,
  sha,
  projectId,
  version,
  onLoaded,
}: {
  sessionId: string;
  sha: string | null;
  projectId: string;
  version: number;
  /** Called once the viewed turn's code changes (or the error reading them) are in. */
  onLoaded?: () => void;
}) {
  // A turn's outcome is written after its commit (PENDING until the project commit ran): read again
  // when the project reports a commit or a skip, and whenever the page's history moves.
  const [{ data: committed }] = useSubscription({ query: CodeOutcomeCommitted, variables: { projectId } });
  const [{ data: skipped }] = useSubscription({ query: CodeOutcomeSkipped, variables: { projectId } });
  const [heard, setHeard] = useState(0);
  useEffect(() => {
    if (committed || skipped) setHeard((n) => n + 1);
  }, [committed, skipped]);
  const { data, error } = useFetch(CodeChangesQuery, { sessionId, sha: sha ?? '' }, { pause: !sha, version: version + heard });
  const turn = data?.session?.commit?.sha === sha ? data?.session?.commit?.turn : undefined;
  const outcome = turn?.projectCommit ?? null;
  const loaded = turn !== undefined || error !== null;
  useEffect(() => {
    if (loaded) onLoaded?.();
  }, [loaded, onLoaded]);
  const [layout, setLayout] = useState<DiffLayout>(savedLayout);
  const chooseLayout = (value: DiffLayout) => {
    setLayout(value);
    try {
      localStorage.setItem(LAYOUT_KEY, value);
    } catch {
      // Storage refused (private mode): the choice holds for this page.
    }
  };
  return (
    <section aria-label="Code changes" className="changes code-changes panel">
      <h2>Code changes</h2>
      {error && <p role="alert">The code changes could not be loaded: {error}</p>}
      {sha && turn === undefined && !error && <p className="muted">Loading…</p>}
      {turn && !outcome && <p className="muted">This turn was recorded before the session joined the project.</p>}
      {outcome && (
        <>
          <p className={`code-outcome code-${outcome.result.toLowerCase()}`}>
            {RESULT_TEXT[outcome.result]}
            {outcome.result === 'FAILED' && outcome.reason ? `: ${outcome.reason}` : ''}
          </p>
          {outcome.result !== 'COMMITTED' && outcome.message && <p className="muted">{outcome.message}</p>}
          {outcome.dirtyPaths.length > 0 && (
            <p className="muted">
              In the way: <code>{outcome.dirtyPaths.join(', ')}</code>
            </p>
          )}
          {(outcome.commit || outcome.snapshot) && (
            <fieldset className="diff-layout">
              <legend>Diff view</legend>
              {(['unified', 'split'] as const).map((value) => (
                <label key={value}>
                  <input type="radio" name={`diff-layout-${sessionId}`} value={value} checked={layout === value} onChange={() => chooseLayout(value)} />{' '}
                  {value === 'unified' ? 'Unified' : 'Split'}
                </label>
              ))}
            </fieldset>
          )}
          {outcome.commit && <Files commit={outcome.commit} label="Commit" layout={layout} projectId={projectId} />}
          {!outcome.commit && outcome.snapshot && <Files commit={outcome.snapshot} label="Kept on a private snapshot" layout={layout} projectId={null} />}
          {!outcome.commit && !outcome.snapshot && outcome.paths.length > 0 && (
            <p className="muted">
              The agent's paths: <code>{outcome.paths.join(', ')}</code>
            </p>
          )}
          <p>
            <Link href={projectPath(projectId)}>See it in the project's history</Link>
          </p>
        </>
      )}
    </section>
  );
}
