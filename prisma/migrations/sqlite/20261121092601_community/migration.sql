-- CreateTable
CREATE TABLE "GlobalAccount" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RefreshToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "familyId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "LoginIntent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "thirdPartyAccountId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "consumedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "PasswordReset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT,
    "globalAccountId" TEXT,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "AccessCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accessCode" TEXT NOT NULL,
    "sku" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "batchId" TEXT,
    "consumedAt" DATETIME,
    "consumedByAccountId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "TvCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL,
    "deviceTokenHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "accountId" TEXT,
    "activatedAt" DATETIME,
    "claimedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Invite" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'magic-link',
    "tokenHash" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "targetSkus" JSONB NOT NULL,
    "targetRoles" JSONB NOT NULL,
    "consumed" BOOLEAN NOT NULL DEFAULT false,
    "consumedAt" DATETIME,
    "consumedByAccountId" TEXT,
    "guestAccount" BOOLEAN NOT NULL DEFAULT false,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revokedAt" DATETIME,
    "tags" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Bundle" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "image" TEXT,
    "sku" TEXT,
    "presentmentCurrency" TEXT NOT NULL DEFAULT 'USD',
    "price" REAL,
    "items" JSONB NOT NULL,
    "tags" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Charge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "chargeId" TEXT NOT NULL,
    "receiptNumber" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "priceMinor" INTEGER NOT NULL,
    "serviceMinor" INTEGER NOT NULL DEFAULT 0,
    "taxMinor" INTEGER NOT NULL DEFAULT 0,
    "amountMinor" INTEGER NOT NULL,
    "refundedMinor" INTEGER NOT NULL DEFAULT 0,
    "paymentMethod" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "chargeRowId" TEXT NOT NULL,
    "amountMinor" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "details" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Refund_chargeRowId_fkey" FOREIGN KEY ("chargeRowId") REFERENCES "Charge" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MailMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT,
    "kind" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "from" TEXT NOT NULL,
    "replyTo" TEXT,
    "subject" TEXT NOT NULL,
    "html" TEXT,
    "text" TEXT,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "sentAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ReceiptEmail" (
    "siteId" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT,
    "fromEmail" TEXT,
    "fromName" TEXT,
    "replyToEmail" TEXT,
    "dkimSelector" TEXT,
    "dkimPublicKey" TEXT,
    "dkimPrivateKeyEncrypted" TEXT,
    "subject" TEXT,
    "template" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CommunityExport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "rowCount" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ClaimStatus" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "questId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Account" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "normalizedName" TEXT NOT NULL DEFAULT '',
    "passwordHash" TEXT,
    "roles" JSONB NOT NULL,
    "marketingOptin" BOOLEAN NOT NULL DEFAULT false,
    "thirdPartyAuthProviders" JSONB,
    "globalAccountId" TEXT,
    "tags" JSONB NOT NULL,
    "lastLoginAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Account" ("createdAt", "email", "id", "lastLoginAt", "marketingOptin", "name", "passwordHash", "roles", "siteId", "tags", "updatedAt") SELECT "createdAt", "email", "id", "lastLoginAt", "marketingOptin", "name", "passwordHash", "roles", "siteId", "tags", "updatedAt" FROM "Account";
DROP TABLE "Account";
ALTER TABLE "new_Account" RENAME TO "Account";
CREATE INDEX "Account_siteId_normalizedName_idx" ON "Account"("siteId", "normalizedName");
CREATE INDEX "Account_siteId_createdAt_idx" ON "Account"("siteId", "createdAt");
CREATE INDEX "Account_globalAccountId_idx" ON "Account"("globalAccountId");
CREATE UNIQUE INDEX "Account_siteId_email_key" ON "Account"("siteId", "email");
CREATE TABLE "new_Subscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "entitlementId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "grantedMethod" TEXT NOT NULL,
    "grantedById" TEXT,
    "presentmentCurrency" TEXT NOT NULL DEFAULT 'USD',
    "dateGranted" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "currentPeriodEnd" DATETIME,
    "cancelAt" DATETIME,
    "canceledAt" DATETIME,
    "refundedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Subscription_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Subscription_entitlementId_fkey" FOREIGN KEY ("entitlementId") REFERENCES "Entitlement" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Subscription" ("accountId", "createdAt", "dateGranted", "entitlementId", "grantedMethod", "id", "presentmentCurrency", "siteId", "status", "updatedAt") SELECT "accountId", "createdAt", "dateGranted", "entitlementId", "grantedMethod", "id", "presentmentCurrency", "siteId", "status", "updatedAt" FROM "Subscription";
DROP TABLE "Subscription";
ALTER TABLE "new_Subscription" RENAME TO "Subscription";
CREATE INDEX "Subscription_siteId_accountId_idx" ON "Subscription"("siteId", "accountId");
CREATE INDEX "Subscription_siteId_entitlementId_idx" ON "Subscription"("siteId", "entitlementId");
CREATE INDEX "Subscription_grantedById_idx" ON "Subscription"("grantedById");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "GlobalAccount_email_key" ON "GlobalAccount"("email");

-- CreateIndex
CREATE UNIQUE INDEX "RefreshToken_tokenHash_key" ON "RefreshToken"("tokenHash");

-- CreateIndex
CREATE INDEX "RefreshToken_accountId_idx" ON "RefreshToken"("accountId");

-- CreateIndex
CREATE INDEX "RefreshToken_familyId_idx" ON "RefreshToken"("familyId");

-- CreateIndex
CREATE UNIQUE INDEX "LoginIntent_tokenHash_key" ON "LoginIntent"("tokenHash");

-- CreateIndex
CREATE INDEX "LoginIntent_accountId_idx" ON "LoginIntent"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "PasswordReset_tokenHash_key" ON "PasswordReset"("tokenHash");

-- CreateIndex
CREATE INDEX "PasswordReset_accountId_idx" ON "PasswordReset"("accountId");

-- CreateIndex
CREATE INDEX "PasswordReset_globalAccountId_idx" ON "PasswordReset"("globalAccountId");

-- CreateIndex
CREATE UNIQUE INDEX "AccessCode_siteId_accessCode_key" ON "AccessCode"("siteId", "accessCode");

-- CreateIndex
CREATE UNIQUE INDEX "TvCode_deviceTokenHash_key" ON "TvCode"("deviceTokenHash");

-- CreateIndex
CREATE INDEX "TvCode_siteId_expiresAt_idx" ON "TvCode"("siteId", "expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "TvCode_siteId_code_key" ON "TvCode"("siteId", "code");

-- CreateIndex
CREATE UNIQUE INDEX "Invite_tokenHash_key" ON "Invite"("tokenHash");

-- CreateIndex
CREATE INDEX "Invite_siteId_createdAt_idx" ON "Invite"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "Bundle_siteId_idx" ON "Bundle"("siteId");

-- CreateIndex
CREATE UNIQUE INDEX "Bundle_siteId_sku_key" ON "Bundle"("siteId", "sku");

-- CreateIndex
CREATE INDEX "Charge_siteId_accountId_idx" ON "Charge"("siteId", "accountId");

-- CreateIndex
CREATE INDEX "Charge_subscriptionId_idx" ON "Charge"("subscriptionId");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_siteId_chargeId_key" ON "Charge"("siteId", "chargeId");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_siteId_receiptNumber_key" ON "Charge"("siteId", "receiptNumber");

-- CreateIndex
CREATE INDEX "Refund_chargeRowId_idx" ON "Refund"("chargeRowId");

-- CreateIndex
CREATE INDEX "MailMessage_siteId_createdAt_idx" ON "MailMessage"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "CommunityExport_siteId_idx" ON "CommunityExport"("siteId");

-- CreateIndex
CREATE INDEX "ClaimStatus_siteId_accountId_idx" ON "ClaimStatus"("siteId", "accountId");

-- CreateIndex
CREATE UNIQUE INDEX "ClaimStatus_siteId_questId_accountId_key" ON "ClaimStatus"("siteId", "questId", "accountId");

