// The hosts file (--hosts) and --host: the YAML polar reads, defaults, and what it refuses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeHostSpec, hostSpec, loadHostsFile, resolveHostSpecs, resolveIdentity } from '../../src/config/hosts-file.js';
import { parseYamlSubset } from '../../src/config/parse-yaml-subset.js';
import { ConfigError, UsageError } from '../../src/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'polar-hosts-file-'));
const env = { HOME: '/home/ann', USER: 'ann' };
const file = (name: string, text: string): string => {
  const target = path.join(dir, name);
  writeFileSync(target, text);
  return target;
};

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseYamlSubset', () => {
  it('reads block mappings, lists of mappings, flow collections, quotes and comments', () => {
    const text = [
      '# hosts for the lab',
      'hosts:',
      '  - name: gpu-a   # the first',
      '    ssh: ssh://polar@10.0.0.2:2222',
      '    slots: 8',
      '    labels: {zone: a, "rack": \'r1\'}',
      '  - ssh: "ssh://b.lab"',
      '    slots: measured',
      '    labels:',
      '      zone: b',
      '      gpu: false',
      '    tags: [x, "y, z"]',
      'empty:',
    ].join('\n');
    expect(parseYamlSubset(text, 't.yaml')).toEqual({
      hosts: [
        { name: 'gpu-a', ssh: 'ssh://polar@10.0.0.2:2222', slots: 8, labels: { zone: 'a', rack: 'r1' } },
        { ssh: 'ssh://b.lab', slots: 'measured', labels: { zone: 'b', gpu: false }, tags: ['x', 'y, z'] },
      ],
      empty: null,
    });
  });

  it('accepts a list at its key\'s indentation, and JSON', () => {
    expect(parseYamlSubset('hosts:\n- ssh: ssh://a\n- ssh: ssh://b\n', 't')).toEqual({ hosts: [{ ssh: 'ssh://a' }, { ssh: 'ssh://b' }] });
    expect(parseYamlSubset('{"hosts": [{"ssh": "ssh://a", "slots": 2}]}', 't')).toEqual({ hosts: [{ ssh: 'ssh://a', slots: 2 }] });
  });

  it.each([
    ['an anchor', 'a: &x 1\n', /line 1: anchors/],
    ['a block scalar', 'a: |\n  text\n', /line 1: anchors, aliases, tags and block scalars/],
    ['a duplicate key', 'a: 1\na: 2\n', /line 2: duplicate key "a"/],
    ['a stray indentation', 'a: 1\n   b: 2\n', /line 2: unexpected indentation/],
    ['an unterminated quote', 'a: "open\n', /line 1: unterminated quoted string/],
  ])('refuses %s with its line', (_what, text, message) => {
    expect(() => parseYamlSubset(text, 'x.yaml')).toThrow(ConfigError);
    expect(() => parseYamlSubset(text, 'x.yaml')).toThrow(message);
  });
});

describe('hosts file', () => {
  it('loads hosts with defaults, paths relative to the file and ~ expanded', () => {
    const hosts = loadHostsFile(file('hosts.yaml', 'hosts:\n  - ssh: ssh://polar@10.0.0.2:2222\n    identity: keys/id\n    known_hosts: ~/kh\n    slots: 4\n  - ssh: ssh://b.lab\n'), env);
    expect(hosts).toEqual([
      { name: '10.0.0.2:2222', user: 'polar', host: '10.0.0.2', port: 2222, identityFile: path.join(dir, 'keys/id'), knownHostsFile: '/home/ann/kh', dockerSocket: '/var/run/docker.sock', slots: 4, labels: {}, workDir: '.polar' },
      { name: 'b.lab', user: 'ann', host: 'b.lab', port: 22, knownHostsFile: '/home/ann/.ssh/known_hosts', dockerSocket: '/var/run/docker.sock', slots: 'measured', labels: {}, workDir: '.polar' },
    ]);
  });

  it.each([
    ['an unknown field', 'hosts:\n  - ssh: ssh://a\n    password: hunter2\n', /Unrecognized key|unrecognized/i],
    ['no hosts', 'hosts: []\n', /hosts/],
    ['zero slots', 'hosts:\n  - ssh: ssh://a\n    slots: 0\n', /slots/],
    ['a relative socket', 'hosts:\n  - ssh: ssh://a\n    docker_socket: docker.sock\n', /docker_socket/],
    ['two hosts with one name', 'hosts:\n  - ssh: ssh://a\n    name: x\n  - ssh: ssh://b\n    name: x\n', /two hosts are named "x"/],
    ['one engine twice', 'hosts:\n  - ssh: ssh://a\n  - ssh: ssh://a:22\n    name: again\n', /repeats/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => loadHostsFile(file(`bad-${Math.random()}.yaml`, text), env)).toThrow(message);
  });

  it('reads --host URLs and refuses what is not one', () => {
    expect(hostSpec('ssh://root@[fd00::5]:2022', {}, env)).toMatchObject({ user: 'root', host: 'fd00::5', port: 2022, name: 'fd00::5:2022' });
    expect(describeHostSpec(hostSpec('ssh://root@[fd00::5]:2022', {}, env)).ssh).toBe('ssh://root@[fd00::5]:2022');
    for (const bad of ['root@a', 'http://a', 'ssh://a:0', 'ssh://a/path']) expect(() => hostSpec(bad, {}, env)).toThrow(UsageError);
    expect(resolveHostSpecs({ host: ['ssh://a', 'ssh://b'] }, env).map((spec) => spec.name)).toEqual(['a', 'b']);
  });

  it('offers the host\'s key, else the agent, else a default key; never stores a key in the description', () => {
    const spec = hostSpec('ssh://a', { identityFile: '/k' }, env);
    expect(resolveIdentity(spec, env)).toEqual({ privateKeyFile: '/k' });
    expect(resolveIdentity(hostSpec('ssh://a', {}, env), { ...env, SSH_AUTH_SOCK: '/agent' })).toEqual({ agent: '/agent' });
    expect(resolveIdentity(hostSpec('ssh://a', {}, env), env)).toBeUndefined();
    expect(JSON.stringify(describeHostSpec(spec))).not.toContain('/k');
  });
});
