// @vitest-environment jsdom
import { CombinedError } from 'urql';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { agentSessionOf, isAgentCommit } from './commits';
import { fieldErrorsFromServer, suggestedName, validateNewProject } from './form';

describe('the New project form rules', () => {
  it('refuses an empty folder and an empty name', () => {
    const errors = validateNewProject({ folder: '  ', name: '' });
    expect(errors.folder).toMatch(/absolute path/);
    expect(errors.name).toMatch(/name/);
  });

  it('refuses a relative folder, and accepts absolute POSIX and Windows paths', () => {
    expect(validateNewProject({ folder: 'code/app', name: 'app' }).folder).toMatch(/relative path/);
    expect(validateNewProject({ folder: './app', name: 'app' }).folder).toMatch(/relative path/);
    expect(validateNewProject({ folder: '/home/me/app', name: 'app' })).toEqual({});
    expect(validateNewProject({ folder: 'C:\\code\\app', name: 'app' })).toEqual({});
  });

  it('suggests the folder name as the project name', () => {
    expect(suggestedName('/home/me/code/my-app/')).toBe('my-app');
  });

  it('puts server errors next to their field', () => {
    const error = new CombinedError({
      graphQLErrors: [
        new GraphQLError('workdir /tmp/x is outside the allowed roots', { extensions: { code: 'FORBIDDEN', field: 'workdir' } }),
        new GraphQLError('name must not be empty.', { extensions: { code: 'BAD_USER_INPUT', field: 'name' } }),
      ],
    });
    expect(fieldErrorsFromServer(error)).toEqual({ folder: 'workdir /tmp/x is outside the allowed roots', name: 'name must not be empty.' });
  });

  it('puts a CONFLICT (already a project) at the folder, and the rest on the form', () => {
    const conflict = new CombinedError({ graphQLErrors: [new GraphQLError('/w is already the project p1', { extensions: { code: 'CONFLICT', projectId: 'p1' } })] });
    expect(fieldErrorsFromServer(conflict)).toEqual({ folder: '/w is already the project p1' });
    const other = new CombinedError({ graphQLErrors: [new GraphQLError('boom', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })] });
    expect(fieldErrorsFromServer(other)).toEqual({ form: 'boom' });
  });
});

describe("telling the agent's commits apart", () => {
  const you = { email: 'me@example.com' };
  const agent = { email: 'agent@openprogram.invalid' };

  it('knows an end-of-turn commit by its trailer, prefix or author', () => {
    const message = '[agent s-1] turn 2: fix it\n\nSession-Id: s-1\nTurn: 2\n';
    expect(agentSessionOf({ message, author: you, committer: you })).toBe('s-1');
    expect(isAgentCommit({ message: '[agent s-2] restore to turn 1', author: you, committer: you })).toBe(true);
    expect(isAgentCommit({ message: 'something', author: agent, committer: agent })).toBe(true);
  });

  it("takes the user's commits as theirs", () => {
    expect(isAgentCommit({ message: 'Refactor [agent] naming\n\nSession-Id mentioned in prose', author: you, committer: you })).toBe(false);
  });
});
