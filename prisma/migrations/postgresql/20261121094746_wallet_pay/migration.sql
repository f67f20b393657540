-- CreateTable
CREATE TABLE "WalletPayVerification" (
    "siteId" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "verifiedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WalletPayVerification_pkey" PRIMARY KEY ("siteId")
);

