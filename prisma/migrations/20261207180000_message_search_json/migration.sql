-- Words inside JSON found as words (src/services/search). Agents send a tool result or a tool
-- input as JSON (Claude Code sends its tool_response as an object, kept as its JSON text), where
-- a line break is the two characters backslash and n: the first word of every line after the
-- first was indexed glued to that n (nerror, nimport), so error and import found nothing there.
-- In a message text that starts as JSON does (an opening brace or bracket), and always in the
-- tools text (its metadata is JSON), the escapes of a backslash, a quote, a line break, a
-- carriage return and a tab are read as spaces. Other text is indexed as before.
-- The index is filled again with the messages already stored (about 10 s at 250,000 messages).
-- No apostrophe or semicolon in these comments: the migration runner reads them as SQL.
DROP TRIGGER "Message_search_insert";
DROP TRIGGER "Message_search_update";
DROP TRIGGER "Message_search_delete";

CREATE TRIGGER "Message_search_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageSearch" (rowid, content, tools, role)
  VALUES (
    new.rowid,
    CASE WHEN substr(new."content", 1, 1) IN ('{', '[')
      THEN replace(replace(replace(replace(replace(substr(new."content", 1, 100000), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' ')
      ELSE substr(new."content", 1, 100000) END,
    substr(coalesce(new."toolName", '') || ' ' || replace(replace(replace(replace(replace(coalesce(new."metadata", ''), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' '), 1, 100000),
    lower(new."role")
  );
END;

CREATE TRIGGER "Message_search_update" AFTER UPDATE OF "content", "toolName", "metadata", "role" ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
  INSERT INTO "MessageSearch" (rowid, content, tools, role)
  VALUES (
    new.rowid,
    CASE WHEN substr(new."content", 1, 1) IN ('{', '[')
      THEN replace(replace(replace(replace(replace(substr(new."content", 1, 100000), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' ')
      ELSE substr(new."content", 1, 100000) END,
    substr(coalesce(new."toolName", '') || ' ' || replace(replace(replace(replace(replace(coalesce(new."metadata", ''), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' '), 1, 100000),
    lower(new."role")
  );
END;

CREATE TRIGGER "Message_search_delete" AFTER DELETE ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
END;

-- The messages already stored, indexed again the same way.
DELETE FROM "MessageSearch";
INSERT INTO "MessageSearch" (rowid, content, tools, role)
SELECT
  rowid,
  CASE WHEN substr("content", 1, 1) IN ('{', '[')
    THEN replace(replace(replace(replace(replace(substr("content", 1, 100000), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' ')
    ELSE substr("content", 1, 100000) END,
  substr(coalesce("toolName", '') || ' ' || replace(replace(replace(replace(replace(coalesce("metadata", ''), '\\', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\"', ' '), 1, 100000),
  lower("role")
FROM "Message";
