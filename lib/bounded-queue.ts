/** Refused at once because the queue is full: the caller answers "try again" instead of waiting. */
export class QueueFullError extends Error {
  override readonly name = "QueueFullError";
}

/**
 * Runs at most `concurrency` tasks at a time and lets at most `maxWaiting` more wait; beyond that, a task is refused
 * with `QueueFullError` without running. For expensive work whose pile-up would starve everything else.
 */
export class BoundedQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw new QueueFullError("The queue is full.");
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `running` never dips and lets a newcomer jump the line.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }

  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
