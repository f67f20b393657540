-- AlterTable
ALTER TABLE "Site" ADD COLUMN     "trustedDocumentsOnly" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "TrustedDocument" (
    "siteId" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "name" TEXT,
    "type" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TrustedDocument_pkey" PRIMARY KEY ("siteId","hash")
);

