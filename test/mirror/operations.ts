import { graphql } from '../graphql/index.js';

export const MirrorView = graphql(`
  query MirrorView($sessionId: String!) {
    session(sessionId: $sessionId) {
      repoPath
      mirror {
        dagTurns
        gitCommits
        pending
        inSync
        lastError
        lastCommittedAt
      }
      turns(first: 500) {
        edges {
          node {
            number
            mirrorState
            commit {
              sha
            }
          }
        }
      }
    }
  }
`);

export const Timeline = graphql(`
  query Timeline($sessionId: String!, $first: Int, $after: String, $all: Boolean) {
    session(sessionId: $sessionId) {
      timeline(first: $first, after: $after, all: $all) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            sha
            shortSha
            headline
            message
            author {
              name
              email
              date
            }
            parents {
              sha
            }
            turn {
              number
            }
          }
        }
      }
    }
  }
`);

export const CommitDetail = graphql(`
  query CommitDetail($sessionId: String!, $sha: String!, $path: String!) {
    session(sessionId: $sessionId) {
      commit(sha: $sha) {
        sha
        turn {
          number
        }
        messages {
          messageId
          seq
        }
        files {
          path
          size
        }
        diff {
          base {
            sha
          }
          additions
          deletions
          files {
            path
            status
            additions
            deletions
            patch
          }
        }
        file(path: $path) {
          path
          size
          text
          isBinary
        }
      }
    }
  }
`);

export const TurnCommitted = graphql(`
  subscription TurnCommitted($sessionId: String) {
    turnCommitted(sessionId: $sessionId) {
      session {
        sessionId
      }
      turn {
        number
        mirrorState
      }
      commit {
        sha
        headline
      }
    }
  }
`);

export const MirrorFailed = graphql(`
  subscription MirrorFailed($sessionId: String) {
    mirrorFailed(sessionId: $sessionId) {
      session {
        sessionId
      }
      turnNumber
      error
      willRetry
    }
  }
`);
