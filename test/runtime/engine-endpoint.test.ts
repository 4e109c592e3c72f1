// Unit tests for resolving the Docker endpoint from options and DOCKER_HOST.

import { describe, expect, it } from 'vitest';
import { describeEndpoint, resolveEngineEndpoint } from '../../src/runtime/engine-endpoint.js';

describe('resolveEngineEndpoint', () => {
  it.each([
    { name: 'explicit socket wins', socket: '/tmp/d.sock', env: { DOCKER_HOST: 'tcp://h:1' }, expected: 'unix:///tmp/d.sock' },
    { name: 'unix DOCKER_HOST', env: { DOCKER_HOST: 'unix:///run/user/1/docker.sock' }, expected: 'unix:///run/user/1/docker.sock' },
    { name: 'tcp DOCKER_HOST', env: { DOCKER_HOST: 'tcp://10.0.0.2:2375' }, expected: 'tcp://10.0.0.2:2375' },
    { name: 'bare host:port', env: { DOCKER_HOST: '10.0.0.2:2375' }, expected: 'tcp://10.0.0.2:2375' },
    { name: 'TLS', env: { DOCKER_HOST: 'tcp://h:2376' }, expected: 'https://h:2376' },
    { name: 'ssh', env: { DOCKER_HOST: 'ssh://me@h:22' }, expected: 'ssh://h:22' },
  ])('$name', ({ socket, env, expected }) => {
    expect(describeEndpoint(resolveEngineEndpoint(socket, env))).toBe(expected);
  });

  it('defaults to a Unix socket', () => {
    expect(resolveEngineEndpoint(undefined, {}).kind).toBe('unix');
  });
});
