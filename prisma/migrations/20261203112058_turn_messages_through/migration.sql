-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Turn" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "parentTurnId" TEXT,
    "userMessageId" TEXT NOT NULL,
    "open" BOOLEAN NOT NULL DEFAULT true,
    "durationMs" INTEGER,
    "tokens" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" DATETIME,
    "mirrorState" TEXT NOT NULL DEFAULT 'PENDING',
    "commitSha" TEXT,
    "mirroredAt" DATETIME,
    "dirtyAtStart" TEXT,
    "touchedPaths" TEXT,
    "startedAt" DATETIME,
    "projectResult" TEXT,
    "projectCommitSha" TEXT,
    "projectDirtyPaths" TEXT,
    "projectMessage" TEXT,
    "projectReason" TEXT,
    "projectId" TEXT,
    "projectHeadAtClose" TEXT,
    "projectFiles" TEXT,
    "projectSuspects" TEXT,
    "projectCaptureError" TEXT,
    "projectSnapshotSha" TEXT,
    "messagesThrough" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "Turn_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Turn_parentTurnId_fkey" FOREIGN KEY ("parentTurnId") REFERENCES "Turn" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Turn_userMessageId_fkey" FOREIGN KEY ("userMessageId") REFERENCES "Message" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Turn" ("branch", "closedAt", "commitSha", "createdAt", "dirtyAtStart", "durationMs", "id", "mirrorState", "mirroredAt", "number", "open", "parentTurnId", "projectCaptureError", "projectCommitSha", "projectDirtyPaths", "projectFiles", "projectHeadAtClose", "projectId", "projectMessage", "projectReason", "projectResult", "projectSnapshotSha", "projectSuspects", "sessionId", "startedAt", "tokens", "touchedPaths", "userMessageId") SELECT "branch", "closedAt", "commitSha", "createdAt", "dirtyAtStart", "durationMs", "id", "mirrorState", "mirroredAt", "number", "open", "parentTurnId", "projectCaptureError", "projectCommitSha", "projectDirtyPaths", "projectFiles", "projectHeadAtClose", "projectId", "projectMessage", "projectReason", "projectResult", "projectSnapshotSha", "projectSuspects", "sessionId", "startedAt", "tokens", "touchedPaths", "userMessageId" FROM "Turn";
DROP TABLE "Turn";
ALTER TABLE "new_Turn" RENAME TO "Turn";
CREATE INDEX "Turn_sessionId_commitSha_idx" ON "Turn"("sessionId", "commitSha");
CREATE INDEX "Turn_userMessageId_idx" ON "Turn"("userMessageId");
CREATE INDEX "Turn_sessionId_closedAt_idx" ON "Turn"("sessionId", "closedAt");
CREATE UNIQUE INDEX "Turn_sessionId_branch_number_key" ON "Turn"("sessionId", "branch", "number");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- The kept count for the turns already written: a turn's parent's count, plus the messages recorded
-- in it, plus the user message a retry answers (recorded in the turn the retry replaced), as
-- messageFilter (src/services/replay/branch-path.ts) counts a path. Walked from the first turns
-- down; the index on parentTurnId lives only while this runs, so each step is a probe.
CREATE INDEX "Turn_messagesThrough_backfill_idx" ON "Turn"("parentTurnId");
WITH RECURSIVE "through"("id", "total") AS (
    SELECT t."id",
        (SELECT COUNT(*) FROM "Message" m WHERE m."turnId" = t."id")
        + (SELECT COUNT(*) FROM "Message" u WHERE u."id" = t."userMessageId" AND u."turnId" IS NOT NULL AND u."turnId" <> t."id")
    FROM "Turn" t WHERE t."parentTurnId" IS NULL
    UNION ALL
    SELECT c."id", p."total"
        + (SELECT COUNT(*) FROM "Message" m WHERE m."turnId" = c."id")
        + (SELECT COUNT(*) FROM "Message" u WHERE u."id" = c."userMessageId" AND u."turnId" IS NOT NULL AND u."turnId" <> c."id")
    FROM "through" p JOIN "Turn" c ON c."parentTurnId" = p."id"
)
UPDATE "Turn" SET "messagesThrough" = "through"."total" FROM "through" WHERE "through"."id" = "Turn"."id";
DROP INDEX "Turn_messagesThrough_backfill_idx";
