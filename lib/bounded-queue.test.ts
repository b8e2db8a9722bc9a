import { describe, expect, it } from "vitest";
import { BoundedQueue, QueueFullError } from "./bounded-queue";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe("BoundedQueue", () => {
  it("runs up to its concurrency, queues up to its limit and refuses the rest at once", async () => {
    const queue = new BoundedQueue(2, 1);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const tasks = gates.map((gate, index) =>
      queue.run(async () => {
        started.push(index);
        await gate.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(queue.size).toEqual({ running: 2, waiting: 1 });
    await expect(queue.run(async () => "late")).rejects.toBeInstanceOf(QueueFullError);

    gates[0]!.resolve();
    await tasks[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    gates[1]!.resolve();
    gates[2]!.resolve();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2]);
    expect(queue.size).toEqual({ running: 0, waiting: 0 });
  });

  it("frees the slot when a task fails", async () => {
    const queue = new BoundedQueue(1, 0);
    await expect(queue.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await queue.run(async () => "next")).toBe("next");
  });
});
