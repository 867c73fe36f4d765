import { describe, expect, it } from "vitest";
import { carveValidation, DEFAULT_VALIDATION_FRACTION } from "../../src/core/practice/split";

const tasks = (n: number) => Array.from({ length: n }, (_, i) => ({ taskId: `task-${i}` }));

describe("carveValidation", () => {
  it("sets aside the fraction of train tasks, at least 4 where as many stay to train on, always one on each side", () => {
    const sizes = (n: number) => {
      const s = carveValidation(tasks(n), DEFAULT_VALIDATION_FRACTION);
      return [s.train.length, s.validation.length];
    };
    expect(sizes(1)).toEqual([1, 0]);
    expect(sizes(2)).toEqual([1, 1]);
    expect(sizes(5)).toEqual([3, 2]);
    expect(sizes(8)).toEqual([4, 4]);
    expect(sizes(40)).toEqual([30, 10]);
    expect(carveValidation(tasks(40), 0.5).validation).toHaveLength(20);
  });

  it("chooses by the task ids, whatever their order, and keeps each side in the given order", () => {
    const all = tasks(30);
    const a = carveValidation(all, 0.25);
    const b = carveValidation([...all].reverse(), 0.25);
    expect(new Set(b.validation.map((t) => t.taskId))).toEqual(new Set(a.validation.map((t) => t.taskId)));
    expect(a.train.map((t) => t.taskId)).toEqual(all.filter((t) => !a.validation.includes(t)).map((t) => t.taskId));
    expect(a.validation.map((t) => t.taskId)).not.toEqual(all.slice(0, a.validation.length).map((t) => t.taskId));
  });
});
