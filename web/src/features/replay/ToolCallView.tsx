/**
 * An agent's tool call as its own UI shows it (tools.ts says what it is): an edit or a new file as
 * a diff with its counts, a patch as coloured lines, a shell call as its command, a read as the
 * path and line range, a search as its pattern; anything else as pretty JSON. Long bodies start
 * collapsed.
 */
import { useContext } from 'react';
import { useHighlight } from '../../lib/highlight';
import { ProjectRoot } from './project-root';
import { describeCall, patchFiles, patchLines, relativePath, type CallView, type DiffLine, type ToolCall } from './tools';

/** Lines past which a body starts collapsed. */
const LONG = 40;

function Diff({ lines, path }: { lines: readonly DiffLine[]; path?: string }) {
  const highlight = useHighlight(path, lines.length);
  return (
    <pre className="diff">
      {lines.map((line, i) => (
        <span key={i} className={line.sign === '+' ? 'diff-add' : line.sign === '-' ? 'diff-del' : 'diff-ctx'}>
          {line.sign}
          {highlight ? highlight(line.text) : line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function Collapsible({ summary, long, children }: { summary: React.ReactNode; long: boolean; children: React.ReactNode }) {
  return (
    <details className="tool-call-body" open={!long}>
      <summary>{summary}</summary>
      {children}
    </details>
  );
}

function Body({ view }: { view: CallView }) {
  const root = useContext(ProjectRoot);
  switch (view.kind) {
    case 'edit':
    case 'write':
      return (
        <Collapsible
          long={view.lines.length > LONG}
          summary={
            <>
              <code className="path" title={view.path}>
                {relativePath(view.path, root)}
              </code>{' '}
              <span className="diff-add">+{view.added}</span> <span className="diff-del">−{view.removed}</span>
            </>
          }
        >
          <Diff lines={view.lines} path={view.path} />
        </Collapsible>
      );
    case 'patch': {
      const lines = patchLines(view.text);
      const files = patchFiles(view.text);
      return (
        <Collapsible
          long={lines.length > LONG}
          summary={
            <>
              {files.length > 0 ? <code className="path">{files.join(', ')}</code> : 'patch'} <span className="diff-add">+{lines.filter((l) => l.sign === '+').length}</span>{' '}
              <span className="diff-del">−{lines.filter((l) => l.sign === '-').length}</span>
            </>
          }
        >
          <Diff lines={lines} path={files.length === 1 ? files[0]!.split(' → ').at(-1) : undefined} />
        </Collapsible>
      );
    }
    case 'shell':
      return (
        <>
          {view.description && <p className="muted tool-description">{view.description}</p>}
          <pre className="shell-command">
            <span className="prompt">$ </span>
            {view.command}
          </pre>
        </>
      );
    case 'read':
      return (
        <p>
          <code className="path" title={view.path}>
            {relativePath(view.path, root)}
          </code>
          {view.range && <span className="muted"> ({view.range})</span>}
        </p>
      );
    case 'search':
      return (
        <p>
          <code>{view.pattern}</code>
          {view.where && (
            <span className="muted">
              {' '}
              in <code>{relativePath(view.where, root)}</code>
            </span>
          )}
        </p>
      );
    case 'json':
      return (
        <Collapsible long={view.text.split('\n').length > LONG} summary="input">
          <pre className="tool-input">{view.text}</pre>
        </Collapsible>
      );
  }
}

/** @param failed its result says it failed (an edit shown here that was never made, a command that exited non-zero). */
export function ToolCallView({ call, anchor, failed = false }: { call: ToolCall; anchor?: string; failed?: boolean }) {
  const view = describeCall(call);
  return (
    <div className={`tool-call tool-call-${view.kind}${failed ? ' tool-call-failed' : ''}`} id={anchor} role="group" aria-label={`Tool call: ${call.name}`}>
      <div className="tool-call-name">
        {call.name}
        {failed && <span className="tool-failed"> failed</span>}
      </div>
      <Body view={view} />
    </div>
  );
}
