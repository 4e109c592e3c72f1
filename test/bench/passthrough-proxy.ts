// The floor: a do-nothing Node reverse proxy (what any Node proxy costs on this machine). Run as its own process:
//   node --import tsx test/bench/passthrough-proxy.ts --upstream http://127.0.0.1:PORT [--port N]
import http from 'node:http';
import { argValue, listenOnLoopback, type RunningServer, runAsProcess } from './run-as-process.js';

export function startPassthroughProxy(upstreamUrl: string, port = 0): Promise<RunningServer> {
  const upstream = new URL(upstreamUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 256 });
  const server = http.createServer({ keepAliveTimeout: 300_000, requestTimeout: 0 }, (req, res) => {
    const upstreamReq = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    upstreamReq.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`passthrough proxy: ${error.message}`);
    });
    req.pipe(upstreamReq);
  });
  server.headersTimeout = 60_000;
  const running = listenOnLoopback(server, port);
  return running.then((started) => ({
    url: started.url,
    close: async () => {
      await started.close();
      agent.destroy();
    },
  }));
}

await runAsProcess(import.meta.url, () => {
  const upstream = argValue(process.argv, '--upstream');
  if (upstream === undefined) throw new Error('passthrough-proxy needs --upstream <url>');
  return startPassthroughProxy(upstream, Number(argValue(process.argv, '--port') ?? 0));
});
