/**
 * The Branches panel of a session (ui.md): the branch graph and the Branch switch, kept
 * live by useBranchGraph. Both only move what this page shows: the session's own branch (where
 * the agent's next message goes) is not changed here (the page's "Continue from here" does that).
 * @param viewedSha the commit the page shows now, highlighted in the graph.
 * @param shownBranch the branch the page shows (selected in the Branch switch).
 * @param onView called with a commit's sha and its lane when the user activates it in the graph.
 * @param onBranch called with the branch the user picks in the Branch switch.
 */
import { BranchGraph } from './BranchGraph';
import { BranchSwitch } from './BranchSwitch';
import { useBranchGraph } from './useBranchGraph';
import './branches.css';

export function BranchesPanel({
  sessionId,
  viewedSha,
  shownBranch,
  onView,
  onBranch,
}: {
  sessionId: string;
  viewedSha?: string;
  shownBranch: string;
  onView: (sha: string, branch: string) => void;
  onBranch: (branch: string) => void;
}) {
  const { branches, missing, error } = useBranchGraph(sessionId);
  return (
    <section className="branches-panel">
      <h2>Branches</h2>
      {error && <p role="alert">Branches could not be loaded: {error}</p>}
      {missing && <p className="muted">No such session.</p>}
      {branches && <BranchSwitch names={branches.map((b) => b.name)} shown={shownBranch} onChoose={onBranch} />}
      {branches ? <BranchGraph branches={branches} viewedSha={viewedSha} onView={onView} /> : !missing && !error && <p className="muted">Loading branches…</p>}
    </section>
  );
}
