/**
 * The operations the API tests send; `npm run codegen` types them.
 */
import { graphql } from '../graphql/index.js';

export const CreateSession = graphql(`
  mutation CreateSession($input: CreateSessionInput!) {
    createSession(input: $input) {
      id
      sessionId
      title
      agentId
      model
      createdAt
      currentBranch
      project {
        projectId
      }
    }
  }
`);

export const AppendMessage = graphql(`
  mutation AppendMessage($input: AppendMessageInput!) {
    appendMessage(input: $input) {
      id
      messageId
      seq
      role
      content
      path
      toolName
      toolCallId
      metadata
      createdAt
      predecessor {
        messageId
      }
      caller {
        messageId
      }
      turn {
        number
        open
      }
    }
  }
`);

export const UpdateMessage = graphql(`
  mutation UpdateMessage($input: UpdateMessageInput!) {
    updateMessage(input: $input) {
      messageId
      content
      metadata
    }
  }
`);

export const EndTurn = graphql(`
  mutation EndTurn($input: EndTurnInput!) {
    endTurn(input: $input) {
      number
      branch
      open
      durationMs
      tokens
      mirrorState
      userMessage {
        messageId
      }
      assistantMessage {
        messageId
        content
      }
      toolResults {
        messageId
        caller {
          messageId
        }
      }
      messages {
        messageId
        seq
      }
    }
  }
`);

export const RecordTurn = graphql(`
  mutation RecordTurn($input: RecordTurnInput!) {
    recordTurn(input: $input) {
      number
      branch
      open
      durationMs
      tokens
      mirrorState
      session {
        sessionId
      }
      userMessage {
        messageId
        seq
        role
        content
      }
      assistantMessage {
        messageId
        seq
        content
        predecessor {
          messageId
        }
      }
      toolResults {
        messageId
        seq
        role
        toolName
        toolCallId
        path
        metadata
        caller {
          messageId
        }
        predecessor {
          messageId
        }
      }
      messages {
        messageId
        seq
      }
    }
  }
`);

export const SessionView = graphql(`
  query SessionView($sessionId: String!, $first: Int, $after: String) {
    session(sessionId: $sessionId) {
      id
      sessionId
      title
      currentBranch
      messages(first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          hasPreviousPage
          startCursor
          endCursor
        }
        edges {
          cursor
          node {
            messageId
            seq
            role
            content
            successors {
              messageId
            }
            turn {
              number
            }
          }
        }
      }
      turns(first: $first) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            number
            open
            userMessage {
              messageId
            }
          }
        }
      }
    }
  }
`);

export const Sessions = graphql(`
  query Sessions($first: Int, $after: String, $projectId: String) {
    sessions(first: $first, after: $after, projectId: $projectId) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        endCursor
      }
      edges {
        cursor
        node {
          sessionId
        }
      }
    }
  }
`);

export const NodeById = graphql(`
  query NodeById($id: ID!) {
    node(id: $id) {
      id
      __typename
      ... on Session {
        sessionId
      }
      ... on Message {
        messageId
        content
      }
    }
  }
`);
