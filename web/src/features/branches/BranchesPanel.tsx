/**
 * Placeholder: the Branches graph and the Branch switch of one session (ui.md).
 * @param viewedSha the commit the session view shows now (its head), to highlight.
 * @param onView called with a commit's sha when the user clicks it in the graph.
 */
export function BranchesPanel({ sessionId, viewedSha }: { sessionId: string; viewedSha?: string; onView: (sha: string) => void }) {
  return <figure aria-label="Branches" data-session={sessionId} data-viewed={viewedSha} />;
}
