-- CreateTable
CREATE TABLE "DeveloperKey" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "DeveloperKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Account" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT,
    "roles" JSONB NOT NULL,
    "marketingOptin" BOOLEAN NOT NULL DEFAULT false,
    "tags" JSONB NOT NULL,
    "lastLoginAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Site" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "deviceLimit" INTEGER NOT NULL DEFAULT 3,
    "settings" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Site_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Page" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "baseLanguage" TEXT NOT NULL DEFAULT 'en-US',
    "document" JSONB NOT NULL,
    "tags" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Page_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DataProvider" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "schema" JSONB NOT NULL,
    "ownerName" TEXT NOT NULL,
    "ownerEmail" TEXT NOT NULL,
    "realtime" BOOLEAN NOT NULL,
    "ttl" INTEGER,
    "secretEncrypted" TEXT NOT NULL,
    "tags" JSONB NOT NULL,
    "removedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DataProvider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Overlay" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL,
    "contents" JSONB NOT NULL,
    "cta" JSONB,
    "duration" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Overlay_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OverlayBroadcast" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "overlayId" TEXT NOT NULL,
    "channelId" TEXT,
    "tagId" TEXT,
    "variables" JSONB NOT NULL,
    "event" JSONB NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "clearedAt" TIMESTAMP(3),

    CONSTRAINT "OverlayBroadcast_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "DeveloperKey_keyHash_key" ON "DeveloperKey"("keyHash");

-- CreateIndex
CREATE INDEX "DeveloperKey_siteId_idx" ON "DeveloperKey"("siteId");

-- CreateIndex
CREATE UNIQUE INDEX "Account_siteId_email_key" ON "Account"("siteId", "email");

-- CreateIndex
CREATE INDEX "Page_siteId_type_idx" ON "Page"("siteId", "type");

-- CreateIndex
CREATE UNIQUE INDEX "Page_siteId_slug_key" ON "Page"("siteId", "slug");

-- CreateIndex
CREATE INDEX "DataProvider_siteId_idx" ON "DataProvider"("siteId");

-- CreateIndex
CREATE INDEX "Overlay_siteId_idx" ON "Overlay"("siteId");

-- CreateIndex
CREATE INDEX "OverlayBroadcast_siteId_expiresAt_idx" ON "OverlayBroadcast"("siteId", "expiresAt");

-- AddForeignKey
ALTER TABLE "OverlayBroadcast" ADD CONSTRAINT "OverlayBroadcast_overlayId_fkey" FOREIGN KEY ("overlayId") REFERENCES "Overlay"("id") ON DELETE CASCADE ON UPDATE CASCADE;

