/** Entry point of the `taskflow` binary (bin/taskflow.js) and of `npm start`. */
import { runCli } from "./run-cli.ts";

const code = await runCli(process.argv.slice(2), process.env, {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
});
// A failure exits now, even if a half-opened pool still holds the event loop; success
// leaves the process to the server (serve) or lets it end naturally (migrate, help).
if (code !== 0) process.exit(code);
