// Streamed tool calls held back until they can be sent whole (Anthropic tool_use blocks, Google
// functionCall parts), with the sequence checks that go with buffering them.
import { StreamSequenceError } from './stream-sequence-error.js';

export interface BufferedToolCall {
  /** Canonical tool-call index. */
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/** Throws StreamSequenceError for a repeated start or for arguments of an unknown or sent call. */
export class ToolCallBuffer {
  #pending: BufferedToolCall[] = [];
  #sentIndexes = new Set<number>();

  /** `lateArguments` words the error for arguments that arrive after their call was taken. */
  constructor(private readonly lateArguments: (index: number) => string) {}

  /** The turn has tool calls, buffered or already taken. */
  get hasCalls(): boolean {
    return this.#pending.length > 0 || this.#sentIndexes.size > 0;
  }

  start(index: number, id: string, name: string): void {
    if (this.#sentIndexes.has(index) || this.#pending.some((call) => call.index === index)) {
      throw new StreamSequenceError(`tool-call-start for index ${index} came twice`);
    }
    this.#pending.push({ index, id, name, arguments: '' });
  }

  append(index: number, argumentsDelta: string): void {
    const call = this.#pending.find((pending) => pending.index === index);
    if (call === undefined) {
      throw new StreamSequenceError(
        this.#sentIndexes.has(index) ? this.lateArguments(index) : `tool-call-delta for index ${index} without a tool-call-start`,
      );
    }
    call.arguments += argumentsDelta;
  }

  /** The buffered calls in start order; they count as sent from now on. */
  take(): BufferedToolCall[] {
    const calls = this.#pending;
    this.#pending = [];
    for (const call of calls) this.#sentIndexes.add(call.index);
    return calls;
  }
}
