// The forwarder run inside a container: 127.0.0.1:<port> piped to the gateway's Unix socket.

/**
 * CommonJS source for `node forwarder.cjs <socketPath> <port>`. Each TCP connection on 127.0.0.1 is
 * piped both ways to a fresh connection to the socket; half-closes propagate, errors close both sides.
 * It prints `listening <port>` once bound so a log shows it started. On a server error (e.g. the port
 * is taken) it sets exit code 1, closes the server and every open socket, and so ends.
 */
export const FORWARDER_SCRIPT = `'use strict';
// polar forwarder: 127.0.0.1:<port> -> <unix socket> (the model gateway on the host).
const net = require('node:net');
const [socketPath, port] = process.argv.slice(2);
const sockets = new Set();
const track = (socket) => { sockets.add(socket); socket.once('close', () => sockets.delete(socket)); };
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  track(client);
  track(upstream);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('error', close);
  upstream.on('error', close);
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => {
  console.error('forwarder: ' + error.message);
  process.exitCode = 1;
  server.close();
  for (const socket of sockets) socket.destroy();
});
server.listen(Number(port), '127.0.0.1', () => console.log('listening ' + port));
`;

/** A `node -e` probe: exits 0 as soon as 127.0.0.1:<port> accepts, 1 after <timeoutMs>. */
export const PORT_PROBE_SCRIPT = `
const net = require('node:net');
const [port, timeoutMs] = process.argv.slice(1).map(Number);
const deadline = Date.now() + timeoutMs;
const attempt = () => {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); process.exitCode = 0; });
  socket.once('error', () => {
    socket.destroy();
    if (Date.now() > deadline) process.exitCode = 1;
    else setTimeout(attempt, 25);
  });
};
attempt();
`;
