/**
 * The bytes of a session repo's files, exactly as the on-disk contract gives
 * them. Everything comes from the database, so a repo rebuilt from it has the
 * same trees (and, with the same dates, the same commit shas).
 */
import { messagePath } from './paths.js';

export interface MessageRecord {
  messageId: string;
  seq: number;
  role: string;
  content: string;
  predecessorMessageId: string | null;
  callerMessageId: string | null;
  toolName: string | null;
  toolCallId: string | null;
  createdAt: Date;
  /** JSON text or null. */
  metadata: string | null;
}

export interface SessionRecord {
  sessionId: string;
  title: string | null;
  agentId: string | null;
  model: string | null;
  projectId: string | null;
  createdAt: Date;
}

/** Unix seconds as a float that always shows a fraction: 1779500000.0, 1779500000.123. */
export function unixSeconds(date: Date): string {
  const seconds = date.getTime() / 1000;
  const text = String(seconds);
  return Number.isInteger(seconds) ? `${text}.0` : text;
}

function indentNested(json: string): string {
  return json.split('\n').join('\n  ');
}

/** A message's file: keys in the contract's order, two-space indent, trailing newline. */
export function messageFile(message: MessageRecord): { path: string; content: string } {
  const lines = [
    `"id": ${JSON.stringify(message.messageId)}`,
    `"role": ${JSON.stringify(message.role.toLowerCase())}`,
    `"content": ${JSON.stringify(message.content)}`,
    `"predecessor": ${JSON.stringify(message.predecessorMessageId)}`,
    `"caller": ${JSON.stringify(message.callerMessageId)}`,
  ];
  if (message.toolName !== null) lines.push(`"tool_name": ${JSON.stringify(message.toolName)}`);
  if (message.toolCallId !== null) lines.push(`"tool_call_id": ${JSON.stringify(message.toolCallId)}`);
  lines.push(`"created_at": ${unixSeconds(message.createdAt)}`);
  const metadata = message.metadata === null ? {} : (JSON.parse(message.metadata) as unknown);
  lines.push(`"metadata": ${indentNested(JSON.stringify(metadata, null, 2))}`);
  return {
    path: messagePath(message.seq, message.role, message.messageId),
    content: `{\n  ${lines.join(',\n  ')}\n}\n`,
  };
}

export function metaFile(session: SessionRecord): { path: string; content: string } {
  const lines = [
    `"session_id": ${JSON.stringify(session.sessionId)}`,
    `"title": ${JSON.stringify(session.title)}`,
    `"agent_id": ${JSON.stringify(session.agentId)}`,
    `"model": ${JSON.stringify(session.model)}`,
    `"project_id": ${JSON.stringify(session.projectId)}`,
    `"created_at": ${unixSeconds(session.createdAt)}`,
  ];
  return { path: 'meta.json', content: `{\n  ${lines.join(',\n  ')}\n}\n` };
}
