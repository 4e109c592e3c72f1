// An OpenAI image URL (http(s) or `data:` URL) as a canonical image part.
import type { ContentPart } from '../canonical.js';

/** `data:image/png;base64,...` names its media type; a plain URL does not. */
export function convertImageUrl(url: string): ContentPart {
  const match = /^data:([^;,]+)[;,]/.exec(url);
  return match?.[1] === undefined ? { type: 'image', url } : { type: 'image', url, mediaType: match[1] };
}
