/**
 * What a workflow module registers, for the CLI's `--workflows` (serve, worker):
 * apart from cli-engine.ts, whose definition parsing brings the YAML parser
 * (~70 module files) that a worker process never uses.
 */
export { registeredStepNames } from "../engine/definitions/interpreter/step-registry.ts";
export { WorkflowRegistry } from "../engine/durable/registry.ts";
