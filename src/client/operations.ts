/**
 * The operations of the typed client (src/client/index.ts), written against
 * the served schema (schema.graphql). `npm run codegen` turns them into typed
 * documents in src/client/gql/.
 */
import { graphql } from './gql/index.js';

export const MessageFields = graphql(`
  fragment ClientMessage on Message {
    messageId
    seq
    role
    content
    toolName
    toolCallId
    metadata
    createdAt
    path
    predecessor {
      messageId
    }
    caller {
      messageId
    }
  }
`);

export const TurnFields = graphql(`
  fragment ClientTurn on Turn {
    number
    branch
    open
    durationMs
    tokens
    mirrorState
    projectCommit {
      ...ClientProjectCommit
    }
    userMessage {
      ...ClientMessage
    }
    assistantMessage {
      ...ClientMessage
    }
    toolResults {
      ...ClientMessage
    }
  }
`);

/**
 * What happened in the session's project at the end of a turn, from the database (no git): PENDING
 * until the commit has run (recordTurn answers before), then COMMITTED with its sha, or SKIPPED_*
 * with the reason, the user's paths in the way and a snapshot to apply (applyTurnSnapshot).
 */
export const ProjectCommitFields = graphql(`
  fragment ClientProjectCommit on ProjectCommitOutcome {
    result
    reason
    message
    paths
    dirtyPaths
    commitSha
  }
`);

export const SessionFields = graphql(`
  fragment ClientSession on Session {
    sessionId
    title
    agentId
    model
    createdAt
    currentBranch
    detached
    head {
      sha
    }
    project {
      projectId
    }
  }
`);

export const CreateSession = graphql(`
  mutation ClientCreateSession($input: CreateSessionInput!) {
    createSession(input: $input) {
      ...ClientSession
    }
  }
`);

export const RecordTurn = graphql(`
  mutation ClientRecordTurn($input: RecordTurnInput!) {
    recordTurn(input: $input) {
      ...ClientTurn
    }
  }
`);

export const RetryTurn = graphql(`
  mutation ClientRetryTurn($input: RetryTurnInput!) {
    retryTurn(input: $input) {
      ...ClientTurn
    }
  }
`);

export const AppendMessage = graphql(`
  mutation ClientAppendMessage($input: AppendMessageInput!) {
    appendMessage(input: $input) {
      ...ClientMessage
      turn {
        number
        open
      }
    }
  }
`);

export const UpdateMessage = graphql(`
  mutation ClientUpdateMessage($input: UpdateMessageInput!) {
    updateMessage(input: $input) {
      ...ClientMessage
    }
  }
`);

export const EndTurn = graphql(`
  mutation ClientEndTurn($input: EndTurnInput!) {
    endTurn(input: $input) {
      ...ClientTurn
    }
  }
`);

export const Checkout = graphql(`
  mutation ClientCheckout($input: CheckoutInput!) {
    checkout(input: $input) {
      ...ClientSession
    }
  }
`);

export const SwitchBranch = graphql(`
  mutation ClientSwitchBranch($input: SwitchBranchInput!) {
    switchBranch(input: $input) {
      ...ClientSession
    }
  }
`);

export const SessionQuery = graphql(`
  query ClientSession($sessionId: String!) {
    session(sessionId: $sessionId) {
      ...ClientSession
      branches {
        name
        kind
        isCurrent
        head {
          sha
        }
        forkPoint {
          sha
        }
      }
      mirror {
        dagTurns
        gitCommits
        pending
        inSync
        lastError
        lastCommittedAt
      }
    }
  }
`);

export const TurnsQuery = graphql(`
  query ClientTurns($sessionId: String!, $branch: String, $first: Int, $after: String) {
    session(sessionId: $sessionId) {
      turns(branch: $branch, first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            ...ClientTurn
            commit {
              sha
              headline
            }
          }
        }
      }
    }
  }
`);

/** One message by id, on any branch, with its turn: where a write whose answer was lost is looked for. */
export const MessageLookup = graphql(`
  query ClientMessageLookup($sessionId: String!, $messageId: String!) {
    session(sessionId: $sessionId) {
      message(messageId: $messageId) {
        ...ClientMessage
        turn {
          ...ClientTurn
        }
      }
    }
  }
`);

export const MessagesQuery = graphql(`
  query ClientMessages($sessionId: String!, $branch: String, $first: Int, $after: String) {
    session(sessionId: $sessionId) {
      messages(branch: $branch, first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            ...ClientMessage
            turn {
              number
              open
            }
          }
        }
      }
    }
  }
`);

export const TurnCommittedSubscription = graphql(`
  subscription ClientTurnCommitted($sessionId: String) {
    turnCommitted(sessionId: $sessionId) {
      session {
        sessionId
      }
      turn {
        ...ClientTurn
      }
      commit {
        sha
        shortSha
        headline
      }
    }
  }
`);

export const TimelineSubscription = graphql(`
  subscription ClientTimeline($sessionId: String!) {
    timeline(sessionId: $sessionId) {
      kind
      branch
      commit {
        sha
        headline
      }
      session {
        sessionId
        currentBranch
      }
    }
  }
`);

/** One session's parsed messages written at once (what `entity-memory import` sends to a running server). */
export const ImportSession = graphql(`
  mutation ClientImportSession($input: ImportSessionInput!) {
    importSession(input: $input) {
      sessionId
      created
      messagesAdded
      messagesUpdated
      turnsAdded
      branchesCreated
      currentBranch
      problems {
        line
        message
      }
    }
  }
`);

/** Back to a turn for the code, the conversation or both; dryRun only says what it would do (\`entity-memory rewind\`). */
export const Rewind = graphql(`
  mutation ClientRewind($input: RewindInput!) {
    rewind(input: $input) {
      turn
      dryRun
      undoTurn
      message
      code {
        changes {
          path
          action
          conflict
        }
        conflicts
        result {
          result
          paths
          message
        }
      }
      conversation {
        fromTurn {
          number
        }
        branch
        laterTurns
        moved
      }
    }
  }
`);

export const Ping = graphql(`
  query ClientPing {
    __typename
  }
`);

export const Search = graphql(`
  query ClientSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {
    search(query: $query, filter: $filter, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          rank
          turnNumber
          snippet
          highlights {
            start
            end
          }
          session {
            sessionId
            title
          }
          message {
            messageId
            role
            createdAt
          }
        }
      }
    }
  }
`);

/** What restoreProjectFiles, applyTurnSnapshot and unapplyTurnSnapshot wrote, and where it was recorded. */
export const ProjectFilesFields = graphql(`
  fragment ClientProjectFiles on ProjectFilesResult {
    result
    message
    paths
    commit {
      sha
    }
  }
`);

/** The agent's paths back to their state after a turn (0: before the first); CONFLICT (extensions.paths) where the user changed one. */
export const RestoreProjectFiles = graphql(`
  mutation ClientRestoreProjectFiles($input: RestoreProjectFilesInput!) {
    restoreProjectFiles(input: $input) {
      ...ClientProjectFiles
    }
  }
`);

/** A skipped turn's private snapshot written into the project's working tree (nothing committed). */
export const ApplyTurnSnapshot = graphql(`
  mutation ClientApplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {
    applyTurnSnapshot(input: $input) {
      ...ClientProjectFiles
    }
  }
`);

/** Undoes applyTurnSnapshot, path for path; CONFLICT where the user changed or committed one since. */
export const UnapplyTurnSnapshot = graphql(`
  mutation ClientUnapplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {
    unapplyTurnSnapshot(input: $input) {
      ...ClientProjectFiles
    }
  }
`);
