/**
 * What the MCP tools and resources read and write, as GraphQL operations against the served
 * schema (schema.graphql): the tools answer exactly what the API answers, through the same
 * resolvers, validation and errors. `npm run codegen` types them in src/mcp/gql/.
 */
import { graphql } from './gql/index.js';

export const SearchQuery = graphql(`
  query McpSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {
    search(query: $query, filter: $filter, first: $first, after: $after) {
      totalCount
      rankedMatches
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        cursor
        node {
          turnNumber
          snippet
          session {
            sessionId
            title
          }
          message {
            messageId
            role
            toolName
            createdAt
          }
        }
      }
    }
  }
`);

export const SessionsQuery = graphql(`
  query McpSessions($first: Int, $after: String, $agent: String, $projectId: String, $startedAfter: DateTime) {
    sessions(first: $first, after: $after, agent: $agent, projectId: $projectId, startedAfter: $startedAfter) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        cursor
        node {
          ...McpSessionSummary
        }
      }
    }
  }
`);

export const SessionSummaryFields = graphql(`
  fragment McpSessionSummary on Session {
    sessionId
    title
    agentId
    source
    createdAt
    lastActivityAt
    currentBranch
    turnCount: turns(first: 0) {
      totalCount
    }
    project {
      projectId
      name
    }
  }
`);

export const TurnFields = graphql(`
  fragment McpTurn on Turn {
    number
    branch
    open
    messages {
      ...McpTurnMessage
    }
    projectCommit {
      result
      reason
      message
      paths
      dirtyPaths
      commitSha
      snapshotSha
      commit {
        ...McpChangedFiles
      }
      snapshot {
        ...McpChangedFiles
      }
    }
  }
`);

export const TurnMessageFields = graphql(`
  fragment McpTurnMessage on Message {
    role
    content
    toolName
    toolCallId
    metadata
  }
`);

export const ChangedFilesFields = graphql(`
  fragment McpChangedFiles on Commit {
    diff {
      files {
        path
        status
        additions
        deletions
      }
    }
  }
`);

/** One turn of a session's current branch: `after` the cursor of the turn before it (none for the first), or `last: 1` for the latest. */
export const TurnQuery = graphql(`
  query McpTurn($sessionId: String!, $after: String, $first: Int, $last: Int) {
    session(sessionId: $sessionId) {
      ...McpSessionSummary
      turns(after: $after, first: $first, last: $last) {
        edges {
          node {
            ...McpTurn
          }
        }
      }
    }
  }
`);

/** The project commit's (or snapshot's) changed files of one turn, with or without patches. */
export const TurnDiffQuery = graphql(`
  query McpTurnDiff($sessionId: String!, $after: String, $first: Int, $last: Int, $withPatches: Boolean!) {
    session(sessionId: $sessionId) {
      sessionId
      project {
        projectId
        workdir
      }
      turns(after: $after, first: $first, last: $last) {
        edges {
          node {
            number
            projectCommit {
              result
              reason
              commit {
                ...McpCommitDiff
              }
              snapshot {
                ...McpCommitDiff
              }
            }
          }
        }
      }
    }
  }
`);

export const CommitDiffFields = graphql(`
  fragment McpCommitDiff on Commit {
    sha
    diff {
      additions
      deletions
      files {
        path
        oldPath
        status
        additions
        deletions
        patch @include(if: $withPatches)
        truncated
      }
    }
  }
`);

/** The turns up to one (`before` the cursor of the turn after it), newest last: where its project state was recorded. */
export const TurnStatesQuery = graphql(`
  query McpTurnStates($sessionId: String!, $before: String, $last: Int!) {
    session(sessionId: $sessionId) {
      sessionId
      project {
        projectId
        workdir
      }
      turns(before: $before, last: $last) {
        edges {
          node {
            number
            projectCommit {
              result
              commitSha
              snapshotSha
            }
          }
        }
      }
    }
  }
`);

export const FileAtQuery = graphql(`
  query McpFileAt($sessionId: String!, $after: String, $path: String!) {
    session(sessionId: $sessionId) {
      turns(after: $after, first: 1) {
        edges {
          node {
            number
            projectCommit {
              commit {
                sha
                file(path: $path) {
                  ...McpBlob
                }
              }
              snapshot {
                sha
                file(path: $path) {
                  ...McpBlob
                }
              }
            }
          }
        }
      }
    }
  }
`);

export const BlobFields = graphql(`
  fragment McpBlob on Blob {
    path
    size
    isBinary
    truncated
    text
  }
`);

export const ProjectHistoryQuery = graphql(`
  query McpProjectHistory($projectId: String!, $first: Int, $after: String) {
    project(projectId: $projectId) {
      projectId
      name
      history(first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          cursor
          node {
            sha
            headline
            message
            author {
              name
              email
              date
            }
          }
        }
      }
    }
  }
`);

export const FileHistoryQuery = graphql(`
  query McpFileHistory($projectId: String!, $path: String!, $first: Int, $after: String) {
    project(projectId: $projectId) {
      projectId
      name
      fileHistory(path: $path, first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          cursor
          node {
            origin
            turnNumber
            session {
              sessionId
            }
            commit {
              sha
              headline
              author {
                name
                email
                date
              }
            }
          }
        }
      }
    }
  }
`);

export const RewindMutation = graphql(`
  mutation McpRewind($input: RewindInput!) {
    rewind(input: $input) {
      message
      dryRun
      turn
      undoTurn
      code {
        changes {
          path
          action
          conflict
        }
        conflicts
        result {
          result
          message
          paths
          commit {
            sha
          }
        }
      }
      conversation {
        branch
        laterTurns
        moved
        fromTurn {
          number
          branch
        }
      }
    }
  }
`);

/** Every project's id and folder: a tool's `project` may name either. */
export const ProjectsQuery = graphql(`
  query McpProjects {
    projects(first: 500) {
      edges {
        node {
          projectId
          name
          workdir
        }
      }
    }
  }
`);

/** A session's turns in order, for its resource: `after` the last one read. */
export const ConversationQuery = graphql(`
  query McpConversation($sessionId: String!, $first: Int!, $after: String) {
    session(sessionId: $sessionId) {
      ...McpSessionSummary
      turns(first: $first, after: $after) {
        pageInfo {
          hasNextPage
        }
        edges {
          node {
            number
            open
            messages {
              ...McpTurnMessage
            }
            projectCommit {
              result
              reason
              commitSha
            }
          }
        }
      }
    }
  }
`);
