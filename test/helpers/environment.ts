/**
 * The suite decides which database and Redis its servers use (test/helpers/database.ts), not the
 * environment of whoever runs it: a DATABASE_URL or REDIS_URL meant for another program would
 * otherwise reach every server a test spawns (they inherit process.env) and point them all at one
 * database and one set of channels.
 */
delete process.env.DATABASE_URL;
delete process.env.REDIS_URL;
delete process.env.ENTITY_MEMORY_REDIS_PREFIX;
