// One line describing the machine a benchmark ran on (results only compare within one run).
import os from 'node:os';

export function machineInfo(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const load = os.loadavg().map((value) => value.toFixed(2)).join(' ');
  const memory = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${model}, ${cpus.length} cores, ${memory} GiB RAM, node ${process.version}, ${os.platform()} ${os.release()}, load average ${load}`;
}
