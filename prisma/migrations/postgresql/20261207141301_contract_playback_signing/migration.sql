-- AlterTable
ALTER TABLE "StreamProviderContract" ADD COLUMN     "playbackKeyEncrypted" TEXT,
ADD COLUMN     "playbackKeyId" TEXT;

