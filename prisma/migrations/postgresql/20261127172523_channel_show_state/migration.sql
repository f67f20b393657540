-- AlterTable
ALTER TABLE "Stream" ADD COLUMN     "showChangedAt" TIMESTAMP(3),
ADD COLUMN     "showStartedAt" TIMESTAMP(3),
ADD COLUMN     "showState" TEXT NOT NULL DEFAULT 'OFFLINE';

