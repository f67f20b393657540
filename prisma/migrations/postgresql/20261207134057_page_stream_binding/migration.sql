-- AlterTable
ALTER TABLE "Page" ADD COLUMN     "streamId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Page_siteId_streamId_key" ON "Page"("siteId", "streamId");

-- Data: one stream, one channel of a site. The oldest page of the site naming a stream holds it; a later one (a clone) lets go of it.
UPDATE "Page" p SET "streamId" = p."document"->'renderers'->'livestream'->>'stream_id'
WHERE jsonb_typeof(p."document"->'renderers'->'livestream'->'stream_id') = 'string'
  AND p."document"->'renderers'->'livestream'->>'stream_id' <> ''
  AND NOT EXISTS (
    SELECT 1 FROM "Page" o
    WHERE o."siteId" = p."siteId"
      AND jsonb_typeof(o."document"->'renderers'->'livestream'->'stream_id') = 'string'
      AND o."document"->'renderers'->'livestream'->>'stream_id' = p."document"->'renderers'->'livestream'->>'stream_id'
      AND (o."createdAt" < p."createdAt" OR (o."createdAt" = p."createdAt" AND o."id" < p."id"))
  );
UPDATE "Page" SET "document" = "document" #- '{renderers,livestream,stream_id}'
WHERE "streamId" IS NULL
  AND jsonb_typeof("document"->'renderers'->'livestream'->'stream_id') = 'string'
  AND "document"->'renderers'->'livestream'->>'stream_id' <> '';
