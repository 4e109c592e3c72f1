// `GET /v1/models` in the asking client's shape (OpenAI, Anthropic or Google).
import type { Protocol } from '../providers/canonical.js';

export function renderModelList(protocol: Protocol, models: string[]): unknown {
  switch (protocol) {
    case 'anthropic-messages':
      return {
        data: models.map((id) => ({ type: 'model', id, display_name: id, created_at: '1970-01-01T00:00:00Z' })),
        has_more: false,
        first_id: models[0] ?? null,
        last_id: models.at(-1) ?? null,
      };
    case 'google-genai':
      return {
        models: models.map((id) => ({
          name: `models/${id}`,
          displayName: id,
          supportedGenerationMethods: ['generateContent', 'streamGenerateContent'],
        })),
      };
    case 'openai-chat':
    case 'openai-responses':
      return { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'polar' })) };
    default: {
      const unreachable: never = protocol;
      return unreachable;
    }
  }
}
