-- The role of each message in the full-text index too (src/services/search): role:tool with a
-- word is then one lookup in the index, where it read every newer match of the word from
-- "Message" to check its role (21 ms of SQL for role:tool error at 250,000 messages, 8 ms now).
-- The column role holds the role lower-cased (user, assistant, tool, system); bm25 weighs it 0.
-- FTS5 cannot add a column, so the index is made again as before with the column, and filled
-- with the messages already stored (about 9 s at 250,000 messages).
-- No apostrophe or semicolon in these comments: the migration runner reads them as SQL.
DROP TRIGGER "Message_search_insert";
DROP TRIGGER "Message_search_update";
DROP TRIGGER "Message_search_delete";
DROP TABLE "MessageSearch";

CREATE VIRTUAL TABLE "MessageSearch" USING fts5(
  content,
  tools,
  role,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER "Message_search_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageSearch" (rowid, content, tools, role)
  VALUES (new.rowid, substr(new."content", 1, 100000), substr(coalesce(new."toolName", '') || ' ' || coalesce(new."metadata", ''), 1, 100000), lower(new."role"));
END;

CREATE TRIGGER "Message_search_update" AFTER UPDATE OF "content", "toolName", "metadata", "role" ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
  INSERT INTO "MessageSearch" (rowid, content, tools, role)
  VALUES (new.rowid, substr(new."content", 1, 100000), substr(coalesce(new."toolName", '') || ' ' || coalesce(new."metadata", ''), 1, 100000), lower(new."role"));
END;

CREATE TRIGGER "Message_search_delete" AFTER DELETE ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
END;

-- The messages already stored.
INSERT INTO "MessageSearch" (rowid, content, tools, role)
SELECT rowid, substr("content", 1, 100000), substr(coalesce("toolName", '') || ' ' || coalesce("metadata", ''), 1, 100000), lower("role") FROM "Message";
