/**
 * What the viewed commit changed (ui.md: region "Changes"): each file with its status and
 * +/- counts. Patches are read only once a file is opened, all of the commit's at once
 * (git makes them in one process), and kept while the same commit is viewed.
 */
import { useEffect, useState, type SyntheticEvent } from 'react';
import { useClient } from 'urql';
import { CommitChangesQuery, CommitPatchesQuery } from './operations';
import { useFetch } from './useFetch';

type Patches = Map<string, { patch: string | null; truncated: boolean }>;

export function Changes({ sessionId, sha }: { sessionId: string; sha: string | null }) {
  const client = useClient();
  // A commit's changes never change: read once per viewed commit.
  const changes = useFetch(CommitChangesQuery, { sessionId, sha: sha ?? '' }, { pause: !sha, requestPolicy: 'cache-first' });
  const data = changes.data?.session?.commit?.sha === sha ? changes.data : null;
  const error = changes.error;
  const [patches, setPatches] = useState<{ sha: string; files: Patches } | 'loading' | null>(null);
  const [patchError, setPatchError] = useState<string | null>(null);
  useEffect(() => {
    setPatches(null);
    setPatchError(null);
  }, [sha]);

  const loadPatches = (event: SyntheticEvent<HTMLDetailsElement>) => {
    if (!sha || !event.currentTarget.open || patches !== null) return;
    setPatches('loading');
    client
      .query(CommitPatchesQuery, { sessionId, sha }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        const files = result.data?.session?.commit?.diff.files;
        if (result.error || !files) throw result.error ?? new Error('The commit is gone.');
        setPatches({ sha, files: new Map(files.map((file) => [file.path, { patch: file.patch ?? null, truncated: file.truncated }])) });
      })
      .catch((reason: unknown) => {
        setPatches(null);
        setPatchError(reason instanceof Error ? reason.message : String(reason));
      });
  };

  const commit = data?.session?.commit;
  const current = patches !== null && patches !== 'loading' && patches.sha === sha ? patches.files : null;
  return (
    <section aria-label="Changes" className="changes panel">
      <h2>Changes</h2>
      {!sha && <p className="muted">No commit to show.</p>}
      {error && <p role="alert">The changes could not be loaded: {error}</p>}
      {patchError && <p role="alert">The patches could not be loaded: {patchError}</p>}
      {sha && !commit && !error && <p className="muted">Loading…</p>}
      {commit && (
        <>
          <p className="muted">
            {commit.diff.files.length} files, <span className="added">+{commit.diff.additions}</span>{' '}
            <span className="deleted">−{commit.diff.deletions}</span>
          </p>
          <ul className="change-list">
            {commit.diff.files.map((file) => {
              const patch = current?.get(file.path);
              return (
                <li key={file.path}>
                  <details onToggle={loadPatches}>
                    <summary>
                      <span className={`change-status change-${file.status.toLowerCase()}`}>{file.status.toLowerCase()}</span>{' '}
                      <code>{file.oldPath && file.oldPath !== file.path ? `${file.oldPath} → ${file.path}` : file.path}</code>{' '}
                      <span className="added">+{file.additions}</span> <span className="deleted">−{file.deletions}</span>
                    </summary>
                    {patches === 'loading' && <p className="muted">Loading the patch…</p>}
                    {current && (patch?.patch != null ? <pre className="patch">{patch.patch}</pre> : <p className="muted">Binary file: no patch.</p>)}
                    {patch?.truncated && <p className="muted">The patch is cut at 256 KiB.</p>}
                  </details>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
