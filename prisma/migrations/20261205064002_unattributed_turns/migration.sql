-- Added in place (no table rebuild: a database with many turns migrates at once).
ALTER TABLE "Project" ADD COLUMN "attributeUnmarkedTurns" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Turn" ADD COLUMN "projectUnattributed" BOOLEAN NOT NULL DEFAULT false;
