-- AlterTable
ALTER TABLE "Message" ADD COLUMN     "redactions" TEXT;
