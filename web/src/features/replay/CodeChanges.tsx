/**
 * What the viewed turn did to the project's code, beside its conversation (issue 27 item 1), for
 * a session in a project (region "Code changes"): the turn's outcome in words, and the files of
 * the agent's commit, or of its private snapshot when the turn was skipped (with the reason and
 * the user's paths that were in the way), each with its +/- counts and its patch coloured line
 * by line, unified or side by side ("Diff view", kept in localStorage); large patches start
 * collapsed, binary files are named. The session repo's own files stay in "Changes".
 */
import type { CodeDiffFieldsFragment } from '../../gql/graphql';
import { Link } from '../../lib/Link';
import { projectPath } from '../../lib/router';
import { MAX_HIGHLIGHTED_LINES, useHighlight } from '../../lib/highlight';
import { useEffect, useState, type ReactNode } from 'react';
import { useSubscription } from 'urql';
import { CodeChangesQuery, CodeOutcomeCommitted, CodeOutcomeSkipped } from './operations';
import { splitRows, type SplitCell } from './split-diff';
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

const RESULT_TEXT: Record<string, string> = {
  COMMITTED: 'Committed',
  PENDING: 'Committing…',
  SKIPPED_DIRTY: 'Not committed: your uncommitted changes were in the way',
  SKIPPED_BUSY: 'Not committed: a git operation was in progress',
  SKIPPED_UNATTRIBUTED: 'Not committed: the changes could not be told apart from yours',
  NOTHING: 'Nothing to commit',
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

function Patch({ text, path }: { text: string; path: string | null }) {
  const lines = text.split('\n');
  const highlight = useHighlight(path, lines.length);
  return (
    <pre className="diff patch">
      {lines.map((line, i) => (
        <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'diff-add' : line.startsWith('-') && !line.startsWith('---') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : 'diff-ctx'}>
          {patchLine(line, highlight)}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** The patch side by side: the old file's lines left, the new file's right (splitRows). */
function SplitPatch({ text, path }: { text: string; path: string | null }) {
  const rows = splitRows(text);
  const highlight = useHighlight(path, rows.length);
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
  return (
    <div className="patch">
      <table className="diff split">
        <tbody>
          {rows.map((row, i) =>
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
          )}
        </tbody>
      </table>
    </div>
  );
}

export type DiffLayout = 'unified' | 'split';

function Files({ commit, label, layout }: { commit: CodeDiffFieldsFragment; label: string; layout: DiffLayout }) {
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
          <li key={file.path}>
            <details open={(file.patch?.split('\n').length ?? 0) <= LONG}>
              <summary>
                <span className={`change-status change-${file.status.toLowerCase()}`}>{file.status.toLowerCase()}</span>{' '}
                <code>{file.oldPath && file.oldPath !== file.path ? `${file.oldPath} → ${file.path}` : file.path}</code>{' '}
                <span className="added">+{file.additions}</span> <span className="deleted">−{file.deletions}</span>
              </summary>
              {file.patch == null ? (
                <p className="muted">Binary file: no patch.</p>
              ) : layout === 'split' ? (
                <SplitPatch text={file.patch} path={colour ? file.path : null} />
              ) : (
                <Patch text={file.patch} path={colour ? file.path : null} />
              )}
              {file.truncated && <p className="muted">The patch is cut at 256 KiB.</p>}
            </details>
          </li>
        ))}
      </ul>
    </>
  );
}

export function CodeChanges({ sessionId, sha, projectId, version }: { sessionId: string; sha: string | null; projectId: string; version: number }) {
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
            {RESULT_TEXT[outcome.result] ?? outcome.result}
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
          {outcome.commit && <Files commit={outcome.commit} label="Commit" layout={layout} />}
          {!outcome.commit && outcome.snapshot && <Files commit={outcome.snapshot} label="Kept on a private snapshot" layout={layout} />}
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
