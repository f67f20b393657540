-- Data only: a channel's sidebar panels become references (pages -> panels), as every page write now keeps them.
INSERT INTO "ContentReference" ("siteId", "targetCollection", "targetId", "sourceCollection", "sourceId", "sourceName")
SELECT DISTINCT p."siteId", 'panels', item->>'id', 'pages', p."id", CASE WHEN p."name" <> '' THEN p."name" ELSE p."slug" END
FROM "Page" p
CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(p."document"->'renderers'->'sidebar'->'items') = 'array' THEN p."document"->'renderers'->'sidebar'->'items' ELSE '[]'::jsonb END) item
WHERE p."type" = 'channel'
  AND jsonb_typeof(item->'id') = 'string'
  AND item->>'id' <> ''
ON CONFLICT DO NOTHING;
