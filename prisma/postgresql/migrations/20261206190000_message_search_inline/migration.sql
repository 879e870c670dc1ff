-- The search column kept in the row (STORAGE MAIN: compressed, and moved out to TOAST only as
-- the last resort), the message text moved out first instead. A search reads the newest rows of
-- a word by "createdAt" and tests each tsvector (src/services/search/search.ts): out of line,
-- each test was a TOAST fetch, and a prefix, a phrase or a filtered query read thousands of them
-- (at 250,000 messages, p50 82 ms for redact* against 35 ms kept in the row, bench/search.ts).
-- Rows written from now on are kept so, and older rows as they are rewritten. No table rewrite
-- here, so the upgrade takes no time.
ALTER TABLE "Message" ALTER COLUMN "searchVector" SET STORAGE MAIN;
