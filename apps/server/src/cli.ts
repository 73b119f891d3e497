import { runCli } from './cli/run-cli.js';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('Error:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
