/**
 * The GraphQL operations of the session page. The view of a session (its head, the
 * position, whether it is detached) is one fragment, selected by the page query and by
 * the mutations that move the head, so a move shows as soon as its mutation answers.
 */
import { graphql } from '../../gql';

export const SessionViewFields = graphql(`
  fragment SessionViewFields on Session {
    id
    sessionId
    title
    currentBranch
    detached
    project {
      id
      projectId
      name
      workdir
    }
    head {
      sha
      parentShas
      headline
      turn {
        number
        branch
        cursor
      }
    }
    turns(first: 0) {
      totalCount
    }
    archive {
      archivedAt
    }
    agentId
    source
    recording
    openTurn {
      number
    }
  }
`);

export const SessionPageQuery = graphql(`
  query SessionPage($sessionId: String!) {
    session(sessionId: $sessionId) {
      ...SessionViewFields
    }
  }
`);

export const ViewedCommitFields = graphql(`
  fragment ViewedCommitFields on Commit {
    sha
    parentShas
    headline
    turn {
      number
      branch
      cursor
    }
  }
`);

/**
 * Where this page is, which is its own business (the address bar's `branch` and `at`), never the
 * session's: the shown branch's tip and turn count, every branch's tip (to tell which one a
 * commit picked in the graph is the tip of), and the viewed commit when it is not a tip.
 */
export const ViewedQuery = graphql(`
  query ReplayViewed($sessionId: String!, $branch: String!, $sha: String!, $hasSha: Boolean!) {
    session(sessionId: $sessionId) {
      id
      turns(branch: $branch, first: 0) {
        totalCount
      }
      branches {
        name
        head {
          ...ViewedCommitFields
        }
      }
      commit(sha: $sha) @include(if: $hasSha) {
        ...ViewedCommitFields
      }
    }
  }
`);

/** The turn after the viewed one on the shown branch: only its commit, for "Next turn". */
export const NextTurnQuery = graphql(`
  query NextTurn($sessionId: String!, $branch: String!, $after: String!) {
    session(sessionId: $sessionId) {
      id
      turns(branch: $branch, after: $after, first: 1) {
        edges {
          cursor
          node {
            number
            commit {
              sha
              parentShas
            }
          }
        }
      }
    }
  }
`);

export const MirrorQuery = graphql(`
  query SessionMirror($sessionId: String!) {
    session(sessionId: $sessionId) {
      id
      mirror {
        inSync
        pending
        lastError
        dagTurns
        gitCommits
      }
    }
  }
`);

export const CheckoutMutation = graphql(`
  mutation ReplayCheckout($input: CheckoutInput!) {
    checkout(input: $input) {
      ...SessionViewFields
    }
  }
`);

export const SwitchBranchMutation = graphql(`
  mutation ReplaySwitchBranch($input: SwitchBranchInput!) {
    switchBranch(input: $input) {
      ...SessionViewFields
    }
  }
`);

export const SessionTimelineEvents = graphql(`
  subscription SessionTimelineEvents($sessionId: String!) {
    timeline(sessionId: $sessionId) {
      kind
      branch
    }
  }
`);

export const SessionMirrorFailed = graphql(`
  subscription SessionMirrorFailed($sessionId: String!) {
    mirrorFailed(sessionId: $sessionId) {
      error
      turnNumber
      willRetry
    }
  }
`);

export const MessageFields = graphql(`
  fragment ReplayMessageFields on Message {
    id
    messageId
    seq
    role
    content
    toolName
    toolCallId
    createdAt
    caller {
      messageId
    }
    metadata
    redactions {
      kind
      count
    }
  }
`);

/** A window of turns along a branch with their messages (the conversation up to the viewed turn). */
export const ConversationQuery = graphql(`
  query ReplayConversation($sessionId: String!, $branch: String!, $before: String, $last: Int!) {
    session(sessionId: $sessionId) {
      id
      turns(branch: $branch, before: $before, last: $last) {
        edges {
          cursor
          node {
            number
            commit {
              sha
            }
            messages {
              ...ReplayMessageFields
            }
          }
        }
      }
    }
  }
`);

export const TimelinePageQuery = graphql(`
  query ReplayTimelinePage($sessionId: String!, $branch: String!, $after: String, $first: Int!) {
    session(sessionId: $sessionId) {
      id
      timeline(branch: $branch, after: $after, first: $first) {
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            sha
            headline
            turn {
              number
            }
          }
        }
      }
    }
  }
`);

export const CommitChangesQuery = graphql(`
  query ReplayCommitChanges($sessionId: String!, $sha: String!) {
    session(sessionId: $sessionId) {
      id
      commit(sha: $sha) {
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
          }
        }
      }
    }
  }
`);

export const CommitPatchesQuery = graphql(`
  query ReplayCommitPatches($sessionId: String!, $sha: String!) {
    session(sessionId: $sessionId) {
      id
      commit(sha: $sha) {
        sha
        diff {
          files {
            path
            patch
            truncated
          }
        }
      }
    }
  }
`);

export const CodeDiffFields = graphql(`
  fragment CodeDiffFields on Commit {
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
        patch
        truncated
      }
    }
  }
`);

/**
 * What the viewed turn did to the project's code: its outcome, and the agent's commit (or, for a
 * skipped turn, its private snapshot) with every file's patch. A project diff is a turn's few
 * files: read whole, in one request.
 */
export const CodeChangesQuery = graphql(`
  query ReplayCodeChanges($sessionId: String!, $sha: String!) {
    session(sessionId: $sessionId) {
      id
      commit(sha: $sha) {
        sha
        turn {
          number
          projectCommit {
            result
            reason
            message
            dirtyPaths
            paths
            commit {
              ...CodeDiffFields
            }
            snapshot {
              ...CodeDiffFields
            }
          }
        }
      }
    }
  }
`);

/** A project's commits and skips as they happen: a turn's code changes are read again then. */
export const CodeOutcomeCommitted = graphql(`
  subscription ReplayCodeCommitted($projectId: String!) {
    projectCommitted(projectId: $projectId) {
      turnNumber
    }
  }
`);

export const CodeOutcomeSkipped = graphql(`
  subscription ReplayCodeSkipped($projectId: String!) {
    dirtyTreeWarning(projectId: $projectId) {
      turnNumber
    }
  }
`);

/** The open turn and its messages so far (the live view, before the turn has a commit). */
export const OpenTurnQuery = graphql(`
  query ReplayOpenTurn($sessionId: String!) {
    session(sessionId: $sessionId) {
      id
      openTurn {
        number
        messages {
          ...ReplayMessageFields
        }
      }
    }
  }
`);

/**
 * The session's turns as they are written: each message of the open turn as it is stored, and
 * the close. No Session in the selection: urql would read every query holding one again.
 */
export const SessionTurnUpdates = graphql(`
  subscription SessionTurnUpdates($sessionId: String!) {
    turnUpdated(sessionId: $sessionId) {
      turn {
        number
        open
      }
      messages {
        ...ReplayMessageFields
      }
      closed
    }
  }
`);

/** Brings an archived session's repo back (the page calls it when an archived session is opened). */
export const UnarchiveMutation = graphql(`
  mutation UnarchiveSession($sessionId: String!) {
    unarchiveSession(input: { sessionId: $sessionId }) {
      id
      archive {
        archivedAt
      }
    }
  }
`);
