// A TypeScript workflow module outside the repository, importing the installed
// package: `taskflow serve --workflows flows.ts` must load it.
import { workflow } from "taskflow";

export const greet = workflow("greet", async (ctx, input: { name: string }) => {
  const text = await ctx.step("compose", () => `hello, ${input.name}`);
  return { text };
});
