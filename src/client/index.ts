/**
 * A typed client for agent runtimes (issue 13): the calls an agent loop needs
 * to record its sessions in entity-memory, over HTTP for queries and
 * mutations and over graphql-ws for subscriptions. TypeScript source, run
 * with tsx or a TypeScript-aware bundler (`entity-memory/client`); see
 * docs/importing.md, "A typed client".
 *
 * Writes are safe to retry: every message gets a stable id before the first
 * attempt (the caller's, or one `crypto.randomUUID()` made once per call), and
 * a request that failed on the way (a network error, a timeout, a 502/503/504
 * such as the server's "starting") is sent again with backoff. The server
 * refuses a message id it already has with CONFLICT; when the thing that
 * conflicts is what this call wrote (same ids and texts: the first attempt got
 * through and only its answer was lost), the call answers it instead.
 *
 * This module imports nothing of the server: only graphql, graphql-ws, ws and
 * its generated documents (src/client/gql/, `npm run codegen`).
 */
import { randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import type {
  AppendMessageInput,
  ApplyTurnSnapshotInput,
  CheckoutInput,
  ClientProjectCommitFragment,
  ClientProjectFilesFragment,
  ClientImportSessionMutation,
  ClientMessageFragment,
  ClientMessagesQuery,
  ClientSessionQuery,
  ClientTimelineSubscription,
  ClientTurnCommittedSubscription,
  ClientTurnFragment,
  ClientTurnsQuery,
  CreateSessionInput,
  EndTurnInput,
  ImportSessionInput,
  RestoreProjectFilesInput,
  RewindInput,
  ClientRewindMutation,
  ClientSearchQuery,
  SearchFilter,
  SwitchBranchInput,
  TurnMessageInput,
  UpdateMessageInput,
} from './gql/graphql.js';
import {
  AppendMessage,
  ApplyTurnSnapshot,
  Checkout,
  CreateSession,
  EndTurn,
  ImportSession,
  MessageLookup,
  MessagesQuery,
  Ping,
  RecordTurn,
  RestoreProjectFiles,
  RetryTurn,
  Rewind,
  Search,
  SessionQuery,
  SwitchBranch,
  TimelineSubscription,
  TurnCommittedSubscription,
  TurnsQuery,
  UnapplyTurnSnapshot,
  UpdateMessage,
} from './operations.js';

export type {
  AppendMessageInput,
  BranchKind,
  CheckoutInput,
  ClientMessageFragment as Message,
  ClientSessionFragment as Session,
  ClientTurnFragment as Turn,
  CreateSessionInput,
  EndTurnInput,
  ImportedMessageInput,
  ImportedSessionInput,
  ImportedUpdateInput,
  ImportSessionInput,
  MirrorState,
  RewindInput,
  Role,
  SearchFilter,
  SwitchBranchInput,
  TimelineEventKind,
  TurnMessageInput,
  UpdateMessageInput,
} from './gql/graphql.js';

/**
 * A failed call. `code` is the server's `extensions.code` (BAD_USER_INPUT,
 * NOT_FOUND, FORBIDDEN, CONFLICT, UNAUTHENTICATED, INTERNAL_SERVER_ERROR, …),
 * or, when no GraphQL answer came: NETWORK_ERROR (no answer at all),
 * UNAVAILABLE (502, 503, 504), BAD_RESPONSE (an answer that is no GraphQL),
 * SUBSCRIPTION_CLOSED (the socket closed; `extensions.closeCode`).
 */
export class EntityMemoryError extends Error {
  readonly code: string;
  /** The first error's extensions (e.g. `messageId` for a duplicate id, `paths` for a restore conflict). */
  readonly extensions: Record<string, unknown>;
  /** The HTTP status, when there was an answer. */
  readonly status: number | undefined;
  /** True when sending the same request again may succeed. */
  readonly retryable: boolean;
  /** Seconds the server asked to wait (Retry-After). */
  readonly retryAfter: number | undefined;
  /** Every GraphQL error of the answer, the first (whose message and code these are) included; empty when there were none. */
  readonly errors: readonly GraphQLErrorBody[];
  /** The answer's text when it held no GraphQL result or no data (BAD_RESPONSE, UNAVAILABLE), for saying what came instead. */
  readonly body: string | undefined;

  constructor(
    code: string,
    message: string,
    options: {
      extensions?: Record<string, unknown>;
      status?: number;
      retryable?: boolean;
      retryAfter?: number;
      cause?: unknown;
      errors?: readonly GraphQLErrorBody[];
      body?: string;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EntityMemoryError';
    this.code = code;
    this.extensions = options.extensions ?? {};
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfter = options.retryAfter;
    this.errors = options.errors ?? [];
    this.body = options.body;
  }
}

/** One error of a GraphQL answer, as the server sent it. */
export interface GraphQLErrorBody {
  message: string;
  extensions?: Record<string, unknown>;
}

export interface ClientOptions {
  /** The server (`http://127.0.0.1:4000`) or its GraphQL endpoint (`…/graphql`). */
  url: string;
  /** The server's token: sent as `Authorization: Bearer` and as graphql-ws `connectionParams { token }`. */
  token?: string;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
  /** How many times a failed request is sent again (default 4). */
  retries?: number;
  /** The first wait before sending again, doubled each time up to 5 s (default 200 ms). */
  retryDelayMs?: number;
  /** A request with no answer after this long counts as failed (default 30 s; 0: no limit). */
  timeoutMs?: number;
}

/** A message of a turn: its text, or the fields of `TurnMessageInput`. A missing messageId is generated. */
export type TurnMessage = string | TurnMessageInput;

export interface RecordTurnArgs {
  sessionId: string;
  user: TurnMessage;
  assistant: TurnMessage;
  /** Tool results in order; their caller is the assistant message. */
  toolResults?: TurnMessageInput[];
  /** Paths relative to the project workdir that the agent's tools wrote in this turn. */
  touchedPaths?: string[];
  /** When the user message arrived. */
  startedAt?: Date | string;
  durationMs?: number;
  tokens?: number;
}

export interface RetryTurnArgs {
  sessionId: string;
  /** The user message whose reply is retried; the new branch is retry-<assistant messageId>. */
  userMessageId: string;
  assistant: TurnMessage;
  toolResults?: TurnMessageInput[];
  touchedPaths?: string[];
  durationMs?: number;
  tokens?: number;
}

export interface PageArgs {
  /** A branch name; default the session's current branch. */
  branch?: string;
  first?: number;
  after?: string;
}

export interface Page<T> {
  nodes: T[];
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export type SessionDetails = NonNullable<ClientSessionQuery['session']>;
export type TurnWithCommit = NonNullable<ClientTurnsQuery['session']>['turns']['edges'][number]['node'];
export type MessageWithTurn = NonNullable<ClientMessagesQuery['session']>['messages']['edges'][number]['node'];
export type TurnCommittedEvent = ClientTurnCommittedSubscription['turnCommitted'];
export type TimelineEvent = ClientTimelineSubscription['timeline'];
export type ImportSessionOutcome = ClientImportSessionMutation['importSession'];
export type RewindOutcome = ClientRewindMutation['rewind'];
/** A turn's end in its session's project (Turn.projectCommit): on every turn the client returns, null outside a project. */
export type ProjectCommitOutcome = ClientProjectCommitFragment;
/** What a restore or a snapshot's apply wrote (paths), and how it was recorded (result, commit). */
export type ProjectFilesOutcome = ClientProjectFilesFragment;
export type SearchResults = ClientSearchQuery['search'];

/** Stops a subscription; `ready` resolves once the server listens (events caused after it arrive). */
export type Unsubscribe = (() => void) & { ready: Promise<void> };

const MAX_DELAY_MS = 5_000;

/**
 * A client of the server at `options.url`. Nothing is sent until a call; the subscription socket
 * opens at the first subscription. Every call rejects with an EntityMemoryError.
 */
export function createClient(options: ClientOptions) {
  const endpoint = /\/graphql\/?$/.test(options.url) ? options.url : `${options.url.replace(/\/+$/, '')}/graphql`;
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 4;
  const baseDelay = options.retryDelayMs ?? 200;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let ws: WsClient | undefined;
  /** Per session, the USER message this client last appended: the turn endTurn closes. */
  const openedBy = new Map<string, string>();

  /** One attempt: the data, or an EntityMemoryError. */
  async function send<R, V>(document: TypedDocumentNode<R, V>, variables: V): Promise<R> {
    let response: Response;
    try {
      response = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
          ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
        },
        body: JSON.stringify({ query: print(document), variables }),
        ...(timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      });
    } catch (error) {
      throw new EntityMemoryError('NETWORK_ERROR', `No answer from ${endpoint}: ${(error as Error).message}`, { retryable: true, cause: error });
    }
    const status = response.status;
    const unavailable = status === 502 || status === 503 || status === 504;
    const retryAfterHeader = Number(response.headers.get('retry-after'));
    const retryAfter = Number.isFinite(retryAfterHeader) && retryAfterHeader > 0 ? retryAfterHeader : undefined;
    let text = '';
    let body: { data?: R | null; errors?: GraphQLErrorBody[] };
    try {
      text = await response.text();
      body = JSON.parse(text) as typeof body;
    } catch (error) {
      throw new EntityMemoryError(unavailable ? 'UNAVAILABLE' : 'BAD_RESPONSE', `${endpoint} answered ${status} without a GraphQL body.`, {
        status,
        retryable: unavailable || status >= 500,
        retryAfter,
        cause: error,
        body: text,
      });
    }
    const first = body.errors?.[0];
    if (first) {
      const extensions = first.extensions ?? {};
      const code = unavailable ? 'UNAVAILABLE' : typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR';
      throw new EntityMemoryError(code, first.message, { extensions, status, retryable: unavailable, retryAfter, errors: body.errors });
    }
    if (unavailable || body.data == null) {
      throw new EntityMemoryError(unavailable ? 'UNAVAILABLE' : 'BAD_RESPONSE', `${endpoint} answered ${status} without data.`, { status, retryable: unavailable, retryAfter, body: text });
    }
    return body.data;
  }

  /**
   * Runs `attempt` (given its number, 1-based) until it succeeds, fails with
   * an error that is not retryable, or `retries` more attempts failed.
   */
  async function retrying<T>(attempt: (n: number) => Promise<T>): Promise<T> {
    for (let n = 1; ; n += 1) {
      try {
        return await attempt(n);
      } catch (error) {
        if (!(error instanceof EntityMemoryError) || !error.retryable || n > retries) throw error;
        const backoff = Math.min(MAX_DELAY_MS, baseDelay * 2 ** (n - 1)) * (0.5 + Math.random() / 2);
        await new Promise((resolve) => setTimeout(resolve, Math.max(backoff, (error.retryAfter ?? 0) * 1000)));
      }
    }
  }

  const request = <R, V>(document: TypedDocumentNode<R, V>, variables: V) => retrying(() => send(document, variables));

  /** A message of the session by id (any branch) with its turn, or null: what an earlier attempt stored. */
  async function lookup(sessionId: string, messageId: string) {
    return (await send(MessageLookup, { sessionId, messageId })).session?.message ?? null;
  }

  /** The messages of a turn as this call sent them: the server's copy matches when ids and texts do. */
  const same = (stored: ClientMessageFragment | null | undefined, sent: { messageId: string; content: string }) =>
    stored != null && stored.messageId === sent.messageId && stored.content === sent.content;

  function sameTools(turn: ClientTurnFragment, sent: WithId[]): boolean {
    return turn.toolResults.length === sent.length && sent.every((tool, i) => same(turn.toolResults[i], tool));
  }

  /**
   * Writes a whole turn, sent again while that may succeed. A CONFLICT is answered with the closed
   * turn stored under `at.messageId` when `sentByThisCall` recognises it (the first attempt got
   * through and only its answer was lost); otherwise it is the caller's error.
   */
  async function writeTurn(
    write: () => Promise<ClientTurnFragment>,
    at: { sessionId: string; messageId: string },
    sentByThisCall: (turn: ClientTurnFragment) => boolean,
  ): Promise<ClientTurnFragment> {
    return retrying(async () => {
      try {
        return await write();
      } catch (error) {
        if (!isCode(error, 'CONFLICT')) throw error;
        const turn = (await lookup(at.sessionId, at.messageId))?.turn;
        if (turn && !turn.open && sentByThisCall(turn)) return turn;
        throw error;
      }
    });
  }

  function wsClient(): WsClient {
    ws ??= createWsClient({
      url: endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: options.token !== undefined ? { token: options.token } : {},
      retryAttempts: retries,
      // A wrong token stays wrong: report it at once (4403) instead of retrying.
      shouldRetry: (event) => typeof (event as { code?: unknown })?.code === 'number' && (event as { code: number }).code !== 4403,
      lazy: true,
    });
    return ws;
  }

  function subscribeTo<R, V>(
    document: TypedDocumentNode<R, V>,
    variables: V,
    onEvent: (data: R) => void,
    onError: ((error: EntityMemoryError) => void) | undefined,
  ): Unsubscribe {
    const client = wsClient();
    const report = (error: EntityMemoryError) => {
      if (onError) onError(error);
    };
    const dispose = client.subscribe<R>(
      { query: print(document), variables: variables as Record<string, unknown> },
      {
        next: (result) => {
          const first = result.errors?.[0];
          if (first) report(graphQLError(first));
          else if (result.data) onEvent(result.data as R);
        },
        error: (error) => report(socketError(error)),
        complete: () => {},
      },
    );
    // The server takes a socket's messages in order, and sets a subscription up without waiting
    // on I/O: once a query sent after it is answered, the subscription listens.
    const ready = new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: print(Ping) },
        {
          next: () => {},
          error: (error) => reject(socketError(error)),
          complete: () => resolve(),
        },
      );
    });
    ready.catch(() => {}); // a caller that never awaits it is told through onError
    return Object.assign(() => dispose(), { ready });
  }

  /** A page of a connection: its nodes, the total and where the next page starts. */
  function pageOf<T>(connection: { edges: { node: T }[]; totalCount: number; pageInfo: Page<T>['pageInfo'] }): Page<T> {
    return { nodes: connection.edges.map((edge) => edge.node), totalCount: connection.totalCount, pageInfo: connection.pageInfo };
  }

  /** The variables of a paged query of one session. */
  const pageVariables = (sessionId: string, page: PageArgs) => ({ sessionId, branch: page.branch ?? null, first: page.first ?? null, after: page.after ?? null });

  return {
    /** The GraphQL endpoint this client sends to. */
    endpoint,

    /** Asks the server something trivial: resolves once it answers, so a wrong URL or token shows before any real call. */
    async ping(): Promise<void> {
      await request(Ping, {});
    },

    /** Creates a session (its id: the one given, else a new UUID). A retry after a lost answer answers the session made. */
    async createSession(input: CreateSessionInput = {}) {
      const variables = { input: { ...input, sessionId: input.sessionId ?? randomUUID() } };
      return retrying(async (n) => {
        try {
          return (await send(CreateSession, variables)).createSession;
        } catch (error) {
          if (n > 1 && isCode(error, 'CONFLICT')) {
            const existing = (await send(SessionQuery, { sessionId: variables.input.sessionId })).session;
            if (existing) return existing;
          }
          throw error;
        }
      });
    },

    /**
     * A whole turn in one call: the user message, the reply, the tool results,
     * then the close. Sent again with the same ids (after a lost answer, or by
     * the caller), it answers the turn already recorded instead of adding one.
     */
    async recordTurn(args: RecordTurnArgs): Promise<ClientTurnFragment> {
      const user = withId(args.user);
      const assistant = withId(args.assistant);
      const toolResults = (args.toolResults ?? []).map(withId);
      const input = {
        sessionId: args.sessionId,
        user,
        assistant,
        toolResults,
        touchedPaths: args.touchedPaths,
        startedAt: args.startedAt instanceof Date ? args.startedAt.toISOString() : args.startedAt,
        durationMs: args.durationMs,
        tokens: args.tokens,
      };
      return writeTurn(
        async () => (await send(RecordTurn, { input })).recordTurn,
        { sessionId: args.sessionId, messageId: user.messageId },
        (turn) => same(turn.userMessage, user) && same(turn.assistantMessage, assistant) && sameTools(turn, toolResults),
      );
    },

    /** A new reply to an earlier user message, on a new branch retry-<assistant messageId>; idempotent like recordTurn. */
    async retryTurn(args: RetryTurnArgs): Promise<ClientTurnFragment> {
      const assistant = withId(args.assistant);
      const toolResults = (args.toolResults ?? []).map(withId);
      const input = {
        sessionId: args.sessionId,
        userMessageId: args.userMessageId,
        assistant,
        toolResults,
        touchedPaths: args.touchedPaths,
        durationMs: args.durationMs,
        tokens: args.tokens,
      };
      return writeTurn(
        async () => (await send(RetryTurn, { input })).retryTurn,
        { sessionId: args.sessionId, messageId: assistant.messageId },
        (turn) => turn.userMessage.messageId === args.userMessageId && same(turn.assistantMessage, assistant) && sameTools(turn, toolResults),
      );
    },

    /** One message (a USER message opens a turn); idempotent by its messageId. */
    async appendMessage(input: AppendMessageInput) {
      const variables = { input: { ...input, messageId: input.messageId ?? randomUUID() } };
      const message = await retrying(async () => {
        try {
          return (await send(AppendMessage, variables)).appendMessage;
        } catch (error) {
          // The id already stored, or (a USER message) the turn it opened still open: was it this message?
          if (!isCode(error, 'CONFLICT')) throw error;
          const stored = await lookup(input.sessionId, variables.input.messageId);
          if (stored && stored.role === input.role && stored.content === input.content) {
            return { ...stored, turn: stored.turn && { number: stored.turn.number, open: stored.turn.open } };
          }
          throw error;
        }
      });
      if (message.role === 'USER') openedBy.set(input.sessionId, message.messageId);
      return message;
    },

    /** Changes a message of the open turn (the same values again change nothing). */
    async updateMessage(input: UpdateMessageInput) {
      return (await request(UpdateMessage, { input })).updateMessage;
    },

    /**
     * Closes the open turn. Sent again after a lost answer, it answers the turn that was closed
     * (when this client appended the turn's user message).
     */
    async endTurn(input: EndTurnInput): Promise<ClientTurnFragment> {
      const userMessageId = openedBy.get(input.sessionId);
      openedBy.delete(input.sessionId);
      return retrying(async (n) => {
        try {
          return (await send(EndTurn, { input })).endTurn;
        } catch (error) {
          // The first attempt closed the turn and its answer was lost: there is no open turn now.
          if (n > 1 && userMessageId !== undefined && isCode(error, 'BAD_USER_INPUT') && /no open turn/i.test((error as Error).message)) {
            const turn = (await lookup(input.sessionId, userMessageId))?.turn;
            if (turn && !turn.open) return turn;
          }
          throw error;
        }
      });
    },

    /** Views an older commit (replay); the next user message forks from it. */
    async checkout(input: CheckoutInput) {
      return (await request(Checkout, { input })).checkout;
    },

    /**
     * Back to a turn: the agent's project files, the conversation, or both (neither given). A path the user
     * changed refuses it with CONFLICT (extensions.paths) and nothing moves; `dryRun` answers the plan only.
     */
    async rewind(input: RewindInput): Promise<RewindOutcome> {
      return (await request(Rewind, { input })).rewind;
    },

    /**
     * The agent's paths in the session's project back to their state after `turn` (0: before the
     * first); never another path. CONFLICT (extensions.paths), nothing written, where the user changed one.
     */
    async restoreProjectFiles(input: RestoreProjectFilesInput): Promise<ProjectFilesOutcome> {
      return (await request(RestoreProjectFiles, { input })).restoreProjectFiles;
    },

    /** A skipped turn's snapshot (projectCommit.result SKIPPED_*) written into the project's working tree; nothing committed. */
    async applyTurnSnapshot(input: ApplyTurnSnapshotInput): Promise<ProjectFilesOutcome> {
      return (await request(ApplyTurnSnapshot, { input })).applyTurnSnapshot;
    },

    /** Undoes applyTurnSnapshot; CONFLICT where the user changed or committed a path since. */
    async unapplyTurnSnapshot(input: ApplyTurnSnapshotInput): Promise<ProjectFilesOutcome> {
      return (await request(UnapplyTurnSnapshot, { input })).unapplyTurnSnapshot;
    },

    /**
     * Every session's messages that match `query` (words, "a phrase", -word, prefix*, role:, tool:,
     * path:, session:), best first; BAD_USER_INPUT (extensions.position) for a malformed query.
     */
    async search(query: string, options: { filter?: SearchFilter; first?: number; after?: string } = {}): Promise<SearchResults> {
      return (await request(Search, { query, ...options })).search;
    },

    async switchBranch(input: SwitchBranchInput) {
      return (await request(SwitchBranch, { input })).switchBranch;
    },

    /** The session with its branches and mirror status, or null when there is none. */
    async session(sessionId: string): Promise<SessionDetails | null> {
      return (await request(SessionQuery, { sessionId })).session;
    },

    /** Turns along a branch (default the current one), oldest first, with their commits once mirrored. */
    async turns(sessionId: string, page: PageArgs = {}): Promise<Page<TurnWithCommit>> {
      const { session } = await request(TurnsQuery, pageVariables(sessionId, page));
      if (!session) throw notFound(sessionId);
      return pageOf(session.turns);
    },

    /** Messages on the path to a branch's tip (default the current branch), in order. */
    async messages(sessionId: string, page: PageArgs = {}): Promise<Page<MessageWithTurn>> {
      const { session } = await request(MessagesQuery, pageVariables(sessionId, page));
      if (!session) throw notFound(sessionId);
      return pageOf(session.messages);
    },

    /**
     * One session's parsed messages (an importer's), written under the turn rules. Sent again,
     * it adds only what the session does not have yet, so a retry after a lost answer is safe.
     */
    async importSession(input: ImportSessionInput): Promise<ImportSessionOutcome> {
      return (await request(ImportSession, { input })).importSession;
    },

    subscribe: {
      /** Every turn commit of the session (of all sessions when sessionId is null). */
      turnCommitted(sessionId: string | null, onEvent: (event: TurnCommittedEvent) => void, onError?: (error: EntityMemoryError) => void): Unsubscribe {
        return subscribeTo(TurnCommittedSubscription, { sessionId }, (data) => onEvent(data.turnCommitted), onError);
      },
      /** Everything that changes what the session's timeline shows: commits, new branches, switches, checkouts. */
      timeline(sessionId: string, onEvent: (event: TimelineEvent) => void, onError?: (error: EntityMemoryError) => void): Unsubscribe {
        return subscribeTo(TimelineSubscription, { sessionId }, (data) => onEvent(data.timeline), onError);
      },
    },

    /** Closes the subscription socket, if one was opened. */
    async close(): Promise<void> {
      const open = ws;
      ws = undefined;
      await open?.dispose();
    },
  };
}

export type EntityMemoryClient = ReturnType<typeof createClient>;

type WithId = TurnMessageInput & { messageId: string };

/** The message with a messageId: the caller's, or a new UUID (made once, so every attempt sends the same). */
function withId(message: TurnMessage): WithId {
  const fields = typeof message === 'string' ? { content: message } : message;
  return { ...fields, messageId: fields.messageId ?? randomUUID() };
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof EntityMemoryError && error.code === code;
}

function notFound(sessionId: string): EntityMemoryError {
  return new EntityMemoryError('NOT_FOUND', `Session ${JSON.stringify(sessionId)} does not exist.`, { extensions: { code: 'NOT_FOUND', sessionId } });
}

function graphQLError(error: { message: string; extensions?: Record<string, unknown> }): EntityMemoryError {
  const extensions = error.extensions ?? {};
  return new EntityMemoryError(typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR', error.message, { extensions });
}

/** What graphql-ws reports: GraphQL errors of the operation, a close event, or another failure. */
function socketError(error: unknown): EntityMemoryError {
  if (Array.isArray(error) && error[0] && typeof error[0] === 'object') return graphQLError(error[0] as { message: string });
  const close = error as { code?: unknown; reason?: unknown };
  if (typeof close?.code === 'number') {
    const reason = typeof close.reason === 'string' && close.reason !== '' ? close.reason : `closed with ${close.code}`;
    const code = close.code === 4403 ? 'FORBIDDEN' : 'SUBSCRIPTION_CLOSED';
    return new EntityMemoryError(code, reason, { extensions: { closeCode: close.code }, retryable: close.code !== 4403 });
  }
  return new EntityMemoryError('NETWORK_ERROR', error instanceof Error ? error.message : String(error), { retryable: true, cause: error });
}
