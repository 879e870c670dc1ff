import { graphql } from '../graphql/index.js';

export const RetryTurn = graphql(`
  mutation RetryTurn($input: RetryTurnInput!) {
    retryTurn(input: $input) {
      number
      branch
      open
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
    }
  }
`);

export const Checkout = graphql(`
  mutation Checkout($input: CheckoutInput!) {
    checkout(input: $input) {
      currentBranch
      detached
      head {
        sha
        turn {
          number
          branch
        }
        messages {
          messageId
        }
      }
    }
  }
`);

export const SwitchBranch = graphql(`
  mutation SwitchBranch($input: SwitchBranchInput!) {
    switchBranch(input: $input) {
      currentBranch
      detached
      head {
        sha
      }
    }
  }
`);

export const BranchView = graphql(`
  query BranchView($sessionId: String!, $branch: String) {
    session(sessionId: $sessionId) {
      repoPath
      currentBranch
      detached
      head {
        sha
        headline
        turn {
          number
          branch
        }
        messages {
          messageId
        }
      }
      mirror {
        dagTurns
        gitCommits
        inSync
      }
      branches {
        name
        kind
        isCurrent
        head {
          sha
          headline
        }
        forkPoint {
          sha
          turn {
            number
          }
        }
      }
      messages(branch: $branch, first: 100) {
        edges {
          node {
            messageId
          }
        }
      }
      turns(branch: $branch, first: 100) {
        edges {
          node {
            number
            branch
            commit {
              sha
            }
          }
        }
      }
      timeline(branch: $branch, first: 50) {
        edges {
          node {
            headline
          }
        }
      }
      all: timeline(all: true, first: 50) {
        totalCount
      }
    }
  }
`);

export const TimelineEvents = graphql(`
  subscription TimelineEvents($sessionId: String!) {
    timeline(sessionId: $sessionId) {
      kind
      branch
      commit {
        headline
      }
    }
  }
`);
