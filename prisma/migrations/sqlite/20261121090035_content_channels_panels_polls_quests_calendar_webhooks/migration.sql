-- CreateTable
CREATE TABLE "PageExternalField" (
    "pageId" TEXT NOT NULL,
    "field" INTEGER NOT NULL,
    "siteId" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    PRIMARY KEY ("pageId", "field")
);

-- CreateTable
CREATE TABLE "Panel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "renderer" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ChannelTemplate" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "searchText" TEXT NOT NULL,
    "icon" TEXT,
    "panels" JSONB NOT NULL,
    "rules" JSONB NOT NULL,
    "theme" TEXT,
    "creator" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "archived" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Playlist" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "searchTitle" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "members" JSONB NOT NULL,
    "tags" JSONB NOT NULL,
    "sourceUrl" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Poll" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "searchText" TEXT NOT NULL,
    "answers" JSONB NOT NULL,
    "correctAnswerId" TEXT,
    "open" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Quest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "searchTitle" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "actions" JSONB NOT NULL,
    "channelIds" JSONB NOT NULL,
    "claimedMessage" TEXT NOT NULL,
    "rewardDescription" TEXT NOT NULL,
    "rewardImage" TEXT,
    "rewardType" TEXT NOT NULL,
    "timeMinimum" REAL,
    "timeMaximum" REAL,
    "webhookId" TEXT,
    "webhookType" TEXT,
    "webhookValue" REAL,
    "tags" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ContentReference" (
    "siteId" TEXT NOT NULL,
    "targetCollection" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "sourceCollection" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "sourceName" TEXT NOT NULL,

    PRIMARY KEY ("sourceCollection", "sourceId", "targetCollection", "targetId")
);

-- CreateTable
CREATE TABLE "CalendarEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "titleRaw" TEXT NOT NULL,
    "descriptionRaw" TEXT NOT NULL DEFAULT '',
    "categories" JSONB NOT NULL,
    "date" JSONB NOT NULL,
    "image" JSONB,
    "thirdPartyEventId" TEXT,
    "startAt" DATETIME NOT NULL,
    "endAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CalendarEventLabel" (
    "eventId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "categoryId" TEXT NOT NULL,
    "categoryTitle" TEXT NOT NULL,
    "labelId" TEXT NOT NULL,
    "labelTitle" TEXT NOT NULL,
    "labelColor" TEXT NOT NULL,

    PRIMARY KEY ("eventId", "categoryId", "labelId")
);

-- CreateTable
CREATE TABLE "AccountDevice" (
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL,
    "firstSeenAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,

    PRIMARY KEY ("siteId", "accountId", "deviceId")
);

-- CreateTable
CREATE TABLE "ChannelPreview" (
    "siteId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "viewerKey" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,

    PRIMARY KEY ("siteId", "pageId", "viewerKey")
);

-- CreateTable
CREATE TABLE "WebhookEndpoint" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "events" JSONB NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "sealedSecret" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "endpointId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL,
    "lastStatusCode" INTEGER,
    "lastError" TEXT,
    "deliveredAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Page" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "baseLanguage" TEXT NOT NULL DEFAULT 'en-US',
    "document" JSONB NOT NULL,
    "tags" JSONB NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "searchName" TEXT NOT NULL DEFAULT '',
    "gatePasswordHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Page" ("baseLanguage", "createdAt", "document", "id", "siteId", "slug", "tags", "type", "updatedAt") SELECT "baseLanguage", "createdAt", "document", "id", "siteId", "slug", "tags", "type", "updatedAt" FROM "Page";
DROP TABLE "Page";
ALTER TABLE "new_Page" RENAME TO "Page";
CREATE INDEX "Page_siteId_type_idx" ON "Page"("siteId", "type");
CREATE INDEX "Page_siteId_createdAt_idx" ON "Page"("siteId", "createdAt");
CREATE UNIQUE INDEX "Page_siteId_slug_key" ON "Page"("siteId", "slug");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "PageExternalField_siteId_value_idx" ON "PageExternalField"("siteId", "value");

-- CreateIndex
CREATE INDEX "Panel_siteId_type_idx" ON "Panel"("siteId", "type");

-- CreateIndex
CREATE INDEX "Panel_siteId_createdAt_idx" ON "Panel"("siteId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Panel_siteId_slug_key" ON "Panel"("siteId", "slug");

-- CreateIndex
CREATE INDEX "ChannelTemplate_siteId_archived_updatedAt_idx" ON "ChannelTemplate"("siteId", "archived", "updatedAt");

-- CreateIndex
CREATE INDEX "Playlist_siteId_createdAt_idx" ON "Playlist"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "Playlist_siteId_title_idx" ON "Playlist"("siteId", "title");

-- CreateIndex
CREATE INDEX "Poll_siteId_createdAt_idx" ON "Poll"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "Poll_siteId_name_idx" ON "Poll"("siteId", "name");

-- CreateIndex
CREATE INDEX "Quest_siteId_createdAt_idx" ON "Quest"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "Quest_siteId_rewardType_idx" ON "Quest"("siteId", "rewardType");

-- CreateIndex
CREATE INDEX "ContentReference_siteId_targetCollection_targetId_idx" ON "ContentReference"("siteId", "targetCollection", "targetId");

-- CreateIndex
CREATE INDEX "CalendarEvent_siteId_startAt_idx" ON "CalendarEvent"("siteId", "startAt");

-- CreateIndex
CREATE INDEX "CalendarEventLabel_siteId_categoryTitle_idx" ON "CalendarEventLabel"("siteId", "categoryTitle");

-- CreateIndex
CREATE INDEX "WebhookEndpoint_siteId_idx" ON "WebhookEndpoint"("siteId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_endpointId_createdAt_idx" ON "WebhookDelivery"("endpointId", "createdAt");

