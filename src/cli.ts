/**
 * The command line: `entity-memory serve [flags]` (the default command).
 * Exit codes: 0 done, 1 failed, 2 bad usage.
 */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';

const USAGE = `usage: entity-memory serve [--data-dir DIR] [--port N] [--host HOST] [--allowed-root PATH]...
                          [--max-content-bytes N] [--log-level LEVEL]`;

async function serve(argv: string[]): Promise<void> {
  const config = loadConfig(argv);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  console.log(`entity-memory: GraphiQL at ${server.url}/graphql (data in ${config.dataDir})`);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function main(args: string[]): Promise<void> {
  const [command = 'serve', ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command === 'serve') return serve(rest);
  if (command.startsWith('-')) return serve(args);
  throw new ConfigError(`unknown command ${JSON.stringify(command)}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`entity-memory: ${error.message} (see --help)`);
    process.exit(2);
  }
  console.error(`entity-memory: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
