-- AlterTable
ALTER TABLE "Project" ADD COLUMN "trustedConfig" TEXT;
