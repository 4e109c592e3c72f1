// A bounded async channel: producers wait while it is full, consumers wait while it is empty.

export class AsyncChannel<T> {
  private readonly items: T[] = [];
  private readonly takers: ((item: T | undefined) => void)[] = [];
  private readonly putters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly capacity: number = Number.POSITIVE_INFINITY) {}

  get size(): number {
    return this.items.length;
  }

  /** Waits for room, then adds the item. Throws if the channel is closed. */
  async put(item: T): Promise<void> {
    while (this.items.length >= this.capacity && !this.closed) {
      await new Promise<void>((resolve) => this.putters.push(resolve));
    }
    if (this.closed) throw new Error('put on a closed channel');
    const taker = this.takers.shift();
    if (taker) taker(item);
    else this.items.push(item);
  }

  /** The next item, or undefined once the channel is closed and drained. */
  async take(): Promise<T | undefined> {
    const item = this.items.shift();
    if (item !== undefined) {
      this.putters.shift()?.();
      return item;
    }
    if (this.closed) return undefined;
    return new Promise((resolve) => this.takers.push(resolve));
  }

  /** No more puts; waiting takers get undefined once the items are drained. */
  close(): void {
    this.closed = true;
    for (const taker of this.takers.splice(0)) taker(undefined);
    for (const putter of this.putters.splice(0)) putter();
  }
}
