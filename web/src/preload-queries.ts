/**
 * The queries the preload script (preload.ts) sends, as the app's client prints them (urql's
 * formatDocument adds the __typename fields its cache asks for, then stringifyDocument). The
 * build (vite.config.ts) evaluates this module in Node and gives the script its four strings in
 * its place, so the script carries neither the documents nor a printer: it is a few kilobytes
 * and starts its first read sooner.
 */
import { formatDocument, stringifyDocument, type TypedDocumentNode } from '@urql/core';
import { ReplayCodeChangesDocument, ReplayConversationDocument, ReplayTimelinePageDocument, SessionPageDocument } from './gql/graphql';

const printed = <Data, Variables>(document: TypedDocumentNode<Data, Variables>) => stringifyDocument(formatDocument(document));

export const PRELOAD_QUERIES = {
  SessionPage: printed(SessionPageDocument),
  ReplayConversation: printed(ReplayConversationDocument),
  ReplayTimelinePage: printed(ReplayTimelinePageDocument),
  ReplayCodeChanges: printed(ReplayCodeChangesDocument),
};
