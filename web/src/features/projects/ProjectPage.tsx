/** Placeholder: one project's page. */
export function ProjectPage({ projectId }: { projectId: string }) {
  return (
    <main>
      <h1>{projectId}</h1>
    </main>
  );
}
