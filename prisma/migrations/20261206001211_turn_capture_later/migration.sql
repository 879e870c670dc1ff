-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "projectCaptureLater" TEXT;
