-- CreateTable
CREATE TABLE "DataEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "dataProviderId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "receivedAt" DATETIME NOT NULL,
    "expiresAt" DATETIME,
    CONSTRAINT "DataEvent_dataProviderId_fkey" FOREIGN KEY ("dataProviderId") REFERENCES "DataProvider" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "StreamProviderContract" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "urls" JSONB NOT NULL,
    "accountCredentials" JSONB NOT NULL,
    "useAccount" BOOLEAN NOT NULL,
    "authorizationHash" TEXT NOT NULL,
    "authorizationEncrypted" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Stream" (
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
    "ingestEnabled" BOOLEAN NOT NULL DEFAULT true,
    "ingestConnected" BOOLEAN NOT NULL DEFAULT false,
    "ingestChangedAt" DATETIME,
    "playbackLive" BOOLEAN NOT NULL DEFAULT false,
    "playbackChangedAt" DATETIME,
    "recording" BOOLEAN NOT NULL DEFAULT false,
    "liveBroadcastId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Stream_contractId_fkey" FOREIGN KEY ("contractId") REFERENCES "StreamProviderContract" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "LiveBroadcast" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "contractId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "liveBroadcastId" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "stoppedAt" DATETIME,
    "vodId" TEXT,
    "vodUrl" TEXT,
    "vodDurationSeconds" REAL,
    "videoId" TEXT,
    "vodDeliveredAt" DATETIME,
    "vodDeletedAt" DATETIME,
    CONSTRAINT "LiveBroadcast_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AutomationRule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "dataProviderId" TEXT NOT NULL,
    "jsonRule" JSONB NOT NULL,
    "isActive" BOOLEAN NOT NULL,
    "channelId" TEXT,
    "clientRule" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "DataEvent_dataProviderId_receivedAt_idx" ON "DataEvent"("dataProviderId", "receivedAt");

-- CreateIndex
CREATE INDEX "DataEvent_expiresAt_idx" ON "DataEvent"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "StreamProviderContract_authorizationHash_key" ON "StreamProviderContract"("authorizationHash");

-- CreateIndex
CREATE UNIQUE INDEX "StreamProviderContract_siteId_name_key" ON "StreamProviderContract"("siteId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "Stream_title_key" ON "Stream"("title");

-- CreateIndex
CREATE INDEX "Stream_siteId_pageId_idx" ON "Stream"("siteId", "pageId");

-- CreateIndex
CREATE UNIQUE INDEX "Stream_contractId_providerStreamId_key" ON "Stream"("contractId", "providerStreamId");

-- CreateIndex
CREATE UNIQUE INDEX "LiveBroadcast_liveBroadcastId_key" ON "LiveBroadcast"("liveBroadcastId");

-- CreateIndex
CREATE INDEX "LiveBroadcast_streamId_startedAt_idx" ON "LiveBroadcast"("streamId", "startedAt");

-- CreateIndex
CREATE INDEX "LiveBroadcast_siteId_vodId_idx" ON "LiveBroadcast"("siteId", "vodId");

-- CreateIndex
CREATE UNIQUE INDEX "LiveBroadcast_contractId_vodId_key" ON "LiveBroadcast"("contractId", "vodId");

-- CreateIndex
CREATE INDEX "AutomationRule_siteId_createdAt_idx" ON "AutomationRule"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "AutomationRule_dataProviderId_isActive_idx" ON "AutomationRule"("dataProviderId", "isActive");

