/**
 * The Branches panel of a session (ui.md): the branch graph and the Branch switch, kept
 * live by useBranchGraph.
 * @param viewedSha the commit the session view shows now, highlighted in the graph.
 * @param onView called with a commit's sha when the user activates it in the graph.
 */
import { BranchGraph } from './BranchGraph';
import { BranchSwitch } from './BranchSwitch';
import { useBranchGraph } from './useBranchGraph';
import './branches.css';

export function BranchesPanel({ sessionId, viewedSha, onView }: { sessionId: string; viewedSha?: string; onView: (sha: string) => void }) {
  const { branches, currentBranch, missing, error, refresh } = useBranchGraph(sessionId);
  return (
    <section className="branches-panel">
      <h2>Branches</h2>
      {error && <p role="alert">Branches could not be loaded: {error}</p>}
      {missing && <p className="muted">No such session.</p>}
      {branches && currentBranch !== undefined && (
        <BranchSwitch sessionId={sessionId} names={branches.map((b) => b.name)} current={currentBranch} onSwitched={refresh} />
      )}
      {branches ? <BranchGraph branches={branches} viewedSha={viewedSha} onView={onView} /> : !missing && !error && <p className="muted">Loading branches…</p>}
    </section>
  );
}
