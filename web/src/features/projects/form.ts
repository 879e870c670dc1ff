/**
 * The New project form's rules: what is refused before anything is sent, and where
 * a server error goes (its extensions.field names the input; a CONFLICT, an existing
 * project over the folder, belongs to the folder).
 */
import type { CombinedError } from 'urql';

export type FormField = 'folder' | 'name' | 'initialCommit' | 'form';

export type FieldErrors = Partial<Record<FormField, string>>;

export interface NewProjectValues {
  folder: string;
  name: string;
}

/** An absolute path: /… on POSIX, C:\… or \\server\… on Windows. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\');
}

export function validateNewProject(values: NewProjectValues): FieldErrors {
  const errors: FieldErrors = {};
  const folder = values.folder.trim();
  if (folder === '') errors.folder = 'Enter the folder of the project, as an absolute path like /home/you/code/my-project.';
  else if (!isAbsolutePath(folder)) errors.folder = `"${folder}" is a relative path: enter the absolute path, like /home/you/${folder.replace(/^\.?\/*/, '')}.`;
  if (values.name.trim() === '') errors.name = 'Enter a name for the project.';
  return errors;
}

/** The name a folder suggests for its project: its last segment. */
export function suggestedName(folder: string): string {
  return folder.trim().replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? '';
}

const FIELD_OF_INPUT: Record<string, FormField> = { workdir: 'folder', name: 'name', initialCommit: 'initialCommit' };

/** Puts each GraphQL error of a failed createProject next to the field it is about. */
export function fieldErrorsFromServer(error: CombinedError): FieldErrors {
  if (error.graphQLErrors.length === 0) return { form: error.networkError ? `The server could not be reached: ${error.networkError.message}` : error.message };
  const errors: FieldErrors = {};
  for (const graphQLError of error.graphQLErrors) {
    const { code, field } = graphQLError.extensions as { code?: string; field?: string };
    let target: FormField = (field && FIELD_OF_INPUT[field]) || 'form';
    if (target === 'form' && (code === 'CONFLICT' || code === 'FORBIDDEN')) target = 'folder';
    errors[target] = errors[target] ? `${errors[target]} ${graphQLError.message}` : graphQLError.message;
  }
  return errors;
}
