/**
 * `--workflows <module>`: imports the user's module (path relative to the
 * working directory) and checks that it exports at least one workflow or
 * registers a code step (registerStep, for published definitions). The
 * mistakes a new user makes here get a message that says what to do.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { registeredStepNames, WorkflowRegistry } from "../composition/cli-workflows.ts";
import { loadsAsTypeScript, registerTypeScriptLoader } from "./typescript-loader.ts";

export async function importWorkflowModule(path: string): Promise<Record<string, unknown>> {
  if (loadsAsTypeScript(path)) await registerTypeScriptLoader();
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`--workflows ${path}: ${explain(e)}`, { cause: e });
  }
  const steps = registeredStepNames().length;
  if (new WorkflowRegistry().registerModule(mod) === 0 && steps === 0) {
    throw new Error(
      `--workflows ${path}: the module exports no workflow (use workflow(name, fn)) and ` +
        `registers no code step (registerStep(name, fn))`,
    );
  }
  return mod;
}

function explain(e: unknown): string {
  const { code, message } = e as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(e);
  // A `.js` file with `import` in a project whose package.json has no "type": "module".
  if (e instanceof SyntaxError && /import statement outside a module|token 'export'/.test(text)) {
    return (
      'Node loads this .js file as CommonJS (its package.json says "type": "commonjs" or ' +
      "nothing), " +
      'but it uses import/export: add "type": "module" to that package.json or rename the ' +
      "module to .mjs"
    );
  }
  // A CommonJS module that require()s "taskflow", which is an ES module.
  if (code === "ERR_REQUIRE_ESM") {
    return (
      "taskflow is an ES module and cannot be require()d: write the module with import " +
      '(as .mjs, or with "type": "module" in its package.json)'
    );
  }
  return `cannot load it: ${text}`;
}
