/**
 * The New project dialog (ui.md: dialog "New project" with Folder, Name, Commit existing
 * files, Create project). Paths that cannot work are refused here; what only the server
 * knows (the folder exists, lies inside the allowed roots, is no project yet) comes back
 * as a GraphQL error shown beside its field, with the server's own advice. Opened over a
 * session page, it offers to add that session to the new project.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { createPortal } from 'react-dom';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';
import { parseRoute, usePathname } from '../../lib/router';
import { fieldErrorsFromServer, suggestedName, validateNewProject, type FieldErrors } from './form';

const CreateProjectMutation = graphql(`
  mutation CreateProjectFromUi($input: CreateProjectInput!) {
    createProject(input: $input) {
      id
      projectId
      name
    }
  }
`);

const AddSessionMutation = graphql(`
  mutation AddSessionToProjectFromUi($input: AddSessionToProjectInput!) {
    addSessionToProject(input: $input) {
      id
      sessionId
      project {
        projectId
      }
    }
  }
`);

const CurrentSessionQuery = graphql(`
  query NewProjectCurrentSession($sessionId: String!) {
    session(sessionId: $sessionId) {
      id
      sessionId
      title
      project {
        projectId
        name
      }
    }
  }
`);

export interface CreatedProject {
  projectId: string;
  name: string;
  /** Set when the project was made but the session could not join it. */
  joinError?: string;
}

export function NewProjectDialog({ onClose, onCreated }: { onClose: () => void; onCreated: (project: CreatedProject) => void }) {
  const route = parseRoute(usePathname());
  const sessionId = route.name === 'session' ? route.sessionId : undefined;
  const [{ data: sessionData }] = useQuery({ query: CurrentSessionQuery, variables: { sessionId: sessionId ?? '' }, pause: !sessionId });
  const session = sessionId ? sessionData?.session : undefined;
  const canJoin = Boolean(session && !session.project);

  const [folder, setFolder] = useState('');
  const [name, setName] = useState('');
  const [nameEdited, setNameEdited] = useState(false);
  const [initialCommit, setInitialCommit] = useState(false);
  const [join, setJoin] = useState(true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [, createProject] = useMutation(CreateProjectMutation);
  const [, addSession] = useMutation(AddSessionMutation);
  const [busy, setBusy] = useState(false);

  const titleId = useId();
  const ids = { folder: useId(), name: useId(), commit: useId(), help: useId() };
  const folderInput = useRef<HTMLInputElement>(null);
  // Focus the first field; give focus back to what had it (the New project button) on close.
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    folderInput.current?.focus();
    return () => opener?.focus();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local = validateNewProject({ folder, name });
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    setBusy(true);
    const created = await createProject({ input: { workdir: folder.trim(), name: name.trim(), initialCommit } });
    if (created.error || !created.data) {
      setBusy(false);
      setErrors(created.error ? fieldErrorsFromServer(created.error) : { form: 'The server gave no answer.' });
      return;
    }
    const project = created.data.createProject;
    let joinError: string | undefined;
    if (canJoin && join && session) {
      const joined = await addSession({ input: { projectId: project.projectId, sessionId: session.sessionId } });
      if (joined.error) joinError = joined.error.graphQLErrors[0]?.message ?? joined.error.message;
    }
    setBusy(false);
    onCreated({ projectId: project.projectId, name: project.name, joinError });
  };

  const keyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
    }
  };

  const described = (field: keyof typeof ids, error?: string) => ({
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? `${ids[field]}-error` : undefined,
  });

  // Rendered at the end of the body, outside the sidebar's navigation landmark.
  return createPortal(
    <div className="dialog-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={ids.help} className="dialog" onKeyDown={keyDown}>
        <h2 id={titleId}>New project</h2>
        <form onSubmit={submit} noValidate>
          <p id={ids.help} className="muted help">
            The folder must exist on the server's machine, inside its allowed roots. An existing repo is used as it is;
            otherwise git init runs.
          </p>
          <div className="field">
            <label htmlFor={ids.folder}>Folder</label>
            <input
              id={ids.folder}
              ref={folderInput}
              type="text"
              value={folder}
              placeholder="/home/you/code/my-project"
              spellCheck={false}
              autoComplete="off"
              onChange={(event) => {
                setFolder(event.target.value);
                if (!nameEdited) setName(suggestedName(event.target.value));
              }}
              {...described('folder', errors.folder)}
            />
            {errors.folder && (
              <p id={`${ids.folder}-error`} className="field-error">
                {errors.folder}
              </p>
            )}
          </div>
          <div className="field">
            <label htmlFor={ids.name}>Name</label>
            <input
              id={ids.name}
              type="text"
              value={name}
              onChange={(event) => {
                setName(event.target.value);
                setNameEdited(true);
              }}
              {...described('name', errors.name)}
            />
            {errors.name && (
              <p id={`${ids.name}-error`} className="field-error">
                {errors.name}
              </p>
            )}
          </div>
          <div className="field checkbox">
            <input
              id={ids.commit}
              type="checkbox"
              checked={initialCommit}
              onChange={(event) => setInitialCommit(event.target.checked)}
              {...described('commit', errors.initialCommit)}
            />
            <label htmlFor={ids.commit}>Commit existing files</label>
            <p className="muted help">
              Only when git init runs: one first commit of the folder's files, in your name. Without it the agent's edits are not
              committed until you make a first commit yourself.
            </p>
            {errors.initialCommit && (
              <p id={`${ids.commit}-error`} className="field-error">
                {errors.initialCommit}
              </p>
            )}
          </div>
          {canJoin && session && (
            <div className="field checkbox">
              <label>
                <input type="checkbox" checked={join} onChange={(event) => setJoin(event.target.checked)} /> Add session{' '}
                {session.title || session.sessionId} to this project
              </label>
            </div>
          )}
          {errors.form && (
            <p role="alert" className="field-error">
              {errors.form}
            </p>
          )}
          <div className="dialog-actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy}>
              Create project
            </button>
          </div>
        </form>
      </div>
    </div>,
    document.body,
  );
}
