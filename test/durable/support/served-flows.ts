/**
 * The workflow of the served-workflows process test: `taskflow worker` runs
 * it, `taskflow serve --no-worker --workflows` only accepts its name.
 */
import { workflow } from "../../../src/workflow.ts";

export const doubler = workflow("doubler", (ctx, n: number) => ctx.step("double", () => n * 2));
