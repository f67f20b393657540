-- CreateTable
CREATE TABLE "Entitlement" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "sku" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prices" JSONB NOT NULL,
    "recurrence" TEXT NOT NULL DEFAULT 'once',
    "subscriptionProvider" TEXT NOT NULL DEFAULT 'stagegraph',
    "tags" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Subscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "entitlementId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "grantedMethod" TEXT NOT NULL,
    "presentmentCurrency" TEXT NOT NULL DEFAULT 'USD',
    "dateGranted" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Subscription_entitlementId_fkey" FOREIGN KEY ("entitlementId") REFERENCES "Entitlement" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Video" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pageId" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "type" TEXT NOT NULL DEFAULT 'vod',
    "url" TEXT NOT NULL,
    "durationSeconds" REAL,
    "player" TEXT NOT NULL DEFAULT 'stagegraph',
    "thumbnail" TEXT,
    "uploadStatus" TEXT NOT NULL DEFAULT 'ready',
    "requiredSkus" JSONB NOT NULL,
    "source" JSONB,
    "externalId" TEXT,
    "tags" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Entitlement_siteId_sku_key" ON "Entitlement"("siteId", "sku");

-- CreateIndex
CREATE INDEX "Subscription_siteId_accountId_idx" ON "Subscription"("siteId", "accountId");

-- CreateIndex
CREATE INDEX "Video_siteId_pageId_idx" ON "Video"("siteId", "pageId");

-- CreateIndex
CREATE UNIQUE INDEX "Video_siteId_externalId_key" ON "Video"("siteId", "externalId");

