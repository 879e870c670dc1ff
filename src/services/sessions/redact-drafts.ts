/**
 * Secrets out before anything is stored: every message draft goes through here on its way to
 * the SessionWriter, which refuses a draft that did not (`redactions` undefined), so no way in
 * (the API, hooks, imports) can store a message unscanned. With `redact: false` (`--redact off`)
 * drafts pass unchanged, marked as seen.
 */
import { redactMessageFields } from '../../redaction/message.js';
import { redactJsonText, redactText } from '../../redaction/secrets.js';
import type { Deps } from '../deps.js';
import type { MessageDraft } from './session-writer.js';

/** Redacts the drafts in place (content, metadata, and what was taken out); returns them. */
export async function redactDrafts<T extends MessageDraft>(deps: Pick<Deps, 'config'>, drafts: T[]): Promise<T[]> {
  for (const draft of drafts) {
    if (draft.redactions !== undefined) continue;
    const redacted = await redactUpdate(deps, draft.content, draft.metadata);
    draft.content = redacted.content;
    draft.metadata = redacted.metadata;
    draft.redactions = redacted.redactions;
  }
  return drafts;
}

/** A message's new content and metadata (an update), redacted as a draft is. */
export async function redactUpdate(
  deps: Pick<Deps, 'config'>,
  content: string,
  metadata: string | null,
): Promise<{ content: string; metadata: string | null; redactions: string | null }> {
  if (deps.config.redact === false) return { content, metadata, redactions: null };
  return redactMessageFields(content, metadata);
}

/** A session's own free text (title, metadata as JSON text), redacted as a message is; null stays null. */
export async function redactSessionFields(
  deps: Pick<Deps, 'config'>,
  title: string | null,
  metadata: string | null,
): Promise<{ title: string | null; metadata: string | null }> {
  if (deps.config.redact === false) return { title, metadata };
  return {
    title: title === null ? null : (await redactText(title)).text,
    metadata: metadata === null ? null : (await redactJsonText(metadata)).text,
  };
}
