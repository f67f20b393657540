/**
 * Prisma CLI configuration. The JavaScript schema engine (`engine: "js"`) with a driver adapter is what
 * works offline on Prisma 6.19; the CLI is only used at build time to generate clients and to diff
 * schemas into SQL migrations, never to apply them (see shared/db/migrate.ts).
 */
import { defineConfig } from 'prisma/config';
import { PrismaSqlite } from './shared/db/sqliteAdapter';

export default defineConfig({
  experimental: { adapter: true },
  // The source folder; build scripts pass the derived single-file schemas with --schema.
  schema: 'prisma/schema',
  engine: 'js',
  async adapter() {
    return new PrismaSqlite(':memory:');
  },
});
