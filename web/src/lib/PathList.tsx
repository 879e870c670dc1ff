/** Paths of the user's repo named in a message (in the way, written, uncommitted): one per line, as code; nothing for none. */
export function PathList({ paths }: { paths: readonly string[] }) {
  if (paths.length === 0) return null;
  return (
    <ul className="paths">
      {paths.map((path) => (
        <li key={path}>
          <code>{path}</code>
        </li>
      ))}
    </ul>
  );
}

/** One path of a plan (a rewind's or a snapshot's apply): what happens to it, and whether the user's change is in the way. */
export interface PlannedChange {
  path: string;
  action: string;
  conflict: boolean;
}

/**
 * A plan's paths, each with what happens to it (`actionText`, by RewindPathAction) and, where the
 * user changed it since, `conflictText`; nothing for none.
 */
export function PlannedPaths({ changes, actionText, conflictText }: { changes: readonly PlannedChange[]; actionText: Record<string, string>; conflictText: string }) {
  if (changes.length === 0) return null;
  return (
    <ul className="paths">
      {changes.map((change) => (
        <li key={change.path} className={change.conflict ? 'conflict' : undefined}>
          <code>{change.path}</code> {actionText[change.action] ?? change.action.toLowerCase()}
          {change.conflict && <strong> — {conflictText}</strong>}
        </li>
      ))}
    </ul>
  );
}

/** The sentence under a plan whose paths the user changed: nothing is written while there are any. */
export function InTheWay({ paths }: { paths: readonly string[] }) {
  if (paths.length === 0) return null;
  return <p role="alert">Not possible while you have changes in {paths.join(', ')}: commit, stash or undo them first. Nothing was written.</p>;
}
