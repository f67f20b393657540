-- AlterTable
ALTER TABLE "Stream" ADD COLUMN     "signedOnly" BOOLEAN NOT NULL DEFAULT false;

