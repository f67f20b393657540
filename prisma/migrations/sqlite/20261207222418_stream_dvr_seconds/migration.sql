-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Stream" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "contractId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "fallbackImageUrl" TEXT NOT NULL,
    "providerStreamId" TEXT NOT NULL,
    "ingestUrl" TEXT NOT NULL,
    "streamKey" TEXT NOT NULL,
    "playbackUrl" TEXT NOT NULL,
    "signedOnly" BOOLEAN NOT NULL DEFAULT false,
    "ingestEnabled" BOOLEAN NOT NULL DEFAULT true,
    "ingestConnected" BOOLEAN NOT NULL DEFAULT false,
    "ingestChangedAt" DATETIME,
    "playbackLive" BOOLEAN NOT NULL DEFAULT false,
    "playbackChangedAt" DATETIME,
    "recording" BOOLEAN NOT NULL DEFAULT false,
    "liveBroadcastId" TEXT,
    "showState" TEXT NOT NULL DEFAULT 'OFFLINE',
    "showChangedAt" DATETIME,
    "showStartedAt" DATETIME,
    "dvrSeconds" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Stream_contractId_fkey" FOREIGN KEY ("contractId") REFERENCES "StreamProviderContract" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Stream" ("contractId", "createdAt", "fallbackImageUrl", "id", "ingestChangedAt", "ingestConnected", "ingestEnabled", "ingestUrl", "liveBroadcastId", "pageId", "playbackChangedAt", "playbackLive", "playbackUrl", "providerStreamId", "recording", "showChangedAt", "showStartedAt", "showState", "signedOnly", "siteId", "streamKey", "title", "updatedAt") SELECT "contractId", "createdAt", "fallbackImageUrl", "id", "ingestChangedAt", "ingestConnected", "ingestEnabled", "ingestUrl", "liveBroadcastId", "pageId", "playbackChangedAt", "playbackLive", "playbackUrl", "providerStreamId", "recording", "showChangedAt", "showStartedAt", "showState", "signedOnly", "siteId", "streamKey", "title", "updatedAt" FROM "Stream";
DROP TABLE "Stream";
ALTER TABLE "new_Stream" RENAME TO "Stream";
CREATE UNIQUE INDEX "Stream_title_key" ON "Stream"("title");
CREATE INDEX "Stream_siteId_pageId_idx" ON "Stream"("siteId", "pageId");
CREATE UNIQUE INDEX "Stream_contractId_providerStreamId_key" ON "Stream"("contractId", "providerStreamId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

