-- AlterTable
ALTER TABLE "DeveloperKey" ADD COLUMN     "lastUsedAt" TIMESTAMP(3),
ADD COLUMN     "name" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "prefix" TEXT NOT NULL DEFAULT '';

