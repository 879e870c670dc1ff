/**
 * The shell: the sidebar (the search field, Sessions, Projects) and the page the address bar names.
 */
import { lazy, Suspense, useCallback, useState, type ComponentProps, type ComponentType } from 'react';
import { DirtyTreeBanner } from '../features/projects/DirtyTreeBanner';
import { ProjectsNav } from '../features/projects/ProjectsNav';
import { DiskUsage } from './DiskUsage';
import { SessionPage } from '../features/replay/SessionPage';
import { SearchBox } from '../features/search/SearchBox';
import { SessionsNav } from '../features/sessions/SessionsNav';
import { loadedOr } from '../lib/lazy';
import { Link } from '../lib/Link';
import { usePageSettled } from '../lib/page-settled';
import { parseRoute, usePathname } from '../lib/router';

/** Shown in place of a page whose code could not be loaded (the server restarted with a new build, say). */
function NotLoaded() {
  return (
    <main className="empty">
      <h1>This page could not be loaded</h1>
      <p>Reload the page to try again.</p>
    </main>
  );
}

/** A component loaded when first shown (React.lazy), `fallback` in its place when its code cannot be loaded. */
function loadedWhenShown<P extends object>(load: () => Promise<ComponentType<P>>, fallback: ComponentType<P>) {
  return lazy(() => loadedOr(() => load().then((component) => ({ default: component })), fallback));
}

// The pages other than a session's, and the session page's branch panel (shown once the timeline
// is in), load when first shown: a session page's cold open compiles less of the app first.
const ProjectPage = loadedWhenShown(() => import('../features/projects/ProjectPage').then((m) => m.ProjectPage), NotLoaded);
const BlameView = loadedWhenShown(() => import('../features/projects/BlameView').then((m) => m.BlameView), NotLoaded);
const SearchPage = loadedWhenShown(() => import('../features/search/SearchPage').then((m) => m.SearchPage), NotLoaded);
type BranchesProps = ComponentProps<ComponentProps<typeof SessionPage>['Branches']>;
const LazyBranchesPanel = loadedWhenShown<BranchesProps>(() => import('../features/branches/BranchesPanel').then((m) => m.BranchesPanel), () => null);
/** The branch panel in a boundary of its own: while it loads, the rest of the session page stays. */
function BranchesPanel(props: BranchesProps) {
  return (
    <Suspense fallback={null}>
      <LazyBranchesPanel {...props} />
    </Suspense>
  );
}

export function App() {
  const route = parseRoute(usePathname());
  // On a session page, its own content first (lib/page-settled.ts).
  const sidebar = usePageSettled(route.name === 'session');
  // The Projects list comes in below the Sessions list once that is shown: a list loading above
  // another never moves what the reader is about to click.
  const [sessionsShown, setSessionsShown] = useState(false);
  const onSessionsShown = useCallback(() => setSessionsShown(true), []);
  return (
    <div className="shell">
      <aside className="sidebar">
        {/* GraphiQL beside the name, above everything that loads: the lists coming in never move it. */}
        <div className="sidebar-head">
          <Link href="/" className="brand">
            entity-memory
          </Link>
          <a className="muted" href="/graphql">
            GraphiQL
          </a>
        </div>
        <SearchBox />
        {sidebar && <SessionsNav currentSessionId={route.name === 'session' ? route.sessionId : undefined} onShown={onSessionsShown} />}
        {sidebar && sessionsShown && <ProjectsNav currentProjectId={route.name === 'project' || route.name === 'blame' ? route.projectId : undefined} />}
        {sidebar && <DiskUsage />}
      </aside>
      <div className="page">
      {sidebar && <DirtyTreeBanner />}
      {route.name === 'session' && <SessionPage key={route.sessionId} sessionId={route.sessionId} Branches={BranchesPanel} />}
      <Suspense fallback={<main className="empty" aria-busy="true" />}>
        {route.name === 'project' && <ProjectPage key={route.projectId} projectId={route.projectId} />}
        {route.name === 'search' && <SearchPage />}
        {route.name === 'blame' && <BlameView key={route.projectId} projectId={route.projectId} />}
      </Suspense>
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
