// The `data:` payloads of a server-sent event stream, one per event as it arrives (the simulator's and the
// engines' streams write one `data: …` line per event). An error of the stream (a cut connection) is thrown
// from the loop that reads it.
export async function* sseData(response: Response): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const part of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(part, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = buffer.slice('data: '.length, end);
      buffer = buffer.slice(end + 2);
      yield data;
    }
  }
}
