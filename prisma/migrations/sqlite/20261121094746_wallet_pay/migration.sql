-- CreateTable
CREATE TABLE "WalletPayVerification" (
    "siteId" TEXT NOT NULL PRIMARY KEY,
    "domain" TEXT NOT NULL,
    "verifiedAt" DATETIME NOT NULL
);

