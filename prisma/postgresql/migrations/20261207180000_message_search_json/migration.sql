-- Words inside JSON found as words (src/services/search), as the SQLite index does them
-- (prisma/migrations/*_message_search_json). Agents send a tool result or a tool input as JSON,
-- where a line break is the two characters backslash and n: the first word of every line after
-- the first was indexed glued to that n (nerror, nimport), so error and import found nothing
-- there. In a message text that starts as JSON does (an opening brace or bracket), and always in
-- the tools text (its metadata is JSON), the escapes of a backslash, a quote, a line break, a
-- carriage return and a tab are read as spaces. Other text is indexed as before.
-- A generated column cannot change its expression here (PostgreSQL 15): it is made again with
-- its index, as its first migration made them (about 100 s at 250,000 messages), kept in the row.
-- No apostrophe or semicolon in these comments: the migration runner reads them as SQL.
ALTER TABLE "Message" DROP COLUMN IF EXISTS "searchVector";

ALTER TABLE "Message" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, regexp_replace(lower(
    CASE WHEN left("content", 1) IN ('{', '[') THEN regexp_replace(left("content", 100000), '\\[\\nrt"]', ' ', 'g') ELSE left("content", 100000) END
  ), '[^[:alnum:]]+', ' ', 'g')), 'A') ||
  setweight(to_tsvector('simple'::regconfig, regexp_replace(lower(left(
    coalesce("toolName", '') || ' ' || regexp_replace(coalesce("metadata", ''), '\\[\\nrt"]', ' ', 'g'), 100000
  )), '[^[:alnum:]]+', ' ', 'g')), 'B')
) STORED;

ALTER TABLE "Message" ALTER COLUMN "searchVector" SET STORAGE MAIN;

CREATE INDEX "Message_searchVector_idx" ON "Message" USING GIN ("searchVector");
