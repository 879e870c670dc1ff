/** Placeholder: the sidebar's project list and the New project button. */
export function ProjectsNav({ currentProjectId }: { currentProjectId?: string }) {
  return (
    <nav aria-label="Projects" className="nav-list" data-current={currentProjectId}>
      <h2>Projects</h2>
    </nav>
  );
}
