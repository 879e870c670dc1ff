-- Full-text search over messages (src/services/search): a generated tsvector column and its GIN
-- index, so every write of a message, whatever path wrote it, updates it in its own statement.
-- Words as the SQLite index makes them (prisma/migrations/*_message_search): runs of letters and
-- digits, lower-cased, accents kept (everything else made a space, then the simple
-- configuration: no stemming, no stop words). The text weighs A, the tool name and metadata (the
-- inputs of its tool calls: paths, commands) weigh B, the first 100,000 characters of each are
-- indexed (a tsvector holds at most 1 MB). Not in schema.prisma: Prisma never reads it. No
-- apostrophe or semicolon in these comments: the migration runner reads them as SQL.
ALTER TABLE "Message" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, regexp_replace(lower(left("content", 100000)), '[^[:alnum:]]+', ' ', 'g')), 'A') ||
  setweight(to_tsvector('simple'::regconfig, regexp_replace(lower(left(coalesce("toolName", '') || ' ' || coalesce("metadata", ''), 100000)), '[^[:alnum:]]+', ' ', 'g')), 'B')
) STORED;

CREATE INDEX "Message_searchVector_idx" ON "Message" USING GIN ("searchVector");
