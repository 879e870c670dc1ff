import { graphql } from '../graphql/index.js';

export const SecCreateProject = graphql(`
  mutation SecCreateProject($input: CreateProjectInput!) {
    createProject(input: $input) {
      projectId
      workdir
      workingTree {
        isRepo
        clean
        branch
        dirtyPaths
      }
      autoCommit {
        state
        unsafeKeys
        message
      }
    }
  }
`);

export const SecImportProjects = graphql(`
  mutation SecImportProjects($input: ImportProjectsInput!) {
    importProjects(input: $input) {
      projectId
      workdir
      autoCommit {
        state
        unsafeKeys
        message
      }
    }
  }
`);

export const SecUpdateProject = graphql(`
  mutation SecUpdateProject($input: UpdateProjectInput!) {
    updateProject(input: $input) {
      projectId
      autoCommit {
        state
        unsafeKeys
        message
      }
    }
  }
`);

/** Every read of a project that reaches git: status, log (with signatures to verify), diffs and files. */
export const SecProject = graphql(`
  query SecProject($projectId: String!) {
    project(projectId: $projectId) {
      projectId
      autoCommit {
        state
        unsafeKeys
        message
      }
      workingTree {
        isRepo
        clean
        branch
        dirtyPaths
      }
      history(first: 3) {
        edges {
          node {
            sha
            headline
            parentShas
            diff {
              files {
                path
                patch
              }
            }
            files {
              path
            }
            file(path: "a.txt") {
              text
            }
          }
        }
      }
    }
  }
`);

/** What each turn did in its project, with the commit's fields (log, diff, files) read from the project repo. */
export const SecTurnCommits = graphql(`
  query SecTurnCommits($sessionId: String!) {
    session(sessionId: $sessionId) {
      turns(first: 5) {
        edges {
          node {
            number
            projectCommit {
              result
              message
              dirtyPaths
              commit {
                sha
                headline
                diff {
                  files {
                    path
                    patch
                  }
                }
                files {
                  path
                }
                file(path: "a.txt") {
                  text
                }
              }
            }
          }
        }
      }
    }
  }
`);
