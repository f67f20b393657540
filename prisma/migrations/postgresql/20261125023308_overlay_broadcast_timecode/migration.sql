-- AlterTable
ALTER TABLE "OverlayBroadcast" ADD COLUMN     "liveBroadcastId" TEXT,
ADD COLUMN     "streamSecond" INTEGER;

-- CreateIndex
CREATE INDEX "LiveBroadcast_siteId_videoId_idx" ON "LiveBroadcast"("siteId", "videoId");

-- CreateIndex
CREATE INDEX "OverlayBroadcast_siteId_liveBroadcastId_streamSecond_idx" ON "OverlayBroadcast"("siteId", "liveBroadcastId", "streamSecond");

