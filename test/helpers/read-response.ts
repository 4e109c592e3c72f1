// Reads an HTTP response in the shape the API tests assert on: status, the body as text, and the body
// parsed as JSON (undefined when it is not JSON, so a test can show the text it got instead).
export interface ReadResponse {
  status: number;
  /** Parsed body, typed loosely: tests index into whatever the route answered. */
  json: any;
  text: string;
  headers: Headers;
}

export async function readResponse(response: Response): Promise<ReadResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}
