/**
 * The shell: the sidebar (the search field, Sessions, Projects) and the page the address bar names.
 */
import { BranchesPanel } from '../features/branches/BranchesPanel';
import { BlameView } from '../features/projects/BlameView';
import { DirtyTreeBanner } from '../features/projects/DirtyTreeBanner';
import { ProjectPage } from '../features/projects/ProjectPage';
import { ProjectsNav } from '../features/projects/ProjectsNav';
import { SessionPage } from '../features/replay/SessionPage';
import { SearchBox } from '../features/search/SearchBox';
import { SearchPage } from '../features/search/SearchPage';
import { SessionsNav } from '../features/sessions/SessionsNav';
import { Link } from '../lib/Link';
import { parseRoute, usePathname } from '../lib/router';

export function App() {
  const route = parseRoute(usePathname());
  return (
    <div className="shell">
      <aside className="sidebar">
        <Link href="/" className="brand">
          entity-memory
        </Link>
        <SearchBox />
        <SessionsNav currentSessionId={route.name === 'session' ? route.sessionId : undefined} />
        <ProjectsNav currentProjectId={route.name === 'project' || route.name === 'blame' ? route.projectId : undefined} />
        <a className="muted" href="/graphql">
          GraphiQL
        </a>
      </aside>
      <div className="page">
      <DirtyTreeBanner />
      {route.name === 'session' && <SessionPage key={route.sessionId} sessionId={route.sessionId} Branches={BranchesPanel} />}
      {route.name === 'project' && <ProjectPage key={route.projectId} projectId={route.projectId} />}
      {route.name === 'search' && <SearchPage />}
      {route.name === 'blame' && <BlameView key={route.projectId} projectId={route.projectId} />}
      {route.name === 'home' && (
        <main className="empty">
          <h1>entity-memory</h1>
          <p>Pick a session to replay it turn by turn, or a project to see its history.</p>
        </main>
      )}
      {route.name === 'notFound' && (
        <main className="empty">
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <Link href="/">Back to the start</Link>
          </p>
        </main>
      )}
      </div>
    </div>
  );
}
