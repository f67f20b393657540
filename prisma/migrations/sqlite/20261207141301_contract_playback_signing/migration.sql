-- AlterTable
ALTER TABLE "StreamProviderContract" ADD COLUMN "playbackKeyEncrypted" TEXT;
ALTER TABLE "StreamProviderContract" ADD COLUMN "playbackKeyId" TEXT;

