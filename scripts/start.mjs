#!/usr/bin/env node
/**
 * `npm start`: builds the demo and serves it (`vite preview`, PORT or 4173, strict) in this one
 * process, and stops cleanly on SIGINT and SIGTERM. npm forwards a signal only to the shell that
 * runs the script, and Debian's dash does not hand it on: as `vite build && vite preview` the server
 * outlived `kill <npm>`, and the next `npm start` failed on the taken port. So the script is one
 * process, which package.json `exec`s in place of the shell.
 *
 * @example
 * // PORT=8080 npm start
 */
import { build, preview } from 'vite';

const port = Number(process.env.PORT || 4173);

await build();
const server = await preview({ preview: { port, strictPort: true } });
server.printUrls();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    // Closing ends the open connections too; a second signal meanwhile ends the process at once.
    server.close().then(
      () => {
        console.log(`Stopped on ${signal}.`);
        process.exit(0);
      },
      () => process.exit(1),
    );
  });
}
