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
    "\n  mutation BranchesPanelSwitch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      id\n      currentBranch\n      detached\n    }\n  }\n": typeof types.BranchesPanelSwitchDocument,
    "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n": typeof types.BranchesPanelGraphDocument,
    "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n": typeof types.BranchesPanelLaneDocument,
    "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": typeof types.BranchesPanelEventsDocument,
    "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n": typeof types.SessionsNavDocument,
    "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n": typeof types.AnyTurnCommittedDocument,
};
const documents: Documents = {
    "\n  mutation BranchesPanelSwitch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      id\n      currentBranch\n      detached\n    }\n  }\n": types.BranchesPanelSwitchDocument,
    "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n": types.BranchesPanelGraphDocument,
    "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n": types.BranchesPanelLaneDocument,
    "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": types.BranchesPanelEventsDocument,
    "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n": types.SessionsNavDocument,
    "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n": types.AnyTurnCommittedDocument,
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
export function graphql(source: "\n  mutation BranchesPanelSwitch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      id\n      currentBranch\n      detached\n    }\n  }\n"): (typeof documents)["\n  mutation BranchesPanelSwitch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      id\n      currentBranch\n      detached\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"): (typeof documents)["\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;