// /v1/status `hosts`: every Docker host sessions are placed on (one, `local`, without --hosts), in the API's snake_case.
import type { HostStatus } from '../rollout/hosts/host-pool.js';

export function hostsStatusJson(hosts: readonly HostStatus[]): Record<string, unknown>[] {
  return hosts.map((host) => ({
    name: host.name,
    address: host.address,
    state: host.state,
    last_error: host.lastError,
    since: new Date(host.since).toISOString(),
    losses: host.losses,
    slots: host.slots,
    capacity: Number.isFinite(host.capacity) ? host.capacity : null,
    sessions: host.sessions,
    images: host.images,
    labels: host.labels,
  }));
}
