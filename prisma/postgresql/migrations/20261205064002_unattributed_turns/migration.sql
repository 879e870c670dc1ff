-- AlterEnum
ALTER TYPE "ProjectCommitResult" ADD VALUE 'SKIPPED_UNATTRIBUTED';

-- AlterTable
ALTER TABLE "Project" ADD COLUMN     "attributeUnmarkedTurns" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Turn" ADD COLUMN     "projectUnattributed" BOOLEAN NOT NULL DEFAULT false;
