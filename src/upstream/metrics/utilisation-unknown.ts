// Why effective GPU utilisation could not be measured: a code for programs (the dashboard shows `no ceiling`
// for `no-ceiling`) and a message for people that says how to fix it.

/**
 * `pending`: no /metrics reading yet; `no-metrics`: /metrics never answered; `no-token-counters`: it answers
 * without prompt and generation token counters; `no-ceiling`: no ceiling is known for the engine;
 * `too-few-readings`: fewer than two readings in the stretch; `no-replicas`: nothing was polled.
 */
export type UtilisationUnknownCode = 'pending' | 'no-metrics' | 'no-token-counters' | 'no-ceiling' | 'too-few-readings' | 'no-replicas';

export interface UtilisationUnknown {
  code: UtilisationUnknownCode;
  message: string;
}
