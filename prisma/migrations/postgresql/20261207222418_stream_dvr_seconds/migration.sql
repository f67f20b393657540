-- AlterTable
ALTER TABLE "Stream" ADD COLUMN     "dvrSeconds" INTEGER NOT NULL DEFAULT 0;

