-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "globalAccountId" TEXT,
ADD COLUMN     "normalizedName" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "thirdPartyAuthProviders" JSONB;

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "cancelAt" TIMESTAMP(3),
ADD COLUMN     "canceledAt" TIMESTAMP(3),
ADD COLUMN     "currentPeriodEnd" TIMESTAMP(3),
ADD COLUMN     "grantedById" TEXT,
ADD COLUMN     "refundedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "GlobalAccount" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GlobalAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RefreshToken" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "familyId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RefreshToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LoginIntent" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "service" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "thirdPartyAccountId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "consumedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LoginIntent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PasswordReset" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT,
    "globalAccountId" TEXT,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PasswordReset_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessCode" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "accessCode" TEXT NOT NULL,
    "sku" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "batchId" TEXT,
    "consumedAt" TIMESTAMP(3),
    "consumedByAccountId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AccessCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TvCode" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "deviceId" TEXT NOT NULL,
    "deviceTokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "accountId" TEXT,
    "activatedAt" TIMESTAMP(3),
    "claimedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TvCode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Invite" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'magic-link',
    "tokenHash" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "targetSkus" JSONB NOT NULL,
    "targetRoles" JSONB NOT NULL,
    "consumed" BOOLEAN NOT NULL DEFAULT false,
    "consumedAt" TIMESTAMP(3),
    "consumedByAccountId" TEXT,
    "guestAccount" BOOLEAN NOT NULL DEFAULT false,
    "revoked" BOOLEAN NOT NULL DEFAULT false,
    "revokedAt" TIMESTAMP(3),
    "tags" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Invite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Bundle" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "image" TEXT,
    "sku" TEXT,
    "presentmentCurrency" TEXT NOT NULL DEFAULT 'USD',
    "price" DOUBLE PRECISION,
    "items" JSONB NOT NULL,
    "tags" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Bundle_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Charge" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Charge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "chargeRowId" TEXT NOT NULL,
    "amountMinor" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "details" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "MailMessage" (
    "id" TEXT NOT NULL,
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
    "sentAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MailMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReceiptEmail" (
    "siteId" TEXT NOT NULL,
    "domain" TEXT,
    "fromEmail" TEXT,
    "fromName" TEXT,
    "replyToEmail" TEXT,
    "dkimSelector" TEXT,
    "dkimPublicKey" TEXT,
    "dkimPrivateKeyEncrypted" TEXT,
    "subject" TEXT,
    "template" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ReceiptEmail_pkey" PRIMARY KEY ("siteId")
);

-- CreateTable
CREATE TABLE "CommunityExport" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "fileName" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "rowCount" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CommunityExport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClaimStatus" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "questId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClaimStatus_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE INDEX "Account_siteId_normalizedName_idx" ON "Account"("siteId", "normalizedName");

-- CreateIndex
CREATE INDEX "Account_siteId_createdAt_idx" ON "Account"("siteId", "createdAt");

-- CreateIndex
CREATE INDEX "Account_globalAccountId_idx" ON "Account"("globalAccountId");

-- CreateIndex
CREATE INDEX "Subscription_siteId_entitlementId_idx" ON "Subscription"("siteId", "entitlementId");

-- CreateIndex
CREATE INDEX "Subscription_grantedById_idx" ON "Subscription"("grantedById");

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Refund" ADD CONSTRAINT "Refund_chargeRowId_fkey" FOREIGN KEY ("chargeRowId") REFERENCES "Charge"("id") ON DELETE CASCADE ON UPDATE CASCADE;

