-- CreateTable
CREATE TABLE "DataEvent" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "dataProviderId" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3),

    CONSTRAINT "DataEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StreamProviderContract" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "urls" JSONB NOT NULL,
    "accountCredentials" JSONB NOT NULL,
    "useAccount" BOOLEAN NOT NULL,
    "authorizationHash" TEXT NOT NULL,
    "authorizationEncrypted" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StreamProviderContract_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Stream" (
    "id" TEXT NOT NULL,
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
    "ingestChangedAt" TIMESTAMP(3),
    "playbackLive" BOOLEAN NOT NULL DEFAULT false,
    "playbackChangedAt" TIMESTAMP(3),
    "recording" BOOLEAN NOT NULL DEFAULT false,
    "liveBroadcastId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Stream_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LiveBroadcast" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "contractId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "liveBroadcastId" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "stoppedAt" TIMESTAMP(3),
    "vodId" TEXT,
    "vodUrl" TEXT,
    "vodDurationSeconds" DOUBLE PRECISION,
    "videoId" TEXT,
    "vodDeliveredAt" TIMESTAMP(3),
    "vodDeletedAt" TIMESTAMP(3),

    CONSTRAINT "LiveBroadcast_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AutomationRule" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "dataProviderId" TEXT NOT NULL,
    "jsonRule" JSONB NOT NULL,
    "isActive" BOOLEAN NOT NULL,
    "channelId" TEXT,
    "clientRule" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AutomationRule_pkey" PRIMARY KEY ("id")
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

-- AddForeignKey
ALTER TABLE "DataEvent" ADD CONSTRAINT "DataEvent_dataProviderId_fkey" FOREIGN KEY ("dataProviderId") REFERENCES "DataProvider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Stream" ADD CONSTRAINT "Stream_contractId_fkey" FOREIGN KEY ("contractId") REFERENCES "StreamProviderContract"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LiveBroadcast" ADD CONSTRAINT "LiveBroadcast_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

