// Simulators for a test file: each started with the no-op policy and the given options, all closed after the file.
import { afterAll } from 'vitest';
import { noopPolicy } from '../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';

/** Returns `sim(options)`; call at a test file's top level (it registers the afterAll that closes them). */
export function testSims(): (options: Partial<SimServerOptions>) => Promise<SimServer> {
  const servers: SimServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });
  return async (options) => {
    const server = await startSimServer({ policy: noopPolicy(), ...options });
    servers.push(server);
    return server;
  };
}
