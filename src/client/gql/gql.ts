/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ClientMessage on Message {\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    metadata\n    createdAt\n    path\n    predecessor {\n      messageId\n    }\n    caller {\n      messageId\n    }\n  }\n": typeof types.ClientMessageFragmentDoc,
    "\n  fragment ClientTurn on Turn {\n    number\n    branch\n    open\n    durationMs\n    tokens\n    mirrorState\n    projectCommit {\n      ...ClientProjectCommit\n    }\n    userMessage {\n      ...ClientMessage\n    }\n    assistantMessage {\n      ...ClientMessage\n    }\n    toolResults {\n      ...ClientMessage\n    }\n  }\n": typeof types.ClientTurnFragmentDoc,
    "\n  fragment ClientProjectCommit on ProjectCommitOutcome {\n    result\n    reason\n    message\n    paths\n    dirtyPaths\n    commitSha\n  }\n": typeof types.ClientProjectCommitFragmentDoc,
    "\n  fragment ClientSession on Session {\n    sessionId\n    title\n    agentId\n    model\n    createdAt\n    currentBranch\n    detached\n    head {\n      sha\n    }\n    project {\n      projectId\n    }\n  }\n": typeof types.ClientSessionFragmentDoc,
    "\n  mutation ClientCreateSession($input: CreateSessionInput!) {\n    createSession(input: $input) {\n      ...ClientSession\n    }\n  }\n": typeof types.ClientCreateSessionDocument,
    "\n  mutation ClientRecordTurn($input: RecordTurnInput!) {\n    recordTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": typeof types.ClientRecordTurnDocument,
    "\n  mutation ClientRetryTurn($input: RetryTurnInput!) {\n    retryTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": typeof types.ClientRetryTurnDocument,
    "\n  mutation ClientAppendMessage($input: AppendMessageInput!) {\n    appendMessage(input: $input) {\n      ...ClientMessage\n      turn {\n        number\n        open\n      }\n    }\n  }\n": typeof types.ClientAppendMessageDocument,
    "\n  mutation ClientUpdateMessage($input: UpdateMessageInput!) {\n    updateMessage(input: $input) {\n      ...ClientMessage\n    }\n  }\n": typeof types.ClientUpdateMessageDocument,
    "\n  mutation ClientEndTurn($input: EndTurnInput!) {\n    endTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": typeof types.ClientEndTurnDocument,
    "\n  mutation ClientCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...ClientSession\n    }\n  }\n": typeof types.ClientCheckoutDocument,
    "\n  mutation ClientSwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...ClientSession\n    }\n  }\n": typeof types.ClientSwitchBranchDocument,
    "\n  query ClientSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...ClientSession\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n        }\n        forkPoint {\n          sha\n        }\n      }\n      mirror {\n        dagTurns\n        gitCommits\n        pending\n        inSync\n        lastError\n        lastCommittedAt\n      }\n    }\n  }\n": typeof types.ClientSessionDocument,
    "\n  query ClientTurns($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      turns(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientTurn\n            commit {\n              sha\n              headline\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ClientTurnsDocument,
    "\n  query ClientMessageLookup($sessionId: String!, $messageId: String!) {\n    session(sessionId: $sessionId) {\n      message(messageId: $messageId) {\n        ...ClientMessage\n        turn {\n          ...ClientTurn\n        }\n      }\n    }\n  }\n": typeof types.ClientMessageLookupDocument,
    "\n  query ClientMessages($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      messages(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientMessage\n            turn {\n              number\n              open\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ClientMessagesDocument,
    "\n  subscription ClientTurnCommitted($sessionId: String) {\n    turnCommitted(sessionId: $sessionId) {\n      session {\n        sessionId\n      }\n      turn {\n        ...ClientTurn\n      }\n      commit {\n        sha\n        shortSha\n        headline\n      }\n    }\n  }\n": typeof types.ClientTurnCommittedDocument,
    "\n  subscription ClientTimeline($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n      commit {\n        sha\n        headline\n      }\n      session {\n        sessionId\n        currentBranch\n      }\n    }\n  }\n": typeof types.ClientTimelineDocument,
    "\n  mutation ClientImportSession($input: ImportSessionInput!) {\n    importSession(input: $input) {\n      sessionId\n      created\n      messagesAdded\n      messagesUpdated\n      turnsAdded\n      branchesCreated\n      currentBranch\n      problems {\n        line\n        message\n      }\n    }\n  }\n": typeof types.ClientImportSessionDocument,
    "\n  mutation ClientRewind($input: RewindInput!) {\n    rewind(input: $input) {\n      turn\n      dryRun\n      undoTurn\n      message\n      code {\n        changes {\n          path\n          action\n          conflict\n        }\n        conflicts\n        result {\n          result\n          paths\n          message\n        }\n      }\n      conversation {\n        fromTurn {\n          number\n        }\n        branch\n        laterTurns\n        moved\n      }\n    }\n  }\n": typeof types.ClientRewindDocument,
    "\n  query ClientPing {\n    __typename\n  }\n": typeof types.ClientPingDocument,
    "\n  query ClientSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {\n    search(query: $query, filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          rank\n          turnNumber\n          snippet\n          highlights {\n            start\n            end\n          }\n          session {\n            sessionId\n            title\n          }\n          message {\n            messageId\n            role\n            createdAt\n          }\n        }\n      }\n    }\n  }\n": typeof types.ClientSearchDocument,
    "\n  fragment ClientProjectFiles on ProjectFilesResult {\n    result\n    message\n    paths\n    commit {\n      sha\n    }\n  }\n": typeof types.ClientProjectFilesFragmentDoc,
    "\n  mutation ClientRestoreProjectFiles($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": typeof types.ClientRestoreProjectFilesDocument,
    "\n  mutation ClientApplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": typeof types.ClientApplyTurnSnapshotDocument,
    "\n  mutation ClientUnapplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    unapplyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": typeof types.ClientUnapplyTurnSnapshotDocument,
};
const documents: Documents = {
    "\n  fragment ClientMessage on Message {\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    metadata\n    createdAt\n    path\n    predecessor {\n      messageId\n    }\n    caller {\n      messageId\n    }\n  }\n": types.ClientMessageFragmentDoc,
    "\n  fragment ClientTurn on Turn {\n    number\n    branch\n    open\n    durationMs\n    tokens\n    mirrorState\n    projectCommit {\n      ...ClientProjectCommit\n    }\n    userMessage {\n      ...ClientMessage\n    }\n    assistantMessage {\n      ...ClientMessage\n    }\n    toolResults {\n      ...ClientMessage\n    }\n  }\n": types.ClientTurnFragmentDoc,
    "\n  fragment ClientProjectCommit on ProjectCommitOutcome {\n    result\n    reason\n    message\n    paths\n    dirtyPaths\n    commitSha\n  }\n": types.ClientProjectCommitFragmentDoc,
    "\n  fragment ClientSession on Session {\n    sessionId\n    title\n    agentId\n    model\n    createdAt\n    currentBranch\n    detached\n    head {\n      sha\n    }\n    project {\n      projectId\n    }\n  }\n": types.ClientSessionFragmentDoc,
    "\n  mutation ClientCreateSession($input: CreateSessionInput!) {\n    createSession(input: $input) {\n      ...ClientSession\n    }\n  }\n": types.ClientCreateSessionDocument,
    "\n  mutation ClientRecordTurn($input: RecordTurnInput!) {\n    recordTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": types.ClientRecordTurnDocument,
    "\n  mutation ClientRetryTurn($input: RetryTurnInput!) {\n    retryTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": types.ClientRetryTurnDocument,
    "\n  mutation ClientAppendMessage($input: AppendMessageInput!) {\n    appendMessage(input: $input) {\n      ...ClientMessage\n      turn {\n        number\n        open\n      }\n    }\n  }\n": types.ClientAppendMessageDocument,
    "\n  mutation ClientUpdateMessage($input: UpdateMessageInput!) {\n    updateMessage(input: $input) {\n      ...ClientMessage\n    }\n  }\n": types.ClientUpdateMessageDocument,
    "\n  mutation ClientEndTurn($input: EndTurnInput!) {\n    endTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n": types.ClientEndTurnDocument,
    "\n  mutation ClientCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...ClientSession\n    }\n  }\n": types.ClientCheckoutDocument,
    "\n  mutation ClientSwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...ClientSession\n    }\n  }\n": types.ClientSwitchBranchDocument,
    "\n  query ClientSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...ClientSession\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n        }\n        forkPoint {\n          sha\n        }\n      }\n      mirror {\n        dagTurns\n        gitCommits\n        pending\n        inSync\n        lastError\n        lastCommittedAt\n      }\n    }\n  }\n": types.ClientSessionDocument,
    "\n  query ClientTurns($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      turns(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientTurn\n            commit {\n              sha\n              headline\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ClientTurnsDocument,
    "\n  query ClientMessageLookup($sessionId: String!, $messageId: String!) {\n    session(sessionId: $sessionId) {\n      message(messageId: $messageId) {\n        ...ClientMessage\n        turn {\n          ...ClientTurn\n        }\n      }\n    }\n  }\n": types.ClientMessageLookupDocument,
    "\n  query ClientMessages($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      messages(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientMessage\n            turn {\n              number\n              open\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ClientMessagesDocument,
    "\n  subscription ClientTurnCommitted($sessionId: String) {\n    turnCommitted(sessionId: $sessionId) {\n      session {\n        sessionId\n      }\n      turn {\n        ...ClientTurn\n      }\n      commit {\n        sha\n        shortSha\n        headline\n      }\n    }\n  }\n": types.ClientTurnCommittedDocument,
    "\n  subscription ClientTimeline($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n      commit {\n        sha\n        headline\n      }\n      session {\n        sessionId\n        currentBranch\n      }\n    }\n  }\n": types.ClientTimelineDocument,
    "\n  mutation ClientImportSession($input: ImportSessionInput!) {\n    importSession(input: $input) {\n      sessionId\n      created\n      messagesAdded\n      messagesUpdated\n      turnsAdded\n      branchesCreated\n      currentBranch\n      problems {\n        line\n        message\n      }\n    }\n  }\n": types.ClientImportSessionDocument,
    "\n  mutation ClientRewind($input: RewindInput!) {\n    rewind(input: $input) {\n      turn\n      dryRun\n      undoTurn\n      message\n      code {\n        changes {\n          path\n          action\n          conflict\n        }\n        conflicts\n        result {\n          result\n          paths\n          message\n        }\n      }\n      conversation {\n        fromTurn {\n          number\n        }\n        branch\n        laterTurns\n        moved\n      }\n    }\n  }\n": types.ClientRewindDocument,
    "\n  query ClientPing {\n    __typename\n  }\n": types.ClientPingDocument,
    "\n  query ClientSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {\n    search(query: $query, filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          rank\n          turnNumber\n          snippet\n          highlights {\n            start\n            end\n          }\n          session {\n            sessionId\n            title\n          }\n          message {\n            messageId\n            role\n            createdAt\n          }\n        }\n      }\n    }\n  }\n": types.ClientSearchDocument,
    "\n  fragment ClientProjectFiles on ProjectFilesResult {\n    result\n    message\n    paths\n    commit {\n      sha\n    }\n  }\n": types.ClientProjectFilesFragmentDoc,
    "\n  mutation ClientRestoreProjectFiles($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": types.ClientRestoreProjectFilesDocument,
    "\n  mutation ClientApplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": types.ClientApplyTurnSnapshotDocument,
    "\n  mutation ClientUnapplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    unapplyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n": types.ClientUnapplyTurnSnapshotDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientMessage on Message {\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    metadata\n    createdAt\n    path\n    predecessor {\n      messageId\n    }\n    caller {\n      messageId\n    }\n  }\n"): (typeof documents)["\n  fragment ClientMessage on Message {\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    metadata\n    createdAt\n    path\n    predecessor {\n      messageId\n    }\n    caller {\n      messageId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientTurn on Turn {\n    number\n    branch\n    open\n    durationMs\n    tokens\n    mirrorState\n    projectCommit {\n      ...ClientProjectCommit\n    }\n    userMessage {\n      ...ClientMessage\n    }\n    assistantMessage {\n      ...ClientMessage\n    }\n    toolResults {\n      ...ClientMessage\n    }\n  }\n"): (typeof documents)["\n  fragment ClientTurn on Turn {\n    number\n    branch\n    open\n    durationMs\n    tokens\n    mirrorState\n    projectCommit {\n      ...ClientProjectCommit\n    }\n    userMessage {\n      ...ClientMessage\n    }\n    assistantMessage {\n      ...ClientMessage\n    }\n    toolResults {\n      ...ClientMessage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientProjectCommit on ProjectCommitOutcome {\n    result\n    reason\n    message\n    paths\n    dirtyPaths\n    commitSha\n  }\n"): (typeof documents)["\n  fragment ClientProjectCommit on ProjectCommitOutcome {\n    result\n    reason\n    message\n    paths\n    dirtyPaths\n    commitSha\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientSession on Session {\n    sessionId\n    title\n    agentId\n    model\n    createdAt\n    currentBranch\n    detached\n    head {\n      sha\n    }\n    project {\n      projectId\n    }\n  }\n"): (typeof documents)["\n  fragment ClientSession on Session {\n    sessionId\n    title\n    agentId\n    model\n    createdAt\n    currentBranch\n    detached\n    head {\n      sha\n    }\n    project {\n      projectId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientCreateSession($input: CreateSessionInput!) {\n    createSession(input: $input) {\n      ...ClientSession\n    }\n  }\n"): (typeof documents)["\n  mutation ClientCreateSession($input: CreateSessionInput!) {\n    createSession(input: $input) {\n      ...ClientSession\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientRecordTurn($input: RecordTurnInput!) {\n    recordTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"): (typeof documents)["\n  mutation ClientRecordTurn($input: RecordTurnInput!) {\n    recordTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientRetryTurn($input: RetryTurnInput!) {\n    retryTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"): (typeof documents)["\n  mutation ClientRetryTurn($input: RetryTurnInput!) {\n    retryTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientAppendMessage($input: AppendMessageInput!) {\n    appendMessage(input: $input) {\n      ...ClientMessage\n      turn {\n        number\n        open\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ClientAppendMessage($input: AppendMessageInput!) {\n    appendMessage(input: $input) {\n      ...ClientMessage\n      turn {\n        number\n        open\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientUpdateMessage($input: UpdateMessageInput!) {\n    updateMessage(input: $input) {\n      ...ClientMessage\n    }\n  }\n"): (typeof documents)["\n  mutation ClientUpdateMessage($input: UpdateMessageInput!) {\n    updateMessage(input: $input) {\n      ...ClientMessage\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientEndTurn($input: EndTurnInput!) {\n    endTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"): (typeof documents)["\n  mutation ClientEndTurn($input: EndTurnInput!) {\n    endTurn(input: $input) {\n      ...ClientTurn\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...ClientSession\n    }\n  }\n"): (typeof documents)["\n  mutation ClientCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...ClientSession\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientSwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...ClientSession\n    }\n  }\n"): (typeof documents)["\n  mutation ClientSwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...ClientSession\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...ClientSession\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n        }\n        forkPoint {\n          sha\n        }\n      }\n      mirror {\n        dagTurns\n        gitCommits\n        pending\n        inSync\n        lastError\n        lastCommittedAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...ClientSession\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n        }\n        forkPoint {\n          sha\n        }\n      }\n      mirror {\n        dagTurns\n        gitCommits\n        pending\n        inSync\n        lastError\n        lastCommittedAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientTurns($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      turns(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientTurn\n            commit {\n              sha\n              headline\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientTurns($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      turns(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientTurn\n            commit {\n              sha\n              headline\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientMessageLookup($sessionId: String!, $messageId: String!) {\n    session(sessionId: $sessionId) {\n      message(messageId: $messageId) {\n        ...ClientMessage\n        turn {\n          ...ClientTurn\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientMessageLookup($sessionId: String!, $messageId: String!) {\n    session(sessionId: $sessionId) {\n      message(messageId: $messageId) {\n        ...ClientMessage\n        turn {\n          ...ClientTurn\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientMessages($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      messages(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientMessage\n            turn {\n              number\n              open\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientMessages($sessionId: String!, $branch: String, $first: Int, $after: String) {\n    session(sessionId: $sessionId) {\n      messages(branch: $branch, first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            ...ClientMessage\n            turn {\n              number\n              open\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClientTurnCommitted($sessionId: String) {\n    turnCommitted(sessionId: $sessionId) {\n      session {\n        sessionId\n      }\n      turn {\n        ...ClientTurn\n      }\n      commit {\n        sha\n        shortSha\n        headline\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClientTurnCommitted($sessionId: String) {\n    turnCommitted(sessionId: $sessionId) {\n      session {\n        sessionId\n      }\n      turn {\n        ...ClientTurn\n      }\n      commit {\n        sha\n        shortSha\n        headline\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ClientTimeline($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n      commit {\n        sha\n        headline\n      }\n      session {\n        sessionId\n        currentBranch\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription ClientTimeline($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n      commit {\n        sha\n        headline\n      }\n      session {\n        sessionId\n        currentBranch\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientImportSession($input: ImportSessionInput!) {\n    importSession(input: $input) {\n      sessionId\n      created\n      messagesAdded\n      messagesUpdated\n      turnsAdded\n      branchesCreated\n      currentBranch\n      problems {\n        line\n        message\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ClientImportSession($input: ImportSessionInput!) {\n    importSession(input: $input) {\n      sessionId\n      created\n      messagesAdded\n      messagesUpdated\n      turnsAdded\n      branchesCreated\n      currentBranch\n      problems {\n        line\n        message\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientRewind($input: RewindInput!) {\n    rewind(input: $input) {\n      turn\n      dryRun\n      undoTurn\n      message\n      code {\n        changes {\n          path\n          action\n          conflict\n        }\n        conflicts\n        result {\n          result\n          paths\n          message\n        }\n      }\n      conversation {\n        fromTurn {\n          number\n        }\n        branch\n        laterTurns\n        moved\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ClientRewind($input: RewindInput!) {\n    rewind(input: $input) {\n      turn\n      dryRun\n      undoTurn\n      message\n      code {\n        changes {\n          path\n          action\n          conflict\n        }\n        conflicts\n        result {\n          result\n          paths\n          message\n        }\n      }\n      conversation {\n        fromTurn {\n          number\n        }\n        branch\n        laterTurns\n        moved\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientPing {\n    __typename\n  }\n"): (typeof documents)["\n  query ClientPing {\n    __typename\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ClientSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {\n    search(query: $query, filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          rank\n          turnNumber\n          snippet\n          highlights {\n            start\n            end\n          }\n          session {\n            sessionId\n            title\n          }\n          message {\n            messageId\n            role\n            createdAt\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ClientSearch($query: String!, $filter: SearchFilter, $first: Int, $after: String) {\n    search(query: $query, filter: $filter, first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      edges {\n        node {\n          rank\n          turnNumber\n          snippet\n          highlights {\n            start\n            end\n          }\n          session {\n            sessionId\n            title\n          }\n          message {\n            messageId\n            role\n            createdAt\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ClientProjectFiles on ProjectFilesResult {\n    result\n    message\n    paths\n    commit {\n      sha\n    }\n  }\n"): (typeof documents)["\n  fragment ClientProjectFiles on ProjectFilesResult {\n    result\n    message\n    paths\n    commit {\n      sha\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientRestoreProjectFiles($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"): (typeof documents)["\n  mutation ClientRestoreProjectFiles($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientApplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"): (typeof documents)["\n  mutation ClientApplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ClientUnapplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    unapplyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"): (typeof documents)["\n  mutation ClientUnapplyTurnSnapshot($input: ApplyTurnSnapshotInput!) {\n    unapplyTurnSnapshot(input: $input) {\n      ...ClientProjectFiles\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;