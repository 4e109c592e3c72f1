// The Docker hosts of a run with --hosts, one line each: state, sessions over what it holds, images, losses.
import { Text } from 'ink';
import type { RolloutHostMetrics } from '../rollout/rollout-metrics.js';

export function DashboardHosts({ hosts }: { hosts: readonly RolloutHostMetrics[] | undefined }) {
  if (hosts === undefined || hosts.length === 0) return null;
  return (
    <>
      {hosts.map((host) => (
        <Text key={host.name} wrap="truncate-end" {...(host.state === 'up' ? {} : { color: 'red' })}>
          {hostLine(host)}
        </Text>
      ))}
    </>
  );
}

/** `host h1       up    2/3 sessions, 1 image` (and `, lost 1x` / the last error when it has one). */
export function hostLine(host: RolloutHostMetrics): string {
  const lost = host.losses > 0 ? `, lost ${host.losses}x` : '';
  const error = host.state !== 'up' && host.lastError !== null ? ` - ${host.lastError}` : '';
  return `host ${host.name.padEnd(10)}${host.state.padEnd(11)}${host.sessions}/${host.capacity} sessions, ${host.images} image${host.images === 1 ? '' : 's'}${lost}${error}`;
}
