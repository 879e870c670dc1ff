import { graphql } from '../graphql/index.js';

export const CreateProject = graphql(`
  mutation CreateProject($input: CreateProjectInput!) {
    createProject(input: $input) {
      id
      projectId
      name
      description
      workdir
      status
      workingTree {
        isRepo
        clean
        branch
        dirtyPaths
      }
    }
  }
`);

export const UpdateProject = graphql(`
  mutation UpdateProject($input: UpdateProjectInput!) {
    updateProject(input: $input) {
      projectId
      name
      description
      status
    }
  }
`);

export const AddSessionToProject = graphql(`
  mutation AddSessionToProject($input: AddSessionToProjectInput!) {
    addSessionToProject(input: $input) {
      sessionId
      project {
        projectId
      }
    }
  }
`);

export const ImportProjects = graphql(`
  mutation ImportProjects($input: ImportProjectsInput!) {
    importProjects(input: $input) {
      projectId
      name
      workdir
    }
  }
`);

export const ProjectView = graphql(`
  query ProjectView($projectId: String!) {
    project(projectId: $projectId) {
      projectId
      name
      status
      workdir
      sessions(first: 20) {
        totalCount
        edges {
          node {
            sessionId
          }
        }
      }
      history(first: 20) {
        totalCount
        edges {
          node {
            sha
            headline
            author {
              name
              email
            }
            committer {
              name
              email
            }
            diff {
              files {
                path
                status
              }
            }
          }
        }
      }
      workingTree {
        isRepo
        clean
        branch
        dirtyPaths
      }
    }
  }
`);

export const Projects = graphql(`
  query Projects($first: Int, $after: String, $status: ProjectStatus) {
    projects(first: $first, after: $after, status: $status) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          projectId
          name
        }
      }
    }
  }
`);

export const TurnOutcomes = graphql(`
  query TurnOutcomes($sessionId: String!) {
    session(sessionId: $sessionId) {
      turns(first: 10) {
        edges {
          node {
            number
            projectCommit {
              result
              dirtyPaths
              message
              commit {
                sha
                headline
              }
            }
          }
        }
      }
    }
  }
`);

export const DirtyWarnings = graphql(`
  subscription DirtyWarnings($projectId: String) {
    dirtyTreeWarning(projectId: $projectId) {
      project {
        projectId
      }
      session {
        sessionId
      }
      turnNumber
      dirtyPaths
      message
      at
    }
  }
`);

export const ProjectCommits = graphql(`
  subscription ProjectCommits($projectId: String) {
    projectCommitted(projectId: $projectId) {
      project {
        projectId
      }
      session {
        sessionId
      }
      turnNumber
      commit {
        sha
        headline
      }
    }
  }
`);
