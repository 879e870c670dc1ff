-- Full-text search over messages (src/services/search): an FTS5 index, kept by triggers in the
-- same transaction as every write of a message, whatever path wrote it. Contentless (the text
-- stays in "Message" only), its rowid is the rowid of the message. Words as the unicode61
-- tokenizer of FTS5 makes them: runs of letters and digits, lower-cased, accents kept. The column
-- content is the text of the message, tools its tool name and metadata (the inputs of its tool
-- calls: paths, commands), the first 100,000 characters of each are indexed. No apostrophe or
-- semicolon in these comments: the migration runner reads them as SQL.
CREATE VIRTUAL TABLE "MessageSearch" USING fts5(
  content,
  tools,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 0'
);

CREATE TRIGGER "Message_search_insert" AFTER INSERT ON "Message" BEGIN
  INSERT INTO "MessageSearch" (rowid, content, tools)
  VALUES (new.rowid, substr(new."content", 1, 100000), substr(coalesce(new."toolName", '') || ' ' || coalesce(new."metadata", ''), 1, 100000));
END;

CREATE TRIGGER "Message_search_update" AFTER UPDATE OF "content", "toolName", "metadata" ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
  INSERT INTO "MessageSearch" (rowid, content, tools)
  VALUES (new.rowid, substr(new."content", 1, 100000), substr(coalesce(new."toolName", '') || ' ' || coalesce(new."metadata", ''), 1, 100000));
END;

CREATE TRIGGER "Message_search_delete" AFTER DELETE ON "Message" BEGIN
  DELETE FROM "MessageSearch" WHERE rowid = old.rowid;
END;

-- The messages already stored.
INSERT INTO "MessageSearch" (rowid, content, tools)
SELECT rowid, substr("content", 1, 100000), substr(coalesce("toolName", '') || ' ' || coalesce("metadata", ''), 1, 100000) FROM "Message";
