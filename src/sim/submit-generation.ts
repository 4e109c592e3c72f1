// The seam between a route handler and the generation engine: submit the planned tokens, then
// `await handle.next(n)` for the next n of them as the engine emits them.
import type { GenerationService } from './engine/engine-driver.js';
import type { GenerationHandle, GenerationRequest } from './engine/generation-types.js';

/** Submits a request; a client that leaves (`signal`) aborts it in the engine and frees its KV blocks, as in vLLM. */
export function submitGeneration(service: GenerationService, request: GenerationRequest, signal: AbortSignal): GenerationHandle {
  const handle = service.submit(request);
  if (signal.aborted) handle.cancel();
  else signal.addEventListener('abort', () => handle.cancel(), { once: true });
  return handle;
}
