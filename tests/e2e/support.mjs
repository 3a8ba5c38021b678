// What the end-to-end tests share beside the WebDriver client: running a command (the CLI) and a
// TCP listener standing in for a table's shoe.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** Runs a command with `env` added; resolves with its exit code and output. */
export function run(command, args, env = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => done({ code, out }));
  });
}

/** A TCP listener standing in for a table's shoe that sends nothing (what it dealt is imported). */
export async function tcpDevice() {
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return {
    port: server.address().port,
    stop: () => new Promise((ok) => {
      for (const s of sockets) s.destroy();
      server.close(() => ok());
    }),
  };
}
